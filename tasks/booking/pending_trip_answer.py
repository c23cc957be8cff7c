"""booking.pending_trip_answer — which of the user's trips is still waiting for approval: its
city.

The user takes exactly one stay that waits for their manager's approval (the only row of My
trips' "Pending approval" tab), has other trips, and no other trip of theirs is in that city,
so the city names it. The answer is the city; the cities of the user's other trips are the
wrong answers. Nothing may change. Instances are drawn city first, so that no city is the
answer of too many of them. The wrong-record probe answers the city of another trip of theirs.
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _world
from ._formats import stay_range
from .base import BookingTemplate
from .ui import open_trips, trip_rows

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Which of my trips is still waiting for approval?",
    "One of my stays hasn't been approved yet. Where is that trip to?",
    "I booked a trip that still needs my manager's OK. Which city is it in?",
    "Which city is my trip that's pending approval in?",
    "My manager hasn't signed off on one of my bookings yet. Which city is that one for?",
    "Can you check which of my stays is still awaiting approval? Just the city, please.",
    "There's a trip of mine stuck waiting for approval. Where am I going on that one?",
    "Where's the trip I booked that hasn't been approved yet?",
    "Look up my trips: which destination is still pending my manager's approval?",
)
PENDING = "Pending approval"


@per_golden
def _askers(world: sqlite3.Connection) -> tuple[tuple[int, int], ...]:
    """(user id, trip id) of each active user whose trips My trips lists include exactly one
    waiting for approval, theirs to take, in a city none of their other trips is in."""
    people = _world.people(world)
    mine: dict[int, list[_world.Trip]] = defaultdict(list)
    for trip in _world.trips(world):
        for person in {trip.guest_id, trip.booked_by_id}:
            mine[person].append(trip)
    found = []
    for person, listed in sorted(mine.items()):
        pending = [t for t in listed if t.status == "pending_approval"]
        if len(pending) != 1 or len(listed) < 2 or not people[person].active:
            continue
        trip = pending[0]
        if trip.guest_id == person and all(t.city != trip.city for t in listed if t is not trip):
            found.append((person, trip.id))
    return tuple(found)


@register
class PendingTripAnswer(BookingTemplate):
    id = "booking.pending_trip_answer"
    difficulty = 1
    difficulty_reason = "open My trips' Pending approval tab and read its one trip's city"
    tags = ("navigation", "answer")
    max_steps = 8
    cardinality: ClassVar[tuple[int, str]] = (
        13,
        "the small world has 13 active users with exactly one pending trip, other trips and "
        "no other trip in that city",
    )

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = _world.people(world)
        by_id = {t.id: t for t in _world.trips(world)}
        by_city: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for person, trip_id in _askers(world):
            by_city[by_id[trip_id].city].append((person, trip_id))
        city = rng.choice(sorted(by_city))
        person, trip_id = rng.choice(by_city[city])
        others = [t for t in _world.trips_of(world, person) if t.id != trip_id]
        decoy = rng.choice(others)
        return {
            "user": people[person].email,
            "reservation_id": trip_id,
            "city": city,
            "tab": PENDING,
            "dates": None,
            "candidates": [city, *sorted({t.city for t in others})],
            "decoy": {
                "tab": _world.trip_tab(decoy, today),
                "dates": stay_range(decoy.check_in, decoy.check_out),
            },
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_trips(actions, params["tab"])
        rows = trip_rows(actions)
        row = next(r for r in rows if params["dates"] in (None, r.columns.get("Dates")))
        # The Stay cell ends "<place>, <city>" (then " · for <guest>" on trips for others).
        place = row.columns["Stay"].rsplit(", ", 1)[-1].split(" · ")[0]
        actions.send_msg_to_user(f"Your trip to {place} is still waiting for approval.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(
                params["city"],
                kind="text",
                distractors=params["candidates"][1:],
                name="the pending trip's city",
            ),
            expect.nothing_else(),
        )


__all__ = ["PendingTripAnswer"]
