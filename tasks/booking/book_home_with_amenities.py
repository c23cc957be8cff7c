"""booking.book_home_with_amenities — book the cheapest home in a city that has two named
amenities, for given dates and guests, under a named trip.

Among the homes (not hotel rooms) free for the dates that sleep the guests and have both
amenities (wifi and a workspace, parking and a kitchen, ...), the one with the lowest total for
the stay is clearly cheapest (a dollar or more below the next) and within the user's travel
policy. A cheaper home has only one of the two, so a search filtered on one amenity finds the
wrong place. The verifier expects exactly that listing booked for the user, on those dates,
for those guests, named as asked, confirmed and charged a fresh quote, and nothing else. The
wrong-record probe books the cheapest home that lacks one of the amenities.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping, Sequence
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
from .ui import open_listing, reserve, result_cards, search_stays

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

PAIRS = (
    ("wifi", "workspace"),
    ("parking", "kitchen"),
    ("kitchen", "washer"),
    ("wifi", "washer"),
    ("workspace", "kitchen"),
    ("parking", "wifi"),
)
SAID = {
    "wifi": "wifi",
    "workspace": "a workspace",
    "parking": "parking",
    "kitchen": "a kitchen",
    "washer": "a washer",
}
_PHRASINGS = (
    "Book me the cheapest home (not a hotel) in {city} from {first} to {last} for {party} "
    "that has {amenities}. Cheapest means the lowest total for the stay. Call the trip "
    "“{trip}”.",
    "I need a home in {city}, {first}–{last}, {party}; it must have {amenities}. Go with "
    "the one with the lowest total price and name the trip “{trip}”.",
    "Find the least expensive home in {city} with {amenities} for {party}, checking "
    "in {first} and out {last}, and book it under the trip name “{trip}”.",
)


def party(guests: int) -> str:
    return "just me" if guests == 1 else f"{guests} guests"


def homes(offers: Sequence[_world.Offer]) -> list[_world.Offer]:
    return [o for o in offers if o.listing.kind == "home"]


def _on_first_page(offers: Sequence[_world.Offer], resource_id: int) -> bool:
    return any(o.listing.resource_id == resource_id for o in offers[:20])


@register
class BookHomeWithAmenities(BookingTemplate):
    id = "booking.book_home_with_amenities"
    difficulty = 3
    difficulty_reason = (
        "search with dates, guests and two amenity filters, sort by the stay's total, skip "
        "hotel rooms to the cheapest home and reserve it with the trip's name"
    )
    tags = ("search", "sort-filter", "form", "multi-step")
    max_steps = 30

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [p for p in _world.people(world).values() if p.active]
        count: dict[str, int] = {}
        for item in _world.listings(world):
            count[item.city] = count.get(item.city, 0) + (item.kind == "home")
        cities = sorted(c for c, n in count.items() if n >= 4)
        for _ in range(500):
            user = rng.choice(people)
            city = rng.choice(cities)
            pair = list(rng.choice(PAIRS))
            rng.shuffle(pair)
            check_in, check_out = _world.stay_dates(rng, today)
            guests = rng.choice((1, 1, 2, 3))
            offers = _world.search(world, city, check_in, check_out, guests, amenities=pair)
            found = homes(offers)
            if len(found) < 2 or found[1].total - found[0].total < 100:
                continue
            best = found[0]
            if not _on_first_page(offers, best.listing.resource_id):
                continue
            if not _world.in_policy(world, user.id, best, today):
                continue
            decoy = None
            for keep in pair:
                one = _world.search(world, city, check_in, check_out, guests, amenities=[keep])
                first = homes(one)[0]
                if (
                    first.total < best.total
                    and _on_first_page(one, first.listing.resource_id)
                    and _world.in_policy(world, user.id, first, today)
                ):
                    decoy = (keep, first)
                    break
            if decoy is not None:
                break
        else:
            raise LookupError("no request whose cheapest home is clear, in policy and undercut")
        keep, lacking = decoy
        return {
            "user": user.email,
            "user_id": user.id,
            "city": city,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": guests,
            "amenities": pair,
            "trip": trip_name(rng, city),
            "resource_id": best.listing.resource_id,
            "title": best.listing.title,
            "decoy": {"amenities": [keep], "title": lacking.listing.title},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        one, two = (SAID[a] for a in params["amenities"])
        return rng.choice(_PHRASINGS).format(
            city=params["city"],
            first=short_day(first),
            last=short_day(last),
            party=party(params["guests"]),
            amenities=f"{one} and {two}",
            trip=params["trip"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        search_stays(
            actions, params["city"], check_in, check_out, params["guests"],
            amenities=params["amenities"], sort="total",
        )  # fmt: skip
        chosen = next(c for c in result_cards(actions) if not picks.is_hotel(c))
        open_listing(actions, chosen.name)
        reserve(actions, params["trip"])
        actions.send_msg_to_user(f"Booked {chosen.name}, the cheapest home that fits, as asked.")

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
                name=f"the cheapest home that fits, {params['title']}, is booked",
            ),
            expect.nothing_else(),
        )


__all__ = ["BookHomeWithAmenities"]
