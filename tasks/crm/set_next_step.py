"""crm.set_next_step — set the next step of the account's open deal that closes soonest.

The named account has two or more open opportunities, none of them overdue (so "closes
soonest" means one thing), and their earliest close date is held by one deal only; the agent
must work out which from the account's related list or the opportunities list. The user owns
that deal or manages its owner. Its Next step must become the given text (case and spacing
aside); the wrong-record probe sets it on the account's open deal that closes next instead.
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

from ._calendar import today
from ._duplicates import duplicated_accounts
from .base import CrmTemplate
from .ui import edit_in_place, open_record, record_link

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_STEPS = (
    "Walk their CFO through the ROI model",
    "Send the updated order form to procurement",
    "Book the security questionnaire review",
    "Agree on a go-live date with their ops lead",
    "Share two customer references in logistics",
    "Run the pilot retro with the project team",
    "Get the signed MSA back from legal",
    "Present the multi-year pricing option",
)
# Names in curly quotes are content, not phrasing (tests/tasks/test_instances.py).
_PHRASINGS = (
    "Over on “{account}”, which open opportunity is due to close first? Update that one's "
    "next step to “{step}”.",
    "Among the deals still open at “{account}”, take the one with the earliest close date "
    "and record “{step}” as what happens next.",
    "“{account}” has more than one live opportunity. Whichever closes soonest should now list "
    "“{step}” under Next step.",
)


@register
class SetNextStep(CrmTemplate):
    id = "crm.set_next_step"
    difficulty = 2
    difficulty_reason = (
        "open the account, compare its open deals' close dates, then edit one field of the earliest"
    )
    split = "test"
    tags = ("navigation", "search", "form")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        skip = duplicated_accounts(world)
        now = today(world)
        rows = world.execute(
            """
            SELECT a.id, a.name, o.id, o.name, o.close_date, o.next_step, e.email, m.email,
                   m.is_active
            FROM crm_opportunity o
            JOIN crm_account a ON a.id = o.account_id
            JOIN people_employee e ON e.id = o.owner_id
            LEFT JOIN people_employee m ON m.id = e.manager_id
            WHERE o.stage NOT IN ('Closed Won', 'Closed Lost') AND e.is_active
            ORDER BY a.id, o.close_date, o.id
            """
        ).fetchall()
        by_account: dict[tuple[int, str], list[tuple]] = {}
        for account_id, account, *deal in rows:
            if account_id not in skip:
                by_account.setdefault((account_id, account), []).append(tuple(deal))
        # Every open deal of the account must count (an inactive owner's would hide one).
        open_counts = dict(
            world.execute(
                "SELECT account_id, COUNT(*) FROM crm_opportunity "
                "WHERE stage NOT IN ('Closed Won', 'Closed Lost') GROUP BY account_id "
                "ORDER BY account_id"
            ).fetchall()
        )
        accounts = sorted(
            k
            for k, deals in by_account.items()
            if len(deals) >= 2
            and len(deals) == open_counts[k[0]]
            and deals[0][2] >= now
            and deals[0][2] < deals[1][2]
        )
        account_id, account = rng.choice(accounts)
        first, second = by_account[(account_id, account)][:2]
        deal_id, deal, close_date, old_step, owner_email, boss_email, boss_active = first
        step = rng.choice([s for s in _STEPS if s != old_step])
        user = boss_email if boss_email and boss_active and rng.random() < 0.2 else owner_email
        return {
            "user": user,
            "account": account,
            "deal_id": deal_id,
            "deal": deal,
            "close_date": close_date,
            "step": step,
            # The near miss: the deal that closes next after it.
            "decoy": {"deal": second[1]},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Accounts", params["account"])
        actions.click(record_link(actions, params["deal"]))
        edit_in_place(actions, "Next step", params["step"])
        actions.send_msg_to_user(f"Set the next step of {params['deal']} to “{params['step']}”.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.updated(
                "crm_opportunity",
                params["deal_id"],
                name=f"next step of {params['deal']}",
                next_step=ci(params["step"]),
            ),
            expect.nothing_else(),
        )
