"""Hand-made episode contexts for grading verifiers without a browser."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from officegym.seed_data.diff import RowUpdate, TableDiff, WorldDiff
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
