"""The change log kept inside every world file, so reset and diff cost O(changes).

Triggers on every table record `(table, primary key)` of each inserted, updated or deleted row
into `_changes`. The log is relative to the golden world the file was copied from, named in
`_base`. A row not in the log is byte-for-byte the golden's row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

CHANGES_TABLE = "_changes"
BASE_TABLE = "_base"


def world_tables(conn: sqlite3.Connection, schema: str = "main") -> list[str]:
    """The world's data tables in name order (everything but SQLite's and the log's own)."""
    rows = conn.execute(
        f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table' "
        "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name"
    ).fetchall()
    return [name for (name,) in rows]


def install(conn: sqlite3.Connection, base_id: str) -> None:
    """Create the log table, the base marker and the triggers on every world table."""
    conn.execute(
        f"CREATE TABLE {CHANGES_TABLE} (tbl TEXT NOT NULL, pk INTEGER NOT NULL, "
        "PRIMARY KEY (tbl, pk)) WITHOUT ROWID"
    )
    conn.execute(f"CREATE TABLE {BASE_TABLE} (id INTEGER PRIMARY KEY, base TEXT NOT NULL)")
    conn.execute(f"INSERT INTO {BASE_TABLE} (id, base) VALUES (1, ?)", (base_id,))
    for table in world_tables(conn):
        log_new = f"INSERT OR IGNORE INTO {CHANGES_TABLE} VALUES ('{table}', NEW.rowid);"
        log_old = f"INSERT OR IGNORE INTO {CHANGES_TABLE} VALUES ('{table}', OLD.rowid);"
        conn.execute(
            f'CREATE TRIGGER "_log_{table}_insert" AFTER INSERT ON "{table}" BEGIN {log_new} END'
        )
        conn.execute(
            f'CREATE TRIGGER "_log_{table}_update" AFTER UPDATE ON "{table}" '
            f"BEGIN {log_old} {log_new} END"
        )
        conn.execute(
            f'CREATE TRIGGER "_log_{table}_delete" AFTER DELETE ON "{table}" BEGIN {log_old} END'
        )


def base_of(conn: sqlite3.Connection, schema: str = "main") -> str | None:
    """The golden this file's log is relative to, or None if it keeps no log."""
    try:
        row = conn.execute(f"SELECT base FROM {schema}.{BASE_TABLE} WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


def key_chunks(pks: Sequence[int], size: int = 500) -> Iterator[tuple[Sequence[int], str]]:
    """Primary keys in slices small enough for SQLite's parameter limit, each with its `?,?,…`."""
    for start in range(0, len(pks), size):
        chunk = pks[start : start + size]
        yield chunk, ",".join("?" * len(chunk))


def logged_tables(conn: sqlite3.Connection, schema: str = "main") -> list[str]:
    """Tables with at least one logged change, sorted."""
    rows = conn.execute(f"SELECT DISTINCT tbl FROM {schema}.{CHANGES_TABLE} ORDER BY tbl")
    return [table for (table,) in rows]


def logged(conn: sqlite3.Connection, schema: str = "main") -> dict[str, list[int]]:
    """Primary keys changed since the base, per table, sorted."""
    out: dict[str, list[int]] = {}
    for table, pk in conn.execute(f"SELECT tbl, pk FROM {schema}.{CHANGES_TABLE} ORDER BY tbl, pk"):
        out.setdefault(table, []).append(pk)
    return out


Value = int | float | str | bytes | None


@dataclass(frozen=True)
class Snapshot:
    """A world's state captured as the rows its log says differ from the golden.

    `rows[table][pk]` is the row's values in `columns[table]` order, or None where the row did
    not exist. Everything else in the world equals the golden file at `golden`.
    """

    base: str
    golden: str
    columns: Mapping[str, tuple[str, ...]]
    rows: Mapping[str, Mapping[int, tuple[Value, ...] | None]]

    @property
    def size(self) -> int:
        """How many rows the snapshot holds."""
        return sum(len(rows) for rows in self.rows.values())
