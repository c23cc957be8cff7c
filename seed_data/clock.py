"""The world clock: the one source of "now" for apps and the generator.

A world's time is frozen at `world_meta.now`. Reads of the current time return it unchanged;
a new row that needs its own timestamp takes `stamp()`, which advances a per-world tick
counter one second, so successive writes are ordered and two identical episodes produce
identical timestamps. Stored datetimes are naive UTC.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

from sqlalchemy import text

from .connect import connect


class _Executes(Protocol):
    def execute(self, statement, params=None, /): ...


_READ = text("SELECT now, clock_ticks FROM world_meta WHERE id = 1")


def _parse(value: object) -> datetime:
    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


def now(db: _Executes) -> datetime:
    """The world's frozen current time (naive UTC)."""
    row = db.execute(_READ).one()
    return _parse(row[0])


def stamp(db: _Executes) -> datetime:
    """A fresh timestamp for a new row: `now` plus one more second than the last stamp.

    Call inside the write transaction that uses it; the tick is part of that transaction.
    """
    db.execute(text("UPDATE world_meta SET clock_ticks = clock_ticks + 1 WHERE id = 1"))
    row = db.execute(_READ).one()
    return _parse(row[0]) + timedelta(seconds=int(row[1]))


def now_of(path: Path | str) -> datetime:
    """The frozen current time of the world file at `path` (read-only, no SQLAlchemy)."""
    conn = connect(path, read_only=True)
    try:
        row = conn.execute("SELECT now FROM world_meta WHERE id = 1").fetchone()
    finally:
        conn.close()
    if row is None:
        raise LookupError(f"{path} has no world_meta row; is it a world file?")
    return _parse(row[0])
