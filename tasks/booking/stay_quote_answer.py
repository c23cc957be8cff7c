"""booking.stay_quote_answer — what a named listing would charge for given dates: in total, or
in taxes.

The listing is free for the dates and guests asked, and its title is the only one of that
title in its city. The answer is the figure its page shows once the dates are chosen (the
Total row, or the tax row just above it), to the cent; the nightly rates behind it vary by
weekday and season, so it cannot be worked out from the card's nightly price. Plausible wrong
answers: the nights' subtotal, the total before taxes, the other line items, and the same
figure for the city's other free listings. The wrong-record probe answers for another listing
in the same city.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _world
from ._formats import dollars, money, short_day
from .base import BookingTemplate
from .ui import open_listing, search_stays

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_ASKS = {
    "total": (
        "How much would {title} in {city} cost in total for {first} to {last}, {guests}? "
        "Fees and taxes included.",
        "I'm thinking of staying at {title} ({city}) from {first} to {last}, {guests}. What "
        "would the whole stay come to?",
        "Get me the all-in price of {title} in {city}, checking in {first} and out {last}, "
        "for {guests}.",
    ),
    "taxes": (
        "How much tax would a stay at {title} in {city} carry, {first} to {last}, {guests}?",
        "For {title} in {city}, {first}–{last} and {guests}: what do the taxes come to?",
        "What's the tax line on {title} ({city}) for {first} to {last}, {guests}?",
    ),
}


def _guests(n: int) -> str:
    return "1 guest" if n == 1 else f"{n} guests"


def _figure(quote, ask: str) -> int:
    return quote.total if ask == "total" else quote.taxes


@register
class StayQuoteAnswer(BookingTemplate):
    id = "booking.stay_quote_answer"
    difficulty = 2
    difficulty_reason = (
        "find a listing by its name in a city search for the dates and guests, and read one "
        "line of the price table its page then shows"
    )
    tags = ("search", "answer")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [p for p in _world.people(world).values() if p.active]
        cities = _world.stay_cities(world, least=3)
        ask = rng.choice(sorted(_ASKS))
        for _ in range(200):
            city = rng.choice(cities)
            check_in, check_out = _world.stay_dates(rng, today, lead=(3, 60), nights=(2, 7))
            guests = rng.choice((1, 1, 2, 2, 3))
            offers = _world.search(world, city, check_in, check_out, guests)
            titles = Counter(item.title for item in _world.listings(world) if item.city == city)
            named = [o for o in offers if titles[o.listing.title] == 1]
            if len(named) < 2:
                continue
            offer = rng.choice(named)
            figure = _figure(offer.quote, ask)
            if figure > 0:
                break
        else:
            raise LookupError("no city and dates with two free listings of their own names")
        q = offer.quote
        near = [q.subtotal, q.total - q.taxes, q.cleaning, q.service, q.total, q.taxes]
        near += [_figure(o.quote, ask) for o in offers if o is not offer]
        wrong = [money(c) for c in dict.fromkeys(near) if c and c != figure]
        decoy = rng.choice([o for o in named if o is not offer and _figure(o.quote, ask) != figure])
        return {
            "user": rng.choice(people).email,
            "ask": ask,
            "city": city,
            "title": offer.listing.title,
            "resource_id": offer.listing.resource_id,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "guests": guests,
            "cents": figure,
            "candidates": [money(figure), *wrong],
            "decoy": {"title": decoy.listing.title},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_ASKS[params["ask"]]).format(
            title=params["title"],
            city=params["city"],
            first=short_day(first),
            last=short_day(last),
            guests=_guests(params["guests"]),
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        search_stays(actions, params["city"], check_in, check_out, params["guests"])
        open_listing(actions, params["title"])
        lines = _price_lines(actions)
        if params["ask"] == "total":
            actions.send_msg_to_user(f"The stay would cost {lines['Total']} in total.")
        else:
            # The tax line is the one just above the Total (its label names the city's tax).
            label = list(lines)[-2]
            actions.send_msg_to_user(f"The taxes come to {lines[label]}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        what = "total" if params["ask"] == "total" else "taxes"
        return expect.grade(
            ctx,
            expect.answer(
                dollars(params["cents"]),
                kind="money",
                distractors=params["candidates"][1:],
                name=f"the stay's {what}",
            ),
            expect.nothing_else(),
        )


def _price_lines(actions: PageActions) -> dict[str, str]:
    """The rows of the price table on the page, label to amount ("$123.45"), in order."""
    nodes = list(actions.nodes)
    lines: dict[str, str] = {}
    for i, node in enumerate(nodes):
        if node.role == "rowheader":
            cell = next((n for n in nodes[i + 1 :] if n.role == "cell"), None)
            amount = squash(cell.name or "") if cell is not None else ""
            if amount.lstrip("-−").startswith("$"):
                lines[squash(node.name or "")] = amount
    if "Total" not in lines:
        raise LookupError("the page shows no price table")
    return lines


__all__ = ["StayQuoteAnswer"]
