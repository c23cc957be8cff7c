"""Hand-made episode contexts for grading verifiers without a browser."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.diff import RowUpdate, TableDiff, WorldDiff
from officegym.tasks import registry
from officegym.tasks.protocol import EpisodeContext, Task
from officegym.tasks.verdict import Verdict
from tests.conftest import new_world_id


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


def played(
    store,
    golden: Path,
    tid: str,
    params: Mapping[str, Any],
    acts: Iterable[Callable[[Session], None]],
    *,
    answer: str | None = None,
    infeasible: str | None = None,
    forge: tuple[str, tuple] | None = None,
    prefix: str = "played",
) -> Verdict:
    """Template `tid`'s verdict for `params` on a fresh copy of the small seed-0 world where
    each of `acts` ran in its own committed session (the product's own writes), then `forge`
    (a raw SQL edit of the world file, as no product act would make), with the final message
    or infeasibility report given."""
    world_id = new_world_id(prefix)
    path = store.create(world_id, 0, "small")
    try:
        engine = make_engine(path, create=False)
        try:
            for act in acts:
                with Session(writer(engine)) as db:
                    act(db)
                    db.commit()
        finally:
            engine.dispose()
        if forge is not None:
            conn = sqlite3.connect(path)
            conn.execute(*forge)
            conn.commit()
            conn.close()
        task = Task(goal="do it", user=params["user"], verify=lambda c: Verdict())
        context = EpisodeContext(
            task=task,
            diff=store.diff(world_id),
            world=path,
            golden=Path(golden),
            answer=answer,
            infeasible=infeasible,
        )
        return registry.get(tid).verify(context, params)
    finally:
        store.drop(world_id)


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
