"""Writing a generated world into a new SQLite file, table by table in foreign-key order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Table, create_engine, event, text
from sqlalchemy.schema import CreateIndex, CreateTable

from ..schema import Base
from .context import World


def _complete(table: Table, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give every row every column (bulk inserts bind one parameter set shape for all rows)."""
    fills: dict[str, Any] = {}
    for column in table.columns:
        default = column.default
        fills[column.name] = default.arg if default is not None and default.is_scalar else None
    return [{**fills, **row} for row in rows]


def write_world(
    world: World, path: Path, finish: Callable[[Any], None] | None = None
) -> dict[str, int]:
    """Create `path` (must not exist), create all tables and insert the world's rows.

    The tables are exactly those `Base.metadata.create_all` would make. Returns the row count of
    every table, sorted by table name. The file is left in rollback-journal mode and VACUUMed, so
    equal worlds give byte-identical files. `finish`, if given, gets the raw sqlite3 connection
    inside the writing transaction after the data and indexes (e.g. to add a search index).
    """
    if path.exists():
        raise FileExistsError(f"world file already exists: {path}")
    unknown = sorted(set(world.tables) - set(Base.metadata.tables))
    if unknown:
        raise KeyError(f"generated rows for unknown tables: {', '.join(unknown)}")
    engine = create_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: object) -> None:
        dbapi_conn.execute("PRAGMA foreign_keys=ON")
        dbapi_conn.execute("PRAGMA journal_mode=OFF")
        dbapi_conn.execute("PRAGMA synchronous=OFF")

    counts: dict[str, int] = {}
    finished = False
    try:
        with engine.begin() as conn:
            for table in Base.metadata.sorted_tables:
                conn.execute(CreateTable(table))
            for table in Base.metadata.sorted_tables:
                rows = world.tables.get(table.name, [])
                counts[table.name] = len(rows)
                if rows:
                    conn.execute(table.insert(), _complete(table, rows))
            # Indexes after the data (faster, denser), in name order: `Table.indexes` is a set
            # and `create_all` would create them in hash order, changing the file's bytes.
            for table in Base.metadata.sorted_tables:
                for index in sorted(table.indexes, key=lambda ix: str(ix.name)):
                    conn.execute(CreateIndex(index))
            if finish is not None:
                finish(conn.connection.driver_connection)
        with engine.connect() as conn:
            conn.execute(text("PRAGMA journal_mode=DELETE"))
            conn.execute(text("VACUUM"))
        finished = True
    finally:
        engine.dispose()
        if not finished:
            path.unlink(missing_ok=True)  # never leave a half-written world behind
    return dict(sorted(counts.items()))
