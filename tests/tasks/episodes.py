"""Hand-made episode contexts for grading verifiers without a browser."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from officegym.seed_data.diff import RowUpdate, TableDiff, WorldDiff
from officegym.tasks import registry
from officegym.tasks.protocol import EpisodeContext, Task
from officegym.tasks.verdict import Verdict


def ctx(tables=None, *, answer=None, infeasible=None) -> EpisodeContext:
    """A context whose diff is `tables` ({table: {"inserted"|"deleted"|"updated": {pk: row}}})."""
    task = Task(goal="do it", user="dana@example.com", verify=lambda c: Verdict())
    diff = WorldDiff({name: TableDiff(**parts) for name, parts in (tables or {}).items()})
    nowhere = Path("/nonexistent")
    return EpisodeContext(
        task=task, diff=diff, world=nowhere, golden=nowhere, answer=answer, infeasible=infeasible
    )


def update(row, **changes) -> RowUpdate:
    """`row` updated with `changes` (column=(old, new))."""
    return RowUpdate(changes=changes, row={**row, **{k: v[1] for k, v in changes.items()}})


def one(world: sqlite3.Connection, sql: str, *args):
    """The first row of `sql` on `world`."""
    return world.execute(sql, args).fetchone()


def grade(template_id: str, params, tables=None, **kwargs) -> Verdict:
    """Template `template_id`'s verdict on a hand-made diff (`ctx`) for instance `params`."""
    return registry.get(template_id).verify(ctx(tables, **kwargs), params)


def is_member(world: sqlite3.Connection, channel_id: int, employee_id: int) -> bool:
    """Whether the employee is a member of the chat channel in `world`."""
    sql = "SELECT 1 FROM chat_membership WHERE channel_id = ? AND employee_id = ?"
    return one(world, sql, channel_id, employee_id) is not None


def row(world: sqlite3.Connection, table: str, pk: int) -> dict:
    """Row `pk` of `table` in `world`, by column name."""
    cursor = world.execute(f"SELECT * FROM {table} WHERE id = ?", (pk,))
    names = [c[0] for c in cursor.description]
    return dict(zip(names, cursor.fetchone(), strict=True))


def changed(world: sqlite3.Connection, table: str, pk: int, **changes) -> dict:
    """A one-row update diff of `table` row `pk` to the values `changes`."""
    before = row(world, table, pk)
    pairs = {k: (before[k], v) for k, v in changes.items()}
    return {table: {"updated": {pk: update(before, **pairs)}}}


def message(pk: int, channel: int, body: str, author: int = 3, parent: int | None = None) -> dict:
    """A chat_message row as a hand-made diff holds it."""
    return {
        "id": pk,
        "channel_id": channel,
        "author_id": author,
        "body": body,
        "thread_parent_id": parent,
    }
