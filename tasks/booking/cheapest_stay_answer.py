"""booking.cheapest_stay_answer — the cheapest stay with at least two bedrooms in a city for
given dates and guests: its name and its total (test split).

Among the listings free for the dates that sleep the guests and have two bedrooms or more,
the one with the lowest total for the stay is clearly cheapest (a dollar or more below the
next). The answer names it and states its total, to the cent; naming another candidate (the
next cheapest, the cheapest by nightly rate, the cheapest ignoring the bedrooms or the dates)
or another total fails. One instance in six asks about a city where nothing with two bedrooms
is free for that party: the right move is `report_infeasible`. Nothing may change. The
wrong-record probe answers for another city.
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
from ._formats import dollars, long_day, money
from .base import BookingTemplate
from .ui import result_cards, search_stays

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# Test split: phrased unlike any training goal.
_PHRASINGS = (
    "Which listing with two or more bedrooms in {city} is the least costly overall for "
    "{party}, arriving {first} and leaving {last}? Give me its name plus the full price.",
    "Price check, no booking: for {party} in {city} between {first} and {last}, what's the "
    "lowest-total place offering at least two bedrooms? Name and total, please.",
    "Looking at {city} from {first} to {last} with {party}: name the two-plus-bedroom stay "
    "that comes out cheapest in total, and quote that total.",
)
BEDROOMS = 2
IMPOSSIBLE_SHARE = 1 / 6


def party(guests: int) -> str:
    return "one person" if guests == 1 else f"a group of {guests}"


@register
class CheapestStayAnswer(BookingTemplate):
    id = "booking.cheapest_stay_answer"
    difficulty = 2
    difficulty_reason = (
        "search a city with dates, guests and a bedrooms filter, sort by total and read the "
        "first result's name and total"
    )
    split = "test"
    impossible_instances = True
    tags = ("search", "sort-filter", "answer")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [p for p in _world.people(world).values() if p.active]
        cities = _world.stay_cities(world)
        roomy = sorted({i.city for i in _world.listings(world) if i.bedrooms >= BEDROOMS})
        feasible = rng.random() >= IMPOSSIBLE_SHARE
        for _ in range(300):
            city = rng.choice(roomy if feasible else cities)
            check_in, check_out = _world.stay_dates(rng, today, lead=(3, 60))
            guests = rng.choice((1, 2, 3, 4))
            offers = _world.search(world, city, check_in, check_out, guests, bedrooms=BEDROOMS)
            if not feasible and not offers:
                break
            if feasible and len(offers) >= 2 and offers[1].total - offers[0].total >= 100:
                break
        else:
            raise LookupError("no city and dates with a clearly cheapest stay")
        params: dict[str, Any] = {
            "user": rng.choice(people).email,
            "feasible": feasible,
            "city": city,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": guests,
        }
        if not feasible:
            return {**params, "decoy": None}
        best = offers[0]
        # What a hurried reader might answer instead: the runner-up, the cheapest by nightly
        # rate, the cheapest of any size, the cheapest for other dates.
        near = [offers[1]]
        near.append(min(offers, key=lambda o: (o.quote.average_nightly, o.listing.resource_id)))
        near += _world.search(world, city, check_in, check_out, guests)[:1]
        later = (check_out, check_out + (check_out - check_in))
        near += _world.search(world, city, *later, guests, bedrooms=BEDROOMS)[:1]
        others = [o for o in near if o.listing.resource_id != best.listing.resource_id]
        decoy_cities = [c for c in roomy if c != city]
        return {
            **params,
            "resource_id": best.listing.resource_id,
            "title": best.listing.title,
            "total_cents": best.total,
            "others": sorted({o.listing.title for o in others}),
            "wrong_totals": sorted({money(o.total) for o in near if o.total != best.total}),
            "candidates": [f"{best.listing.title} ({money(best.total)})"]
            + [f"{o.listing.title} ({money(o.total)})" for o in others],
            "decoy": {"city": rng.choice(decoy_cities)} if decoy_cities else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            city=params["city"],
            first=long_day(first),
            last=long_day(last),
            party=party(params["guests"]),
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        search_stays(
            actions, params["city"], check_in, check_out, params["guests"],
            bedrooms=BEDROOMS, sort="total",
        )  # fmt: skip
        cards = result_cards(actions)
        if not cards:
            actions.report_infeasible(
                f"No stay with {BEDROOMS} or more bedrooms in {params['city']} is free for "
                "those dates and that many guests."
            )
            return
        best = cards[0]
        actions.send_msg_to_user(f"{best.name}: {money(best.total_cents or 0)} in total.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.answer(
                params["title"], kind="text", distractors=params["others"], name="the stay named"
            ),
            expect.answer(
                dollars(params["total_cents"]),
                kind="money",
                distractors=params["wrong_totals"],
                name="its total",
            ),
            expect.nothing_else(),
        )


__all__ = ["CheapestStayAnswer"]
