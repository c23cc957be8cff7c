"""booking.book_cheapest_stay — find the cheapest stay that meets a request and book it under
a named trip (test split).

The request names a city, dates, a number of guests and one amenity (wifi, a workspace,
parking, a kitchen or a washer). Among the listings free for those dates that sleep the guests
and have the amenity, the one with the lowest total for the stay is clearly cheapest (a dollar
or more below the next) and within the user's travel policy, so it books without approval.
The verifier expects exactly that listing booked for the user, on those dates, for those
guests, named as asked, confirmed and charged a fresh quote, and nothing else. The
wrong-record probe books the second cheapest.
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
from ._formats import long_day
from .base import BookingTemplate
from .ui import open_listing, reserve, result_cards, search_stays

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

AMENITIES = {
    "wifi": "wifi",
    "workspace": "a workspace",
    "parking": "parking",
    "kitchen": "a kitchen",
    "washer": "a washer",
}
# Test split: phrased unlike any training goal.
_PHRASINGS = (
    "Sort out accommodation in {city} arriving {first}, leaving {last}: {party}, and the "
    "place needs {amenity}. Go with whichever option costs least overall and file it as "
    "“{trip}”.",
    "We want the lowest-priced stay in {city} with {amenity} that fits {party} "
    "from {first} until {last}. Reserve it; label the trip “{trip}”.",
    "Grab the least expensive listing in {city} ({first} arrival, {last} departure) that has "
    "{amenity} and room for {party}, and reserve it as “{trip}”.",
)


def party(guests: int) -> str:
    return "only me" if guests == 1 else f"{guests} people"


@register
class BookCheapestStay(BookingTemplate):
    id = "booking.book_cheapest_stay"
    difficulty = 4
    difficulty_reason = (
        "search with dates, guests and an amenity filter, sort by the stay's total, open the "
        "cheapest listing and reserve it with the trip's name"
    )
    split = "test"
    tags = ("search", "sort-filter", "form", "multi-step")
    max_steps = 30

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [p for p in _world.people(world).values() if p.active]
        cities = _world.stay_cities(world, least=4)
        for _ in range(300):
            user = rng.choice(people)
            city = rng.choice(cities)
            amenity = rng.choice(sorted(AMENITIES))
            check_in, check_out = _world.stay_dates(rng, today)
            guests = rng.choice((1, 1, 2, 3))
            offers = _world.search(world, city, check_in, check_out, guests, amenities=[amenity])
            if (
                len(offers) >= 3
                and offers[1].total - offers[0].total >= 100
                and _world.in_policy(world, user.id, offers[0], today)
            ):
                break
        else:
            raise LookupError("no request whose cheapest stay is clearly cheapest and in policy")
        best, runner_up = offers[0].listing, offers[1].listing
        return {
            "user": user.email,
            "user_id": user.id,
            "city": city,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": guests,
            "amenity": amenity,
            "trip": trip_name(rng, city),
            "resource_id": best.resource_id,
            "title": best.title,
            "rank": 0,
            "decoy": {"rank": 1, "title": runner_up.title},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            city=params["city"],
            first=long_day(first),
            last=long_day(last),
            party=party(params["guests"]),
            amenity=AMENITIES[params["amenity"]],
            trip=params["trip"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        search_stays(
            actions,
            params["city"],
            check_in,
            check_out,
            params["guests"],
            amenities=[params["amenity"]],
            sort="total",
        )
        chosen = result_cards(actions)[params["rank"]]
        open_listing(actions, chosen.name)
        reserve(actions, params["trip"])
        actions.send_msg_to_user(
            f"Booked {chosen.name}, the cheapest match, as “{params['trip']}”."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            checks.stay_booked(
                guest_id=params["user_id"],
                booked_by_id=params["user_id"],
                resources=[params["resource_id"]],
                check_in=_world.day_of(params["check_in"]),
                check_out=_world.day_of(params["check_out"]),
                guests=params["guests"],
                purpose=params["trip"],
                in_policy=True,
                name=f"the cheapest match, {params['title']}, is booked",
            ),
            expect.nothing_else(),
        )


__all__ = ["BookCheapestStay"]
