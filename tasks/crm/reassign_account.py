"""crm.reassign_account — hand an account over to a named colleague.

The user owns the account, or manages its owner; the colleague is someone the owner menus
offer. The inline "Edit Account owner" on the record page or the full edit form both do it.
One instance in six is asked of a plain rep who neither owns the account nor manages its
owner: the record page says "Read only for you", so the right move is `report_infeasible`.
The wrong-record probe hands over another account of the same owner.
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

from ._duplicates import duplicated_accounts
from ._people import crm_people
from .base import CrmTemplate
from .ui import edit_in_place, open_record

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Please make {colleague} the owner of the {account} account.",
    "{colleague} is taking over {account} from now on. Can you change the account owner in "
    "the CRM?",
    "Reassign the account {account} to {colleague}, please.",
)


@register
class ReassignAccount(CrmTemplate):
    id = "crm.reassign_account"
    difficulty = 2
    impossible_instances = True
    difficulty_reason = "find one account by name and change its owner field to a colleague"
    tags = ("navigation", "search", "form")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        feasible = rng.random() >= 1 / 6
        people = crm_people(world)
        skip = duplicated_accounts(world)
        accounts = [
            a
            for a in world.execute(
                """
                SELECT a.id, a.name, a.owner_id, e.email, m.email, m.is_active
                FROM crm_account a
                JOIN people_employee e ON e.id = a.owner_id
                LEFT JOIN people_employee m ON m.id = e.manager_id
                WHERE e.is_active
                ORDER BY a.id
                """
            ).fetchall()
            if a[0] not in skip
        ]
        account_id, account, owner_id, owner_email, boss_email, boss_active = rng.choice(accounts)
        if feasible:
            # Mostly the owner asks; now and then the owner's manager does.
            user = boss_email if boss_email and boss_active and rng.random() < 0.25 else owner_email
        else:
            outsiders = [p for p in people if p[3] == "member" and p[0] != owner_id]
            user = rng.choice(outsiders)[2]
        colleagues = [p for p in people if p[0] != owner_id and p[2] != user]
        colleague_id, colleague, _, _ = rng.choice(colleagues)
        others = sorted(a[1] for a in accounts if a[2] == owner_id and a[0] != account_id)
        return {
            "user": user,
            "account_id": account_id,
            "account": account,
            "colleague_id": colleague_id,
            "colleague": colleague,
            "feasible": feasible,
            # The near miss: another account of the same owner changes hands instead.
            "decoy": {"account": rng.choice(others)} if feasible and others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Accounts", params["account"])
        if not params["feasible"]:
            actions.report_infeasible(
                f"{params['account']} is read only for me: I don't own it and its owner "
                "doesn't report to me, so I can't change its owner."
            )
            return
        edit_in_place(actions, "Account owner", params["colleague"])
        actions.send_msg_to_user(f"{params['colleague']} now owns {params['account']}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.updated(
                "crm_account",
                params["account_id"],
                name=f"{params['account']} owned by {params['colleague']}",
                owner_id=params["colleague_id"],
            ),
            expect.nothing_else(),
        )
