"""crm.biggest_deal_this_quarter — name a rep's largest open deal closing this quarter, and
its amount.

The brief asked for a named account, but no account of the default world has two open deals
closing this quarter (each of the 29 such deals is its account's only one), so the question
is asked per rep: the opportunity owner. Only reps with at least two such deals and one
clearly largest are drawn. The user is the rep or one of their managers. The answer names the
deal (in full, or its product part when that is unique among the rep's deals) and its amount;
naming any other of the rep's deals fails.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from itertools import groupby
from typing import Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._calendar import this_quarter
from ._formats import amount_of, money
from ._people import crm_person_ids, editors, unique_person_name
from .base import CrmTemplate
from .ui import filter_list, list_rows, open_list

_PHRASINGS = (
    "Which of {whose} open deals closing this quarter is the biggest? Tell me its name and amount.",
    "Among the open opportunities {owner_clause} with a close date this quarter, which has the "
    "largest amount? I need the deal name and the amount.",
    "What's the largest open deal {subject} expected to close this quarter, and how much is it "
    "worth?",
)


def short_name(deal: str) -> str:
    """The product part of a deal name ("Acme — Platform renewal" → "Platform renewal")."""
    return deal.split(" — ", 1)[1] if " — " in deal else deal


@register
class BiggestDealThisQuarter(CrmTemplate):
    id = "crm.biggest_deal_this_quarter"
    difficulty = 3
    difficulty_reason = (
        "filter the opportunities to one owner, open stages and this quarter's close dates, "
        "then compare the amounts of the rows left"
    )
    tags = ("navigation", "answer")
    max_steps = 18

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        start, end = this_quarter(world)
        rows = world.execute(
            """
            SELECT o.owner_id, e.display_name, o.id, o.name, o.amount
            FROM crm_opportunity o JOIN people_employee e ON e.id = o.owner_id
            WHERE o.stage NOT IN ('Closed Won', 'Closed Lost') AND o.amount IS NOT NULL
              AND o.close_date BETWEEN ? AND ? AND e.is_active
            ORDER BY o.owner_id, o.amount DESC, o.id
            """,
            (start.isoformat(), end.isoformat()),
        ).fetchall()
        offered = crm_person_ids(world)
        groups = {}
        for (owner_id, rep), deals in groupby(rows, key=lambda r: (r[0], r[1])):
            deals = list(deals)
            if (
                len(deals) >= 2
                and deals[0][4] > deals[1][4]
                and owner_id in offered
                and unique_person_name(world, rep)
            ):
                groups[(owner_id, rep)] = [(d[2], d[3], d[4]) for d in deals]
        (rep_id, rep) = rng.choice(sorted(groups))
        deals = groups[(rep_id, rep)]
        deal_id, deal, amount = deals[0]
        user_id, user, _ = rng.choice(editors(world, rep_id)[:3])
        others = sorted(r for r in groups if r[0] != rep_id)
        shorts = [short_name(d[1]) for d in deals]
        return {
            "user": user,
            "user_is_rep": user_id == rep_id,
            "rep": rep,
            "rep_id": rep_id,
            "deal_id": deal_id,
            "deal": deal,
            "amount": amount,
            "short": short_name(deal) if shorts.count(short_name(deal)) == 1 else None,
            "deals": [[name, value] for _, name, value in deals],
            "candidates": [f"{name} ({money(value)})" for _, name, value in deals],
            "decoy": {"rep": rng.choice(others)[1]} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        mine = params["user_is_rep"]
        rep = params["rep"]
        return rng.choice(_PHRASINGS).format(
            whose="my" if mine else f"{rep}'s",
            owner_clause="I own" if mine else f"{rep} owns",
            subject="I am" if mine else f"{rep} is",
        )

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_list(actions, "Opportunities", "Closing this quarter")
        filter_list(actions, {"Owner": params["rep"]})
        rows = list_rows(actions)
        best = max(rows, key=lambda row: amount_of(row.columns["Amount"]))
        actions.send_msg_to_user(f"{best.columns['Opportunity name']}, {best.columns['Amount']}")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        names = [params["deal"]] + ([params["short"]] if params["short"] else [])
        others = [name for name, _ in params["deals"] if name != params["deal"]]
        return expect.grade(
            ctx,
            expect.answer(names, kind="text", distractors=others, name="deal named"),
            expect.answer(
                params["amount"],
                kind="money",
                distractors=[money(value) for _, value in params["deals"][1:]],
                name="amount stated",
            ),
            expect.nothing_else(),
        )


__all__ = ["BiggestDealThisQuarter", "short_name"]
