"""crm.merge_duplicate_accounts — merge an account entered a second time (under a variant of
its name) into the original, which keeps its name; the request says whose phone number and
owner the merged account keeps.

The small default world plants 4 such pairs (world_oddity `duplicate_account`); with the side
each of the phone and the owner comes from, that makes 16 instances, which `cardinality`
declares. What a merge does (`service.merge`): the kept account takes
the picked values and a new stamp; contacts, deals, activities, notes, converted leads, child
accounts and booking reservations of the other account move to it; the other account and its
history are deleted.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any, ClassVar

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._duplicates import merged, references, row
from ._people import common_manager
from .base import CrmTemplate
from .ui import merge_pair

_PHRASINGS = (
    "Someone re-entered {original} as a second account called {duplicate}. Fold that copy "
    "into the original so only {original} remains. {keep}",
    "Our account list shows both {original} and {duplicate}; they are one company. Combine "
    "them, with {original} surviving under its current name. {keep}",
    "{duplicate} repeats an account we already had, {original}. Consolidate the pair into "
    "{original}. {keep}",
)


@register
class MergeDuplicateAccounts(CrmTemplate):
    id = "crm.merge_duplicate_accounts"
    split = "test"
    difficulty = 4
    difficulty_reason = (
        "find the duplicate pair, keep the original on the merge page and take the phone and "
        "owner from the side the request names"
    )
    tags = ("navigation", "form", "multi-step")
    max_steps = 22
    cardinality: ClassVar[tuple[int, str]] = (
        16,
        "the small world plants 4 duplicate account pairs; phone and owner each from one of 2 "
        "sides",
    )

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        pairs = world.execute(
            "SELECT other_id, row_id FROM world_oddity "
            "WHERE kind = 'duplicate_account' AND row_table = 'crm_account' ORDER BY id"
        ).fetchall()
        original_id, duplicate_id = rng.choice(pairs)
        original = row(world, "crm_account", original_id)
        duplicate = row(world, "crm_account", duplicate_id)
        changes: dict[str, Any] = {}
        sides = {}
        for column in ("phone", "owner_id"):
            side = "duplicate" if rng.random() < 0.5 else "original"
            if duplicate[column] == original[column]:
                side = "original"
            if side == "duplicate":
                changes[column] = duplicate[column]
            sides[column] = side
        phone = (duplicate if sides["phone"] == "duplicate" else original)["phone"]
        owner_id = (duplicate if sides["owner_id"] == "duplicate" else original)["owner_id"]
        (owner,) = world.execute(
            "SELECT display_name FROM people_employee WHERE id = ?", (owner_id,)
        ).fetchone()
        return {
            "original_id": original_id,
            "duplicate_id": duplicate_id,
            "original": original["name"],
            "duplicate": duplicate["name"],
            "phone": phone,
            "phone_from": sides["phone"],
            "owner": owner,
            "owner_from": sides["owner_id"],
            "changes": changes,
            "moved": references(world, "crm_account", [duplicate_id]),
            "keep": "original",
            "user": common_manager(world, [original["owner_id"], duplicate["owner_id"]]),
            # The near miss: keep the copy (and its variant name) instead.
            "decoy": {"keep": "duplicate"},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        keep = rng.choice(
            (
                "The result should list {phone} as its phone and belong to {owner}.",
                "Afterwards its phone must read {phone}, and {owner} owns it.",
                "Use {phone} for the phone; {owner} is to be the account owner.",
            )
        ).format(**params)
        return rng.choice(_PHRASINGS).format(**{**params, "keep": keep})

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        merge_pair(
            actions,
            "Accounts",
            {side: params[side] for side in ("original", "duplicate")},
            params["keep"],
            {"Phone": params["phone_from"], "Account owner": params["owner_from"]},
        )
        actions.send_msg_to_user(
            f"{params['duplicate']} is merged into {params['original']} "
            f"(phone {params['phone']}, owner {params['owner']})."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            *merged(
                "crm_account",
                params["original_id"],
                [params["duplicate_id"]],
                params["changes"],
                params["moved"],
            ),
            expect.nothing_else(),
        )
