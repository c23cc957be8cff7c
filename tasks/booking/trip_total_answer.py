"""booking.trip_total_answer — how much one of the user's trips cost in total.

The trip is a confirmed stay the user takes, the only one of theirs in that city (whatever its
status), upcoming or past. The answer is its total as its page shows it (nights, fees and
taxes), to the cent. Plausible wrong answers: the nights' subtotal, the total before taxes,
and the totals of the user's other trips. The wrong-record probe answers another trip's total.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _world
from ._formats import dollars, money, short_day
from .base import BookingTemplate
from .ui import open_trip, price_total

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "How much did my {city} trip ({first} to {last}) cost in total?",
    "What was the total price of my stay in {city}, {first}–{last}? I need it for my expenses.",
    "Can you look up what my trip to {city} came to, all in? It's the one from {first} to {last}.",
)


@register
class TripTotalAnswer(BookingTemplate):
    id = "booking.trip_total_answer"
    difficulty = 1
    difficulty_reason = "find one trip in My trips by its city and read the total on its page"
    tags = ("navigation", "answer")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = _world.people(world)
        lone = _world.lone_trips(world)
        options = [
            t
            for t in _world.trips(world)
            if t.status == "confirmed" and people[t.guest_id].active and t.id in lone
        ]
        trip = rng.choice(options)
        mine = _world.trips_of(world, trip.guest_id)
        others = [t for t in mine if t.id != trip.id]
        price = trip.price
        near = [
            price.get("subtotal", 0),
            trip.total_cents - price.get("taxes", 0),
            *(t.total_cents for t in others),
        ]
        wrong = [money(c) for c in dict.fromkeys(near) if c and c != trip.total_cents]
        decoys = [t for t in others if t.status == "confirmed"]
        decoy = rng.choice(decoys) if decoys else None
        return {
            "user": people[trip.guest_id].email,
            "reservation_id": trip.id,
            "city": trip.city,
            "check_in": trip.check_in.isoformat(),
            "check_out": trip.check_out.isoformat(),
            "tab": _world.trip_tab(trip, today),
            "total_cents": trip.total_cents,
            "candidates": [money(trip.total_cents), *wrong],
            "decoy": {
                "city": decoy.city,
                "check_in": decoy.check_in.isoformat(),
                "check_out": decoy.check_out.isoformat(),
                "tab": _world.trip_tab(decoy, today),
            }
            if decoy
            else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            city=params["city"], first=short_day(first), last=short_day(last)
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_trip(
            actions,
            params["city"],
            _world.day_of(params["check_in"]),
            _world.day_of(params["check_out"]),
            params["tab"],
        )
        actions.send_msg_to_user(money(price_total(actions)))

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(
                dollars(params["total_cents"]),
                kind="money",
                distractors=params["candidates"][1:],
                name="the trip's total",
            ),
            expect.nothing_else(),
        )


__all__ = ["TripTotalAnswer"]
