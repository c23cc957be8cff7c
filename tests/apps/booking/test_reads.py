"""Stay search against brute force: for each search, every listing of the small seed-0 world is
checked one by one (its rows read plainly, each night counted, the price asked of the service)
and the search must return exactly those, in the asked order, with the service's totals."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import date, timedelta

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from officegym.apps.booking import availability, reads, service
from officegym.apps.booking.reads import StaySearch
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.generate.places import BY_NAME
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import Property
from officegym.seed_data.store import WorldStore

SMALL = "booking-small"


@pytest.fixture(scope="module")
def sdb(store: WorldStore) -> Iterator[Session]:
    """A session on a live copy of the small seed-0 world; offices without coordinates get
    their city's centre (so distance has something to measure)."""
    store.create(SMALL, 0, "small", replace=True)
    engine = make_engine(store.world_path(SMALL), create=False)
    session = Session(writer(engine))
    for office in session.query(Property).filter(Property.kind == "office"):
        if office.latitude is None and office.city in BY_NAME:
            session.execute(
                update(Property)
                .where(Property.id == office.id)
                .values(
                    latitude=BY_NAME[office.city].latitude,
                    longitude=BY_NAME[office.city].longitude,
                )
            )
    session.flush()
    yield session
    session.rollback()
    session.close()
    engine.dispose()
    store.drop(SMALL)


@pytest.fixture(scope="module")
def today(sdb: Session) -> date:
    return world_now(sdb).date()


@pytest.fixture(scope="module")
def actor(sdb: Session) -> Employee:
    return sdb.scalars(select(Employee).where(Employee.is_active).order_by(Employee.id)).first()


@pytest.fixture(scope="module")
def listings(sdb: Session) -> list[dict]:
    """Every stay listing with its property's columns, read plainly."""
    found = sdb.execute(
        text(
            "SELECT r.id, r.kind, r.capacity, r.units, r.bedrooms, r.beds, r.bathrooms, "
            "r.nightly_rate, r.min_nights, p.id AS property_id, p.property_type, p.city, p.area, "
            "p.amenities, p.instant_book, p.guest_rating, p.cancellation_policy, p.latitude, "
            "p.longitude, p.is_preferred, p.name FROM booking_resource r JOIN booking_property p "
            "ON p.id = r.property_id WHERE r.kind IN ('home', 'hotel_room') "
            "AND r.nightly_rate IS NOT NULL ORDER BY r.id"
        )
    )
    return [dict(row._mapping) for row in found]


def free_every_night(sdb: Session, listing: dict, check_in: date, check_out: date) -> bool:
    """Counted night by night from the rows: holding stays against units less closures."""
    night = check_in
    while night < check_out:
        units = listing["units"]
        for (limit,) in sdb.execute(
            text(
                "SELECT units FROM booking_availability WHERE resource_id = :r "
                "AND start_date <= :d AND end_date >= :d"
            ),
            {"r": listing["id"], "d": night.isoformat()},
        ):
            units = min(units, limit)
        (held,) = sdb.execute(
            text(
                "SELECT count(*) FROM booking_reservation WHERE resource_id = :r "
                "AND status IN ('confirmed', 'pending_approval') "
                "AND date(start_at) <= :d AND date(end_at) > :d"
            ),
            {"r": listing["id"], "d": night.isoformat()},
        ).one()
        if units - held < 1:
            return False
        night += timedelta(days=1)
    return True


