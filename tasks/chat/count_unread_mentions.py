"""chat.count_unread_mentions — say how many @-mentions of the user there are: the unread ones
in one named channel or across all their channels, or every one in a named channel.

Unread mentions are what the sidebar's mention badges show: messages in the channel's history
(top-level posts and replies also sent to the channel) that mention the user, were written by
someone else, are not deleted and come after the user's read marker. Opening a channel marks
it read, so the count must be read off the sidebar before opening anything; the start page
(/chat/ opens #general) already clears #general, which is why #general is never asked about
and "all channels" instances are drawn only for users with nothing unread there. Channels
with no unread mention are asked about too: "none" is an answer like any other.
Direct messages are left out: their badges count unread messages, not mentions.

Every mention in a channel, read or not, is what the app lists under Mentions and finds with a
search for "@Name in:#channel": messages (thread replies included) that mention the user and
are not deleted, in any channel the user may see (public ones and their own private ones).
Messages that only write the user's name without the @ are found by the search too but are
not mentions, so the hits are counted by their "@Name", not by the result count. These
counts run higher than unread badges, which mostly read 0, 1 or 2: the answer is drawn first,
evenly among every count either kind of question offers, then a question with that answer.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select

from officegym.apps.chat.access import visible_channel_ids
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.chat import Channel
from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.session import read_session
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate
from .ui import hits, search, sidebar_mentions

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
_EVERY = (
    "How many messages in #{channel} mention me? Count them all, read or not.",
    "Tally every message that @-mentions me in #{channel}, old ones included.",
    "Over the whole history of #{channel}, how many posts have @mentioned me?",
)


@per_golden
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


@per_golden
def channel_mentions(world: sqlite3.Connection) -> list[tuple]:
    """Per (active user, channel they may see, by the app's `access.visible_channel_ids`):
    (user id, email, display name, channel id, name, mentions), counted as the Mentions list
    shows them: messages not deleted, thread replies included."""
    mentions = {
        (employee_id, channel_id): count
        for employee_id, channel_id, count in world.execute(
            """
            SELECT mn.employee_id, m.channel_id, count(*)
            FROM chat_mention mn JOIN chat_message m ON m.id = mn.message_id
            WHERE m.deleted_at IS NULL
            GROUP BY mn.employee_id, m.channel_id
            """
        )
    }
    found = []
    with read_session(world) as db:
        people = db.scalars(select(Employee).where(Employee.is_active).order_by(Employee.id))
        for person in people:
            visible = (
                select(Channel.id, Channel.name)
                .where(Channel.kind == "channel", Channel.id.in_(visible_channel_ids(person)))
                .order_by(Channel.id)
            )
            for channel_id, name in db.execute(visible):
                count = mentions.get((person.id, channel_id), 0)
                found.append(
                    (person.id, person.email, person.display_name, channel_id, name, count)
                )
    return found


def naming_messages(world: sqlite3.Connection, channel_id: int, name: str) -> int:
    """How many messages (not deleted) in a channel write `name`, mentioning its holder or not:
    what a plain count of the search results for the name would give."""
    return world.execute(
        """SELECT count(*) FROM chat_message WHERE channel_id = ? AND deleted_at IS NULL
           AND instr(lower(body), lower(?)) > 0""",
        (channel_id, name),
    ).fetchone()[0]


def _by_count(pairs) -> dict[int, list]:
    """(count, item) pairs grouped by count, items in the order given."""
    found: dict[int, list] = {}
    for count, item in pairs:
        found.setdefault(count, []).append(item)
    return found


def searched_mentions(actions, name: str, channel: str) -> int:
    """How many messages in #`channel` mention @`name`, read off the results of a search for
    "@name in:#channel", page by page: the hits whose text shows "@name" (a message that only
    writes the name is found too, but is no mention)."""
    search(actions, f"@{name} in:#{channel}")
    tag = f"@{name}".casefold()
    count = 0
    while True:
        count += sum(1 for h in hits(actions) if h.where == channel and tag in h.text.casefold())
        if not actions.exists("link", "Next →", exact=True):
            return count
        actions.click(actions.find("link", "Next →", exact=True))


@register
class CountUnreadMentions(ChatTemplate):
    id = "chat.count_unread_mentions"
    difficulty = 3
    difficulty_reason = (
        "unread counts are only on the sidebar badges, and opening a channel to check clears "
        "them; counting every mention takes a filtered search whose hits must be told apart "
        "from messages that merely name the user"
    )
    tags = ("answer", "search")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        every = channel_counts(world)
        seen = channel_mentions(world)
        names = {r[0]: r[2] for r in seen}
        users: dict[int, list[tuple]] = {}
        for row in every:
            users.setdefault(row[0], []).append(row)
        clear_start = {
            user_id
            for user_id, own in users.items()
            if all(r[4] == 0 for r in own if r[3] == _START_CHANNEL)
        }
        kinds = {
            "unread in one": _by_count((r[4], r) for r in every if r[3] != _START_CHANNEL),
            "unread in all": _by_count(
                (sum(r[4] for r in own if r[3] != _START_CHANNEL), user_id)
                for user_id, own in sorted(users.items())
                if user_id in clear_start
            ),
            "every in one": _by_count((r[5], r) for r in seen),
        }
        # The count is drawn first, evenly among those any kind of question offers (none
        # included), then a kind that offers it and an instance: most unread badges read 0 or
        # 1 and most channels mention a user once, and no answer may be right by default.
        count = rng.choice(sorted(set().union(*kinds.values())))
        kind = rng.choice([k for k, found in kinds.items() if count in found])
        picked = rng.choice(kinds[kind][count])
        if kind == "unread in one":
            user_id, user, channel_id, channel, count, unread, everything = picked
            near = [everything, unread, count + 1]
            scope = {"channel": channel, "channel_id": channel_id}
            # The wrong-record probe reads the badge of another of the user's channels.
            elsewhere = [r[3] for r in every if r[0] == user_id and r[4] != count]
            elsewhere = [name for name in elsewhere if name != _START_CHANNEL]
        elif kind == "unread in all":
            user_id = picked
            own = [r for r in users[user_id] if r[3] != _START_CHANNEL]
            user = own[0][1]
            near = [
                sum(r[6] for r in own),
                sum(r[5] for r in own),
                sum(1 for r in own if r[4] > 0),
                count + 1,
            ]
            scope = {"channel": None, "channel_id": None}
            elsewhere = []
        else:
            user_id, user, name, channel_id, channel, count = picked
            unread = {(r[0], r[2]): r[4] for r in every}
            near = [
                naming_messages(world, channel_id, name),
                unread.get((user_id, channel_id), 0),
                sum(r[5] for r in seen if r[0] == user_id),
                count + 1,
            ]
            scope = {"channel": channel, "channel_id": channel_id}
            # The wrong-record probe counts the mentions in another channel the user sees.
            elsewhere = [r[4] for r in seen if r[0] == user_id and r[5] != count]
        return {
            "user": user,
            "user_id": user_id,
            "name": names[user_id],
            "unread": kind != "every in one",
            **scope,
            "count": count,
            "candidates": [str(n) for n in dict.fromkeys([count, *near])],
            "decoy": {"channel": rng.choice(elsewhere)} if elsewhere else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        if params["unread"]:
            return rng.choice(_ONE if params["channel"] else _ALL).format(**params)
        return rng.choice(_EVERY).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        channel = params["channel"]
        if params["unread"]:
            badges = sidebar_mentions(actions)
            count = badges[channel] if channel else sum(badges.values())
            actions.send_msg_to_user(f"{count} unread mention{'s' if count != 1 else ''}")
            return
        count = searched_mentions(actions, params["name"], channel)
        actions.send_msg_to_user(f"{count} mention{'s' if count != 1 else ''} in #{channel}")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        others = [c for c in params["candidates"] if c != str(params["count"])]
        return expect.grade(
            ctx,
            expect.answer(params["count"], kind="number", distractors=others, unit="mention"),
            expect.nothing_else(),
        )


__all__ = [
    "CountUnreadMentions",
    "channel_counts",
    "channel_mentions",
    "naming_messages",
    "searched_mentions",
]
