"""The booking part of a generated world: listings, reviews, seasons, taxes, policies and
reservations that agree with the booking rules, and the booking mess, planted and recorded."""

from __future__ import annotations

import json
import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from officegym.seed_data.booking_rules import (
    policy_breaches,
    policy_terms,
    quote,
    refund_cents,
    stay_terms,
)
from officegym.seed_data.generate import build_world
from officegym.seed_data.generate.places import BY_NAME, to_local
from officegym.seed_data.schema.booking import (
    AMENITIES,
    CANCELLATION_POLICIES,
    HOME_TYPES,
    JOB_LEVELS,
    ROOM_FEATURES,
)
from officegym.seed_data.store import WorldStore

STAYS = ("hotel_room", "home")
MESS = ("double_listing", "stale_approval", "departed_guest", "departed_organizer")


@pytest.fixture(
    scope="module",
    params=["tiny-0", "tiny-31", pytest.param("small-0", marks=pytest.mark.slow)],
)
def db(
    request: pytest.FixtureRequest, store: WorldStore, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[sqlite3.Connection]:
    """A tiny golden world (seed 0), a tiny world of another seed, and the small one when slow
    tests run."""
    scale, seed = request.param.split("-")
    if request.param == "tiny-0":
        path = store.golden(0, "tiny")
    else:
        path = tmp_path_factory.mktemp("booking") / f"{request.param}.sqlite"
        build_world(int(seed), scale, path)
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    yield conn
    conn.close()


def _now(db: sqlite3.Connection) -> datetime:
    return datetime.fromisoformat(db.execute("SELECT now FROM world_meta").fetchone()[0])


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _day(text: str) -> date:
    return date.fromisoformat(text[:10])


def _by_id(db: sqlite3.Connection, table: str) -> dict[int, sqlite3.Row]:
    return {r["id"]: r for r in db.execute(f"SELECT * FROM {table}")}


def _stays(db: sqlite3.Connection) -> list[sqlite3.Row]:
    return db.execute(
        "SELECT r.* FROM booking_reservation r JOIN booking_resource s ON s.id = r.resource_id "
        "WHERE s.kind IN ('hotel_room', 'home') ORDER BY r.id"
    ).fetchall()


def _fresh_quote(db: sqlite3.Connection, res: sqlite3.Row):
    resource = db.execute(
        "SELECT * FROM booking_resource WHERE id = ?", (res["resource_id"],)
    ).fetchone()
    prop = db.execute(
        "SELECT * FROM booking_property WHERE id = ?", (resource["property_id"],)
    ).fetchone()
    seasons = db.execute(
        "SELECT * FROM booking_season WHERE property_id = ?", (prop["id"],)
    ).fetchall()
    tax = db.execute("SELECT * FROM booking_city_tax WHERE city = ?", (prop["city"],)).fetchone()
    terms, names = stay_terms(resource, prop, seasons, tax)
    return quote(terms, _day(res["start_at"]), _day(res["end_at"]), names), prop


# Pricing and policy -------------------------------------------------------------------------


def test_every_stay_costs_a_fresh_quote_from_the_world_rows(db: sqlite3.Connection) -> None:
    stays = _stays(db)
    assert stays
    for res in stays:
        price, _prop = _fresh_quote(db, res)
        stored = json.loads(res["price_json"])
        assert res["total_cents"] == price.total == stored["total"], res["id"]
        assert res["price_json"] == json.dumps(price.to_json(), sort_keys=True), res["id"]


def test_stays_are_held_in_homes_as_well_as_hotels(db: sqlite3.Connection) -> None:
    kinds = {
        r[0]
        for r in db.execute(
            "SELECT DISTINCT s.kind FROM booking_reservation r "
            "JOIN booking_resource s ON s.id = r.resource_id"
        )
    }
    assert kinds == {"hotel_room", "home", "meeting_room"}


def test_policy_json_is_what_the_policy_says_on_the_booking_date(db: sqlite3.Connection) -> None:
    employees = _by_id(db, "people_employee")
    policies = db.execute("SELECT * FROM booking_policy").fetchall()
    caps = db.execute("SELECT * FROM booking_policy_cap").fetchall()
    default = next(p for p in policies if p["city"] is None)
    by_city = {p["city"]: p for p in policies if p["city"]}
    broken = 0
    for res in _stays(db):
        price, prop = _fresh_quote(db, res)
        guest = employees[res["guest_id"]]
        terms = policy_terms(by_city.get(prop["city"], default), caps, guest["job_level"])
        rules = policy_breaches(
            terms,
            price,
            today=_at(res["created_at"]).date(),
            check_in=_day(res["start_at"]),
            preferred=bool(prop["is_preferred"]),
        )
        expected = [{"code": r.code, "message": r.message} for r in rules]
        assert json.loads(res["policy_json"]) == expected, res["id"]
        assert bool(res["justification"]) == bool(rules), res["id"]
        broken += bool(rules)
    assert broken


def test_approvals_follow_the_broken_rules(db: sqlite3.Connection) -> None:
    employees = _by_id(db, "people_employee")
    approvals = defaultdict(list)
    for a in db.execute("SELECT * FROM booking_approval"):
        approvals[a["reservation_id"]].append(a)
    for res in _stays(db):
        manager = employees[res["guest_id"]]["manager_id"]
        found = approvals.pop(res["id"], [])
        if json.loads(res["policy_json"]) and manager is not None:
            assert [a["approver_id"] for a in found] == [manager], res["id"]
            approval = found[0]["status"]
            allowed = {
                "pending": {"pending_approval"},
                "approved": {"confirmed", "cancelled"},
                "rejected": {"rejected"},
            }[approval]
            assert res["status"] in allowed, res["id"]
            assert (found[0]["decided_at"] is None) == (approval == "pending")
        else:
            assert found == [], res["id"]
            assert res["status"] in ("confirmed", "cancelled"), res["id"]
    assert approvals == {}  # meeting rooms never need one


def test_cancelled_stays_refund_what_their_policy_gives_back(db: sqlite3.Connection) -> None:
    cancelled = 0
    for res in _stays(db):
        if res["status"] != "cancelled":
            assert res["refund_cents"] is None and res["cancelled_at"] is None
            continue
        cancelled += 1
        _price, prop = _fresh_quote(db, res)
        expected = refund_cents(
            prop["cancellation_policy"],
            _at(res["cancelled_at"]).date(),
            _day(res["start_at"]),
            res["total_cents"],
        )
        assert res["refund_cents"] == expected, res["id"]
    assert cancelled


def test_reservations_are_never_updated_and_guests_fit(db: sqlite3.Connection) -> None:
    resources = _by_id(db, "booking_resource")
    for res in db.execute("SELECT * FROM booking_reservation"):
        assert res["updated_at"] is None
        assert 1 <= res["guests"] <= resources[res["resource_id"]]["capacity"], res["id"]
        if resources[res["resource_id"]]["kind"] == "meeting_room":
            assert (res["total_cents"], res["price_json"], res["policy_json"]) == (0, "", "")


def test_no_resource_is_booked_beyond_its_units_on_any_night_or_slot(
    db: sqlite3.Connection,
) -> None:
    resources = _by_id(db, "booking_resource")
    windows = defaultdict(list)
    for w in db.execute("SELECT * FROM booking_availability"):
        windows[w["resource_id"]].append((_day(w["start_date"]), _day(w["end_date"]), w["units"]))

    def units(resource_id: int, day: date) -> int:
        limit = resources[resource_id]["units"]
        for first, last, cap in windows[resource_id]:
            if first <= day <= last:
                limit = min(limit, cap)
        return limit

    nights: dict[tuple[int, date], int] = defaultdict(int)
    slots: dict[int, list[tuple[datetime, datetime]]] = defaultdict(list)
    for res in db.execute("SELECT * FROM booking_reservation ORDER BY id"):
        resource_id = res["resource_id"]
        start, end = _at(res["start_at"]), _at(res["end_at"])
        if resources[resource_id]["kind"] in STAYS:
            if res["status"] not in ("confirmed", "pending_approval"):
                continue
            day = start.date()
            while day < end.date():
                nights[resource_id, day] += 1
                assert nights[resource_id, day] <= units(resource_id, day), res["id"]
                day += timedelta(days=1)
        elif res["status"] == "confirmed":
            assert units(resource_id, start.date()) >= 1, res["id"]
            assert all(end <= s or start >= e for s, e in slots[resource_id]), res["id"]
            slots[resource_id].append((start, end))


# Listings -----------------------------------------------------------------------------------


def test_amenities_and_room_features_use_the_vocabulary_sorted(db: sqlite3.Connection) -> None:
    used: set[str] = set()
    for (amenities,) in db.execute(
        "SELECT amenities FROM booking_property WHERE kind IN ('hotel', 'home')"
    ):
        words = amenities.split(", ")
        assert words == sorted(set(words)) and set(words) <= set(AMENITIES), amenities
        used |= set(words)
    assert {"wifi", "workspace", "parking", "kitchen", "washer"} <= used
    for (features,) in db.execute(
        "SELECT features FROM booking_resource WHERE kind = 'meeting_room'"
    ):
        words = features.split(", ")
        assert words == sorted(set(words)) and set(words) <= set(ROOM_FEATURES), features


def test_hotels_have_an_area_a_place_near_the_centre_and_room_types(
    db: sqlite3.Connection,
) -> None:
    hotels = db.execute("SELECT * FROM booking_property WHERE kind = 'hotel'").fetchall()
    assert hotels
    for hotel in hotels:
        city = BY_NAME[hotel["city"]]
        assert hotel["property_type"] == "Hotel" and hotel["area"] in city.neighborhoods
        assert _km(city, hotel["latitude"], hotel["longitude"]) <= 8.1
        assert hotel["service_fee_pct"] == 0 and hotel["host_id"] is None
        assert hotel["cancellation_policy"] in CANCELLATION_POLICIES
        assert hotel["house_rules"] and hotel["description"]
        rooms = db.execute(
            "SELECT * FROM booking_resource WHERE property_id = ?", (hotel["id"],)
        ).fetchall()
        assert rooms and {r["kind"] for r in rooms} == {"hotel_room"}
        for room in rooms:
            assert (room["bedrooms"], room["bathrooms"], room["cleaning_fee"]) == (1, 1, 0)
            assert room["beds"] in (1, 2) and room["min_nights"] == 1
            assert room["weekly_discount_pct"] in (0, 10)
            assert len({r["weekly_discount_pct"] for r in rooms}) == 1


def test_offices_have_a_place_downtown_for_the_distance_filter(db: sqlite3.Connection) -> None:
    offices = db.execute("SELECT * FROM booking_property WHERE kind = 'office'").fetchall()
    assert offices
    for office in offices:
        assert _km(BY_NAME[office["city"]], office["latitude"], office["longitude"]) <= 2.01


def test_homes_are_whole_listings_with_consistent_rooms_and_fees(db: sqlite3.Connection) -> None:
    homes = db.execute("SELECT * FROM booking_property WHERE kind = 'home'").fetchall()
    assert homes
    for home in homes:
        city = BY_NAME[home["city"]]
        assert home["property_type"] in HOME_TYPES and home["area"] in city.neighborhoods
        assert _km(city, home["latitude"], home["longitude"]) <= 8.1
        assert home["service_fee_pct"] == 12 and home["host_id"] is not None
        assert home["star_rating"] is None and home["description"] and home["house_rules"]
        assert ("pets allowed" in home["amenities"]) == ("Pets welcome" in home["house_rules"])
        (listing,) = db.execute(
            "SELECT * FROM booking_resource WHERE property_id = ?", (home["id"],)
        ).fetchall()
        assert (listing["kind"], listing["units"]) == ("home", 1)
        assert 0 <= listing["bedrooms"] <= 4 and listing["beds"] >= max(1, listing["bedrooms"])
        assert listing["beds"] <= listing["capacity"] <= 2 * listing["beds"]
        assert listing["bathrooms"] * 2 == int(listing["bathrooms"] * 2)
        assert 1 <= listing["bathrooms"] <= 3
        assert 25 <= listing["cleaning_fee"] <= 180 and 1 <= listing["min_nights"] <= 5
        assert listing["weekly_discount_pct"] in (0, 5, 10, 15, 20)
    instant = sum(h["instant_book"] for h in homes) / len(homes)
    assert 0.3 <= instant <= 0.9


def test_homes_exist_in_every_office_city(db: sqlite3.Connection) -> None:
    offices = {r[0] for r in db.execute("SELECT city FROM people_office")}
    homes = {r[0] for r in db.execute("SELECT city FROM booking_property WHERE kind = 'home'")}
    assert offices <= homes


def test_guest_rating_is_the_mean_of_the_reviews(db: sqlite3.Connection) -> None:
    ratings = defaultdict(list)
    now = _now(db).date()
    for review in db.execute("SELECT * FROM booking_review"):
        assert 1 <= review["rating"] <= 5 and review["author_name"] and review["body"]
        assert _day(review["created_on"]) < now
        ratings[review["property_id"]].append(review["rating"])
    unreviewed = 0
    for prop in db.execute("SELECT * FROM booking_property"):
        mine = ratings.get(prop["id"])
        if prop["kind"] == "office" or not mine:
            assert prop["guest_rating"] is None, prop["id"]
            unreviewed += prop["kind"] != "office"
        else:
            assert prop["guest_rating"] == round(sum(mine) / len(mine), 2), prop["id"]
    assert unreviewed
    every = [r for mine in ratings.values() for r in mine]
    assert sum(every) / len(every) > 3.8


def test_reviews_talk_about_the_propertys_own_area(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT r.body, p.area FROM booking_review r "
        "JOIN booking_property p ON p.id = r.property_id"
    ).fetchall()
    assert rows and all(r["area"] in r["body"] for r in rows)


def test_seasons_never_overlap_within_a_property(db: sqlite3.Connection) -> None:
    seasons = defaultdict(list)
    for s in db.execute("SELECT * FROM booking_season ORDER BY start_date"):
        assert _day(s["start_date"]) <= _day(s["end_date"]) and s["percent"] != 0
        seasons[s["property_id"]].append((_day(s["start_date"]), _day(s["end_date"])))
    for spans in seasons.values():
        for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
            assert end < start
    stays = db.execute(
        "SELECT count(*) FROM booking_property WHERE kind IN ('hotel', 'home')"
    ).fetchone()[0]
    assert 0 < len(seasons) < stays


def test_every_city_with_stays_has_one_city_tax(db: sqlite3.Connection) -> None:
    cities = {r[0] for r in db.execute("SELECT city FROM booking_property WHERE kind != 'office'")}
    taxes = db.execute("SELECT * FROM booking_city_tax").fetchall()
    assert {t["city"] for t in taxes} == cities and len(taxes) == len(cities)
    for tax in taxes:
        assert tax["name"] and 5 <= tax["percent"] <= 16.5 and 0 <= tax["per_night_cents"] <= 350


def test_each_policy_caps_every_job_level_in_multiples_of_25(db: sqlite3.Connection) -> None:
    policies = db.execute("SELECT * FROM booking_policy").fetchall()
    assert any(p["preferred_only"] for p in policies)
    assert {p["max_nights"] for p in policies} <= {10, 14, 21}
    for policy in policies:
        caps = dict(
            db.execute(
                "SELECT job_level, max_nightly_rate FROM booking_policy_cap WHERE policy_id = ?",
                (policy["id"],),
            ).fetchall()
        )
        assert list(caps) == list(JOB_LEVELS) or set(caps) == set(JOB_LEVELS)
        levels = [caps[level] for level in JOB_LEVELS]
        assert levels[0] == policy["max_nightly_rate"]
        assert levels == sorted(set(levels)) and all(c % 25 == 0 for c in levels)
    for policy in policies:
        if policy["preferred_only"]:
            preferred = db.execute(
                "SELECT count(*) FROM booking_property WHERE city = ? AND is_preferred",
                (policy["city"],),
            ).fetchone()[0]
            assert preferred


# Meeting rooms ------------------------------------------------------------------------------


def test_attendees_are_colleagues_never_the_organizer(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT r.id, r.guest_id, r.guests, s.kind, "
        "group_concat(a.employee_id) AS invited, count(a.id) AS n "
        "FROM booking_reservation r JOIN booking_resource s ON s.id = r.resource_id "
        "LEFT JOIN booking_attendee a ON a.reservation_id = r.id GROUP BY r.id"
    ).fetchall()
    assert any(r["n"] for r in rows)
    for r in rows:
        if r["kind"] != "meeting_room":
            assert r["n"] == 0
            continue
        invited = [int(i) for i in r["invited"].split(",")] if r["invited"] else []
        assert 1 <= len(invited) <= 8 and r["guest_id"] not in invited, r["id"]
        assert len(set(invited)) == len(invited) and r["guests"] == 1 + len(invited)


def test_series_meet_weekly_in_the_same_room_at_the_same_local_time(
    db: sqlite3.Connection,
) -> None:
    series = db.execute("SELECT * FROM booking_series").fetchall()
    assert series
    for s in series:
        assert 4 <= s["weeks"] <= 8
        rows = db.execute(
            "SELECT r.*, p.city FROM booking_reservation r "
            "JOIN booking_resource x ON x.id = r.resource_id "
            "JOIN booking_property p ON p.id = x.property_id "
            "WHERE r.series_id = ? ORDER BY r.start_at",
            (s["id"],),
        ).fetchall()
        assert len(rows) == s["weeks"]
        assert {(r["resource_id"], r["guest_id"], r["purpose"]) for r in rows} == {
            (s["resource_id"], s["organizer_id"], s["title"])
        }
        city = BY_NAME[rows[0]["city"]]
        local = [to_local(city, _at(r["start_at"])) for r in rows]
        lengths = {_at(r["end_at"]) - _at(r["start_at"]) for r in rows}
        assert len(lengths) == 1 and len({t.time() for t in local}) == 1
        for before, after in zip(local, local[1:], strict=False):
            assert after.date() - before.date() == timedelta(days=7)
        assert all(_at(r["created_at"]) < _at(rows[0]["start_at"]) for r in rows)


# Mess ---------------------------------------------------------------------------------------


def _oddities(db: sqlite3.Connection, kind: str) -> list[sqlite3.Row]:
    return db.execute("SELECT * FROM world_oddity WHERE kind = ? ORDER BY id", (kind,)).fetchall()


def test_every_kind_of_booking_mess_is_planted(db: sqlite3.Connection) -> None:
    assert all(_oddities(db, kind) for kind in MESS)


def test_double_listings_are_one_home_listed_twice_by_its_host(db: sqlite3.Connection) -> None:
    props = _by_id(db, "booking_property")
    resources = {r["property_id"]: r for r in db.execute("SELECT * FROM booking_resource")}
    for odd in _oddities(db, "double_listing"):
        copy, original = props[odd["row_id"]], props[odd["other_id"]]
        assert copy["kind"] == original["kind"] == "home" and copy["name"] != original["name"]
        same = ("host_id", "address", "city", "area", "latitude", "longitude", "property_type")
        assert all(copy[c] == original[c] for c in same)
        a, b = resources[copy["id"]], resources[original["id"]]
        assert (a["bedrooms"], a["beds"], a["capacity"]) == (
            b["bedrooms"],
            b["beds"],
            b["capacity"],
        )
        assert json.loads(odd["detail"])["duplicate_name"] == copy["name"]


def test_the_only_pending_requests_past_check_in_are_the_recorded_stale_ones(
    db: sqlite3.Connection,
) -> None:
    today = _now(db).date()
    stale = {
        r["id"]
        for r in db.execute("SELECT * FROM booking_reservation WHERE status = 'pending_approval'")
        if _day(r["start_at"]) <= today
    }
    recorded = {o["row_id"] for o in _oddities(db, "stale_approval")}
    assert stale == recorded and stale
    for odd in _oddities(db, "stale_approval"):
        approval = db.execute(
            "SELECT * FROM booking_approval WHERE id = ?", (odd["other_id"],)
        ).fetchone()
        assert (approval["reservation_id"], approval["status"]) == (odd["row_id"], "pending")


def test_the_only_live_stays_of_people_who_left_are_the_recorded_ones(
    db: sqlite3.Connection,
) -> None:
    rows = db.execute(
        "SELECT r.id, r.guest_id, s.kind FROM booking_reservation r "
        "JOIN people_employee e ON e.id = r.guest_id "
        "JOIN booking_resource s ON s.id = r.resource_id "
        "WHERE NOT e.is_active AND r.status = 'confirmed' AND r.start_at > ?",
        (_now(db).isoformat(sep=" "),),
    ).fetchall()
    guests = {(r["id"], r["guest_id"]) for r in rows if r["kind"] in STAYS}
    organizers = {(r["id"], r["guest_id"]) for r in rows if r["kind"] == "meeting_room"}
    assert guests == {(o["row_id"], o["other_id"]) for o in _oddities(db, "departed_guest")}
    assert organizers == {(o["row_id"], o["other_id"]) for o in _oddities(db, "departed_organizer")}
    assert guests and organizers


def _km(city, latitude: float, longitude: float) -> float:
    north = (latitude - city.latitude) * 111.32
    east = (longitude - city.longitude) * 111.32 * math.cos(math.radians(city.latitude))
    return math.hypot(north, east)
