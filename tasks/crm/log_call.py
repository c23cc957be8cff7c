"""crm.log_call — record a phone call the user just had with a named contact.

The call is logged from the contact's record page ("Log a call"), with the subject and the
comment the goal quotes, word for word (case and spacing aside). The app stores a logged call
as a completed `call` activity owned by the user, dated today, and linked to the contact (and
to the contact's account); no other detail (priority, a deal) is asked for. The wrong-record
probe logs it on another contact of the same account.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import any_of, verbatim
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._calendar import world_today
from .base import CrmTemplate
from .ui import log_on_record, open_record

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

CALLS = (
    ("Pricing follow-up", "Asked for a revised quote by Friday."),
    ("Renewal timing", "They want to renew in January, not December."),
    ("Budget sign-off", "Finance approved the budget; waiting on legal."),
    ("Onboarding questions", "Needs a second admin seat for their IT lead."),
    ("Security review status", "Their security team has our questionnaire and will reply."),
    ("Contract redlines", "Legal sent two small changes to the liability clause."),
    ("Pilot feedback", "Happy with the pilot, wants to widen it to two more teams."),
    ("Headcount check", "Expecting to add fifteen users next quarter."),
)
# Test split: phrased unlike any training goal (names and texts are quoted).
_PHRASINGS = (
    "I was just on the phone with “{contact}” of “{account}”. Put that conversation on "
    "their contact record: subject “{subject}”, comments “{comment}”",
    "Jot down my phone conversation with “{contact}” ({account_quoted}) in the CRM, filed on "
    "the person's own page. Subject: “{subject}”. Comments: “{comment}”",
    "Quick one for the CRM: a phoned conversation with “{contact}” just ended. Capture it "
    "under that person with the subject “{subject}” and this remark: “{comment}”",
)


@register
class LogCall(CrmTemplate):
    id = "crm.log_call"
    difficulty = 2
    difficulty_reason = "find one contact by name and fill the call composer on their page"
    split = "test"
    tags = ("search", "form")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT c.id, c.first_name || ' ' || c.last_name, c.account_id, a.name, e.id, e.email
            FROM crm_contact c
            JOIN people_employee e ON e.id = c.owner_id
            JOIN crm_account a ON a.id = c.account_id
            WHERE e.is_active
              AND lower(c.first_name || ' ' || c.last_name) IN (
                  SELECT lower(first_name || ' ' || last_name) AS full FROM crm_contact
                  GROUP BY full HAVING count(*) = 1)
            ORDER BY c.id
            """
        ).fetchall()
        contact_id, contact, account_id, account, user_id, email = rng.choice(rows)
        subject, comment = rng.choice(CALLS)
        others = sorted(r[1] for r in rows if r[2] == account_id and r[0] != contact_id)
        return {
            "contact_id": contact_id,
            "contact": contact,
            "account": account,
            "account_quoted": f"“{account}”",
            "subject": subject,
            "comment": comment,
            "user_id": user_id,
            "user": email,
            "today": world_today(world).isoformat(),
            "decoy": {"contact": rng.choice(others)} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Contacts", params["contact"])
        log_on_record(
            actions, "Log a call", {"Subject": params["subject"], "Comments": params["comment"]}
        )
        actions.send_msg_to_user(f"Logged the call with {params['contact']}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.inserted(
                "crm_activity",
                name=f"a call with {params['contact']} is logged",
                kind="call",
                contact_id=params["contact_id"],
                subject=verbatim(params["subject"]),
                description=verbatim(params["comment"]),
                status="Completed",
                # The composer dates a call today; clearing the date is no harm, another is.
                due_date=any_of(params["today"], None),
                owner_id=params["user_id"],
            ),
            expect.nothing_else(),
        )
