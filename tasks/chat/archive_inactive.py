"""chat.archive_inactive — archive every channel the user is in that has gone quiet.

"Quiet" means no post at all (thread replies count) in the last N days before the world
clock's now (N is 45, 60, 90 or 120, named in the goal). The scope is the channels the user is a member of, since only members can archive a
channel, and #general can never be archived. Users whose channels include one whose last post
falls within 30 days either side of the cutoff are never drawn, so the answer does not depend
on time zones or on how a day is counted.

When none of the user's channels is quiet (about one instance in six), the request has
nothing to act on and the agent should say so with `report_infeasible` (the goal tells it
to); such instances are graded on that report and on nothing changing. The wrong-record
probe archives the user's least recently active live channel in place of a quiet one.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import is_set
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate
from .ui import open_details

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

QUIET_DAYS = (45, 60, 90, 120)
_MARGIN = timedelta(days=30)
_MAX_TARGETS = 4
_PHRASINGS = (
    "Please archive every channel I'm in that hasn't had a single post in the last "
    "{days} days. If there are none, report that this can't be done.",
    "Some of my channels have gone quiet. Archive each channel I belong to with no messages "
    "in the past {days} days; if none qualify, report the task as infeasible.",
    "Clean up my sidebar: archive any channel I'm a member of where nobody has posted for "
    "{days} days or more. Nothing like that? Then report it as not doable.",
)


def _when(value: str) -> datetime:
    return datetime.fromisoformat(value)


@register
class ArchiveInactive(ChatTemplate):
    id = "chat.archive_inactive"
    difficulty = 5
    impossible_instances = True
    difficulty_reason = (
        "check the latest post of every channel one is in against a date window, then "
        "archive each quiet one through its details page; sometimes there is none"
    )
    tags = ("navigation", "search", "multi-step")
    max_steps = 60

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        (now,) = world.execute("SELECT now FROM world_meta ORDER BY id LIMIT 1").fetchone()
        wants_none = rng.random() < 1 / 6
        days = rng.choice(QUIET_DAYS)
        cutoff = _when(now) - timedelta(days=days)
        rows = world.execute(
            """
            WITH latest AS (
                SELECT channel_id, MAX(created_at) AS at FROM chat_message GROUP BY channel_id
            )
            SELECT e.id, e.email, e.display_name, c.id, c.name, c.created_at, latest.at
            FROM chat_membership m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee e ON e.id = m.employee_id
            LEFT JOIN latest ON latest.channel_id = c.id
            WHERE c.kind = 'channel' AND c.archived_at IS NULL AND c.name != 'general'
              AND e.is_active
            ORDER BY e.id, c.id
            """
        ).fetchall()
        channels: dict[tuple, list[tuple[int, str, datetime]]] = {}
        for user_id, email, name, channel_id, channel, created, last in rows:
            channels.setdefault((user_id, email, name), []).append(
                (channel_id, channel, _when(last or created))
            )
        quiet: dict[tuple, list[tuple[int, str, datetime]]] = {}
        for user, theirs in channels.items():
            if any(abs(last - cutoff) <= _MARGIN for _, _, last in theirs):
                continue
            quiet[user] = [c for c in theirs if c[2] < cutoff]
        some = sorted(u for u, q in quiet.items() if 1 <= len(q) <= _MAX_TARGETS)
        none = sorted(u for u, q in quiet.items() if not q)
        feasible = bool(some) and not (none and wants_none)
        user = rng.choice(some if feasible else none)
        targets = sorted(quiet[user], key=lambda c: c[1])
        decoy = None
        if feasible:
            live = [c for c in channels[user] if c[2] >= cutoff]
            if live:
                stalest = min(live, key=lambda c: (c[2], c[0]))
                decoy = {"targets": [stalest[1]] + [c[1] for c in targets[1:]]}
        return {
            "user_id": user[0],
            "user": user[1],
            "user_name": user[2],
            "days": days,
            "target_ids": [c[0] for c in targets],
            "targets": [c[1] for c in targets],
            "feasible": feasible,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            actions.report_infeasible(
                f"Every channel you're in has had a post in the last {params['days']} days, "
                "so there is nothing to archive."
            )
            return
        for channel in params["targets"]:
            open_details(actions, channel)
            actions.click(actions.find("button", "Archive channel", exact=True))
        listed = ", ".join(f"#{c}" for c in params["targets"])
        actions.send_msg_to_user(f"Archived {listed}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        archived = [
            expect.updated(
                "chat_channel", channel_id, name=f"#{channel} archived", archived_at=is_set()
            )
            for channel_id, channel in zip(params["target_ids"], params["targets"], strict=True)
        ]
        return expect.grade(ctx, *archived, expect.nothing_else())
