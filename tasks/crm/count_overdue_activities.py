"""crm.count_overdue_activities — how many open activities are overdue: a deal's, or a rep's.

An activity is overdue when it is still open and its due date is before the world's today
(a deal's record page marks each one "Overdue"; the Activities list's "My overdue tasks"
view, filtered by owner, lists a rep's). A deal has at most three overdue activities in the
default world, so asking only about deals would make "1" or "0" right most of the time;
asking about reps too spreads the answers up to a dozen or so. Sampling picks the count first,
uniformly among the counts the world offers, then a deal or a rep with that count (each
kind as likely when both have it), so no count is right for much more than one instance in
ten. A deal drawn has at least two open activities. The wrong-record probe counts another
deal (of the same owner when it has one), or another rep, with a different count.
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

from ._calendar import world_today
from ._people import crm_person_ids, editors, unique_person_name
from .base import CrmTemplate
from .ui import filter_list, list_rows, open_list, open_record

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_DEAL_PHRASINGS = (
    "How many open activities on the {deal} opportunity are overdue?",
    "{deal}: how many of its open tasks and events are past their due date?",
    "Count the overdue activities still open on {deal}, please. Just the number.",
)
_REP_PHRASINGS = (
    "How many open activities does {rep} have that are past their due date?",
    "Count {whose} overdue activities (open tasks and events due before today), please.",
    "{Whose} open activities: how many are overdue right now?",
)
_MY_PHRASINGS = (
    "How many of my open activities are past their due date?",
    "Count my overdue activities (open tasks and events due before today), please.",
    "My open activities: how many are overdue right now?",
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
        deals = world.execute(
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
        deals = [r for r in deals if 2 <= r[4] <= _SHOWN]
        offered = crm_person_ids(world)
        reps = world.execute(
            """
            SELECT e.id, e.display_name,
                   coalesce(sum(a.status != 'Completed' AND a.due_date < ?), 0),
                   coalesce(sum(a.status != 'Completed'), 0), count(a.id)
            FROM people_employee e JOIN crm_activity a ON a.owner_id = e.id
            WHERE e.is_active
            GROUP BY e.id ORDER BY e.id
            """,
            (today,),
        ).fetchall()
        reps = [
            r
            for r in reps
            if r[0] in offered and r[3] <= _SHOWN and unique_person_name(world, r[1])
        ]
        by_count: dict[int, dict[str, list[tuple]]] = {}
        for r in deals:
            by_count.setdefault(r[3], {}).setdefault("deal", []).append(r)
        for r in reps:
            by_count.setdefault(r[2], {}).setdefault("rep", []).append(r)
        overdue = rng.choice(sorted(by_count))
        scope = rng.choice(sorted(by_count[overdue]))
        if scope == "deal":
            deal_id, deal, owner_id, _, open_count, total = rng.choice(by_count[overdue]["deal"])
            _, user, _ = rng.choice(editors(world, owner_id)[:2])
            # Another deal of the same owner with a different count, else any such deal.
            decoys = sorted(r[1] for r in deals if r[2] == owner_id and r[3] != overdue) or sorted(
                r[1] for r in deals if r[3] != overdue
            )
            decoy = {"deal": rng.choice(decoys)} if decoys else None
            target = {"deal_id": deal_id, "deal": deal, "rep": None, "rep_id": None}
        else:
            rep_id, rep, _, open_count, total = rng.choice(by_count[overdue]["rep"])
            user_id, user, _ = rng.choice(editors(world, rep_id)[:2])
            others = sorted(r[1] for r in reps if r[0] != rep_id and r[2] != overdue)
            decoy = {"rep": rng.choice(others)} if others else None
            target = {"deal_id": None, "deal": None, "rep": rep, "rep_id": rep_id}
            target["mine"] = user_id == rep_id
        near = [overdue, overdue + 1, max(overdue - 1, 0), open_count, total]
        return {
            "user": user,
            "scope": scope,
            "mine": False,
            **target,
            "overdue": overdue,
            "open": open_count,
            "candidates": [str(n) for n in dict.fromkeys(near)],
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        if params["scope"] == "deal":
            return rng.choice(_DEAL_PHRASINGS).format(**params)
        if params["mine"]:
            return rng.choice(_MY_PHRASINGS)
        rep = params["rep"]
        return rng.choice(_REP_PHRASINGS).format(rep=rep, whose=f"{rep}'s", Whose=f"{rep}'s")

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if params["deal"]:
            open_record(actions, "Opportunities", params["deal"])
            actions.send_msg_to_user(str(overdue_marks(actions)))
            return
        open_list(actions, "Activities", "My overdue tasks")
        filter_list(actions, {"Owner": params["rep"]})
        actions.send_msg_to_user(str(len(list_rows(actions))))

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(params["overdue"], kind="number", unit="activity"),
            expect.nothing_else(),
        )


__all__ = ["CountOverdueActivities", "overdue_marks"]
