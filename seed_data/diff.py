"""What changed between two world states, per table and keyed by primary key.

`diff(before, after)` takes world files or `Snapshot`s. When both sides keep a change log
relative to the same golden (every world the store makes does), only logged rows are read, so
the cost is O(changes); otherwise every table is compared in full.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .changelog import CHANGES_TABLE, Snapshot, Value, base_of, key_chunks, logged, world_tables
from .connect import connect

Row = Mapping[str, Value]


class DiffError(ValueError):
    """The two sides cannot be compared (e.g. a snapshot against a world of another base)."""


@dataclass(frozen=True)
class RowUpdate:
    """An updated row: the changed columns (old, new) and the whole row after the change."""

    changes: Mapping[str, tuple[Value, Value]]
    row: Row


@dataclass(frozen=True)
class TableDiff:
    inserted: Mapping[int, Row] = field(default_factory=dict)
    deleted: Mapping[int, Row] = field(default_factory=dict)
    updated: Mapping[int, RowUpdate] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.inserted) + len(self.deleted) + len(self.updated)


@dataclass(frozen=True)
class WorldDiff:
    """Per-table changes; tables without changes are absent. Iterates in table-name order."""

    tables: Mapping[str, TableDiff] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.tables)

    def __len__(self) -> int:
        """Number of changed rows."""
        return sum(len(t) for t in self.tables.values())

    def table(self, name: str) -> TableDiff:
        return self.tables.get(name, TableDiff())

    def counts(self) -> dict[str, dict[str, int]]:
        return {
            name: {
                "inserted": len(t.inserted),
                "deleted": len(t.deleted),
                "updated": len(t.updated),
            }
            for name, t in self.tables.items()
        }

    def without(self, *names: str) -> WorldDiff:
        """The same diff minus the named tables (e.g. `world_meta`, whose clock ticks)."""
        return WorldDiff({k: v for k, v in self.tables.items() if k not in names})

    def to_json(self) -> dict[str, Any]:
        return {
            name: {
                "inserted": {str(pk): _enc_row(r) for pk, r in t.inserted.items()},
                "deleted": {str(pk): _enc_row(r) for pk, r in t.deleted.items()},
                "updated": {
                    str(pk): {
                        "changes": {c: [_enc(o), _enc(n)] for c, (o, n) in u.changes.items()},
                        "row": _enc_row(u.row),
                    }
                    for pk, u in t.updated.items()
                },
            }
            for name, t in self.tables.items()
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WorldDiff:
        tables = {}
        for name in sorted(data):
            t = data[name]
            tables[name] = TableDiff(
                inserted={int(pk): _dec_row(r) for pk, r in t.get("inserted", {}).items()},
                deleted={int(pk): _dec_row(r) for pk, r in t.get("deleted", {}).items()},
                updated={
                    int(pk): RowUpdate(
                        changes={c: (_dec(o), _dec(n)) for c, (o, n) in u["changes"].items()},
                        row=_dec_row(u["row"]),
                    )
                    for pk, u in t.get("updated", {}).items()
                },
            )
        return cls(tables)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True)

    @classmethod
    def loads(cls, text: str) -> WorldDiff:
        return cls.from_json(json.loads(text))

    def __str__(self) -> str:
        if not self.tables:
            return "no changes"
        lines: list[str] = []
        for name, t in self.tables.items():
            parts = [
                f"{len(rows)} {verb}"
                for verb, rows in (
                    ("inserted", t.inserted),
                    ("updated", t.updated),
                    ("deleted", t.deleted),
                )
                if rows
            ]
            lines.append(f"{name}: {', '.join(parts)}")
            for pk, row in t.inserted.items():
                fields = ", ".join(f"{c}={_show(v)}" for c, v in row.items() if c != "id")
                lines.append(f"  + #{pk} {fields}")
            for pk, u in t.updated.items():
                fields = "; ".join(
                    f"{c}: {_show(o)} → {_show(n)}" for c, (o, n) in u.changes.items()
                )
                lines.append(f"  ~ #{pk} {fields}")
            for pk, row in t.deleted.items():
                fields = ", ".join(f"{c}={_show(v)}" for c, v in row.items() if c != "id")
                lines.append(f"  - #{pk} {fields}")
        return "\n".join(lines)


def _show(value: Value, limit: int = 60) -> str:
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _enc(value: Value) -> Any:
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode()}
    return value


def _dec(value: Any) -> Value:
    if isinstance(value, dict):
        return base64.b64decode(value["$bytes"])
    return value


def _enc_row(row: Row) -> dict[str, Any]:
    return {c: _enc(v) for c, v in row.items()}


def _dec_row(row: Mapping[str, Any]) -> dict[str, Value]:
    return {c: _dec(v) for c, v in row.items()}


def table_diff(
    columns: tuple[str, ...],
    before: Mapping[int, tuple[Value, ...]],
    after: Mapping[int, tuple[Value, ...]],
) -> TableDiff:
    """Compare two sets of one table's rows keyed by primary key."""
    inserted: dict[int, Row] = {}
    deleted: dict[int, Row] = {}
    updated: dict[int, RowUpdate] = {}
    for pk in sorted(set(before) | set(after)):
        old, new = before.get(pk), after.get(pk)
        if old == new:
            continue
        if old is None:
            inserted[pk] = dict(zip(columns, new, strict=True))
        elif new is None:
            deleted[pk] = dict(zip(columns, old, strict=True))
        else:
            changes = {c: (o, n) for c, o, n in zip(columns, old, new, strict=True) if o != n}
            updated[pk] = RowUpdate(changes, dict(zip(columns, new, strict=True)))
    return TableDiff(inserted, deleted, updated)


