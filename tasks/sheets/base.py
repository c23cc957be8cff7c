"""What sheets templates share: the app, the start page and the gate's collateral edit. The UI
moves oracles are made of live in `ui`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks.registry import Template

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

COLLATERAL_NAME = "Scratch notes"


class SheetsTemplate(Template):
    """Base of the sheets templates: `apps`, start page, collateral edit."""

    apps = ("sheets",)

    def start_url(self, params: Mapping[str, Any]) -> str:
        return "/sheets/"

    def collateral(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        """Create a stray workbook (anyone may create workbooks)."""
        actions.goto("/sheets/")
        box = actions.find("textbox", "New workbook name", exact=True)
        actions.fill(box, COLLATERAL_NAME)
        actions.click(actions.find("button", "Create workbook", exact=True))


__all__ = ["COLLATERAL_NAME", "SheetsTemplate"]
