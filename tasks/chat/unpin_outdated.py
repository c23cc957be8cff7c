"""chat.unpin_outdated — take down the pinned room booking whose day has passed.

Offices pin their meeting-room bookings ("Booked Denali at Chicago Office for 1:1 on Wed
Aug 27 at 13:00."). In a channel whose pins are all such bookings, exactly one is for a day
before today and the others are for days after it, so "the outdated pin" is unambiguous;
the goal gives today's date, which the agent cannot read off the page. Bookings within a day
of today are never used (the viewer's timezone could move them across midnight). The near
miss is unpinning an upcoming booking instead.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate, open_channel
from .reply_in_thread import active_members, message_text, use_menu

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_BOOKED_DAY = re.compile(
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (" + "|".join(_MONTHS) + r") (\d{1,2})\b"
)
_PINNED = re.compile(r"^\d+ pinned$")
_MARGIN = timedelta(days=1)
_PHRASINGS = (
    "It's {today_text} now. One of the room bookings pinned in #{channel} is for a meeting "
    "that has already taken place; take that pin off and leave the upcoming ones pinned.",
    "#{channel} still has a pin for a room booking that's already in the past (today is "
    "{today_text}). Unpin just that one.",
    "Tidy the pinned items in #{channel}: the booking whose date has passed (we're at "
    "{today_text}) shouldn't stay pinned. Remove only that pin.",
    "Now that it's {today_text}, the #{channel} pin about a room booking that's over should "
    "come down. Leave every other pin alone.",
    "In #{channel}, a pinned room reservation refers to a meeting that is behind us as of "
    "today ({today_text}); unpin that reservation only.",
)


def booked_day(text: str, today: date) -> date | None:
    """The day a room booking is for ("Wed Aug 27"), in the year that puts it nearest today."""
    found = _BOOKED_DAY.search(text)
    if found is None:
        return None
    month, day = _MONTHS.index(found.group(1)) + 1, int(found.group(2))
    candidates = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            candidates.append(date(year, month, day))
        except ValueError:
            continue
    return min(candidates, key=lambda d: abs(d - today), default=None)


def when(day: date | None, today: date) -> str:
    """Whether a booking `day` is past or upcoming, or unclear: no date, or within a day
    of today."""
    if day is None:
        return "unclear"
    if day < today - _MARGIN:
        return "past"
    return "upcoming" if day > today + _MARGIN else "unclear"


def outdated_pins(world: sqlite3.Connection, today: date) -> list[tuple[int, int, str, int]]:
    """Channels whose pins are all room bookings, exactly one past and the rest upcoming:
    (pin id, channel id, channel, message id) of the past one."""
    pins: dict[tuple[int, str], list[tuple[int, int, str]]] = defaultdict(list)
    for pin_id, channel_id, channel, message_id, body in world.execute(
        """
        SELECT p.id, c.id, c.name, m.id, m.body
        FROM chat_pin p
        JOIN chat_channel c ON c.id = p.channel_id
        JOIN chat_message m ON m.id = p.message_id
        WHERE c.kind = 'channel' AND c.archived_at IS NULL AND m.deleted_at IS NULL
        ORDER BY c.id, p.id
        """
    ):
        pins[channel_id, channel].append((pin_id, message_id, when(booked_day(body, today), today)))
    found = []
    for (channel_id, channel), rows in sorted(pins.items()):
        kinds = [k for _, _, k in rows]
        if kinds.count("past") == 1 and kinds.count("upcoming") == len(kinds) - 1 >= 1:
            pin_id, message_id, _ = next(r for r in rows if r[2] == "past")
            found.append((pin_id, channel_id, channel, message_id))
    return found


@register
class UnpinOutdated(ChatTemplate):
    id = "chat.unpin_outdated"
    split = "test"
    difficulty = 3
    difficulty_reason = (
        "find the channel's pinned list, compare each booking's date with today's, and "
        "unpin only the one in the past from its message menu"
    )
    tags = ("navigation",)
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        (now,) = world.execute("SELECT now FROM world_meta WHERE id = 1").fetchone()
        today = datetime.fromisoformat(str(now)).date()
        members = active_members(world)
        pool = [p for p in outdated_pins(world, today) if members[p[1]]]
        pin_id, channel_id, channel, message_id = rng.choice(pool)
        user_id, email, name = rng.choice(members[channel_id])
        return {
            "pin_id": pin_id,
            "message_id": message_id,
            "channel_id": channel_id,
            "channel": channel,
            "today": today.isoformat(),
            "today_text": f"{today:%A, %B} {today.day}",
            "when": "past",
            "user_id": user_id,
            "user": email,
            "user_name": name,
            # The near miss: one of the upcoming bookings unpinned instead.
            "decoy": {"when": "upcoming"},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        today = date.fromisoformat(params["today"])
        open_channel(actions, params["channel"])
        pinned = [n.bid for n in actions.nodes if n.role == "link" and _PINNED.match(n.name)]
        actions.click(pinned[0])
        nodes = list(actions.nodes)
        chosen = [
            node.bid
            for i, node in enumerate(nodes)
            if node.role == "article"
            and when(booked_day(message_text(nodes, i), today), today) == params["when"]
        ]
        use_menu(actions, lambda: chosen[0], "Unpin from channel")
        actions.send_msg_to_user("Unpinned the booking that has already happened.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.deleted(
                "chat_pin",
                params["pin_id"],
                name=f"the past booking unpinned from #{params['channel']}",
            ),
            expect.nothing_else(),
        )
