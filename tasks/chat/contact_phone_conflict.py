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

import json
import random
import re
import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.answer import phone_digits
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate
from .find_who_said import hits, phrase, search

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

_PHONE = re.compile(r"\+\d[\d\s().-]{5,}\d")
_PHRASINGS = (
    "What's the phone number for {contact} at {account}? The CRM record is out of date, so "
    "use the most recent number {poster} posted in chat.",
    "I need to call {contact} ({account}). Don't trust the CRM, it's stale: give me the "
    "latest number {poster} shared in chat.",
    "Can you dig up a phone number for {contact} ({account})? Use whatever {poster} last "
    "posted in chat, not the old CRM entry.",
)


def article_texts(actions: PageActions) -> list[tuple[str, tuple[str, ...]]]:
    """(author, names of every node inside) of each message article on the page, in order."""
    nodes = actions.nodes
    found = []
    for index, node in enumerate(nodes):
        if node.role != "article":
            continue
        inner = []
        for later in nodes[index + 1 :]:
            if later.depth <= node.depth:
                break
            inner.append(squash(later.name))
        found.append((squash(node.name), tuple(inner)))
    return found


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
        cases = [c for row in self._oddities(world) if (c := self._case(world, *row))]
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

    @staticmethod
    def _oddities(world: sqlite3.Connection) -> list[tuple]:
        return world.execute(
            """
            SELECT o.row_id, o.other_id, o.detail FROM world_oddity o
            WHERE o.kind = 'phone_conflict' AND o.row_table = 'chat_message'
              AND o.other_table = 'crm_contact'
            ORDER BY o.id
            """
        ).fetchall()

    @staticmethod
    def _case(
        world: sqlite3.Connection, message_id: int, contact_id: int, detail: str
    ) -> dict[str, Any] | None:
        """The instance for one oddity, or None when the poster's latest number for the
        contact is not the conflicting one (then "the latest they posted" would not point
        at it) or the message is not where every user could search it."""
        row = world.execute(
            """
            SELECT m.author_id, a.display_name, c.id, c.name,
                   k.first_name || ' ' || k.last_name, acc.name
            FROM chat_message m
            JOIN people_employee a ON a.id = m.author_id
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN crm_contact k ON k.id = ?
            JOIN crm_account acc ON acc.id = k.account_id
            WHERE m.id = ? AND m.deleted_at IS NULL AND m.thread_parent_id IS NULL
              AND c.kind = 'channel' AND NOT c.is_private
            """,
            (contact_id, message_id),
        ).fetchone()
        if row is None:
            return None
        poster_id, poster, channel_id, channel, contact, account = row
        statements = world.execute(
            """
            SELECT m.id, a.display_name, m.body FROM chat_message m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee a ON a.id = m.author_id
            WHERE instr(m.body, ?) > 0 AND m.deleted_at IS NULL
              AND c.kind = 'channel' AND NOT c.is_private
            ORDER BY m.created_at, m.id
            """,
            (contact,),
        ).fetchall()
        latest: dict[str, str] = {}
        last_id: dict[str, int] = {}
        for statement_id, author, body in statements:
            found = _PHONE.search(body)
            if found:
                latest[author] = found.group()
                last_id[author] = statement_id
        if last_id.get(poster) != message_id:
            return None
        phones = json.loads(detail)
        return {
            "message_id": message_id,
            "poster": poster,
            "poster_id": poster_id,
            "channel_id": channel_id,
            "channel": channel,
            "contact": contact,
            "account": account,
            "phone": phones["chat_phone"],
            "crm_phone": phones["crm_phone"],
            "latest": latest,
            "seen": sorted({m.group() for _, _, body in statements for m in _PHONE.finditer(body)}),
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        contact, poster = params["contact"], params["poster"]
        search(actions, f"{phrase(contact)} from:@{poster}")
        found = hits(actions)
        # Results are newest first; a snippet holding "+<digit>" is a number being shared.
        shared = [h for h in found if re.search(r"\+\d", h.text)] or found
        hit = shared[0]
        actions.click(hit.bid)
        numbers = [
            number.group()
            for author, texts in article_texts(actions)
            if author == poster and hit.time in texts
            for text in texts
            if contact in text and (number := _PHONE.search(text))
        ]
        actions.send_msg_to_user(f"{contact}'s number is {numbers[-1]}.")

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


__all__ = ["ContactPhoneConflict", "article_texts"]
