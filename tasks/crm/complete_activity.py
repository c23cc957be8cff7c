"""crm.complete_activity — mark one open activity on a named deal as done.

The user owns the activity, so its "Mark “subject” complete" button shows on the deal's record
page; only activities whose subject appears once on that page are drawn. Completing stamps the
activity's completion time. Activities whose deal has another open activity of the user are
preferred, and the wrong-record probe completes that other one.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import is_set
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import CrmTemplate
from .ui import open_record

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

KINDS = {"task": "task", "call": "call", "meeting": "meeting", "email": "email"}
_PHRASINGS = (
    "The {kind} “{subject}” on {deal} is done. Please mark it complete.",
    "Mark the open {kind} “{subject}” on the {deal} opportunity as completed.",
    "I've taken care of “{subject}” for {deal}. Can you tick that {kind} off in the CRM?",
)


@register
class CompleteActivity(CrmTemplate):
    id = "crm.complete_activity"
    difficulty = 2
    difficulty_reason = (
        "find one deal by name, then pick the right one of its open activities by subject"
    )
    tags = ("search", "navigation")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT a.id, a.kind, a.subject, a.opportunity_id, o.name, e.id, e.email
            FROM crm_activity a
            JOIN crm_opportunity o ON o.id = a.opportunity_id
            JOIN people_employee e ON e.id = a.owner_id
            WHERE a.status != 'Completed' AND e.is_active
              AND (SELECT count(*) FROM crm_opportunity p WHERE p.name = o.name) = 1
              AND (SELECT count(*) FROM crm_activity b
                   WHERE b.opportunity_id = a.opportunity_id
                     AND lower(b.subject) = lower(a.subject)) = 1
            ORDER BY a.id
            """
        ).fetchall()
        # Prefer activities with a sibling: the agent must pick the right one of the deal's.
        siblings = {
            r[0]: sorted(x[2] for x in rows if x[3] == r[3] and x[5] == r[5] and x[0] != r[0])
            for r in rows
        }
        pool = [r for r in rows if siblings[r[0]]] or rows
        activity_id, kind, subject, deal_id, deal, user_id, email = rng.choice(pool)
        others = siblings[activity_id]
        return {
            "activity_id": activity_id,
            "kind": KINDS.get(kind, kind),
            "subject": subject,
            "deal_id": deal_id,
            "deal": deal,
            "user_id": user_id,
            "user": email,
            "decoy": {"subject": rng.choice(others)} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Opportunities", params["deal"])
        actions.click(actions.find("button", f"Mark “{params['subject']}” complete", exact=True))
        actions.send_msg_to_user(f"Marked “{params['subject']}” on {params['deal']} complete.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.updated(
                "crm_activity",
                params["activity_id"],
                name=f"“{params['subject']}” is completed",
                status="Completed",
                completed_at=is_set(),
            ),
            expect.nothing_else(),
        )
