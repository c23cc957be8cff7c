"""chat.post_update — post a given status update in the right channel."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import Template, register
from officegym.tasks.verdict import Check, Verdict

# Changes an honest solution makes besides the intended row: reading a channel moves the
# reader's last-read marker, and every write advances the world clock's tick counter.
HONEST_VARIANCE = {"chat_membership": {"last_read_message_id"}, "world_meta": {"clock_ticks"}}

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
class PostUpdate(Template):
    id = "chat.post_update"
    apps = ("chat",)
    difficulty = 1
    difficulty_reason = "one channel named in the goal, one message typed verbatim"
    tags = ("navigation", "form")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT c.id, c.name, e.id, e.email, e.display_name
            FROM chat_membership m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee e ON e.id = m.employee_id
            WHERE c.kind = 'channel' AND c.archived_at IS NULL AND e.is_active
            ORDER BY c.id, e.id
            """
        ).fetchall()
        channel_id, channel, user_id, email, name = rng.choice(rows)
        text = rng.choice(_UPDATES).format(thing=rng.choice(_THINGS))
        return {
            "channel_id": channel_id,
            "channel": channel,
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "text": text,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def start_url(self, params: Mapping[str, Any]) -> str:
        return "/chat/"

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        # Sidebar links read "<name>" or "<name> , N unread".
        channel = next(
            n.bid
            for n in actions.nodes
            if n.bid and n.role == "link" and n.name.split(" , ")[0].strip() == params["channel"]
        )
        actions.click(channel)
        actions.fill(actions.find("textbox", f"Message #{params['channel']}"), params["text"])
        actions.click(actions.find("button", "Send", exact=True))
        actions.send_msg_to_user("Posted.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        messages = ctx.diff.table("chat_message")
        wanted = " ".join(params["text"].split()).casefold()
        matching = [
            pk
            for pk, row in messages.inserted.items()
            if row["channel_id"] == params["channel_id"]
            and row["author_id"] == params["user_id"]
            and row["thread_parent_id"] is None
            and " ".join(str(row["body"]).split()).casefold() == wanted
        ]
        posted = Check(
            "message posted in channel",
            len(matching) == 1,
            detail=f"expected one new message in #{params['channel']} reading {params['text']!r}; "
            f"found {len(matching)}",
        )
        stray = _unclaimed(ctx, {("chat_message", pk) for pk in matching})
        # Leaving the world untouched earns no credit for having broken nothing.
        clean = Check(
            "nothing else changed",
            not stray,
            weight=1.0 if matching else 0.0,
            detail="no other change" if not stray else f"unexpected: {', '.join(stray[:5])}",
        )
        return Verdict((posted, clean))


def _unclaimed(ctx: EpisodeContext, claimed: set[tuple[str, int]]) -> list[str]:
    stray = []
    for table, changes in ctx.diff.tables.items():
        for pk in changes.inserted:
            if (table, pk) not in claimed:
                stray.append(f"{table} #{pk} inserted")
        for pk in changes.deleted:
            stray.append(f"{table} #{pk} deleted")
        allowed = HONEST_VARIANCE.get(table, set())
        for pk, update in changes.updated.items():
            if not set(update.changes) <= allowed:
                stray.append(f"{table} #{pk} updated ({', '.join(sorted(update.changes))})")
    return stray
