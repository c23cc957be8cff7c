"""crm.advance_deals_bulk — move all of your deals with one account from one stage to a later one.

The user owns two or more open opportunities with the named account in stage S; all of them
must move to the later stage T (each then takes T's default probability, as the app does on a
stage change). The list view's search, owner and stage filters with a bulk stage change do it
at once; moving each deal on its record page is graded the same. The user's other deals with
that account (in other stages), and their S deals with other accounts, stay put: the
wrong-record probe moves one of those sets too (or, failing both, moves to the wrong stage).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._stages import OPEN, stage_changes
from .base import CrmTemplate
from .ui import fill_fields, filter_list, list_rows

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_ANY_OPEN = "Any open stage"
_PHRASINGS = (
    "All of my {old} opportunities with {account} have moved forward. Please set each of "
    "them to {new}.",
    "Good news from {account}: every deal I have with them that is sitting in {old} should "
    "now be in {new}. Can you update the CRM?",
    "Please move my {account} opportunities that are currently at the {old} stage to {new}.",
)


@register
class AdvanceDealsBulk(CrmTemplate):
    id = "crm.advance_deals_bulk"
    difficulty = 3
    difficulty_reason = (
        "narrow the opportunities list to one's own deals of one account in one stage, "
        "select them and bulk-change their stage (with a confirmation page)"
    )
    tags = ("navigation", "search", "form", "multi-step")
    max_steps = 32

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT e.id, e.email, a.id, a.name, o.id, o.name, o.stage, o.probability
            FROM crm_opportunity o
            JOIN people_employee e ON e.id = o.owner_id
            JOIN crm_account a ON a.id = o.account_id
            WHERE e.is_active AND o.stage NOT IN ('Closed Won', 'Closed Lost')
            ORDER BY e.id, a.id, o.id
            """
        ).fetchall()
        groups: dict[tuple, list[tuple]] = {}
        for user_id, email, account_id, account, deal_id, deal, stage, probability in rows:
            key = (user_id, email, account_id, account, stage)
            groups.setdefault(key, []).append((deal_id, deal, probability))
        choices = sorted(k for k, deals in groups.items() if len(deals) >= 2 and k[4] != OPEN[-1])
        user_id, email, account_id, account, stage = rng.choice(choices)
        deals = groups[(user_id, email, account_id, account, stage)]
        target = rng.choice(OPEN[OPEN.index(stage) + 1 :])
        # The near miss: the user's other open deals with the account move too, or else the
        # user's deals in the same stage with another account move instead, or else the
        # right deals move to the wrong stage.
        mine = (user_id, email)
        elsewhere = [
            k
            for k in groups
            if k[:4] == (*mine, account_id, account) and k[4] not in (stage, target)
        ]
        other_accounts = sorted(
            k[3] for k in groups if k[:2] == mine and k[4] == stage and k[2] != account_id
        )
        decoy = None
        if elsewhere:
            decoy = {"from_stage": _ANY_OPEN}
        elif other_accounts:
            decoy = {"account": rng.choice(other_accounts)}
        else:
            decoy = {"stage": rng.choice([s for s in OPEN if s not in (stage, target)])}
        return {
            "user": email,
            "user_id": user_id,
            "account": account,
            "from_stage": stage,
            "stage": target,
            "deal_ids": [d[0] for d in deals],
            "deals": [d[1] for d in deals],
            "old_probabilities": [d[2] for d in deals],
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(
            old=params["from_stage"], new=params["stage"], account=params["account"]
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        actions.click(actions.find("link", "Opportunities", exact=True))
        filter_list(
            actions, {"Search": params["account"], "Owner": "Me", "Stage": params["from_stage"]}
        )
        for row in list_rows(actions):
            if row.cells[2] == params["account"] and row.checkbox is not None:
                actions.check(row.checkbox)
        fill_fields(actions, {"New stage": params["stage"]})
        actions.click(actions.find("button", "Change stage of selected…", exact=True))
        actions.click(actions.find("button", "Confirm change", exact=True))
        actions.send_msg_to_user(
            f"Moved your {params['from_stage']} deals with {params['account']} to "
            f"{params['stage']}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        moved = [
            expect.updated(
                "crm_opportunity",
                deal_id,
                name=f"{deal} moved to {params['stage']}",
                stage=params["stage"],
                **stage_changes(params["stage"], probability),
            )
            for deal_id, deal, probability in zip(
                params["deal_ids"], params["deals"], params["old_probabilities"], strict=True
            )
        ]
        return expect.grade(ctx, *moved, expect.nothing_else())
