"""chat.group_dm — start a group conversation with two named people and say something.

New message (/chat/dm/new) lists everyone with a checkbox and a filter box that narrows the
list as one types; ticking two people and opening the conversation makes a group DM, whose
composer then sends the text, word for word. Only trios without a group DM yet are asked
for, so the conversation is always new; opening it is a step on the way, the message the
task's change.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import verbatim
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._conversations import dm_expectations, existing_conversation
from .base import ChatTemplate
from .ui import pick_person, post

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_TEXTS = (
    "Kicking this off so we can prep the customer advisory board together.",
    "Could the three of us find 30 minutes before the quarterly review?",
    "Dropping the vendor call notes here so we stay aligned.",
    "Lunch on Thursday to plan the hackathon?",
    "I'd love both your eyes on the pricing proposal before it goes out.",
)
_PHRASINGS = (
    "Open a group conversation with {a} and {b}, then write: “{text}”",
    "Set up a three-way chat between me, {a} and {b}; the first message is “{text}”",
    "{a} and {b} should both get this in one shared conversation with me, not separately: “{text}”",
)


@register
class GroupDm(ChatTemplate):
    id = "chat.group_dm"
    split = "test"
    difficulty = 3
    difficulty_reason = (
        "pick two people in New message (type each name, choose them from the suggestions), "
        "open the group conversation, then send the text in it"
    )
    tags = ("form", "search")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = world.execute(
            "SELECT id, email, display_name FROM people_employee WHERE is_active ORDER BY id"
        ).fetchall()
        names = [p[2] for p in people]
        # Someone the agent can pick out by name alone: no one else's name starts with theirs.
        distinct = [
            p for p in people if sum(n == p[2] or n.startswith(f"{p[2]} ") for n in names) == 1
        ]
        for _ in range(100):
            user = rng.choice(people)
            a, b, c = rng.sample([p for p in distinct if p[0] != user[0]], 3)
            if existing_conversation(world, [user[0], a[0], b[0]]) is None:
                break
        else:
            raise LookupError("every trio tried already has a group DM")
        return {
            "user_id": user[0],
            "user": user[1],
            "user_name": user[2],
            "a": a[2],
            "a_id": a[0],
            "b": b[2],
            "b_id": b[0],
            "text": rng.choice(_TEXTS),
            # The wrong-record probe swaps the second person for someone else.
            "decoy": {"b": c[2]},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        actions.click(actions.find("link", "New message", exact=True))
        for person in (params["a"], params["b"]):
            # The picker offers "<name> — <title>"; no one else's name starts with theirs.
            if not pick_person(actions, "To", person):
                raise LookupError(f"the To picker doesn't offer {person}")
        actions.click(actions.find("button", "Open conversation", exact=True))
        post(actions, params["text"])
        actions.send_msg_to_user(
            f"Started a group conversation with {params['a']} and {params['b']}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            *dm_expectations(
                None,
                params["user_id"],
                [params["a_id"], params["b_id"]],
                verbatim(params["text"]),
                f"message to {params['a']} and {params['b']}",
            ),
            expect.nothing_else(),
        )
