"""booking.stay_quote_answer: instances on the small seed-0 world name a free listing whose
title is its own in the city, with the figure a fresh quote gives; the verifier pays that
figure and fails the other line items, another listing's figure, hedges and a stray edit."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from officegym.apps.booking import service
from officegym.tasks.booking import _world
from officegym.tasks.booking._formats import money

from .acts import fails, passes, pick, play

IDS = ("booking.stay_quote_answer",)
SEEDS = range(30)
(QUOTE,) = IDS


def test_instances_name_a_free_listing_by_its_own_title_with_its_quoted_figure(world, instances):
    asks = Counter()
    for task in instances[QUOTE]:
        p = task.params
        asks[p["ask"]] += 1
        check_in, check_out = (_world.day_of(p[k]) for k in ("check_in", "check_out"))
        offers = _world.search(world, p["city"], check_in, check_out, p["guests"])
        (offer,) = [o for o in offers if o.listing.resource_id == p["resource_id"]]
        same = [i for i in _world.listings(world) if i.city == p["city"] and i.title == p["title"]]
        assert len(same) == 1, p["title"]
        figure = offer.quote.total if p["ask"] == "total" else offer.quote.taxes
        assert p["cents"] == figure > 0
        assert p["candidates"][0] == money(figure) not in p["candidates"][1:]
        assert p["decoy"]["title"] != p["title"]
        assert p["title"] in task.goal and p["city"] in task.goal
    assert set(asks) == {"total", "taxes"}


def test_the_quoted_figure_passes_in_plain_words(store, golden, instances):
    for ask in ("total", "taxes"):
        params = pick(instances, QUOTE, when=lambda p, ask=ask: p["ask"] == ask)
        figure = money(params["cents"])
        for text in (figure, f"It would come to {figure}.", f"{figure[1:]} dollars"):
            assert passes(play(store, golden, QUOTE, params, answer=text)), (ask, text)
        assert fails(play(store, golden, QUOTE, params))


def test_other_line_items_another_listing_and_hedges_fail(store, golden, instances):
    for ask in ("total", "taxes"):
        params = pick(instances, QUOTE, when=lambda p, ask=ask: p["ask"] == ask)
        cents, others = params["cents"], params["candidates"][1:]
        assert len(others) >= 3
        for text in (
            money(cents + 1),
            *others[:3],
            f"{money(cents)} or {others[0]}",
            f"about {money(cents)}",
            "; ".join(params["candidates"]),
        ):
            assert fails(play(store, golden, QUOTE, params, answer=text)), (ask, text)
        reported = play(store, golden, QUOTE, params, answer=money(cents), infeasible="taken")
        assert fails(reported)


def test_booking_the_stay_as_well_fails(store, golden, world, instances):
    params = pick(instances, QUOTE)
    check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
    assert check_out - check_in >= timedelta(days=1)

    def book(db, people):
        service.book_stay(
            db,
            people(params["user"]),
            resource_id=params["resource_id"],
            check_in=check_in,
            check_out=check_out,
            guests=params["guests"],
            purpose="Looking around",
            justification="The team wants to stay together.",
        )

    verdict = play(store, golden, QUOTE, params, book, answer=money(params["cents"]))
    assert fails(verdict)
