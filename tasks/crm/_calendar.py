"""The world's calendar as CRM templates read it: today by the world clock, the current
quarter, and working-day arithmetic."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta

from officegym.apps.crm.listing import quarter_of


def world_today(world: sqlite3.Connection) -> date:
    """The world clock's date (the day the user is working on)."""
    (now,) = world.execute("SELECT now FROM world_meta ORDER BY id LIMIT 1").fetchone()
    return datetime.fromisoformat(str(now)).date()


def today(world: sqlite3.Connection) -> str:
    """The world clock's date, ISO-formatted (deal close dates compare with it as text)."""
    return world_today(world).isoformat()


def this_quarter(world: sqlite3.Connection) -> tuple[date, date]:
    """First and last day of the world's current calendar quarter (the CRM's "this quarter")."""
    return quarter_of(world_today(world))


def add_business_days(day: date, count: int) -> date:
    """`day` moved `count` working days (Monday to Friday) later."""
    while count > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            count -= 1
    return day


__all__ = ["add_business_days", "this_quarter", "today", "world_today"]
