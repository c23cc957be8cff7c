"""Stored times as people read them: every app stores naive UTC and shows the reader's zone.

An employee's `timezone` is an IANA name ("Europe/Berlin"); an empty or unknown one reads as
UTC rather than failing the page.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def zone(name: str | None) -> ZoneInfo | None:
    """The zone called `name`, or None when it is empty or unknown."""
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def to_local(utc: datetime, timezone: str | None) -> datetime:
    """A stored (naive UTC) time as an aware time in `timezone` (UTC when unknown)."""
    aware = utc.replace(tzinfo=UTC)
    found = zone(timezone)
    return aware.astimezone(found) if found is not None else aware


def day_start(day: date, timezone: str | None) -> datetime:
    """Midnight at the start of `day` in `timezone`, as naive UTC (how times are stored)."""
    local = datetime.combine(day, time(), tzinfo=zone(timezone) or UTC)
    return local.astimezone(UTC).replace(tzinfo=None)


__all__ = ["day_start", "to_local", "zone"]
