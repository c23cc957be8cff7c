"""What the Booking templates share, without a browser: how the app's dates and prices are
written and read back, the matchers of the booking checks, and the stays search the samplers
use against the app's own search."""

from __future__ import annotations

import random
from datetime import date, datetime

import pytest

from officegym.apps.booking import reads
from officegym.tasks.booking import _world
from officegym.tasks.booking._checks import at, same_json
from officegym.tasks.booking._formats import (
    cents_of,
    money,
    parse_stay_range,
    stay_range,
)
from officegym.tasks.session import read_session


@pytest.mark.parametrize(
    ("first", "last", "shown"),
    [
        (date(2025, 9, 17), date(2025, 9, 20), "17–20 Sep 2025"),
        (date(2025, 9, 29), date(2025, 10, 2), "29 Sep – 2 Oct 2025"),
        (date(2025, 12, 30), date(2026, 1, 2), "30 Dec 2025 – 2 Jan 2026"),
    ],
)
def test_stay_dates_read_back_as_the_app_writes_them(first, last, shown):
    assert stay_range(first, last) == shown
    assert parse_stay_range(f"Dates {shown} · 3 nights") == (first, last)


def test_prices_read_back_to_the_cent():
    for cents in (0, 5, 99, 123450, 100000001):
        assert cents_of(money(cents)) == cents
    assert cents_of("$1,044.25 total") == 104425


def test_stored_times_and_json_match_by_value_not_by_text():
    assert at(date(2025, 10, 20)).matches("2025-10-20 00:00:00.000000")
    assert not at(date(2025, 10, 20)).matches("2025-10-21 00:00:00.000000")
    assert at(datetime.fromisoformat("2025-10-20 14:30")).matches("2025-10-20 14:30:00")
    assert not at(date(2025, 10, 20)).matches("not a time")
    assert same_json({"a": [1, 2], "b": "x"}).matches('{"b": "x",  "a": [1, 2]}')
    assert not same_json({"a": 1}).matches('{"a": 1} Also: see https://example.test')
    assert not same_json({"a": 1}).matches(None)


def test_the_samplers_search_lists_what_the_apps_search_shows(golden, world):
    rng = random.Random(7)
    today = _world.world_today(world)
    for _ in range(12):
        city = rng.choice(["Austin", "Seattle", "Chicago", "Toronto", "Singapore", "Miami"])
        check_in, check_out = _world.stay_dates(rng, today)
        guests, bedrooms = rng.choice((1, 2, 3)), rng.choice((0, 0, 2))
        mine = _world.search(world, city, check_in, check_out, guests, bedrooms=bedrooms)
        with read_session(world) as db:
            search = reads.StaySearch(
                where=city,
                check_in=check_in,
                check_out=check_out,
                guests=guests,
                bedrooms=bedrooms,
                sort="total",
            )
            shown = reads.search_stays(db, search)
        assert shown.total == len(mine)
        assert [(c.resource_id, c.total_cents) for c in shown.cards] == [
            (o.listing.resource_id, o.total) for o in mine[: reads.PER_PAGE]
        ]
