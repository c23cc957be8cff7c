"""crm.qualify_lead — set a named lead's status (Working, Qualified or Unqualified).

One instance in six cannot be done: the lead belongs to another rep and is read only for the
user, or it was already converted (converted leads are read only for everyone). The lead's page
says so, and the right move is `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.crm.fields import EDITABLE_LEAD_STATUSES
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._conversion import converted_leads, unconverted_leads
from ._people import email_of, owner_or_manager
from .base import CrmTemplate
from .ui import edit_in_place, open_record

# "New" is where leads start; a person moves them on to one of these.
TARGETS = tuple(s for s in EDITABLE_LEAD_STATUSES if s != "New")
_PHRASINGS = (
    "Set the status of the lead {lead} ({company}) to {status}.",
    "I spoke with {lead} from {company}: please mark their lead as {status} in the CRM.",
    "Update {lead}'s lead ({company}) so its status reads {status}.",
    "The lead {lead} at {company} should now be {status}. Can you change that?",
)


@register
class QualifyLead(CrmTemplate):
    id = "crm.qualify_lead"
    difficulty = 1
    impossible_instances = True
    difficulty_reason = "one lead named with its company, one picklist edited in place"
    tags = ("navigation", "search", "form")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        leads = unconverted_leads(world)
        feasible = rng.random() >= 1 / 6
        reason = None
        if feasible or rng.random() < 0.5:
            lead = rng.choice(leads)
            # The owner's manager may change their team's leads too.
            user = owner_or_manager(world, lead["owner_id"], feasible and rng.random() < 0.25)
            if not feasible:
                reason = "read_only"
                # A fellow rep who does not own it: the lead is read only for them.
                members = (
                    world.execute(
                        "SELECT email FROM people_employee WHERE role = 'member' AND is_active "
                        "AND manager_id = (SELECT manager_id FROM people_employee WHERE id = ?) "
                        "AND id != ? ORDER BY id",
                        (lead["owner_id"], lead["owner_id"]),
                    ).fetchall()
                    or world.execute(
                        "SELECT email FROM people_employee WHERE role = 'member' AND is_active "
                        "AND id != ? ORDER BY id",
                        (lead["owner_id"],),
                    ).fetchall()
                )
                user = rng.choice(members)[0]
        else:
            reason = "converted"
            lead = rng.choice(converted_leads(world))
            user = email_of(world, lead["owner_id"])
        target = rng.choice([s for s in TARGETS if s != lead["status"]])
        name = f"{lead['first_name']} {lead['last_name']}"
        others = [
            f"{o['first_name']} {o['last_name']}"
            for o in leads
            if o["owner_id"] == lead["owner_id"] and o["id"] != lead["id"] and o["status"] != target
        ]
        return {
            "lead_id": lead["id"],
            "lead": name,
            "company": lead["company"],
            "status": target,
            "old_status": lead["status"],
            "user": user,
            "feasible": feasible,
            "reason": reason,
            "decoy": {"lead": rng.choice(others)} if feasible and others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Leads", params["lead"])
        if not params["feasible"]:
            why = (
                "it was already converted, and converted leads are read only"
                if params["reason"] == "converted"
                else "it belongs to another rep and is read only for me"
            )
            actions.report_infeasible(f"I can't change {params['lead']}'s lead: {why}.")
            return
        edit_in_place(actions, "Lead status", params["status"])
        actions.send_msg_to_user(f"{params['lead']}'s lead is now {params['status']}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.updated(
                "crm_lead",
                params["lead_id"],
                name=f"{params['lead']} set to {params['status']}",
                status=params["status"],
            ),
            expect.nothing_else(),
        )
