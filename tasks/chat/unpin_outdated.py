"""chat.unpin_outdated — take down the pinned room bookings whose day has passed.

Offices pin their meeting-room bookings ("Booked Denali at Chicago Office for 1:1 on Wed
Aug 27 at 13:00."). A channel qualifies when at least one of its pinned bookings is for a day
before today and none is within a day of it (the viewer's timezone could move those across
midnight); its other pins are upcoming bookings or messages that are no booking at all. The
goal gives today's date (in one of several formats), which the agent cannot read off the
page, and asks for the past booking (when there is one) or for every past booking (whatever
their number), leaving the rest pinned. A pinned message counts as a booking when it names a
day the way bookings do ("Wed Aug 27"). The near miss is unpinning the upcoming bookings
instead, or the pins that are no booking when there is none upcoming.
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

from ._channels import active_members
from .base import ChatTemplate
from .ui import message_menu, messages, open_channel

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_BOOKED_DAY = re.compile(
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (" + "|".join(_MONTHS) + r") (\d{1,2})\b"
)
_PINNED = re.compile(r"^\d+ pinned$")
_MARGIN = timedelta(days=1)
# For a channel with one past booking among its pins.
_ONE = (
    "It's {today_text} now. One of the room bookings pinned in #{channel} is for a meeting "
    "that has already taken place; take that pin off and leave the other pins alone.",
    "#{channel} still has a pin for a room booking that's already in the past (today is "
    "{today_text}). Unpin just that one.",
    "Tidy the pinned items in #{channel}: the booking whose date has passed (we're at "
    "{today_text}) shouldn't stay pinned. Remove only that pin.",
    "Now that it's {today_text}, the #{channel} pin about a room booking that's over should "
    "come down. Leave every other pin alone.",
    "In #{channel}, a pinned room reservation refers to a meeting that is behind us as of "
    "today ({today_text}); unpin that reservation only.",
)
# For any channel: the number of past bookings is left for the agent to find.
_EVERY = (
    "Today is {today_text}. Unpin every room booking in #{channel} whose day has already "
    "passed, and keep everything else pinned.",
    "Go through the pins in #{channel} and take down each room booking for a day before "
    "today ({today_text}). Don't touch the other pins.",
    "As of {today_text}, the pinned room bookings in #{channel} that are in the past are "
    "clutter. Unpin all of those, only those.",
    "Please clear the outdated room bookings from the #{channel} pins (it's {today_text}): "
    "any booking whose date is behind us comes off, the rest stay.",
)
# Ways to write today's date in the goal.
_TODAY = (
    "{d:%A, %B} {d.day}",
    "{d:%b} {d.day}",
    "{d.day} {d:%B %Y}",
    "{d:%Y-%m-%d}",
    "{d:%a %b} {d.day}",
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


def outdated_pins(
    world: sqlite3.Connection, today: date
) -> list[tuple[int, str, list[int], list[int], str | None]]:
    """Channels with at least one pinned booking in the past and none within a day of today:
    (channel id, channel, ids of the past pins, their message ids, what else is pinned:
    "upcoming" bookings, else "unclear" (messages that are no booking), else None)."""
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
        day = booked_day(body, today)
        kind = "other" if day is None else when(day, today)
        pins[channel_id, channel].append((pin_id, message_id, kind))
    found = []
    for (channel_id, channel), rows in sorted(pins.items()):
        kinds = [k for _, _, k in rows]
        if "past" in kinds and "unclear" not in kinds:
            past = [r for r in rows if r[2] == "past"]
            found.append(
                (
                    channel_id,
                    channel,
                    [r[0] for r in past],
                    [r[1] for r in past],
                    "upcoming" if "upcoming" in kinds else "unclear" if "other" in kinds else None,
                )
            )
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
        pool = [p for p in outdated_pins(world, today) if members[p[0]]]
        channel_id, channel, pin_ids, message_ids, near = rng.choice(pool)
        user_id, email, name = rng.choice(members[channel_id])
        return {
            "pin_ids": pin_ids,
            "message_ids": message_ids,
            "channel_id": channel_id,
            "channel": channel,
            "today": today.isoformat(),
            "today_text": rng.choice(_TODAY).format(d=today),
            # "one": the goal speaks of the one past booking; "every": of all of them.
            "scope": "one" if len(pin_ids) == 1 and rng.random() < 0.5 else "every",
            "when": "past",
            "user_id": user_id,
            "user": email,
            "user_name": name,
            # The near miss: the upcoming bookings (else the other pins) unpinned instead.
            "decoy": {"when": near} if near else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_ONE if params["scope"] == "one" else _EVERY).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        today = date.fromisoformat(params["today"])
        open_channel(actions, params["channel"])
        pinned = [n.bid for n in actions.nodes if n.role == "link" and _PINNED.match(n.name)]
        actions.click(pinned[0])

        def chosen() -> list[str]:
            return [
                m.bid
                for m in messages(actions)
                if when(booked_day(m.text, today), today) == params["when"]
            ]

        # Unpinning comes back to the pinned list, one booking fewer.
        for _ in range(len(chosen())):
            found = chosen()
            message_menu(actions, lambda found=found: found[0], "Unpin from channel")
        actions.send_msg_to_user("Unpinned the bookings that have already happened.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        unpinned = [
            expect.deleted(
                "chat_pin",
                pin_id,
                name=f"the past booking (message #{message_id}) unpinned from #{params['channel']}",
            )
            for pin_id, message_id in zip(params["pin_ids"], params["message_ids"], strict=True)
        ]
        return expect.grade(ctx, *unpinned, expect.nothing_else())