def brute_force(
    sdb: Session, actor: Employee, listings: list[dict], s: StaySearch
) -> dict[int, tuple[int, int | None, float | None]]:
    """resource id -> (nightly cents, total cents, km) of every listing the search should
    return, each checked on its own."""
    places = reads.resolve_place(reads.destinations(sdb), s.where) if s.where else []
    office = next((o for o in reads.offices(sdb) if o.id == s.office), None)
    out = {}
    for x in listings:
        if x["capacity"] < s.guests:
            continue
        if s.where:
            if places:
                if not any(
                    x["city"] == p.city and (not p.area or x["area"] == p.area) for p in places
                ):
                    continue
            elif (
                not any(s.where.lower() in (x[k] or "").lower() for k in ("city", "area"))
                and s.where.lower() not in reads.stay_title(x["kind"], "", "").lower()
            ):
                continue
        if s.types and x["property_type"] not in s.types:
            continue
        if x["bedrooms"] < s.bedrooms or x["beds"] < s.beds or x["bathrooms"] < s.bathrooms:
            continue
        have = set(x["amenities"].split(", "))
        if not set(s.amenities) <= have:
            continue
        if s.instant and not x["instant_book"]:
            continue
        if s.rating is not None and (x["guest_rating"] is None or x["guest_rating"] < s.rating):
            continue
        if s.cancellation and x["cancellation_policy"] not in s.cancellation:
            continue
        nightly, total = x["nightly_rate"] * 100, None
        if s.dated:
            if x["min_nights"] > s.nights:
                continue
            if not free_every_night(sdb, x, s.check_in, s.check_out):
                continue
            quoted = service.quote_stay(
                sdb,
                actor,
                resource_id=x["id"],
                check_in=s.check_in,
                check_out=s.check_out,
                guests=s.guests,
            )
            nightly, total = quoted.price.average_nightly, quoted.total_cents
            if s.total_min is not None and total < s.total_min * 100:
                continue
            if s.total_max is not None and total > s.total_max * 100:
                continue
        if s.price_min is not None and nightly < s.price_min * 100:
            continue
        if s.price_max is not None and nightly > s.price_max * 100:
            continue
        km = None
        if office is not None and x["latitude"] is not None:
            km = reads.haversine_km(
                office.latitude, office.longitude, x["latitude"], x["longitude"]
            )
        if s.km is not None and (km is None or km > s.km):
            continue
        out[x["id"]] = (nightly, total, km)
    return out


def every_page(sdb: Session, s: StaySearch) -> list[reads.StayCard]:
    first = reads.search_stays(sdb, s)
    cards = list(first.cards)
    for page in range(2, first.pages + 1):
        cards += reads.search_stays(sdb, replace(s, page=page)).cards
    assert len(cards) == first.total
    return cards


def busiest(listings: list[dict]) -> tuple[str, str]:
    """The city with the most listings, and its area with the most."""
    cities: dict[str, int] = {}
    areas: dict[tuple[str, str], int] = {}
    for x in listings:
        cities[x["city"]] = cities.get(x["city"], 0) + 1
        areas[x["city"], x["area"]] = areas.get((x["city"], x["area"]), 0) + 1
    city = max(sorted(cities), key=lambda c: cities[c])
    area = max(sorted(a for c, a in areas if c == city), key=lambda a: areas[city, a])
    return city, area


def searches(listings: list[dict], today: date) -> dict[str, StaySearch]:
    city, area = busiest(listings)
    soon = today + timedelta(days=10)
    return {
        "city and dates": StaySearch(where=city, check_in=soon, check_out=soon + timedelta(3)),
        "three filters": StaySearch(
            where=city,
            check_in=soon,
            check_out=soon + timedelta(4),
            types=("Apartment", "Hotel"),
            amenities=("wifi",),
            rating=4.0,
        ),
        "area with a nightly range": StaySearch(
            where=f"{area}, {city}",
            check_in=today + timedelta(days=3),
            check_out=today + timedelta(days=5),
            price_min=150,
            price_max=320,
        ),
        "no dates": StaySearch(where=city.upper(), price_max=250, bedrooms=1, guests=2),
        "a week with a total range": StaySearch(
            check_in=soon,
            check_out=soon + timedelta(7),
            total_min=900,
            total_max=2500,
            instant=True,
            cancellation=("flexible", "moderate"),
        ),
        "big group": StaySearch(where=city, guests=4, beds=2, bathrooms=1.5),
        "every amenity": StaySearch(
            amenities=("kitchen", "washer", "wifi", "workspace"),
            check_in=soon,
            check_out=soon + timedelta(2),
        ),
        "text that names no place": StaySearch(where=city[:4].lower()),
    }


@pytest.mark.parametrize(
    "name",
    [
        "city and dates",
        "three filters",
        "area with a nightly range",
        "no dates",
        "a week with a total range",
        "big group",
        "every amenity",
        "text that names no place",
    ],
)
def test_search_returns_exactly_what_brute_force_finds(sdb, actor, listings, today, name):
    s = searches(listings, today)[name]
    expected = brute_force(sdb, actor, listings, s)
    cards = every_page(sdb, s)
    assert {c.resource_id for c in cards} == set(expected)
    for card in cards:
        nightly, total, _km = expected[card.resource_id]
        assert (card.nightly_cents, card.total_cents) == (nightly, total)


