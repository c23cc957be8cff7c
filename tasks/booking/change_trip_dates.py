"""booking.change_trip_dates — move one of the user's upcoming trips to new dates.

The trip is a confirmed stay the user takes, the only one of theirs in that city; the new
dates keep it within the user's travel policy, so the app re-prices it and keeps it confirmed.
The verifier expects the stay on the new dates, charged a fresh quote for them, and nothing
else. One instance in six asks for dates on which the place is taken: the change page says it
isn't available, so the right move is `report_infeasible`. The wrong-record probe moves
another upcoming trip of the user.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from . import _world
from ._formats import short_day
from .base import BookingTemplate
from .ui import confirm_dates, open_trip, preview_dates

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Please move my {city} trip ({first} to {last}) to {new_first}–{new_last}.",
    "My {city} stay from {first} to {last} needs new dates: check in {new_first}, check out "
    "{new_last}. Can you change it?",
    "The {city} trip I have booked for {first}–{last} is moving. Change the reservation to "
    "{new_first} through {new_last}, please.",
)
IMPOSSIBLE_SHARE = 1 / 6
DATES = ("check_in", "check_out", "new_check_in", "new_check_out")
# The new check-in is this many days after today at least (the longest policy notice).
NOTICE = 15


def _new_dates(trip: _world.Trip, today: date) -> list[tuple[date, date]]:
    """Dates a traveller might move the trip to: a few days or weeks later, as long or a
    night shorter or longer."""
    found = []
    for shift in (2, 3, 5, 7, 10, 14, 21):
        start = trip.check_in + timedelta(days=shift)
        if (start - today).days < NOTICE:
            continue
        for nights in {trip.nights, trip.nights + 1, max(1, trip.nights - 1)}:
            found.append((start, start + timedelta(days=nights)))
    return sorted(found)


@register
class ChangeTripDates(BookingTemplate):
    id = "booking.change_trip_dates"
    difficulty = 2
    difficulty_reason = "find one trip in My trips and change its dates through the preview"
    impossible_instances = True
    tags = ("navigation", "form")
    max_steps = 16

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = _world.people(world)
        lone = _world.lone_trips(world)
        trips = [
            t
            for t in _world.trips(world)
            if t.status == "confirmed"
            and t.check_in >= today
            and people[t.guest_id].active
            and t.id in lone
        ]
        want_free = rng.random() >= IMPOSSIBLE_SHARE
        for _ in range(200):
            trip = rng.choice(trips)
            options = _choices(world, trip.id, today)[0 if want_free else 1]
            if options:
                break
        else:
            raise LookupError("no trip with new dates of the kind wanted")
        new_in, new_out = rng.choice(options)
        others = [
            t
            for t in _world.trips_of(world, trip.guest_id)
            if t.id != trip.id and t.status == "confirmed" and t.check_in >= today
        ]
        decoy = rng.choice(others) if others and want_free else None
        return {
            "user": people[trip.guest_id].email,
            "user_id": trip.guest_id,
            "feasible": want_free,
            "reservation_id": trip.id,
            "resource_id": trip.resource_id,
            "city": trip.city,
            "check_in": trip.check_in.isoformat(),
            "check_out": trip.check_out.isoformat(),
            "new_check_in": new_in.isoformat(),
            "new_check_out": new_out.isoformat(),
            "decoy": {
                "city": decoy.city,
                "check_in": decoy.check_in.isoformat(),
                "check_out": decoy.check_out.isoformat(),
            }
            if decoy
            else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        days = {k: short_day(_world.day_of(params[k])) for k in DATES}
        return rng.choice(_PHRASINGS).format(
            city=params["city"],
            first=days["check_in"],
            last=days["check_out"],
            new_first=days["new_check_in"],
            new_last=days["new_check_out"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        day = {k: _world.day_of(params[k]) for k in DATES}
        open_trip(actions, params["city"], day["check_in"], day["check_out"])
        if not preview_dates(actions, day["new_check_in"], day["new_check_out"]):
            actions.report_infeasible(
                f"The place I have in {params['city']} isn't available for all of the new nights."
            )
            return
        confirm_dates(actions)
        actions.send_msg_to_user(f"Moved your {params['city']} trip to the new dates.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            checks.stay_moved(
                ctx,
                params["reservation_id"],
                params["resource_id"],
                params["user_id"],
                _world.day_of(params["new_check_in"]),
                _world.day_of(params["new_check_out"]),
            ),
            expect.nothing_else(),
        )


@per_golden
def _choices(world: sqlite3.Connection, trip_id: int, today: date) -> tuple[tuple, tuple]:
    """New dates for the trip on which its place is free and the stay keeps within the policy,
    and new dates on which its place is taken."""
    trip = next(t for t in _world.trips(world) if t.id == trip_id)
    wanted = _new_dates(trip, today)
    free = _world.free_spans(world, trip.resource_id, wanted, trip.id)
    allowed = tuple(
        (first, last)
        for first, last in wanted
        if free[first, last]
        and not _world.breaches(world, trip.guest_id, trip.resource_id, first, last, today)
    )
    return allowed, tuple(span for span in wanted if not free[span])


__all__ = ["ChangeTripDates"]
