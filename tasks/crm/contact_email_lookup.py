"""crm.contact_email_lookup — the email address of a named contact at a named account.

About one instance in six names a contact the world left without an email address (a
`world_oddity` of kind 'incomplete_record'): the contact record shows none, so the right move
is `report_infeasible`. Contacts of planted duplicate pairs are never drawn (the other copy
could hold a different address). The wrong-record probe reads another contact of the same
account.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._people import editors
from .base import CrmTemplate
from .ui import open_record, record_field

_PHRASINGS = (
    "What's the email address of {contact} at {account}?",
    "I need to email {contact} from {account}. What address do we have on file?",
    "Can you look up {contact}'s email ({account}) in the CRM for me?",
)

_CONTACTS = """
    SELECT c.id, c.first_name || ' ' || c.last_name, c.email, c.account_id, a.name, c.owner_id
    FROM crm_contact c
    JOIN crm_account a ON a.id = c.account_id
    JOIN people_employee e ON e.id = c.owner_id
    WHERE e.is_active
      AND NOT EXISTS (SELECT 1 FROM world_oddity o WHERE o.kind = 'duplicate_contact'
                      AND (o.row_id = c.id OR o.other_id = c.id))
    ORDER BY c.id
"""


def _named_once(world: sqlite3.Connection, rows: list[tuple]) -> list[tuple]:
    """The contacts of `rows` that no other contact or lead shares a name with, at an account
    whose name is unique (case ignored)."""
    people = Counter(
        name.casefold()
        for (name,) in world.execute(
            "SELECT first_name || ' ' || last_name FROM crm_contact "
            "UNION ALL SELECT first_name || ' ' || last_name FROM crm_lead"
        )
    )
    accounts = Counter(name.casefold() for (name,) in world.execute("SELECT name FROM crm_account"))
    return [r for r in rows if people[r[1].casefold()] == 1 and accounts[r[4].casefold()] == 1]


@register
class ContactEmailLookup(CrmTemplate):
    id = "crm.contact_email_lookup"
    difficulty = 1
    impossible_instances = True
    difficulty_reason = "one search for the contact's name, then read the Email field"
    tags = ("search", "answer")
    max_steps = 16

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = _named_once(world, world.execute(_CONTACTS).fetchall())
        missing = {
            row_id
            for (row_id,) in world.execute(
                """
                SELECT row_id FROM world_oddity
                WHERE kind = 'incomplete_record' AND row_table = 'crm_contact'
                  AND detail LIKE '%"email"%'
                ORDER BY row_id
                """
            )
        }
        by_account: dict[int, list[tuple]] = {}
        for row in rows:
            by_account.setdefault(row[3], []).append(row)
        feasible = rng.random() >= 1 / 6
        if feasible:
            pool = [r for r in rows if r[2] and sum(1 for o in by_account[r[3]] if o[2]) >= 2]
        else:
            pool = [r for r in rows if r[0] in missing and not r[2]]
        contact_id, contact, email, account_id, account, owner_id = rng.choice(pool)
        _, user, _ = rng.choice(editors(world, owner_id)[:3])
        others = [r for r in by_account[account_id] if r[0] != contact_id and r[2]]
        if feasible:
            shown = rng.sample(others, min(3, len(others)))
            candidates = [email] + [r[2] for r in shown]
            decoy = {"contact": rng.choice(others)[1]}
        else:
            candidates, decoy = [], None
        return {
            "user": user,
            "contact_id": contact_id,
            "contact": contact,
            "account": account,
            "email": email,
            "feasible": feasible,
            "candidates": candidates,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Contacts", params["contact"])
        email = record_field(actions, "Email")
        if not email:
            actions.report_infeasible(f"{params['contact']} has no email address in the CRM.")
            return
        actions.send_msg_to_user(email)

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        others = [c for c in params["candidates"] if c != params["email"]]
        return expect.grade(
            ctx,
            expect.answer(params["email"], kind="email", distractors=others),
            expect.nothing_else(),
        )


__all__ = ["ContactEmailLookup"]