def test_the_checked_searches_are_not_empty(sdb, actor, listings, today):
    found = {name: every_page(sdb, s) for name, s in searches(listings, today).items()}
    assert all(found[name] for name in ("city and dates", "three filters", "no dates"))
    assert len(found["three filters"]) < len(found["city and dates"])


def test_distance_to_an_office_filters_and_sorts_nearest_first(sdb, actor, listings, today):
    city, _area = busiest(listings)
    office = next(o for o in reads.offices(sdb) if o.city == city)
    s = StaySearch(office=office.id, km=6, sort="distance")
    expected = brute_force(sdb, actor, listings, s)
    cards = every_page(sdb, s)
    assert [c.resource_id for c in cards] == sorted(
        expected, key=lambda rid: (expected[rid][2], rid)
    )
    assert cards and all(c.distance_km <= 6 for c in cards)


@pytest.mark.parametrize("sort", ["price", "total", "rating", "recommended"])
def test_sorting_orders_every_page(sdb, listings, today, sort):
    city, _area = busiest(listings)
    soon = today + timedelta(days=12)
    cards = every_page(
        sdb, StaySearch(where=city, check_in=soon, check_out=soon + timedelta(2), sort=sort)
    )
    keys = {
        "price": lambda c: (c.nightly_cents, c.resource_id),
        "total": lambda c: (c.total_cents, c.resource_id),
        "rating": lambda c: (-(c.rating or 0), c.resource_id),
        "recommended": lambda c: (not c.preferred, -(c.rating or 0), c.resource_id),
    }
    assert len(cards) > reads.PER_PAGE
    assert cards == sorted(cards, key=keys[sort])


def test_a_page_holds_twenty_results_and_the_last_page_the_rest(sdb, listings, today):
    city, _area = busiest(listings)
    first = reads.search_stays(sdb, StaySearch(where=city))
    assert first.total > reads.PER_PAGE
    assert len(first.cards) == reads.PER_PAGE
    last = reads.search_stays(sdb, StaySearch(where=city, page=first.pages))
    assert len(last.cards) == first.total - reads.PER_PAGE * (first.pages - 1)
    beyond = reads.search_stays(sdb, StaySearch(where=city, page=first.pages + 5))
    assert beyond.search.page == first.pages


def test_a_booked_home_is_not_shown_for_its_nights(sdb, listings, today):
    (resource_id, start, end, city) = sdb.execute(
        text(
            "SELECT r.resource_id, date(r.start_at), date(r.end_at), p.city "
            "FROM booking_reservation r JOIN booking_resource s ON s.id = r.resource_id "
            "JOIN booking_property p ON p.id = s.property_id WHERE s.kind = 'home' "
            "AND r.status = 'confirmed' AND date(r.start_at) >= :today "
            "ORDER BY r.start_at, r.id LIMIT 1"
        ),
        {"today": today.isoformat()},
    ).one()
    booked = StaySearch(
        where=city, check_in=date.fromisoformat(start), check_out=date.fromisoformat(end)
    )
    assert resource_id not in {c.resource_id for c in every_page(sdb, booked)}
    assert resource_id in {c.resource_id for c in every_page(sdb, replace(booked, check_in=None,
                                                                          check_out=None))}  # fmt: skip


def test_result_links_read_differently(sdb, listings):
    for city in sorted({x["city"] for x in listings}):
        names = [c.name for c in every_page(sdb, StaySearch(where=city))]
        for start in range(0, len(names), reads.PER_PAGE):
            page = names[start : start + reads.PER_PAGE]
            assert len(page) == len(set(page)), city


