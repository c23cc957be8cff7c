"""crm.merge_duplicate_contacts — merge a contact entered twice (the second time under a
nickname, with a typo or with the name written another way) into the original record, keeping
the email address (and sometimes the owner) the request names.

What a merge does (`service.merge`): the record kept gets the values picked field by field
(its own by default) and a new stamp; everything that pointed at the other record (deals'
primary contact, activities, notes, converted leads) is re-pointed at it; the other record and
its history are deleted. The planted duplicates have no such rows in the default world, but the
verifier claims whatever there is.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._duplicates import merged, references, row
from ._people import common_manager
from .base import CrmTemplate
from .ui import merge_pair

_PHRASINGS = (
    "{original} is in the CRM twice at {account}: the second record has the name as "
    "{duplicate}. Merge the second record into the first, keeping the name "
    "{original}{keep}.",
    "Please clean up {duplicate}, a duplicate contact at {account}: it's the same person as "
    "{original}. Merge the two into {original}'s record{keep}.",
    "We have {original} and {duplicate} as two contacts at {account}, but it's one person and "
    "{original} is the name to keep. Merge them into that record{keep}.",
)


@register
class MergeDuplicateContacts(CrmTemplate):
    id = "crm.merge_duplicate_contacts"
    difficulty = 4
    difficulty_reason = (
        "find the duplicate pair, keep the right record on the merge page and pick field "
        "values from either side as asked"
    )
    tags = ("navigation", "form", "multi-step")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        pairs = world.execute(
            "SELECT other_id, row_id FROM world_oddity "
            "WHERE kind = 'duplicate_contact' AND row_table = 'crm_contact' ORDER BY id"
        ).fetchall()
        original_id, duplicate_id = rng.choice(pairs)
        original = row(world, "crm_contact", original_id)
        duplicate = row(world, "crm_contact", duplicate_id)
        (account,) = world.execute(
            "SELECT name FROM crm_account WHERE id = ?", (original["account_id"],)
        ).fetchone()
        changes: dict[str, Any] = {}
        email_from = "original"
        if duplicate["email"] and duplicate["email"] != original["email"] and rng.random() < 0.5:
            email_from = "duplicate"
            changes["email"] = duplicate["email"]
        owner_from = "original"
        if duplicate["owner_id"] != original["owner_id"] and rng.random() < 1 / 3:
            owner_from = "duplicate"
            changes["owner_id"] = duplicate["owner_id"]
        owner_id = duplicate["owner_id"] if owner_from == "duplicate" else original["owner_id"]
        (owner,) = world.execute(
            "SELECT display_name FROM people_employee WHERE id = ?", (owner_id,)
        ).fetchone()
        email = duplicate["email"] if email_from == "duplicate" else original["email"]
        return {
            "original_id": original_id,
            "duplicate_id": duplicate_id,
            "original": f"{original['first_name']} {original['last_name']}",
            "duplicate": f"{duplicate['first_name']} {duplicate['last_name']}",
            "account": account,
            "email": email,
            "email_from": email_from,
            "say_email": original["email"] != duplicate["email"],
            "owner": owner,
            "owner_from": owner_from,
            "say_owner": owner_from == "duplicate" or rng.random() < 0.25,
            "changes": changes,
            "moved": references(world, "crm_contact", [duplicate_id]),
            "keep": "original",
            "user": common_manager(world, [original["owner_id"], duplicate["owner_id"]]),
            # The near miss: keep the copy instead.
            "decoy": {"keep": "duplicate"},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        keep = []
        if params["say_email"]:
            keep.append(f"the email address {params['email']}")
        if params["say_owner"]:
            keep.append(f"{params['owner']} as the owner")
        text = f", with {' and '.join(keep)}" if keep else ""
        return rng.choice(_PHRASINGS).format(**{**params, "keep": text})

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        merge_pair(
            actions,
            "Contacts",
            {side: params[side] for side in ("original", "duplicate")},
            params["keep"],
            {"Email": params["email_from"], "Contact owner": params["owner_from"]},
        )
        actions.send_msg_to_user(
            f"Merged {params['duplicate']} into {params['original']}"
            + (f", keeping {params['email']}." if params["say_email"] else ".")
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            *merged(
                "crm_contact",
                params["original_id"],
                [params["duplicate_id"]],
                params["changes"],
                params["moved"],
            ),
            expect.nothing_else(),
        )
