"""booking.book_stay_in_policy — book any stay in a city for given dates and guests that the
travel policy allows, under a named trip.

The user is the traveller. Some of the city's free listings are outside the user's policy for
those dates (over their level's nightly cap or the total, or not a preferred place where only
those are allowed); any listing within it passes. The verifier expects exactly one new stay in
that city for the user, on those dates and for those guests, named as asked, confirmed without
any rule broken and charged a fresh quote of its listing, and nothing else. The wrong-record
probe books the same trip in another city.
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

from . import _checks as checks
from . import _world
from ._form_texts import trip_name
from ._formats import short_day
from .base import BookingTemplate
from .ui import open_listing, reserve, result_cards, search_stays, within_policy

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Book me a place in {city} from {first} to {last} for {guests} that's within our travel "
    "policy. Call the trip “{trip}”.",
    "I'm going to {city}, {first}–{last}, {guests}. Please book a stay that doesn't need "
    "approval (in policy) and name the trip “{trip}”.",
    "Find and book somewhere to stay in {city} for {guests}, checking in {first} and out "
    "{last}. It has to be within the travel policy. Trip name: “{trip}”.",
)
# How many results the oracle opens before it gives up finding one in policy.
OPENS = 4


def _guests(n: int) -> str:
    return "just me" if n == 1 else f"{n} guests"


def _request(world: sqlite3.Connection, rng: random.Random, user_id: int, city: str, today):
    """Dates and guests in `city` for which some free listings are in the user's policy and
    some are not, and the rank of the first in policy by total; None when they don't exist."""
    check_in, check_out = _world.stay_dates(rng, today)
    guests = rng.choice((1, 1, 2))
    offers = _world.search(world, city, check_in, check_out, guests)
    allowed = [_world.in_policy(world, user_id, o, today) for o in offers]
    if not any(allowed) or all(allowed) or allowed.index(True) >= OPENS:
        return None
    return check_in, check_out, guests


@register
class BookStayInPolicy(BookingTemplate):
    id = "booking.book_stay_in_policy"
    difficulty = 3
    difficulty_reason = (
        "search a city for the dates and guests, then check listings against the travel "
        "policy before reserving one with the trip's name"
    )
    tags = ("search", "form", "multi-step")
    max_steps = 30

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [p for p in _world.people(world).values() if p.active]
        cities = _world.stay_cities(world, least=4)
        for _ in range(200):
            user = rng.choice(people)
            city = rng.choice(cities)
            found = _request(world, rng, user.id, city, today)
            if found is not None:
                break
        else:
            raise LookupError("no city and dates with listings both in and out of policy")
        check_in, check_out, guests = found
        decoy_city = rng.choice([c for c in cities if c != city])
        return {
            "user": user.email,
            "user_id": user.id,
            "city": city,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": guests,
            "trip": trip_name(rng, city),
            "resources": [item.resource_id for item in _world.listings(world) if item.city == city],
            "decoy": {"city": decoy_city},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            city=params["city"],
            first=short_day(first),
            last=short_day(last),
            guests=_guests(params["guests"]),
            trip=params["trip"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        for rank in range(OPENS):
            search_stays(actions, params["city"], check_in, check_out, params["guests"])
            cards = result_cards(actions)
            if rank >= len(cards):
                break
            open_listing(actions, cards[rank].name)
            if within_policy(actions):
                reserve(actions, params["trip"])
                actions.send_msg_to_user(f"Booked {cards[rank].name} for “{params['trip']}”.")
                return
        raise LookupError(f"none of the first {OPENS} stays is within the policy")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            checks.stay_booked(
                guest_id=params["user_id"],
                booked_by_id=params["user_id"],
                resources=params["resources"],
                check_in=_world.day_of(params["check_in"]),
                check_out=_world.day_of(params["check_out"]),
                guests=params["guests"],
                purpose=params["trip"],
                in_policy=True,
                name=f"a stay in {params['city']} within the policy is booked",
            ),
            expect.nothing_else(),
        )


__all__ = ["BookStayInPolicy"]
