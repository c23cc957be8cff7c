"""chat.count_unread_mentions — say how many unread @-mentions the user has, in one named
channel or across all their channels.

The count is the one the sidebar's mention badges show: messages in the channel's history
(top-level posts and replies also sent to the channel) that mention the user, were written by
someone else, are not deleted and come after the user's read marker. Opening a channel marks
it read, so the count must be read off the sidebar before opening anything; the start page
(/chat/ opens #general) already clears #general, which is why #general is never asked about
and "all channels" instances are drawn only for users with nothing unread there.
Direct messages are left out: their badges count unread messages, not mentions.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate

_START_CHANNEL = "general"
_ONE = (
    "How many unread mentions do I have in #{channel}?",
    "Quick check: how many times have I been @-mentioned in #{channel} that I haven't read yet?",
    "I've been away a bit. How many unread @mentions are waiting for me in #{channel}?",
)
_ALL = (
    "How many unread mentions do I have across all my channels? Leave out direct messages.",
    "Count up my unread @-mentions over every channel I'm in (not DMs) and give me the total.",
    "I've been away a bit. In total, how many unread @mentions are waiting in my channels "
    "(ignore DMs)?",
)
# A sidebar channel link reads "<name>", "<name> <mentions>" or "<name> , <n> unread".
_SIDEBAR = re.compile(r"^(?P<name>\S+?)(?: (?P<mentions>\d+))?(?: , \d+ unread)?$")


def channel_counts(world: sqlite3.Connection) -> list[tuple]:
    """Per (active user, channel in their sidebar): (user id, email, channel id, name,
    unread mentions, unread messages, all mentions), computed as the sidebar computes them."""
    return world.execute(
        """
        SELECT e.id, e.email, c.id, c.name,
          (SELECT count(*) FROM chat_message m
           JOIN chat_mention mn ON mn.message_id = m.id AND mn.employee_id = e.id
           WHERE m.channel_id = c.id AND (m.thread_parent_id IS NULL OR m.also_in_channel)
             AND m.deleted_at IS NULL AND m.author_id != e.id
             AND m.id > coalesce(ms.last_read_message_id, 0)),
          (SELECT count(*) FROM chat_message m
           WHERE m.channel_id = c.id AND (m.thread_parent_id IS NULL OR m.also_in_channel)
             AND m.deleted_at IS NULL AND m.author_id != e.id
             AND m.id > coalesce(ms.last_read_message_id, 0)),
          (SELECT count(*) FROM chat_message m
           JOIN chat_mention mn ON mn.message_id = m.id AND mn.employee_id = e.id
           WHERE m.channel_id = c.id AND m.deleted_at IS NULL)
        FROM chat_membership ms
        JOIN chat_channel c ON c.id = ms.channel_id
        JOIN people_employee e ON e.id = ms.employee_id
        WHERE c.kind = 'channel' AND c.archived_at IS NULL AND e.is_active
        ORDER BY e.id, c.id
        """
    ).fetchall()


def sidebar_mentions(actions) -> dict[str, int]:
    """Channel name → mention badge (0 when none) from the sidebar's Channels list."""
    links = _channel_links(actions)
    found = {}
    for node in actions.nodes:
        match = _SIDEBAR.match(squash(node.name)) if node.bid in links else None
        if match:
            found[match["name"]] = int(match["mentions"] or 0)
    return found


def sidebar_channel(actions, name: str) -> str | None:
    """The bid of the sidebar link to #`name` (whatever badge it carries), if the user is in it."""
    for node in actions.nodes:
        match = _SIDEBAR.match(squash(node.name)) if node.role == "link" and node.bid else None
        if match and match["name"] == name and node.bid in _channel_links(actions):
            return node.bid
    return None


def _channel_links(actions) -> set[str]:
    return set(actions.find_all("link", within=actions.find("list", "Channels", exact=True)))


@register
class CountUnreadMentions(ChatTemplate):
    id = "chat.count_unread_mentions"
    difficulty = 3
    difficulty_reason = (
        "the count is only on the sidebar badges, and opening a channel to check clears it"
    )
    tags = ("answer",)
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        every = channel_counts(world)
        rows = [r for r in every if r[3] != _START_CHANNEL]
        users: dict[int, list[tuple]] = {}
        for row in every:
            users.setdefault(row[0], []).append(row)
        clear_start = {
            user_id
            for user_id, own in users.items()
            if all(r[4] == 0 for r in own if r[3] == _START_CHANNEL)
        }
        if rng.random() < 0.6:
            user_id, user, channel_id, channel, count, unread, everything = rng.choice(
                [r for r in rows if r[4] > 0]
            )
            near = [everything, unread, count + 1]
            scope = {"channel": channel, "channel_id": channel_id}
            # The wrong-record probe reads the badge of another of the user's channels.
            elsewhere = [r[3] for r in rows if r[0] == user_id and r[4] != count]
            decoy = {"channel": rng.choice(elsewhere)} if elsewhere else None
        else:
            totals = sorted(
                (user_id, sum(r[4] for r in own if r[3] != _START_CHANNEL))
                for user_id, own in users.items()
                if user_id in clear_start
            )
            user_id, count = rng.choice([t for t in totals if t[1] > 0])
            own = [r for r in users[user_id] if r[3] != _START_CHANNEL]
            user = own[0][1]
            near = [
                sum(r[6] for r in own),
                sum(r[5] for r in own),
                sum(1 for r in own if r[4] > 0),
                count + 1,
            ]
            scope = {"channel": None, "channel_id": None}
            decoy = None
        return {
            "user": user,
            "user_id": user_id,
            **scope,
            "count": count,
            "candidates": [str(n) for n in dict.fromkeys([count, *near])],
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        phrasings = _ONE if params["channel"] else _ALL
        return rng.choice(phrasings).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        badges = sidebar_mentions(actions)
        channel = params["channel"]
        count = badges[channel] if channel else sum(badges.values())
        actions.send_msg_to_user(f"{count} unread mention{'s' if count != 1 else ''}")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        others = [c for c in params["candidates"] if c != str(params["count"])]
        return expect.grade(
            ctx,
            expect.answer(params["count"], kind="number", distractors=others),
            expect.nothing_else(),
        )


__all__ = ["CountUnreadMentions", "channel_counts", "sidebar_channel", "sidebar_mentions"]
