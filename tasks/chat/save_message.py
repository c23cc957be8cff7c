"""chat.save_message — keep a colleague's message for later (Save for later).

The message is named by its author, its channel and something it is about (an account,
contact, workbook, hotel, room or person no other message of that author in that channel
names). The near miss is another message of the same author in the same channel.
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

from ._channels import active_members
from ._subjects import by_author_and_subject
from .base import ChatTemplate
from .ui import find_message, message_menu, open_message

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Bookmark {author}'s note mentioning {subject} from #{channel} so it shows up under my "
    "saved items.",
    "I'll need {author}'s #{channel} post on {subject} again next week; add it to my Saved items.",
    "Keep the message {author} wrote about {subject} (it's in #{channel}) handy for me by "
    "saving it.",
)


@register
class SaveMessage(ChatTemplate):
    id = "chat.save_message"
    split = "test"
    difficulty = 1
    difficulty_reason = "one message named by author, channel and subject; one menu action"
    tags = ("navigation", "search")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        pool = by_author_and_subject(world)
        members = active_members(world)
        saved = set(world.execute("SELECT message_id, employee_id FROM chat_saved ORDER BY id"))
        options = [
            (t, [m for m in members[t[1]] if m[0] != t[3] and (t[0], m[0]) not in saved])
            for t in pool
        ]
        target, readers = rng.choice([(t, readers) for t, readers in options if readers])
        message_id, channel_id, channel, author_id, author, subject = target
        user_id, email, name = rng.choice(readers)
        others = [p for p in pool if p[1] == channel_id and p[0] != message_id]
        same_author = [p for p in others if p[3] == author_id]
        miss = rng.choice(same_author or others) if others else None
        return {
            "message_id": message_id,
            "channel_id": channel_id,
            "channel": channel,
            "author": author,
            "subject": subject,
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "decoy": {"author": miss[4], "subject": miss[5]} if miss else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        subject, author = params["subject"], params["author"]
        open_message(actions, params["channel"], subject, author)
        message_menu(actions, lambda: find_message(actions, subject, author), "Save for later")
        actions.send_msg_to_user("Saved it for later.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.inserted(
                "chat_saved",
                name=f"{params['author']}'s {params['subject']} message saved",
                message_id=params["message_id"],
                employee_id=params["user_id"],
            ),
            expect.nothing_else(),
        )
