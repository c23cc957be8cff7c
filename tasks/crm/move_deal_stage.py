"""crm.move_deal_stage — move one of your open deals to the stage a colleague names.

One instance in six names a deal the user may not edit (another rep's, outside their team):
the record page says it is read only, so the right move is `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.crm.fields import STAGE_PROBABILITY
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import CrmTemplate
from .ui import open_record

OPEN_STAGES = ("Prospecting", "Qualification", "Needs Analysis", "Proposal", "Negotiation")
_PHRASINGS = (
    "Move the {deal} opportunity to {stage}.",
    "{deal} has progressed: set its stage to {stage} in the CRM, please.",
    "Please update the stage of {deal} to {stage}.",
)


@register
class MoveDealStage(CrmTemplate):
    id = "crm.move_deal_stage"
    difficulty = 1
    impossible_instances = True
    difficulty_reason = "one deal named in full, one stage button on its record page"
    tags = ("navigation", "search", "form")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT o.id, o.name, o.stage, o.probability, o.owner_id, e.email, e.role
            FROM crm_opportunity o JOIN people_employee e ON e.id = o.owner_id
            WHERE o.stage NOT IN ('Closed Won', 'Closed Lost') AND e.is_active
            ORDER BY o.id
            """
        ).fetchall()
        deal_id, deal, stage, probability, owner_id, email, _ = rng.choice(rows)
        target = rng.choice([s for s in OPEN_STAGES if s != stage])
        feasible = rng.random() >= 1 / 6
        if not feasible:
            # A plain rep who is not the owner: the record is read only for them.
            members = world.execute(
                "SELECT email FROM people_employee WHERE role = 'member' AND is_active "
                "AND id != ? ORDER BY id",
                (owner_id,),
            ).fetchall()
            email = rng.choice(members)[0]
        # The wrong-record probe moves another open deal of the same owner.
        others = sorted(
            r[1] for r in rows if r[4] == owner_id and r[0] != deal_id and r[2] != target
        )
        return {
            "deal_id": deal_id,
            "deal": deal,
            "stage": target,
            "old_stage": stage,
            "old_probability": probability,
            "user": email,
            "feasible": feasible,
            "decoy": {"deal": rng.choice(others)} if feasible and others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Opportunities", params["deal"])
        if not params["feasible"]:
            actions.report_infeasible(
                f"{params['deal']} is read only for me: only its owner's team can edit it."
            )
            return
        actions.click(actions.find("button", f"Move to stage {params['stage']}", exact=True))
        actions.send_msg_to_user(f"Moved {params['deal']} to {params['stage']}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        changes: dict[str, Any] = {"stage": params["stage"]}
        probability = STAGE_PROBABILITY[params["stage"]]
        if probability != params["old_probability"]:
            # The app sets the stage's default probability with the stage.
            changes["probability"] = probability
        return expect.grade(
            ctx,
            expect.updated(
                "crm_opportunity",
                params["deal_id"],
                name=f"{params['deal']} moved to {params['stage']}",
                **changes,
            ),
            expect.nothing_else(),
        )
