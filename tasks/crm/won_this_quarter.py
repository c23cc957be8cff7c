"""crm.won_this_quarter — the total a named rep won (Closed Won) this quarter (test split).

"This quarter" is the calendar quarter of the world's today, as the CRM's "Won this quarter"
view and the reports page count it: Closed Won opportunities with a close date in the
quarter, amounts summed as stored. The user is one of the rep's managers, so the home page's
"my numbers" does not answer it; the opportunities list filtered by owner, stage and close
date does. The wrong-record probe totals another rep.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.crm.listing import quarter_of
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._calendar import this_quarter, world_today
from ._formats import amount_of, money
from ._people import crm_person_ids, editors, unique_person_name
from .base import CrmTemplate
from .ui import filter_list, list_rows, open_list

_PHRASINGS = (
    "Ahead of my one-on-one with {rep}, I'd like their closed-won dollars for the current "
    "quarter. What's the figure?",
    "Quarterly scorecard time: what revenue has {rep} booked as Closed Won since the quarter "
    "began?",
    "Tally {rep}'s Closed Won opportunities dated within the present quarter and report the "
    "sum in dollars.",
)


def _sum(world: sqlite3.Connection, where: str, *args: Any) -> int:
    (total,) = world.execute(
        f"SELECT coalesce(sum(amount), 0) FROM crm_opportunity WHERE {where}", args
    ).fetchone()
    return int(total)


@register
class WonThisQuarter(CrmTemplate):
    id = "crm.won_this_quarter"
    difficulty = 3
    difficulty_reason = (
        "combine three filters (owner, Closed Won, this quarter's close dates) on the "
        "opportunities list, or a saved view plus the owner filter, then add up the amounts"
    )
    split = "test"
    tags = ("navigation", "answer")
    max_steps = 18

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        start, end = (d.isoformat() for d in this_quarter(world))
        reps = world.execute(
            """
            SELECT o.owner_id, e.display_name, sum(o.amount), count(*)
            FROM crm_opportunity o JOIN people_employee e ON e.id = o.owner_id
            WHERE o.stage = 'Closed Won' AND o.close_date BETWEEN ? AND ? AND e.is_active
            GROUP BY o.owner_id ORDER BY o.owner_id
            """,
            (start, end),
        ).fetchall()
        offered = crm_person_ids(world)
        reps = [r for r in reps if r[0] in offered and unique_person_name(world, r[1])]
        rep_id, rep, total, count = rng.choice(reps)
        chain = editors(world, rep_id)
        _, user, _ = rng.choice(chain[1:3] or chain)
        last_start, last_end = (d.isoformat() for d in quarter_of(world_today(world), -1))
        won, lost = "stage = 'Closed Won'", "stage = 'Closed Lost'"
        still_open = "stage NOT IN ('Closed Won', 'Closed Lost')"
        in_quarter = " AND close_date BETWEEN ? AND ?"
        rep_only = " AND owner_id = ?"
        # Totals an agent could mistake for it: all time, last quarter, lost, still open, and
        # everyone's wins this quarter.
        near = [
            total,
            _sum(world, won + rep_only, rep_id),
            _sum(world, won + in_quarter + rep_only, last_start, last_end, rep_id),
            _sum(world, lost + in_quarter + rep_only, start, end, rep_id),
            _sum(world, still_open + in_quarter + rep_only, start, end, rep_id),
            _sum(world, won + in_quarter, start, end),
        ]
        others = sorted((r[1] for r in reps if r[2] != total), key=str)
        return {
            "user": user,
            "rep": rep,
            "rep_id": rep_id,
            "total": int(total),
            "deals": count,
            "candidates": [money(n) for n in dict.fromkeys(near) if n],
            "decoy": {"rep": rng.choice(others)} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_list(actions, "Opportunities", "Won this quarter")
        filter_list(actions, {"Owner": params["rep"]})
        total = sum(amount_of(row.columns["Amount"]) for row in list_rows(actions))
        actions.send_msg_to_user(money(total))

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(params["total"], kind="money", distractors=params["candidates"][1:]),
            expect.nothing_else(),
        )


__all__ = ["WonThisQuarter"]
