"""A read-only SQLAlchemy `Session` over a template's sqlite3 connection.

Templates read the world through plain sqlite3 connections (`Template.sample`,
`EpisodeContext.db`), but the apps state their rules (who may edit what, who may see which
channel) as functions of a `Session`. `read_session` lends the connection to SQLAlchemy so a
template asks the app's own rule instead of re-deriving it in SQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, event
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool


class ReadOnlySession(RuntimeError):
    """Something tried to write through a session opened with `read_session`."""


def _refuse_flush(session: Session, *_: object) -> None:
    raise ReadOnlySession("a read_session is read only: templates never write to the world")


@contextmanager
def read_session(conn: sqlite3.Connection) -> Iterator[Session]:
    """A `Session` reading through `conn` (borrowed: it stays open, and is never committed to).

    The engine's only connection is `conn` itself (`StaticPool`), returned to the pool without
    a rollback so a caller's open transaction is left alone; the session refuses to flush."""
    engine = create_engine(
        "sqlite://", creator=lambda: conn, poolclass=StaticPool, pool_reset_on_return=None
    )
    session = Session(bind=engine, autoflush=False, expire_on_commit=False)
    event.listen(session, "before_flush", _refuse_flush)
    try:
        yield session
    finally:
        session.close()


__all__ = ["ReadOnlySession", "read_session"]
