"""booking.book_out_of_policy — book a named listing that is over the user's nightly cap, with
the justification the user gives, so that it goes to their manager for approval.

The user has an active manager; the listing is free for the dates and its average nightly rate
is over the cap of the user's job level in that city. The verifier expects exactly that
listing booked for the user on those dates for those guests, named as asked, waiting for
approval with the justification word for word, carrying the rules it breaks and charged a
fresh quote, one pending request to the user's manager, and nothing else. The wrong-record
probe books another listing of the same city.
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
from ._form_texts import justification, trip_name
from ._formats import short_day
from .base import BookingTemplate
from .ui import open_listing, reserve, search_stays

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Please book “{title}” in {city} for me, {first} to {last}, {guests}. I know it's over my "
    "nightly cap, so add this justification for my manager: “{reason}” Trip name: “{trip}”.",
    "I need to stay at “{title}” ({city}) from {first} to {last}, {guests}. It's outside the "
    "travel policy; request approval with the reason “{reason}” and call the trip “{trip}”.",
    "Reserve “{title}” in {city}, checking in {first} and out {last}, {guests}, for the trip "
    "“{trip}”. It breaks the policy cap; justification: “{reason}”",
)


def _guests(n: int) -> str:
    return "1 guest" if n == 1 else f"{n} guests"


@register
class BookOutOfPolicy(BookingTemplate):
    id = "booking.book_out_of_policy"
    difficulty = 3
    difficulty_reason = (
        "find a named listing for the dates, reserve it and give the justification the "
        "policy check asks for, sending it to the manager"
    )
    tags = ("search", "form", "multi-step")
    max_steps = 24

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [
            p
            for p in _world.people(world).values()
            if p.active and _world.active_manager(world, p) is not None
        ]
        cities = _world.stay_cities(world, least=3)
        for _ in range(300):
            user = rng.choice(people)
            city = rng.choice(cities)
            check_in, check_out = _world.stay_dates(rng, today)
            guests = rng.choice((1, 1, 2))
            offers = _world.search(world, city, check_in, check_out, guests)
            over = [
                o
                for o in offers
                if any(
                    r.code == "nightly_cap"
                    for r in _world.breaches(
                        world, user.id, o.listing.resource_id, check_in, check_out, today
                    )
                )
            ]
            if over and len(offers) >= 2:
                break
        else:
            raise LookupError("no free listing over anyone's nightly cap")
        chosen = rng.choice(over).listing
        # The near miss is another listing over the cap when there is one (same flow, wrong
        # place), else any other free listing.
        near = [o.listing for o in over if o.listing != chosen] or [
            o.listing for o in offers if o.listing != chosen
        ]
        other = rng.choice(near)
        manager = _world.active_manager(world, user)
        assert manager is not None
        return {
            "user": user.email,
            "user_id": user.id,
            "manager_id": manager.id,
            "city": city,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": guests,
            "resource_id": chosen.resource_id,
            "title": chosen.title,
            "trip": trip_name(rng, city),
            "reason": justification(rng),
            "decoy": {"title": other.title},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            title=params["title"],
            city=params["city"],
            first=short_day(first),
            last=short_day(last),
            guests=_guests(params["guests"]),
            reason=params["reason"],
            trip=params["trip"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        search_stays(actions, params["city"], check_in, check_out, params["guests"], sort="price")
        open_listing(actions, params["title"])
        reserve(actions, params["trip"], justification=params["reason"])
        actions.send_msg_to_user(f"Requested {params['title']}; it now waits for approval.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        stay = checks.stay_booked(
            guest_id=params["user_id"],
            booked_by_id=params["user_id"],
            resources=[params["resource_id"]],
            check_in=_world.day_of(params["check_in"]),
            check_out=_world.day_of(params["check_out"]),
            guests=params["guests"],
            purpose=params["trip"],
            status="pending_approval",
            justification=params["reason"],
            in_policy=False,
            name=f"{params['title']} is requested with the justification",
        )
        return expect.grade(
            ctx,
            stay,
            checks.approval_requested(stay, params["manager_id"]),
            expect.nothing_else(),
        )


__all__ = ["BookOutOfPolicy"]
