"""What the record-editing CRM templates share (update_deal_terms, log_call, follow_up_task,
complete_activity, update_contact_details, add_account_note): the world's today, business-day
arithmetic, dates as people write them, and the read-only check an oracle makes before
reporting a record it may not edit."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta
from typing import TYPE_CHECKING

from officegym.tasks.match import squash

from .base import world_today

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

READ_ONLY = "Read only for you"


def add_business_days(day: date, count: int) -> date:
    """`day` moved `count` working days (Monday to Friday) later."""
    while count > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            count -= 1
    return day


def spoken_date(day: date) -> str:
    """A date as a colleague writes it: "October 15, 2025"."""
    return f"{day:%B} {day.day}, {day.year}"


def spoken_money(amount: int) -> str:
    return f"${amount:,}"


def person_id(world: sqlite3.Connection, email: str) -> int:
    (found,) = world.execute("SELECT id FROM people_employee WHERE email = ?", (email,)).fetchone()
    return int(found)


def page_says(actions: PageActions, text: str) -> bool:
    """Whether any node of the page (static text included) shows `text`."""
    wanted = squash(text).casefold()
    return any(wanted in squash(node.name or "").casefold() for node in actions.nodes)


def require_read_only(actions: PageActions, what: str) -> None:
    """Check the open record page says it is read only for the user (the oracle reports a
    read-only record as infeasible only after seeing that)."""
    if not page_says(actions, READ_ONLY):
        raise LookupError(f"{what} is not marked read only for this user")


__all__ = [
    "READ_ONLY",
    "add_business_days",
    "page_says",
    "person_id",
    "require_read_only",
    "spoken_date",
    "spoken_money",
    "world_today",
]
