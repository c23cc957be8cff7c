"""chat.set_topic — set the topic of a named channel to a given text.

The user is a member of the channel (only members of a live channel can change its topic).
The topic is compared ignoring case and runs of spaces, as the app stores it. The wrong-record
probe sets the same topic on another channel the user is in.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import ci
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._channels import collateral_ok, collateral_posters
from .base import ChatTemplate
from .ui import open_details

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_TOPICS = (
    "Sprint demo on Friday; bring questions",
    "Q4 kickoff prep, agenda pinned",
    "Office move Oct 20-24: pack your desks",
    "Holiday coverage rota is up, add your name",
    "Launch retro notes due Tuesday",
    "Spend freeze until the board meeting",
    "Referral bonus doubled through October",
    "Migration weekend: short outages Saturday",
    "Quiet week, ship the small fixes",
    "New joiners: say hi and share a fun fact",
)
_PHRASINGS = (
    'New topic for #{channel}, please: "{topic}"',
    'Swap the topic of #{channel} to "{topic}".',
    'Could #{channel} get a fresh topic? Make it read "{topic}".',
    "Change what #{channel} shows as its topic so it says: {topic}",
)


@register
class SetTopic(ChatTemplate):
    id = "chat.set_topic"
    split = "test"
    difficulty = 1
    difficulty_reason = "one named channel, one field on its details page"
    tags = ("navigation", "form")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT c.id, c.name, c.topic, e.id, e.email, e.display_name
            FROM chat_membership m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee e ON e.id = m.employee_id
            WHERE c.kind = 'channel' AND c.archived_at IS NULL AND e.is_active
            ORDER BY c.id, e.id
            """
        ).fetchall()
        posters = collateral_posters(world)
        rows = [r for r in rows if collateral_ok(posters, r[3], r[1])]
        channel_id, channel, current, user_id, email, name = rng.choice(rows)
        topic = rng.choice([t for t in _TOPICS if t.casefold() != current.casefold()])
        others = sorted({r[1] for r in rows if r[3] == user_id and r[0] != channel_id})
        return {
            "channel_id": channel_id,
            "channel": channel,
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "topic": topic,
            "decoy": {"channel": rng.choice(others)} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_details(actions, params["channel"])
        actions.fill(actions.find("textbox", "Topic", exact=True), params["topic"])
        actions.click(actions.find("button", "Save topic", exact=True))
        actions.send_msg_to_user(f"The topic of #{params['channel']} is now: {params['topic']}")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.updated(
                "chat_channel",
                params["channel_id"],
                name=f"topic of #{params['channel']} set",
                topic=ci(params["topic"]),
            ),
            expect.nothing_else(),
        )
