"""booking.book_for_colleague — book a stay for a colleague, within the colleague's travel
policy, under a named trip.

The user may book for others: a travel coordinator, office manager or executive assistant
books for anyone, a manager for their own reports (`apps.booking.access`). The reservation
form's "Who's travelling" picker names the traveller, and the policy shown is then the
traveller's. Some of the city's free listings are outside the colleague's policy for those
dates; any within it passes. The verifier expects exactly one new stay in that city with the
colleague as guest and the user as booker, on those dates, for one guest, named as asked,
confirmed without any of the colleague's rules broken and charged a fresh quote, and nothing
else. The wrong-record probe books the stay for the user themselves.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.apps.booking.access import BOOKER_TITLES
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
from .ui import open_listing, result_cards, search_stays

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Please book a place in {city} for {guest}, {first} to {last}, within their travel "
    "policy (one guest). Name the trip “{trip}”.",
    "{guest} is heading to {city} from {first} to {last}. Book them a stay that's in their "
    "travel policy, just for them, under the trip name “{trip}”.",
    "Can you reserve somewhere in {city} for {guest} (checking in {first}, out {last}, one "
    "guest)? It has to fit their travel policy. Trip name: “{trip}”.",
)
# How many results the oracle opens before it gives up finding one in policy.
OPENS = 3


def _bookers(world: sqlite3.Connection) -> list[tuple[_world.Person, list[_world.Person]]]:
    """Each active employee who may book for someone else, with the active colleagues of a
    name nobody else has they may book for: everyone for a booker by title, else reports."""
    people = _world.people(world)
    named = _world.unique_names(world)
    found = []
    for user in people.values():
        if not user.active:
            continue
        by_title = any(t in user.title.lower() for t in BOOKER_TITLES)
        guests = [
            p
            for p in people.values()
            if p.active
            and p.id != user.id
            and p.name in named
            and (by_title or p.manager_id == user.id)
        ]
        if guests:
            found.append((user, guests))
    return found


@register
class BookForColleague(BookingTemplate):
    id = "booking.book_for_colleague"
    difficulty = 3
    difficulty_reason = (
        "search a city for the dates, pick the colleague as the traveller on the reservation "
        "form and check listings against their policy before booking with the trip's name"
    )
    tags = ("search", "form", "multi-step")
    max_steps = 50

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        bookers = _bookers(world)
        titled = [b for b in bookers if any(t in b[0].title.lower() for t in BOOKER_TITLES)]
        cities = _world.stay_cities(world, least=4)
        for _ in range(300):
            user, guests = rng.choice(titled if titled and rng.random() < 0.3 else bookers)
            guest = rng.choice(guests)
            city = rng.choice(cities)
            check_in, check_out = _world.stay_dates(rng, today)
            offers = _world.search(world, city, check_in, check_out, 1)
            allowed = [_world.in_policy(world, guest.id, o, today) for o in offers]
            if not any(allowed) or all(allowed) or allowed.index(True) >= OPENS:
                continue
            # The wrong-record probe books for the user: something near the top is theirs too.
            if any(_world.in_policy(world, user.id, o, today) for o in offers[:OPENS]):
                break
        else:
            raise LookupError("no colleague, city and dates with stays on both sides of policy")
        return {
            "user": user.email,
            "user_id": user.id,
            "guest": guest.name,
            "guest_id": guest.id,
            "city": city,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": 1,
            "trip": trip_name(rng, city),
            "resources": [item.resource_id for item in _world.listings(world) if item.city == city],
            "decoy": {"guest": None},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            city=params["city"],
            guest=params["guest"],
            first=short_day(first),
            last=short_day(last),
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
            if picks.reserve_for(actions, params["guest"], params["trip"]):
                actions.send_msg_to_user(
                    f"Booked {cards[rank].name} for {params['guest'] or 'you'} as "
                    f"“{params['trip']}”."
                )
                return
        raise LookupError(f"none of the first {OPENS} stays is within the traveller's policy")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            checks.stay_booked(
                guest_id=params["guest_id"],
                booked_by_id=params["user_id"],
                resources=params["resources"],
                check_in=_world.day_of(params["check_in"]),
                check_out=_world.day_of(params["check_out"]),
                guests=params["guests"],
                purpose=params["trip"],
                in_policy=True,
                name=f"a stay in {params['city']} within {params['guest']}'s policy is booked "
                "for them",
            ),
            expect.nothing_else(),
        )


__all__ = ["BookForColleague"]
