"""How chat writes a time for one reader: on the reader's wall clock, with the day whenever it is
not today, so a time read out of its day separator ("3 replies · Last reply Tue, Sep 2 at
3:05 PM") still says when.

`today` is the reader's local date by the world clock (never the machine's).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from officegym.apps.web.localtime import to_local


def clock(local: datetime) -> str:
    """A wall-clock time like "3:05 PM"."""
    return local.strftime("%I:%M %p").lstrip("0")


def day(local: date, today: date) -> str:
    """A day relative to `today`: "today", "yesterday", "Tue, Sep 2", or "Tue, Sep 2, 2024"
    in another year."""
    if local == today:
        return "today"
    if local == today - timedelta(days=1):
        return "yesterday"
    label = f"{local:%a, %b} {local.day}"
    return label if local.year == today.year else f"{label}, {local.year}"


def when(utc: datetime, timezone: str | None, today: date) -> str:
    """A stored time for a line of its own: "3:05 PM" today, else "Yesterday at 3:05 PM" or
    "Tue, Sep 2 at 3:05 PM"."""
    local = to_local(utc, timezone)
    on = day(local.date(), today)
    if on == "today":
        return clock(local)
    return f"{on[0].upper()}{on[1:]} at {clock(local)}"


def when_phrase(utc: datetime, timezone: str | None, today: date) -> str:
    """A stored time to follow a noun: "today at 3:05 PM", "yesterday at 3:05 PM" or
    "on Tue, Sep 2 at 3:05 PM"."""
    local = to_local(utc, timezone)
    on = day(local.date(), today)
    prefix = on if on in ("today", "yesterday") else f"on {on}"
    return f"{prefix} at {clock(local)}"


__all__ = ["clock", "day", "when", "when_phrase"]
