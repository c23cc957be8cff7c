"""Opening a world file: SQLite pragmas every connection needs and real transactions.

Python's sqlite3 driver only opens a transaction before a write, so a request's reads could
straddle a concurrent reset and see two worlds. Engines made here take over BEGIN themselves:
every unit of work is one SQLite transaction, a consistent snapshot under WAL. Units of work
that will write use `writer(engine)`, which begins with BEGIN IMMEDIATE so two writers queue
on the lock instead of failing mid-transaction. Units of work that must not write use
`reader(engine)`: SQLite's `query_only` refuses any write in them. A read transaction that
tried to write would fail whenever another writer committed first (SQLite cannot upgrade a
stale snapshot, whatever the busy timeout), so a web GET is a reader by construction.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Engine, create_engine, event

BUSY_TIMEOUT_MS = 30_000


def configure_connection(conn: sqlite3.Connection) -> None:
    """Apply the pragmas every world connection uses (foreign keys on, WAL, no fsync)."""
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA synchronous=OFF")
    # REPLACE conflict resolution deletes rows; only with this on do delete triggers (the
    # change log) see those deletions.
    conn.execute("PRAGMA recursive_triggers=ON")


def file_uri(path: Path | str, *, read_only: bool = False, immutable: bool = False) -> str:
    """A SQLite URI for `path` (quoted, so odd characters in folder names are safe)."""
    uri = Path(path).resolve().as_uri()
    params = [p for p, on in (("mode=ro", read_only), ("immutable=1", immutable)) if on]
    return uri + ("?" + "&".join(params) if params else "")


def connect(path: Path | str, *, read_only: bool = False) -> sqlite3.Connection:
    """A raw sqlite3 connection in autocommit mode (transactions are explicit BEGIN/COMMIT).

    URI filenames are enabled, so `ATTACH` accepts `file_uri(...)` strings.
    """
    conn = sqlite3.connect(
        file_uri(path, read_only=read_only),
        uri=True,
        isolation_level=None,
        check_same_thread=False,
        timeout=BUSY_TIMEOUT_MS / 1000,
        cached_statements=512,
    )
    configure_connection(conn)
    return conn


def make_engine(path: Path | str, *, create: bool = True) -> Engine:
    """A SQLAlchemy engine on a world file with explicit transactions (see module doc).

    With `create=False` a connection fails instead of creating the file if it is missing
    (a world dropped while the engine is cached must not come back as an empty file).
    """
    engine = create_engine(
        f"sqlite:///{Path(path)}",
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
        pool_size=8,
        max_overflow=24,
    )
    if not create:
        existing_only = file_uri(path) + "?mode=rw"

        @event.listens_for(engine, "do_connect")
        def _no_create(_dialect, _record, cargs: list, cparams: dict) -> None:
            cargs[:] = [existing_only]
            cparams["uri"] = True

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        dbapi_conn.isolation_level = None
        configure_connection(dbapi_conn)

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        options = conn.get_execution_options()
        query_only = bool(options.get("sqlite_query_only", False))
        if conn.info.get("query_only", False) != query_only:
            conn.exec_driver_sql(f"PRAGMA query_only={int(query_only)}")
            conn.info["query_only"] = query_only
        conn.exec_driver_sql(f"BEGIN {options.get('sqlite_begin', 'DEFERRED')}")

    return engine


def writer(engine: Engine) -> Engine:
    """The same engine and pool, beginning each transaction with BEGIN IMMEDIATE."""
    return engine.execution_options(sqlite_begin="IMMEDIATE", sqlite_query_only=False)


def reader(engine: Engine) -> Engine:
    """The same engine and pool, its transactions read-only (a write raises)."""
    return engine.execution_options(sqlite_begin="DEFERRED", sqlite_query_only=True)
