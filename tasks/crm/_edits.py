"""What the record-editing CRM templates share (update_deal_terms, log_call, follow_up_task,
complete_activity, update_contact_details, add_account_note): the world's today, business-day
arithmetic, dates as people write them, a phone matcher that ignores formatting, and the
read-only check an oracle makes before reporting a record it may not edit."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks.answer import phone_digits
from officegym.tasks.match import Matcher, squash

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


class _SamePhone(Matcher):
    def __init__(self, phone: str) -> None:
        self.phone = phone
        self.digits = phone_digits(phone)

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and phone_digits(value) == self.digits

    def describe(self) -> str:
        return f"same_phone({self.phone!r})"


def same_phone(phone: str) -> Matcher:
    """A phone number with the digits of `phone` (spacing, dashes, brackets and a leading +1
    ignored)."""
    return _SamePhone(phone)


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
    "same_phone",
    "spoken_date",
    "spoken_money",
    "world_today",
]