def test_the_calendar_counts_nights_as_availability_does(sdb, today):
    (resource_id,) = sdb.execute(
        text(
            "SELECT r.resource_id FROM booking_reservation r JOIN booking_resource s "
            "ON s.id = r.resource_id WHERE s.kind IN ('home', 'hotel_room') "
            "AND r.status = 'confirmed' AND date(r.start_at) > :today "
            "GROUP BY r.resource_id ORDER BY count(*) DESC, r.resource_id LIMIT 1"
        ),
        {"today": today.isoformat()},
    ).one()
    resource, _prop = reads.stay_resource(sdb, resource_id)
    months = reads.calendar(sdb, resource, today, today, 2)
    days = [d for m in months for week in m.weeks for d in week if d and d.day >= today]
    assert len(days) > 40
    for d in days:
        free = availability.units_left(sdb, resource_id, d.day, d.day + timedelta(days=1)) > 0
        assert d.state == ("available" if free else "unavailable"), d


def test_a_breakdown_adds_up_to_the_quote(sdb, actor, listings, today):
    home = next(x for x in listings if x["kind"] == "home" and x["min_nights"] <= 8)
    quoted = service.quote_stay(
        sdb,
        actor,
        resource_id=home["id"],
        check_in=today + timedelta(days=30),
        check_out=today + timedelta(days=38),
        guests=1,
    )
    price = reads.breakdown(quoted.price, "City tax")
    assert sum(line.cents for line in price.nights) == quoted.price.subtotal
    assert sum(line.cents for line in price.lines if line.kind != "subtotal") == (
        price.total - quoted.price.subtotal
    )
    assert price.total == quoted.total_cents


@pytest.mark.parametrize(
    ("args", "field", "message"),
    [
        ({"check_in": "2025-13-01", "check_out": "2025-10-02"}, "check_in", "as a date"),
        ({"check_in": "2030-01-05", "check_out": "2030-01-05"}, "check_out", "after check-in"),
        ({"check_in": "2030-01-05"}, "check_out", "both"),
        ({"check_in": "2020-01-05", "check_out": "2020-01-07"}, "check_in", "past"),
        ({"guests": "40"}, "guests", "1 to 16"),
        ({"price_min": "cheap"}, "price_min", "whole number"),
        ({"total_max": "500"}, "total_max", "Choose dates"),
        ({"km": "5"}, "km", "Choose an office"),
        ({"sort": "distance"}, "sort", "office"),
    ],
)
def test_search_parameters_that_cannot_be_used_are_named(args, field, message):
    search, errors = reads.parse_search(args, date(2025, 9, 17))
    assert message in errors[field]
    assert search.check_in is None or field not in ("check_in", "check_out")


def test_a_search_survives_its_own_address():
    s = StaySearch(
        where="Belltown, Seattle",
        check_in=date(2025, 10, 1),
        check_out=date(2025, 10, 4),
        guests=3,
        price_max=300,
        types=("Apartment", "Loft"),
        bathrooms=1.5,
        amenities=("wifi", "washer"),
        instant=True,
        rating=4.5,
        office=2,
        km=5.5,
        cancellation=("flexible",),
        sort="distance",
        page=3,
    )

    class Args(dict):
        def getlist(self, name):
            return [v for k, v in pairs if k == name]

    pairs = s.params()
    parsed, errors = reads.parse_search(Args(pairs), date(2025, 9, 17))
    assert errors == {}
    assert parsed == s


def test_a_tight_nightly_range_is_decided_by_exact_prices(sdb, actor, listings, today):
    city, _area = busiest(listings)
    soon = today + timedelta(days=10)
    dated = StaySearch(where=city, check_in=soon, check_out=soon + timedelta(days=4))
    averages = sorted(c.nightly_cents for c in every_page(sdb, replace(dated, sort="price")))
    middle = averages[len(averages) // 2] // 100
    tight = replace(dated, price_min=middle, price_max=middle + 1)
    expected = brute_force(sdb, actor, listings, tight)
    assert expected
    assert {c.resource_id for c in every_page(sdb, tight)} == set(expected)


def test_destinations_are_cities_then_areas(sdb, listings):
    places = reads.destinations(sdb)
    cities = sorted({x["city"] for x in listings})
    assert [p.label for p in places[: len(cities)]] == cities
    assert {(p.city, p.area) for p in places[len(cities) :]} == {
        (x["city"], x["area"]) for x in listings if x["area"]
    }
    area = places[len(cities)]
    assert reads.resolve_place(places, area.label.upper()) == [area]
