"""booking.book_near_office — book the cheapest stay within a few kilometres of one of the
company's offices for given dates, within the travel policy, under a named trip.

The search's distance filter measures from an office ("Seattle HQ") and keeps the listings
within the kilometres typed. Among the listings free for the dates that sleep the guests and
lie within that distance, the one with the lowest total is clearly cheapest (a dollar or more
below the next) and within the user's policy; no listing lies so near the limit that rounding
would matter, and the city's cheapest stay of all lies beyond it. The verifier expects exactly
that listing booked for the user, on those dates, for those guests, named as asked, confirmed
and charged a fresh quote, and nothing else. The wrong-record probe books the city's cheapest
stay, beyond the distance.
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
from . import _stay_picks as picks
from . import _world
from ._form_texts import trip_name
from ._formats import short_day
from .base import BookingTemplate
from .ui import open_listing, reserve, result_cards

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Book me the cheapest stay within {km} km of our {city} office, {first} to {last}, "
    "{party}. It has to be within the travel policy. Trip name: “{trip}”.",
    "I'll be working from the {city} office {first}–{last} ({party}). Please book whatever "
    "is cheapest in total within {km} km of it, in policy, and call the trip “{trip}”.",
    "Find the lowest-total place no more than {km} km from our office in {city} for {party}, "
    "checking in {first} and out {last}, and book it (in policy) as “{trip}”.",
)
DISTANCES = (2, 3, 4, 5)
# No listing lies closer than this to the limit (km): the shown distance and the filter agree.
MARGIN = 0.15


def party(guests: int) -> str:
    return "just me" if guests == 1 else f"{guests} guests"


@register
class BookNearOffice(BookingTemplate):
    id = "booking.book_near_office"
    difficulty = 3
    difficulty_reason = (
        "search a city with dates and guests, filter by distance to the right office, sort "
        "by the stay's total and reserve the cheapest with the trip's name"
    )
    tags = ("search", "sort-filter", "form", "multi-step")
    max_steps = 30

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [p for p in _world.people(world).values() if p.active]
        offices = [o for o in picks.offices(world) if o.city in _world.stay_cities(world, 6)]
        for _ in range(500):
            user = rng.choice(people)
            office = rng.choice(offices)
            km = rng.choice(DISTANCES)
            mine = [i for i in _world.listings(world) if i.city == office.city]
            if any(abs(picks.distance_km(world, office, i) - km) < MARGIN for i in mine):
                continue
            check_in, check_out = _world.stay_dates(rng, today)
            guests = rng.choice((1, 1, 2))
            offers = _world.search(world, office.city, check_in, check_out, guests)
            near = [o for o in offers if picks.distance_km(world, office, o.listing) <= km]
            if len(near) < 2 or near[1].total - near[0].total < 100 or offers[0] in near:
                continue
            if _world.in_policy(world, user.id, near[0], today) and _world.in_policy(
                world, user.id, offers[0], today
            ):
                break
        else:
            raise LookupError("no office, distance and dates with a clear cheapest nearby")
        best, far = near[0].listing, offers[0].listing
        return {
            "user": user.email,
            "user_id": user.id,
            "city": office.city,
            "office": office.name,
            "km": km,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": guests,
            "trip": trip_name(rng, office.city),
            "resource_id": best.resource_id,
            "title": best.title,
            "decoy": {"km": None, "title": far.title},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            city=params["city"],
            km=params["km"],
            first=short_day(first),
            last=short_day(last),
            party=party(params["guests"]),
            trip=params["trip"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        picks.search_near(
            actions, params["city"], check_in, check_out, params["guests"],
            params["office"], params["km"],
        )  # fmt: skip
        chosen = result_cards(actions)[0]
        open_listing(actions, chosen.name)
        reserve(actions, params["trip"])
        actions.send_msg_to_user(f"Booked {chosen.name} as “{params['trip']}”.")

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
                name=f"the cheapest stay within {params['km']} km, {params['title']}, is booked",
            ),
            expect.nothing_else(),
        )


__all__ = ["BookNearOffice"]
