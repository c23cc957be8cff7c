"""Planted duplicates and what merging them leaves: the accounts the world planted a duplicate
of, the rows that point at a record (what a merge re-points), and the expectations of a
merge."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from officegym.tasks import expect
from officegym.tasks.match import is_set


def duplicated_accounts(world: sqlite3.Connection) -> set[int]:
    """Accounts the world planted a duplicate of (both sides): a request naming one of them
    would be ambiguous."""
    rows = world.execute(
        "SELECT row_id, other_id FROM world_oddity WHERE kind = 'duplicate_account' ORDER BY id"
    ).fetchall()
    return {i for row in rows for i in row if i is not None}


def row(world: sqlite3.Connection, table: str, pk: int) -> dict[str, Any]:
    """Row `pk` of `table` as a dict."""
    cursor = world.execute(f"SELECT * FROM {table} WHERE id = ?", (pk,))
    names = [d[0] for d in cursor.description]
    found = cursor.fetchone()
    if found is None:
        raise LookupError(f"{table} has no row {pk}")
    return dict(zip(names, found, strict=True))


def references(world: sqlite3.Connection, table: str, ids: Sequence[int]) -> list[list[Any]]:
    """[table, pk, column] of every row outside `table`'s history that points at one of
    `ids` of `table` (what a merge re-points at the record kept), in a stable order."""
    if not ids:
        return []
    found: list[list[Any]] = []
    tables = [
        name
        for (name,) in world.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
    ]
    marks = ", ".join("?" for _ in ids)
    for other in tables:
        if other == f"{table}_history":
            continue
        keys = world.execute(f"PRAGMA foreign_key_list('{other}')").fetchall()
        for column in sorted(k[3] for k in keys if k[2] == table):
            rows = world.execute(
                f"SELECT id FROM {other} WHERE {column} IN ({marks}) ORDER BY id", tuple(ids)
            ).fetchall()
            found += [[other, pk, column] for (pk,) in rows if not (other == table and pk in ids)]
    return found


def merged(
    table: str,
    master: int,
    others: Sequence[int],
    changes: Mapping[str, Any],
    moved: Sequence[Sequence[Any]],
) -> list[expect.Expectation]:
    """What merging `others` into `master` of `table` leaves: the others deleted (their
    history with them), the master changed by `changes` (at least its stamp: the merge always
    touches it) and every row in `moved` ([table, pk, column]) re-pointed at the master.

    The merge's point is the records going away: the master's new values and the moved rows
    only count once that happened (`core=False`), so setting the asked values on the master
    without merging earns nothing."""
    checks: list[expect.Expectation] = [
        expect.deleted(table, pk, name=f"{table} #{pk} merged away") for pk in others
    ]
    checks.append(
        expect.updated(
            table,
            master,
            name=f"{table} #{master} kept",
            core=False,
            columns=dict(changes) or {"updated_at": is_set()},
        )
    )
    for other, pk, column in moved:
        checks.append(
            expect.updated(
                other,
                pk,
                name=f"{other} #{pk} moved to the kept record",
                core=False,
                columns={column: master},
            )
        )
    return checks


__all__ = ["duplicated_accounts", "merged", "references", "row"]
