"""crm.update_contact_details — give a named contact a new phone number and job title.

Feasible instances are asked by the contact's owner. One instance in six is asked by a plain
rep who does not own the contact: the record page says it is read only for them, so the right
move is `report_infeasible`. The new number keeps the old one's country and area prefix (its
last four digits change) and is graded on its digits, however it is spaced, with nothing
else in the field. The wrong-record probe edits another contact of the same account and
owner.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import ci
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._matchers import same_phone
from .base import CrmTemplate
from .ui import edit_in_place, open_record, require_read_only

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PLAIN_PHONE = re.compile(r"\+?[0-9][0-9 ()\-]*[0-9]{4}")
# Test split: phrased unlike any training goal (names and titles are quoted).
_PHRASINGS = (
    "“{contact}” ({account_quoted}) has moved into a new role, “{title}”, and their number "
    "changed too: it is now {phone}. Bring the contact up to date, please.",
    "Fix the contact card of “{contact}”: the job title should read “{title}” and the "
    "phone {phone}.",
    "Got fresh details for “{contact}” at “{account}”; record them: title “{title}”, "
    "telephone {phone}.",
)


def _new_phone(old: str, rng: random.Random) -> str:
    while True:
        tail = f"{rng.randrange(10_000):04d}"
        if tail != old[-4:]:
            return old[:-4] + tail


@register
class UpdateContactDetails(CrmTemplate):
    id = "crm.update_contact_details"
    difficulty = 1
    impossible_instances = True
    difficulty_reason = "one contact named in full, two fields edited on its record page"
    split = "test"
    tags = ("search", "form")
    max_steps = 24

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT c.id, c.first_name || ' ' || c.last_name, c.account_id, a.name, c.phone,
                   c.title, e.id, e.email
            FROM crm_contact c
            JOIN people_employee e ON e.id = c.owner_id
            JOIN crm_account a ON a.id = c.account_id
            WHERE e.is_active AND c.phone IS NOT NULL
              AND lower(c.first_name || ' ' || c.last_name) IN (
                  SELECT lower(first_name || ' ' || last_name) AS full FROM crm_contact
                  GROUP BY full HAVING count(*) = 1)
            ORDER BY c.id
            """
        ).fetchall()
        rows = [r for r in rows if _PLAIN_PHONE.fullmatch(r[4])]
        titles = [
            t
            for (t,) in world.execute(
                "SELECT DISTINCT title FROM crm_contact WHERE title IS NOT NULL ORDER BY title"
            )
        ]
        contact_id, contact, account_id, account, phone, title, owner_id, email = rng.choice(rows)
        new_title = rng.choice([t for t in titles if t != title])
        new_phone = _new_phone(phone, rng)
        feasible = rng.random() >= 1 / 6
        if not feasible:
            # A plain rep who is not the owner: the contact is read only for them.
            members = world.execute(
                "SELECT email FROM people_employee WHERE role = 'member' AND is_active "
                "AND id != ? ORDER BY id",
                (owner_id,),
            ).fetchall()
            email = rng.choice(members)[0]
        others = sorted(
            r[1] for r in rows if r[2] == account_id and r[6] == owner_id and r[0] != contact_id
        )
        return {
            "contact_id": contact_id,
            "contact": contact,
            "account": account,
            "account_quoted": f"“{account}”",
            "phone": new_phone,
            "old_phone": phone,
            "title": new_title,
            "old_title": title,
            "user": email,
            "feasible": feasible,
            "decoy": {"contact": rng.choice(others)} if feasible and others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Contacts", params["contact"])
        if not params["feasible"]:
            require_read_only(actions, params["contact"])
            actions.report_infeasible(
                f"{params['contact']} is read only for me: only the contact's owner (or their "
                "manager) can change it."
            )
            return
        for label, value in (("Phone", params["phone"]), ("Title", params["title"])):
            edit_in_place(actions, label, value)
        actions.send_msg_to_user(
            f"{params['contact']} is now {params['title']}, phone {params['phone']}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.updated(
                "crm_contact",
                params["contact_id"],
                name=f"{params['contact']} has the new phone and title",
                phone=same_phone(params["phone"]),
                title=ci(params["title"]),
            ),
            expect.nothing_else(),
        )
