"""crm.count_overdue_activities — how many of a deal's open activities are overdue.

An activity is overdue when it is still open and its due date is before the world's today
(the deal's record page marks each one "Overdue"). Most instances draw a deal with at least
one overdue activity and more than one open one; about one in six draws a deal whose open
activities (two or more) are all still due, so the answer is 0. The wrong-record probe counts another deal
of the same owner with a different count.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._answers import editors, world_today
from .base import CrmTemplate, open_record

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

_PHRASINGS = (
    "How many open activities on the {deal} opportunity are overdue?",
    "{deal}: how many of its open tasks and events are past their due date?",
    "Count the overdue activities still open on {deal}, please. Just the number.",
)
# A record page lists at most this many open activities.
_SHOWN = 50


def overdue_marks(actions: PageActions) -> int:
    """How many open activities the record page's Activity panel marks "Overdue"."""
    nodes = list(actions.nodes)
    start = next(i for i, n in enumerate(nodes) if n.role == "region" and n.name == "Activity")
    count = 0
    for index in range(start + 1, len(nodes) - 1):
        if nodes[index].depth <= nodes[start].depth:
            break
        if nodes[index].role == "strong" and squash(nodes[index + 1].name) == "Overdue":
            count += 1
    return count


@register
class CountOverdueActivities(CrmTemplate):
    id = "crm.count_overdue_activities"
    difficulty = 2
    difficulty_reason = (
        "find the deal, then count the open activities due before today among its upcoming "
        "ones (completed ones do not count)"
    )
    tags = ("search", "answer")
    max_steps = 16

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = world_today(world).isoformat()
        rows = world.execute(
            """
            SELECT o.id, o.name, o.owner_id,
                   coalesce(sum(a.status != 'Completed' AND a.due_date < ?), 0),
                   coalesce(sum(a.status != 'Completed'), 0), count(a.id)
            FROM crm_opportunity o
            JOIN people_employee e ON e.id = o.owner_id
            LEFT JOIN crm_activity a ON a.opportunity_id = o.id
            WHERE e.is_active AND (SELECT count(*) FROM crm_opportunity p WHERE p.name = o.name) = 1
            GROUP BY o.id ORDER BY o.id
            """,
            (today,),
        ).fetchall()
        rows = [r for r in rows if 1 <= r[4] <= _SHOWN]
        if rng.random() < 1 / 6:
            pool = [r for r in rows if r[3] == 0 and r[4] >= 2]
        else:
            pool = [r for r in rows if r[3] >= 1 and r[4] >= 2]
        deal_id, deal, owner_id, overdue, open_count, total = rng.choice(pool)
        _, user, _ = rng.choice(editors(world, owner_id)[:2])
        near = [overdue, overdue + 1, max(overdue - 1, 0), open_count, total]
        decoys = sorted(r[1] for r in rows if r[2] == owner_id and r[3] != overdue)
        return {
            "user": user,
            "deal_id": deal_id,
            "deal": deal,
            "overdue": overdue,
            "open": open_count,
            "candidates": [str(n) for n in dict.fromkeys(near)],
            "decoy": {"deal": rng.choice(decoys)} if decoys else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Opportunities", params["deal"])
        actions.send_msg_to_user(str(overdue_marks(actions)))

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(params["overdue"], kind="number", max_chars=80),
            expect.nothing_else(),
        )


__all__ = ["CountOverdueActivities", "overdue_marks"]
