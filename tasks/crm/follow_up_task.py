"""crm.follow_up_task — create a follow-up task on a named deal, due N business days out.

The goal counts the due date in working days from today (N is 2-7; weekends are skipped),
so the agent has to work out the calendar date from the world clock's today. The task is made
with the deal page's "New task" composer: an open `task` activity on the deal, assigned to the
user, with the subject the goal gives. The wrong-record probe puts it on another open deal of
the same owner (of the same account when there is one).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import ci
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._calendar import add_business_days, world_today
from ._formats import spoken_date
from .base import CrmTemplate
from .ui import log_on_record, open_record

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

SUBJECTS = (
    "Send the revised proposal to {account}",
    "Check in with {account} on the budget decision",
    "Confirm the signing timeline with {account}",
    "Share the security documentation with {account}",
    "Book a pricing review with {account}",
    "Follow up on the trial results with {account}",
)
_PHRASINGS = (
    "Add a follow-up task to the {deal} opportunity: “{subject}”, due {days} business days "
    "from today.",
    "Please create a task on {deal} called “{subject}”. It should be due in {days} working days.",
    "Set me a reminder task on the {deal} deal, “{subject}”, due {days} business days from "
    "now (skip the weekend).",
)


@register
class FollowUpTask(CrmTemplate):
    id = "crm.follow_up_task"
    difficulty = 3
    difficulty_reason = (
        "find one deal and fill its task composer, with a due date the agent must count in "
        "business days from the world's today, skipping the weekend"
    )
    tags = ("search", "form")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT o.id, o.name, o.account_id, a.name, e.id, e.email
            FROM crm_opportunity o
            JOIN people_employee e ON e.id = o.owner_id
            JOIN crm_account a ON a.id = o.account_id
            WHERE o.stage NOT IN ('Closed Won', 'Closed Lost') AND e.is_active
              AND (SELECT count(*) FROM crm_opportunity p WHERE p.name = o.name) = 1
            ORDER BY o.id
            """
        ).fetchall()
        deal_id, deal, account_id, account, user_id, email = rng.choice(rows)
        subject = rng.choice(SUBJECTS).format(account=account)
        days = rng.randint(2, 7)
        today = world_today(world)
        due = add_business_days(today, days)
        same_owner = [r for r in rows if r[4] == user_id and r[0] != deal_id]
        pool = [r for r in same_owner if r[2] == account_id] or same_owner
        return {
            "deal_id": deal_id,
            "deal": deal,
            "subject": subject,
            "days": days,
            "today": today.isoformat(),
            "due_date": due.isoformat(),
            "due_text": spoken_date(due),
            "user_id": user_id,
            "user": email,
            "decoy": {"deal": rng.choice(pool)[1]} if pool else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Opportunities", params["deal"])
        log_on_record(
            actions, "New task", {"Subject": params["subject"], "Due date": params["due_date"]}
        )
        actions.send_msg_to_user(
            f"Created the task “{params['subject']}” on {params['deal']}, due {params['due_text']}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.inserted(
                "crm_activity",
                name=f"a task on {params['deal']} due {params['due_date']}",
                kind="task",
                opportunity_id=params["deal_id"],
                subject=ci(params["subject"]),
                due_date=params["due_date"],
                status="Open",
                owner_id=params["user_id"],
            ),
            expect.nothing_else(),
        )
