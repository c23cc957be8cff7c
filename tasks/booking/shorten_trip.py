"""booking.shorten_trip — the user leaves one of their upcoming trips a day or two early:
move its check-out earlier.

The trip is a confirmed stay the user takes, the only one of theirs in that city, not yet
begun; the shorter stay still meets the listing's minimum and keeps within the user's travel
policy, so the app re-prices it and keeps it confirmed. The verifier expects the stay on the
same check-in and the earlier check-out, charged a fresh quote for them, and nothing else
(`change_trip_dates`' check). The wrong-record probe shortens another upcoming trip of theirs,
where they have one the change fits (half the instances are drawn from such users).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from . import _world
from ._formats import short_day
from ._trip_picks import shortened
from .base import BookingTemplate
from .ui import confirm_dates, open_trip, preview_dates

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "I'm leaving {city} {early}: please change my trip ({first} to {last}) to check out on "
    "{new_last}.",
    "Can you shorten my {city} stay ({first}–{last})? I'll check out {early}, on {new_last}.",
    "Plans changed: I head home from {city} on {new_last} instead of {last}. Please update "
    "that reservation (it starts {first}).",
)
_EARLY = {1: "a day early", 2: "two days early"}


def _fitting(
    world: sqlite3.Connection, trip: _world.Trip, days: int, today: date
) -> list[_world.Trip]:
    """The user's other upcoming stays that leaving `days` earlier fits as well."""
    return [
        t
        for t in _world.trips_of(world, trip.guest_id)
        if t.id != trip.id
        and t.status == "confirmed"
        and t.guest_id == trip.guest_id
        and shortened(world, t, days, today)
    ]


@register
class ShortenTrip(BookingTemplate):
    id = "booking.shorten_trip"
    difficulty = 2
    difficulty_reason = "find one trip in My trips and move its check-out earlier"
    tags = ("navigation", "form")
    max_steps = 16

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = _world.people(world)
        lone = _world.lone_trips(world)
        options = [
            (t, days)
            for t in _world.trips(world)
            if t.status == "confirmed"
            and t.check_in >= today
            and people[t.guest_id].active
            and t.id in lone
            for days in (1, 2)
            if shortened(world, t, days, today)
        ]
        # Half the instances come from users with another trip the same change fits (the
        # wrong-record probe's near miss); few users have one.
        paired = [o for o in options if _fitting(world, *o, today)]
        trip, days = rng.choice(paired if paired and rng.random() < 0.5 else options)
        fitting = _fitting(world, trip, days, today)
        decoy = rng.choice(fitting) if fitting else None
        return {
            "user": people[trip.guest_id].email,
            "user_id": trip.guest_id,
            "reservation_id": trip.id,
            "resource_id": trip.resource_id,
            "city": trip.city,
            "check_in": trip.check_in.isoformat(),
            "check_out": trip.check_out.isoformat(),
            "days": days,
            "new_check_out": (trip.check_out - timedelta(days=days)).isoformat(),
            "decoy": {
                "city": decoy.city,
                "check_in": decoy.check_in.isoformat(),
                "check_out": decoy.check_out.isoformat(),
                "new_check_out": (decoy.check_out - timedelta(days=days)).isoformat(),
            }
            if decoy
            else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last, new_last = (
            _world.day_of(params[k]) for k in ("check_in", "check_out", "new_check_out")
        )
        return rng.choice(_PHRASINGS).format(
            city=params["city"],
            early=_EARLY[params["days"]],
            first=short_day(first),
            last=short_day(last),
            new_last=short_day(new_last),
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        first, last, new_last = (
            _world.day_of(params[k]) for k in ("check_in", "check_out", "new_check_out")
        )
        open_trip(actions, params["city"], first, last)
        if not preview_dates(actions, first, new_last):
            raise LookupError(f"the {params['city']} stay can't end on {new_last}")
        confirm_dates(actions)
        actions.send_msg_to_user(f"Your {params['city']} trip now ends on {short_day(new_last)}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            checks.stay_moved(
                ctx,
                params["reservation_id"],
                params["resource_id"],
                params["user_id"],
                _world.day_of(params["check_in"]),
                _world.day_of(params["new_check_out"]),
            ),
            expect.nothing_else(),
        )


__all__ = ["ShortenTrip"]
