"""chat.post_update — post a given status update in the right channel.

One instance in six names a channel that is archived: archived channels are read-only, so
the right move is to say so with `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.match import verbatim
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate
from .ui import open_channel, post

_UPDATES = (
    "Heads-up: the {thing} review moved to Thursday.",
    "Quick update: {thing} is on track for this week.",
    "FYI the {thing} numbers are in the shared folder now.",
    "Reminder: please send me your {thing} notes by Friday.",
)
_THINGS = ("Q3 forecast", "pipeline", "budget", "onboarding", "roadmap", "hiring plan")
_PHRASINGS = (
    'Post this update in #{channel}: "{text}"',
    'Could you let #{channel} know the following? "{text}"',
    'Please share in the #{channel} channel: "{text}"',
)


@register
class PostUpdate(ChatTemplate):
    id = "chat.post_update"
    difficulty = 1
    impossible_instances = True
    difficulty_reason = "one channel named in the goal, one message typed verbatim"
    tags = ("navigation", "form")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT c.id, c.name, c.archived_at IS NOT NULL, e.id, e.email, e.display_name
            FROM chat_membership m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee e ON e.id = m.employee_id
            WHERE c.kind = 'channel' AND e.is_active
            ORDER BY c.id, e.id
            """
        ).fetchall()
        archived = [r for r in rows if r[2]]
        live = [r for r in rows if not r[2]]
        feasible = not archived or rng.random() >= 1 / 6
        channel_id, channel, _, user_id, email, name = rng.choice(live if feasible else archived)
        text = rng.choice(_UPDATES).format(thing=rng.choice(_THINGS))
        # The wrong-record probe posts the same text in another channel the user is in.
        others = sorted({r[1] for r in live if r[3] == user_id and r[1] != channel})
        return {
            "channel_id": channel_id,
            "channel": channel,
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "text": text,
            "feasible": feasible,
            "decoy": {"channel": rng.choice(others)} if feasible and others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_channel(actions, params["channel"])
        if not params["feasible"]:
            actions.report_infeasible(f"#{params['channel']} is archived, so it is read-only.")
            return
        post(actions, params["text"], f"Message #{params['channel']}")
        actions.send_msg_to_user("Posted.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.inserted(
                "chat_message",
                name=f"message posted in #{params['channel']}",
                channel_id=params["channel_id"],
                author_id=params["user_id"],
                thread_parent_id=None,
                body=verbatim(params["text"]),
            ),
            expect.nothing_else(),
        )
