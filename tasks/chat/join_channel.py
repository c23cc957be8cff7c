"""chat.join_channel — join a public channel the goal describes by what it is for.

The goal gives no name, only the channel's purpose as its topic states it ("Budgets, spend
and month-end close"); Browse channels searches names, topics and descriptions, and its
result rows show each topic. Only public, unarchived channels the user is not in, whose
topic no other channel shares, are asked for.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Join the channel whose topic is “{topic}”.",
    "Find the public channel described as “{topic}” and join it.",
    "Add me to the channel with the topic “{topic}”; I don't remember what it's called.",
)
# Topics that say nothing about what a channel is for.
_VAGUE = ("project channel (done)",)


@register
class JoinChannel(ChatTemplate):
    id = "chat.join_channel"
    difficulty = 2
    difficulty_reason = (
        "the channel is named by its purpose: search Browse channels for it, then join"
    )
    tags = ("search", "navigation")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        channels = world.execute(
            """
            SELECT id, name, topic FROM chat_channel
            WHERE kind = 'channel' AND NOT is_private AND archived_at IS NULL AND topic != ''
            ORDER BY id
            """
        ).fetchall()
        topics = Counter(squash(t).casefold() for _, _, t in channels)
        joinable = [
            c
            for c in channels
            if topics[squash(c[2]).casefold()] == 1 and squash(c[2]).casefold() not in _VAGUE
        ]
        member = set(world.execute("SELECT channel_id, employee_id FROM chat_membership"))
        people = world.execute(
            "SELECT id, email, display_name FROM people_employee WHERE is_active ORDER BY id"
        ).fetchall()
        outsiders = {c: [p for p in people if (c[0], p[0]) not in member] for c in joinable}
        channel_id, channel, topic = rng.choice([c for c in joinable if outsiders[c]])
        user_id, email, name = rng.choice(outsiders[(channel_id, channel, topic)])
        # The wrong-record probe joins another channel this user could join.
        others = [c for c in joinable if c[0] != channel_id and (c[0], user_id) not in member]
        decoy = rng.choice(others) if others else None
        return {
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "channel_id": channel_id,
            "channel": channel,
            "topic": squash(topic),
            "decoy": {"channel": decoy[1], "topic": squash(decoy[2])} if decoy else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        actions.click(actions.find("link", "Browse channels", exact=True))
        actions.fill(actions.find("searchbox", "Search channels", exact=True), params["topic"])
        actions.click(actions.find("button", "Search", exact=True))
        # Rows read "<name> <N> members · <topic>"; pick the one whose topic is asked for.
        row = next(
            n
            for n in actions.nodes
            if n.bid and n.role == "link" and squash(n.name).endswith(f"· {params['topic']}")
        )
        name = squash(row.name).split(" ")[0]
        actions.click(actions.find("button", f"Join #{name}", exact=True))
        actions.send_msg_to_user(f"Joined #{name}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.inserted(
                "chat_membership",
                name=f"joined #{params['channel']}",
                channel_id=params["channel_id"],
                employee_id=params["user_id"],
            ),
            expect.nothing_else(),
        )
