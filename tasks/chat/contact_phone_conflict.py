"""chat.contact_phone_conflict — a customer contact's phone number, from the right source.

The world plants conflicting numbers on purpose (`world_oddity` rows of kind
'phone_conflict'): someone posted a contact's number in chat that differs from the CRM record,
and colleagues often posted other numbers for the same contact too. The goal names whose
post counts ("the most recent number <poster> posted in chat").

The suite has no CRM app yet, so every instance takes the chat source and tells the agent the
CRM record is stale; the CRM number is still a candidate (the wrong answer an agent that knew
it would give). When a CRM app exists, instances that ask for the CRM record belong here.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.answer import phone_digits
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._phone_conflicts import conflict_case, conflict_oddities
from .base import ChatTemplate
from .ui import posted_number

if TYPE_CHECKING:
    pass

_PHRASINGS = (
    "What's the phone number for {contact} at {account}? The CRM record is out of date, so "
    "use the most recent number {poster} posted in chat.",
    "I need to call {contact} ({account}). Don't trust the CRM, it's stale: give me the "
    "latest number {poster} shared in chat.",
    "Can you dig up a phone number for {contact} ({account})? Use whatever {poster} last "
    "posted in chat, not the old CRM entry.",
)


@register
class ContactPhoneConflict(ChatTemplate):
    id = "chat.contact_phone_conflict"
    difficulty = 4
    difficulty_reason = (
        "chat holds several numbers for the contact from several people; the agent must "
        "find the poster's latest one and open it, since results cut long messages short"
    )
    tags = ("search", "answer")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        cases = [c for row in conflict_oddities(world) if (c := conflict_case(world, *row))]
        case = rng.choice(cases)
        # The wrong-record probe follows someone else's number for the same contact, or
        # else the right poster's number for another conflicted contact.
        others = [p for p, phone in case["latest"].items() if phone != case["phone"]]
        if others:
            decoy = {"poster": rng.choice(sorted(others))}
        else:
            other = rng.choice([c for c in cases if c["contact"] != case["contact"]] or [None])
            decoy = {k: other[k] for k in ("contact", "account", "poster")} if other else None
        users = world.execute(
            """
            SELECT e.id, e.email FROM chat_membership ms
            JOIN people_employee e ON e.id = ms.employee_id
            WHERE ms.channel_id = ? AND e.is_active AND e.display_name != ?
            ORDER BY e.id
            """,
            (case["channel_id"], case["poster"]),
        ).fetchall()
        user_id, user = rng.choice(users)
        candidates: dict[str, str] = {}
        for number in [case["phone"], *case["seen"], case["crm_phone"]]:
            candidates.setdefault(phone_digits(number), number)
        return {
            "user": user,
            "user_id": user_id,
            "contact": case["contact"],
            "account": case["account"],
            "poster": case["poster"],
            "channel": case["channel"],
            "message_id": case["message_id"],
            "phone": case["phone"],
            "crm_phone": case["crm_phone"],
            "candidates": list(candidates.values()),
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        contact, poster = params["contact"], params["poster"]
        number = posted_number(actions, contact, poster)
        actions.send_msg_to_user(f"{contact}'s number is {number}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(
                params["phone"], kind="phone", distractors=_others(params["candidates"], params)
            ),
            expect.nothing_else(),
        )


def _others(candidates: Sequence[str], params: Mapping[str, Any]) -> list[str]:
    want = phone_digits(params["phone"])
    return [c for c in candidates if phone_digits(c) != want]


__all__ = ["ContactPhoneConflict"]