def read_rows(
    conn: sqlite3.Connection, table: str, pks: Iterable[int], schema: str = "main"
) -> tuple[tuple[str, ...], dict[int, tuple[Value, ...]]]:
    """Columns and rows of `table` with the given primary keys (absent ones are left out)."""
    keys = list(pks)
    cur = conn.execute(f'SELECT * FROM {schema}."{table}" LIMIT 0')
    columns = tuple(d[0] for d in cur.description)
    rows: dict[int, tuple[Value, ...]] = {}
    for chunk, marks in key_chunks(keys):
        for row in conn.execute(
            f'SELECT rowid, * FROM {schema}."{table}" WHERE rowid IN ({marks})', chunk
        ):
            rows[row[0]] = tuple(row[1:])
    return columns, rows


def read_logged(
    conn: sqlite3.Connection, table: str, schema: str = "main"
) -> tuple[tuple[str, ...], dict[int, tuple[Value, ...]]]:
    """Columns and rows of `schema.table` whose keys are in main's change log.

    The statement text depends only on the table, so SQLite's statement cache serves it.
    """
    cur = conn.execute(
        f'SELECT rowid, * FROM {schema}."{table}" '
        f"WHERE rowid IN (SELECT pk FROM main.{CHANGES_TABLE} WHERE tbl = ?)",
        (table,),
    )
    columns = tuple(d[0] for d in cur.description[1:])
    return columns, {row[0]: tuple(row[1:]) for row in cur}


def _open(path: Path | str) -> sqlite3.Connection:
    path = Path(path)
    if not path.is_file():
        raise DiffError(f"no world file at {path}")
    conn = connect(path, read_only=True)
    conn.execute("BEGIN")  # one read snapshot for the whole comparison
    return conn


class _FileSide:
    def __init__(self, path: Path | str) -> None:
        self.conn = _open(path)
        self.base = base_of(self.conn)
        self.log = logged(self.conn) if self.base is not None else {}

    def rows(self, table: str, pks: list[int]):
        return read_rows(self.conn, table, pks)

    def close(self) -> None:
        self.conn.close()


class _SnapshotSide:
    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.base = snap.base
        self.log = {t: sorted(rows) for t, rows in snap.rows.items() if rows}
        self._golden: sqlite3.Connection | None = None

    def rows(self, table: str, pks: list[int]):
        held = self.snap.rows.get(table, {})
        missing = [pk for pk in pks if pk not in held]
        if self._golden is None:
            self._golden = _open(self.snap.golden)
        columns, rows = read_rows(self._golden, table, missing)
        for pk in pks:
            if pk in held and held[pk] is not None:
                rows[pk] = held[pk]
        return columns, rows

    def close(self) -> None:
        if self._golden is not None:
            self._golden.close()


def diff(before: Path | str | Snapshot, after: Path | str | Snapshot) -> WorldDiff:
    """Every row inserted, deleted or updated from `before` to `after`, by table and key."""
    sides = []
    try:
        for item in (before, after):
            sides.append(_SnapshotSide(item) if isinstance(item, Snapshot) else _FileSide(item))
        b, a = sides
        if b.base is not None and b.base == a.base:
            return _diff_logged(b, a)
        if isinstance(b, _SnapshotSide) or isinstance(a, _SnapshotSide):
            raise DiffError(
                f"a snapshot of base {b.base!r} cannot be compared with a world of base {a.base!r}"
            )
        return _diff_full(b.conn, a.conn)
    finally:
        for side in sides:
            side.close()


def _diff_logged(b, a) -> WorldDiff:
    tables: dict[str, TableDiff] = {}
    for table in sorted(set(b.log) | set(a.log)):
        pks = sorted(set(b.log.get(table, ())) | set(a.log.get(table, ())))
        columns, old = b.rows(table, pks)
        _, new = a.rows(table, pks)
        td = table_diff(columns, old, new)
        if td:
            tables[table] = td
    return WorldDiff(tables)


def _diff_full(b: sqlite3.Connection, a: sqlite3.Connection) -> WorldDiff:
    tables: dict[str, TableDiff] = {}
    for table in sorted(set(world_tables(b)) | set(world_tables(a))):
        old = _all_rows(b, table)
        new = _all_rows(a, table)
        columns = old[0] or new[0]
        td = table_diff(columns, old[1], new[1])
        if td:
            tables[table] = td
    return WorldDiff(tables)


def _all_rows(conn: sqlite3.Connection, table: str):
    try:
        cur = conn.execute(f'SELECT rowid, * FROM "{table}"')
    except sqlite3.OperationalError:
        return (), {}
    columns = tuple(d[0] for d in cur.description[1:])
    return columns, {row[0]: tuple(row[1:]) for row in cur}
