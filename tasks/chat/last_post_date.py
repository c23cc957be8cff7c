"""chat.last_post_date — the date of a person's most recent message in a channel (test split).

Dates are the calendar days the app shows the user, in the user's own timezone, and so is
"today" when an answer says "yesterday" or names a weekday. Instances
are drawn only where the person's newest message is a visible top-level post (not a thread
reply, not deleted), so scrolling the channel and searching agree on the answer.
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate
from .ui import hits, search

_PHRASINGS = (
    "#{channel} question: on what day did {person} most recently write something there?",
    "#{channel}: which date was {person}'s latest message?",
    "Scanning #{channel}, find the date of the newest post {person} made there.",
)


def local_day(stored: str, timezone: str) -> date:
    """The calendar day in `timezone` of a stored (naive UTC) timestamp."""
    moment = datetime.fromisoformat(stored).replace(tzinfo=UTC)
    return moment.astimezone(ZoneInfo(timezone)).date()


@register
class LastPostDate(ChatTemplate):
    id = "chat.last_post_date"
    difficulty = 3
    difficulty_reason = (
        "needs a filtered search or a long scroll, and the day must be read in the "
        "user's timezone (the channel shows 'Today'/'Yesterday' labels)"
    )
    split = "test"
    tags = ("search", "answer")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT m.channel_id, c.name, m.author_id, a.display_name, m.id, m.created_at,
                   m.deleted_at IS NULL AND m.thread_parent_id IS NULL
            FROM chat_message m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee a ON a.id = m.author_id
            WHERE c.kind = 'channel' AND c.archived_at IS NULL
              AND (SELECT count(*) FROM people_employee o
                   WHERE o.display_name = a.display_name) = 1
            ORDER BY m.channel_id, m.author_id, m.created_at, m.id
            """
        ).fetchall()
        posts: dict[tuple, list[tuple]] = defaultdict(list)
        for row in rows:
            posts[row[:4]].append(row[4:])
        # The newest post must be a visible top-level one, newest by time and by id alike.
        usable = {
            key: own
            for key, own in posts.items()
            if len(own) >= 3 and own[-1][2] and own[-1][0] == max(p[0] for p in own)
        }
        channel_id, channel, person_id, person = rng.choice(sorted(usable))
        user_id, user, timezone = rng.choice(
            world.execute(
                """
                SELECT e.id, e.email, e.timezone FROM chat_membership ms
                JOIN people_employee e ON e.id = ms.employee_id
                WHERE ms.channel_id = ? AND e.is_active AND e.id != ?
                ORDER BY e.id
                """,
                (channel_id, person_id),
            ).fetchall()
        )
        own = usable[(channel_id, channel, person_id, person)]
        answer = local_day(own[-1][1], timezone)
        (now,) = world.execute("SELECT now FROM world_meta WHERE id = 1").fetchone()
        earlier = sorted({local_day(p[1], timezone) for p in own} - {answer}, reverse=True)
        utc_day = datetime.fromisoformat(own[-1][1]).date()
        newest_in_channel = world.execute(
            "SELECT max(created_at) FROM chat_message WHERE channel_id = ?", (channel_id,)
        ).fetchone()[0]
        near = [*earlier[:3], utc_day, local_day(newest_in_channel, timezone)]
        others = sorted(
            {
                key[3]: local_day(rest[-1][1], timezone)
                for key, rest in usable.items()
                if key[0] == channel_id and key[2] != person_id
            }.items()
        )
        decoys = [name for name, day in others if day != answer]
        return {
            "user": user,
            "user_id": user_id,
            "channel": channel,
            "channel_id": channel_id,
            "person": person,
            "message_id": own[-1][0],
            "date": answer.isoformat(),
            # The user's own today: what "Today" and "Yesterday" on their screen are read from.
            "today": local_day(now, timezone).isoformat(),
            "candidates": [d.isoformat() for d in dict.fromkeys([answer, *near])],
            "decoy": {"person": rng.choice(decoys)} if decoys else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        search(actions, f"from:@{params['person']} in:#{params['channel']}")
        newest = hits(actions)[0]
        actions.send_msg_to_user(newest.day.isoformat())

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        others = [c for c in params["candidates"] if c != params["date"]]
        # "Yesterday" or "Tuesday" in an answer mean the user's days, as the channel labels them.
        ctx = replace(ctx, today=date.fromisoformat(params["today"]))
        return expect.grade(
            ctx,
            expect.answer(date.fromisoformat(params["date"]), kind="date", distractors=others),
            expect.nothing_else(),
        )


__all__ = ["LastPostDate", "local_day"]
