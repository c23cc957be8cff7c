"""booking.cancel_trip_refund — cancel one of the user's upcoming trips and say what comes back
(test split).

The trip is a confirmed stay the user takes, named by its city and dates. Cancelling it today
refunds what its property's cancellation policy gives (`booking_rules.refund_cents` on the
world's date): the verifier expects the stay cancelled with that refund and the refund stated,
to the cent. Plausible wrong answers: the whole total, half of it, nothing, the user's other
trips' totals. One instance in six asks to cancel a stay that has already begun: the app
offers no cancellation for it, so the right move is `report_infeasible`. The wrong-record
probe cancels another upcoming trip of the user.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.seed_data import booking_rules
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from . import _world
from ._formats import cents_of, dollars, long_day, money
from .base import BookingTemplate
from .ui import cancel_this_trip, open_trip, page_says

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# Test split: phrased unlike any training goal.
_PHRASINGS = (
    "My plans changed: please call off the {city} stay I have from {first} until {last}, then "
    "let me know the amount refunded.",
    "Drop my reservation in {city} ({first} through {last}) — it's not happening — and report "
    "back what the refund comes to.",
    "Could you undo my {city} booking, {first} – {last}? Afterwards tell me how much money "
    "I'll see returned.",
)
IMPOSSIBLE_SHARE = 1 / 6


@register
class CancelTripRefund(BookingTemplate):
    id = "booking.cancel_trip_refund"
    difficulty = 3
    difficulty_reason = (
        "find the trip by city and dates in My trips, cancel it through its confirmation page "
        "and report the refund the cancellation policy gives today"
    )
    split = "test"
    impossible_instances = True
    tags = ("navigation", "form", "answer")
    max_steps = 16

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = _world.people(world)
        lone = _world.lone_trips(world)
        upcoming, begun = [], []
        for trip in _world.trips(world):
            guest = people[trip.guest_id]
            if trip.status != "confirmed" or not guest.active or trip.check_out <= today:
                continue
            if trip.id in lone:
                (upcoming if trip.check_in >= today else begun).append(trip)
        feasible = not begun or rng.random() >= IMPOSSIBLE_SHARE
        trip = rng.choice(upcoming if feasible else begun)
        mine = _world.trips_of(world, trip.guest_id)
        refund = booking_rules.refund_cents(
            trip.cancellation, today, trip.check_in, trip.total_cents
        )
        others = [t for t in mine if t.id != trip.id]
        near = [
            trip.total_cents,
            booking_rules.percent_of(trip.total_cents, 50),
            0,
            *(t.total_cents for t in others),
        ]
        decoys = [t for t in others if t.status == "confirmed" and t.check_in >= today and feasible]
        decoy = rng.choice(decoys) if decoys else None
        return {
            "user": people[trip.guest_id].email,
            "feasible": feasible,
            "reservation_id": trip.id,
            "city": trip.city,
            "check_in": trip.check_in.isoformat(),
            "check_out": trip.check_out.isoformat(),
            "total_cents": trip.total_cents,
            "refund_cents": refund,
            "candidates": [money(refund), *(money(c) for c in dict.fromkeys(near) if c != refund)],
            "decoy": {
                "city": decoy.city,
                "check_in": decoy.check_in.isoformat(),
                "check_out": decoy.check_out.isoformat(),
            }
            if decoy
            else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            city=params["city"], first=long_day(first), last=long_day(last)
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_trip(
            actions,
            params["city"],
            _world.day_of(params["check_in"]),
            _world.day_of(params["check_out"]),
        )
        if not params["feasible"]:
            if page_says(actions, "Cancel reservation"):
                raise LookupError("the stay that has begun still offers a cancellation")
            actions.report_infeasible(
                f"My {params['city']} stay has already begun, so it can no longer be cancelled."
            )
            return
        refund = cents_of(cancel_this_trip(actions))
        actions.send_msg_to_user(f"Cancelled. You get {money(refund)} back.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            checks.stay_cancelled(params["reservation_id"], params["refund_cents"]),
            expect.answer(
                dollars(params["refund_cents"]),
                kind="money",
                distractors=params["candidates"][1:],
                name="the refund",
            ),
            expect.nothing_else(),
        )


__all__ = ["CancelTripRefund"]
