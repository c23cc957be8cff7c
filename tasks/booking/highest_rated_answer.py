"""booking.highest_rated_answer — which home (or hotel) in a city, free for given dates and
big enough, has the best guest rating: its name.

Among the listings of that kind free for the dates that sleep the guests (and, for a home,
have the bedrooms asked for), one place is rated clearly best: its rating, as the cards show
it, is above every other place's. The answer names it (a hotel by its name, any of its rooms
will do); naming another place as well (the runner-up, the best place of the other kind, the
best ignoring the dates) fails. One instance in six asks about a city where no place of that
kind fits: the right move is `report_infeasible`. Nothing may change. The wrong-record probe
names the runner-up.
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

from . import _stay_picks as picks
from . import _world
from ._formats import short_day
from .base import BookingTemplate
from .ui import result_cards, search_stays

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Which {kind} in {city} that {fit} and is free from {first} to {last} has the best "
    "guest rating? Just tell me its name.",
    "Quick question, no booking needed: for {first}–{last} in {city}, which available {kind} "
    "that {fit} is rated highest by guests?",
    "I want the best-reviewed {kind} in {city}, checking in {first} and out {last}; it "
    "{fit}. Which one is it?",
)
KINDS = {"home": "home", "hotel_room": "hotel"}
IMPOSSIBLE_SHARE = 1 / 6
# Result pages the oracle reads before it concludes nothing of the kind is listed.
PAGES = 10


def fit(guests: int, bedrooms: int) -> str:
    sleeps = "sleeps one person" if guests == 1 else f"sleeps {guests}"
    return f"{sleeps} and has at least {bedrooms} bedrooms" if bedrooms else sleeps


def _places(world: sqlite3.Connection, items: Sequence[_world.Listing], kind: str | None):
    """The places (property ids) of `kind` (None: any) among the listings, best rated first,
    each with its rating as the cards show it and its name (rooms of a hotel are one place)."""
    found: dict[int, tuple[float, str]] = {}
    for item in items:
        rating = picks.rating_of(world, item)
        if (kind is None or item.kind == kind) and rating is not None:
            name = item.title.split(" · ")[0] if item.kind == "hotel_room" else item.title
            found[item.property_id] = (rating, name)
    return sorted(found.items(), key=lambda p: (-p[1][0], p[0]))


def _clear_best(world: sqlite3.Connection, city: str, kind: str, offers) -> bool:
    """Whether one place of `kind` is rated above every other and named unlike any other
    place of the city, and its cards are on the first page of the rating sort."""
    places = _places(world, [o.listing for o in offers], kind)
    if len(places) < 2 or places[0][1][0] <= places[1][1][0]:
        return False
    best_id, (_rating, name) = places[0]
    others = {
        item.title.split(" · ")[0]
        for item in _world.listings(world)
        if item.city == city and item.property_id != best_id
    }
    if any(picks.same_name(name, o) for o in others):
        return False
    ranked = sorted(
        offers,
        key=lambda o: (-(picks.rating_of(world, o.listing) or 0), o.listing.resource_id),
    )
    return any(o.listing.property_id == best_id for o in ranked[:20])


@register
class HighestRatedAnswer(BookingTemplate):
    id = "booking.highest_rated_answer"
    difficulty = 2
    difficulty_reason = (
        "search a city with dates, guests and a bedrooms filter, sort by rating and name the "
        "first result of the kind asked for"
    )
    impossible_instances = True
    tags = ("search", "sort-filter", "answer")
    max_steps = 25

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [p for p in _world.people(world).values() if p.active]
        feasible = rng.random() >= IMPOSSIBLE_SHARE
        kind = rng.choice(sorted(KINDS))
        cities = sorted({i.city for i in _world.listings(world) if i.kind == kind})
        for _ in range(400):
            city = rng.choice(cities)
            check_in, check_out = _world.stay_dates(rng, today, lead=(3, 60))
            if kind == "home":
                bedrooms = rng.choice((1, 2, 2, 3) if feasible else (2, 3, 3, 4))
                guests = rng.randint(bedrooms, bedrooms * 2)
            else:
                bedrooms = 0
                guests = rng.choice((1, 2, 2, 3) if feasible else (3, 4, 4))
            offers = _world.search(world, city, check_in, check_out, guests, bedrooms=bedrooms)
            mine = [o for o in offers if o.listing.kind == kind]
            if not feasible and not mine:
                break
            if feasible and _clear_best(world, city, kind, offers):
                break
        else:
            raise LookupError(f"no city and dates with a clearly best-rated {KINDS[kind]}")
        params: dict[str, Any] = {
            "user": rng.choice(people).email,
            "feasible": feasible,
            "kind": kind,
            "city": city,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": guests,
            "bedrooms": bedrooms,
            "skip": 0,
        }
        if not feasible:
            return {**params, "decoy": None}
        free = [o.listing for o in offers]
        places = _places(world, free, kind)
        best = places[0][1][1]
        # What a hurried reader might name instead: the runner-up, the best place of any
        # kind, the best whether free or not.
        near = [places[1][1][1], _places(world, free, None)[0][1][1]]
        undated = [
            item
            for item in _world.listings(world)
            if item.city == city and item.capacity >= guests and item.bedrooms >= bedrooms
        ]
        near.append(_places(world, undated, kind)[0][1][1])
        others = sorted({n for n in near if not picks.same_name(n, best)})
        return {
            **params,
            "title": best,
            "rating": places[0][1][0],
            "others": others,
            "candidates": [best, *others],
            "decoy": {"skip": 1},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            kind=KINDS[params["kind"]],
            city=params["city"],
            first=short_day(first),
            last=short_day(last),
            fit=fit(params["guests"], params["bedrooms"]),
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        search_stays(
            actions, params["city"], check_in, check_out, params["guests"],
            bedrooms=params["bedrooms"], sort="rating",
        )  # fmt: skip
        hotel = params["kind"] == "hotel_room"
        seen: list[str] = []
        for _ in range(PAGES):
            for card in result_cards(actions):
                name = picks.place_name(card)
                if picks.is_hotel(card) == hotel and name not in seen:
                    seen.append(name)
            if len(seen) > params["skip"]:
                actions.send_msg_to_user(f"{seen[params['skip']]} has the best guest rating.")
                return
            more = actions.find_all("link", "Next page", exact=True)
            if not more:
                break
            actions.click(more[0])
        actions.report_infeasible(
            f"No {KINDS[params['kind']]} in {params['city']} is free for those dates with "
            "that much room."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.answer(
                params["title"], kind="text", distractors=params["others"], name="the place named"
            ),
            expect.nothing_else(),
        )


__all__ = ["HighestRatedAnswer"]
