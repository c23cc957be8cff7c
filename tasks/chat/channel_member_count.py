"""chat.channel_member_count — report how many members a channel has (test split).

The number is the one the channel's details page shows ("Members N"): every membership,
including people who have since left the company. Half the instances ask about a channel the
user is not in (public, so it is found through Browse channels).
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select

from officegym.apps.chat.access import visible_channel_ids
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.chat import Channel, Membership
from officegym.tasks import expect
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.session import read_session
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate
from .ui import open_details

_PHRASINGS = (
    "#{channel} headcount check: what member total does its details page list?",
    "For an announcement I'm sizing up, tell me what membership figure #{channel} shows.",
    "#{channel}: tell me its membership figure, please.",
)
_MEMBERS = re.compile(r"^Members (\d+)$")


@register
class ChannelMemberCount(ChatTemplate):
    id = "chat.channel_member_count"
    difficulty = 1
    difficulty_reason = "open one channel's details and read one number"
    split = "test"
    tags = ("navigation", "answer")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        channels = world.execute(
            """
            SELECT c.id, c.name, c.is_private, count(ms.id),
                   sum(e.is_active)
            FROM chat_channel c
            JOIN chat_membership ms ON ms.channel_id = c.id
            JOIN people_employee e ON e.id = ms.employee_id
            WHERE c.kind = 'channel' AND c.archived_at IS NULL
            GROUP BY c.id ORDER BY c.id
            """
        ).fetchall()
        channel_id, channel, private, count, active = rng.choice(channels)
        users = world.execute(
            """
            SELECT e.id, e.email, e.id IN
                   (SELECT employee_id FROM chat_membership WHERE channel_id = ?)
            FROM people_employee e WHERE e.is_active ORDER BY e.id
            """,
            (channel_id,),
        ).fetchall()
        outsiders = [u for u in users if not u[2]]
        member = bool(private) or not outsiders or rng.random() < 0.5
        user_id, user, _ = rng.choice([u for u in users if bool(u[2]) == member])
        with read_session(world) as db:
            seen = visible_channel_ids(db.get(Employee, user_id))
            visible = db.execute(
                select(Channel.name, func.count(Membership.id))
                .join(Membership, Membership.channel_id == Channel.id)
                .where(
                    Channel.kind == "channel",
                    Channel.archived_at.is_(None),
                    Channel.id != channel_id,
                    Channel.id.in_(seen),
                )
                .group_by(Channel.id)
                .order_by(Channel.id)
            ).all()
        elsewhere = [(name, n) for name, n in visible if n != count]
        decoy_channel, decoy_count = rng.choice(elsewhere)
        near = [active, count - 1 if member else count + 1, decoy_count]
        return {
            "user": user,
            "user_id": user_id,
            "channel": channel,
            "channel_id": channel_id,
            "is_member": member,
            "count": count,
            "candidates": [str(n) for n in dict.fromkeys([count, *near])],
            "decoy": {"channel": decoy_channel},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_details(actions, params["channel"])
        heading = next(
            match
            for node in actions.nodes
            if node.role == "heading" and (match := _MEMBERS.match(squash(node.name)))
        )
        actions.send_msg_to_user(f"{heading[1]} members")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        others = [c for c in params["candidates"] if c != str(params["count"])]
        return expect.grade(
            ctx,
            expect.answer(params["count"], kind="number", distractors=others, unit="member"),
            expect.nothing_else(),
        )


__all__ = ["ChannelMemberCount"]
