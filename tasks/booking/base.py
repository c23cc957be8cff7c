"""What Booking templates share: the app, the start page and the gate's collateral edit. The UI
moves oracles are made of live in `ui`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import time, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks.registry import Template

from ._formats import clock
from .ui import fill_field, nav, office_today

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

COLLATERAL_TITLE = "Quiet focus time"
# Nine weeks out, at the end of the office day: later than any booking a template asks for.
COLLATERAL_WEEKS = 9
COLLATERAL_START, COLLATERAL_END = time(19, 30), time(19, 45)


class BookingTemplate(Template):
    """Base of the Booking templates: `apps`, start page, collateral edit."""

    apps = ("booking",)

    def start_url(self, params: Mapping[str, Any]) -> str:
        return "/booking/"

    def collateral(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        """Book the first room of the user's office for a quarter hour nine weeks from today,
        at 19:30 office time (anyone may book a free room)."""
        day = office_today(actions) + timedelta(weeks=COLLATERAL_WEEKS)
        nav(actions, "Meeting rooms")
        actions.click(actions.find("link", "Book a room", exact=True))
        fill_field(actions, "Date", "Date", day.isoformat())
        actions.select_option(
            actions.find("combobox", "Start time", exact=True), clock(COLLATERAL_START)
        )
        actions.select_option(
            actions.find("combobox", "End time", exact=True), clock(COLLATERAL_END)
        )
        fill_field(actions, "textbox", "Title", COLLATERAL_TITLE)
        actions.click(actions.find("button", "Book", exact=True))


__all__ = ["COLLATERAL_TITLE", "BookingTemplate"]
