"""Money, dates and times as the Booking app shows them and as a colleague writes them.

Train and test goals write dates differently (`short_day` "Oct 20", `long_day` "20 October"),
so the dates of a test goal never make a phrase it shares with a train goal.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, time


def money(cents: int) -> str:
    """Cents as the app shows a price: "$1,234.50"."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def cents_of(text: str) -> int:
    """The cents of a price the app shows ("$1,234.50" → 123450)."""
    found = re.search(r"-?\$?\s*([\d,]+(?:\.\d{1,2})?)", text)
    if found is None:
        raise ValueError(f"no amount in {text!r}")
    whole, _, part = found[1].replace(",", "").partition(".")
    return int(whole) * 100 + int((part + "00")[:2])


def dollars(cents: int) -> float:
    """Cents as the dollar amount an answer states."""
    return round(cents / 100, 2)


def short_day(day: date) -> str:
    """ "Oct 20" (train goals)."""
    return f"{day:%b} {day.day}"


def long_day(day: date) -> str:
    """ "20 October" (test goals)."""
    return f"{day.day} {day:%B}"


def weekday_long(day: date) -> str:
    """ "Monday 20 October" (test goals)."""
    return f"{day:%A} {day.day} {day:%B}"


def stay_range(first: date, last: date) -> str:
    """A stay's dates as My trips and the approvals page show them: "17–20 Sep 2025",
    "29 Sep – 2 Oct 2025", "30 Dec 2025 – 2 Jan 2026"."""
    if first.year != last.year:
        return f"{first.day} {first:%b %Y} – {last.day} {last:%b %Y}"
    if first.month != last.month:
        return f"{first.day} {first:%b} – {last.day} {last:%b %Y}"
    return f"{first.day}–{last.day} {last:%b %Y}"


_RANGE = re.compile(
    r"(\d{1,2})(?: ([A-Z][a-z]{2}))?(?: (\d{4}))?\s*[–-]\s*(\d{1,2}) ([A-Z][a-z]{2}) (\d{4})"
)


def parse_stay_range(text: str) -> tuple[date, date]:
    """The check-in and check-out of a range `stay_range` wrote."""
    found = _RANGE.search(text)
    if found is None:
        raise ValueError(f"no stay dates in {text!r}")
    d1, m1, y1, d2, m2, y2 = found.groups()
    last = date(int(y2), month_number(m2), int(d2))
    return date(int(y1 or y2), month_number(m1 or m2), int(d1)), last


def month_number(name: str) -> int:
    """1-12 for a month's English name or its three-letter abbreviation."""
    return [m[:3] for m in calendar.month_name].index(name[:3].title())


def clock(at: time) -> str:
    """ "09:30", as the rooms pages show a time."""
    return f"{at.hour:02d}:{at.minute:02d}"


def possessive(name: str) -> str:
    """ "Gloria Baker's", "Benjamin Jennings'"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


__all__ = [
    "cents_of",
    "clock",
    "dollars",
    "long_day",
    "money",
    "month_number",
    "parse_stay_range",
    "possessive",
    "short_day",
    "stay_range",
    "weekday_long",
]
