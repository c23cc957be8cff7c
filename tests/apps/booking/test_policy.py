"""The travel policy a traveller books under, and the policy matrix: each rule, for each job
level, through `quote_stay` and `book_stay` on the hand-made world.

Seattle's policy caps a night at $250 for staff (the policy's own cap: staff have no cap row),
$300 for managers, $400 for directors and $500 for executives; it asks for approval over
$2,500, 7 days' notice, at most 14 nights, and preferred properties only. The Harbor Hotel is
preferred; the Queen Anne Loft is not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, timedelta

import pytest
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from officegym.apps.booking import policy, service
from officegym.apps.web.errors import ValidationError
from officegym.seed_data.booking_rules import PolicyTerms
from officegym.seed_data.schema.booking import Approval, PolicyCap, Resource, TravelPolicy
from tests.apps.booking import handmade as hm

MONDAY = date(2025, 10, 20)  # 33 days ahead, outside the Harbor Hotel's peak season
TRAVELLERS = {  # the one traveller of each job level
    "staff": hm.TRAVELLER,
    "manager": hm.MANAGER,
    "director": hm.DIRECTOR,
    "executive": hm.CEO,
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory):
    return hm.build(tmp_path_factory.mktemp("policy") / "handmade.sqlite")


@pytest.fixture
def db(template, tmp_path) -> Iterator[Session]:
    with hm.session(hm.copy(template, tmp_path / "world.sqlite")) as session:
        yield session


def suite_at(db: Session, dollars: int) -> None:
    """Set the Harbor Hotel's Executive Suite (no weekend rate) to `dollars` a night."""
    db.execute(update(Resource).where(Resource.id == hm.SUITE).values(nightly_rate=dollars))


def codes(db: Session, level: str, resource_id: int, check_in: date, nights: int) -> list[str]:
    quoted = service.quote_stay(
        db,
        hm.employee(db, TRAVELLERS[level]),
        resource_id=resource_id,
        check_in=check_in,
        check_out=check_in + timedelta(days=nights),
        guests=1,
    )
    return [rule.code for rule in quoted.breaches]


# -- which policy applies ------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "cap"), sorted(hm.SEATTLE_CAPS.items()))
def test_a_city_policy_caps_each_level(db, level, cap):
    terms = policy.for_traveller(db, hm.employee(db, TRAVELLERS[level]), "Seattle")
    assert terms == PolicyTerms(
        name="Seattle travel policy",
        nightly_cap=cap,
        approval_over_total=2500,
        min_advance_days=7,
        max_nights=14,
        preferred_only=True,
    )


@pytest.mark.parametrize("level", sorted(TRAVELLERS))
def test_a_city_without_its_own_policy_falls_back_to_the_default(db, level):
    terms = policy.for_traveller(db, hm.employee(db, TRAVELLERS[level]), "Austin")
    assert (terms.name, terms.nightly_cap, terms.approval_over_total) == (
        "Standard travel policy",
        225,
        1500,
    )
    assert not terms.preferred_only


def test_the_city_is_matched_ignoring_case_and_spaces(db):
    terms = policy.for_traveller(db, hm.employee(db, hm.TRAVELLER), "  seattle ")
    assert terms.name == "Seattle travel policy"


def test_a_world_without_any_policy_has_nothing_to_break(db):
    db.execute(delete(PolicyCap))
    db.execute(delete(TravelPolicy))
    assert policy.for_traveller(db, hm.employee(db, hm.TRAVELLER), "Seattle") == policy.NO_POLICY
    assert codes(db, "staff", hm.HOME, date(2025, 9, 18), 30) == []


# -- the matrix: each rule for each level -------------------------------------------------------


@pytest.mark.parametrize("level", sorted(TRAVELLERS))
def test_a_stay_at_the_levels_cap_is_in_policy(db, level):
    suite_at(db, hm.SEATTLE_CAPS[level])
    assert codes(db, level, hm.SUITE, MONDAY, 1) == []


@pytest.mark.parametrize("level", sorted(TRAVELLERS))
def test_a_dollar_over_the_levels_cap_breaks_the_nightly_cap(db, level):
    suite_at(db, hm.SEATTLE_CAPS[level] + 1)
    assert codes(db, level, hm.SUITE, MONDAY, 1) == ["nightly_cap"]


@pytest.mark.parametrize("level", sorted(TRAVELLERS))
def test_a_total_over_the_approval_limit_breaks_the_total_rule(db, level):
    suite_at(db, 200)  # 12 nights: $2,400 + 10% tax + $36 = $2,676
    assert codes(db, level, hm.SUITE, MONDAY, 12) == ["total"]


@pytest.mark.parametrize("level", sorted(TRAVELLERS))
def test_booking_under_seven_days_ahead_breaks_the_advance_rule(db, level):
    suite_at(db, 200)
    assert codes(db, level, hm.SUITE, hm.TODAY + timedelta(days=6), 1) == ["advance"]
    assert codes(db, level, hm.SUITE, hm.TODAY + timedelta(days=7), 1) == []


@pytest.mark.parametrize("level", sorted(TRAVELLERS))
def test_more_than_fourteen_nights_breaks_the_length_rule(db, level):
    suite_at(db, 100)  # 15 nights: $1,500 + 10% tax + $45, under the $2,500 limit
    assert codes(db, level, hm.SUITE, MONDAY, 15) == ["length"]
    assert codes(db, level, hm.SUITE, MONDAY, 14) == []


@pytest.mark.parametrize("level", sorted(TRAVELLERS))
def test_a_property_that_is_not_preferred_breaks_the_preferred_rule(db, level):
    assert codes(db, level, hm.HOME, MONDAY, 2) == ["preferred"]


@pytest.mark.parametrize("level", sorted(TRAVELLERS))
def test_the_default_policy_asks_for_no_preferred_property(db, level):
    assert codes(db, level, hm.TWIN, MONDAY + timedelta(days=7), 2) == []


def test_every_broken_rule_is_listed_in_a_fixed_order(db):
    suite_at(db, 400)
    found = codes(db, "staff", hm.SUITE, hm.TODAY + timedelta(days=2), 16)
    assert found == ["nightly_cap", "total", "advance", "length"]
    assert codes(db, "staff", hm.HOME, hm.TODAY + timedelta(days=2), 16) == [
        "total",
        "advance",
        "length",
        "preferred",
    ]


# -- what booking does with it -------------------------------------------------------------------


@pytest.mark.parametrize("level", ["staff", "manager", "director"])
def test_booking_over_the_cap_stores_the_broken_rule_and_asks_the_manager(db, level):
    suite_at(db, hm.SEATTLE_CAPS[level] + 50)
    booked = service.book_stay(
        db,
        hm.employee(db, TRAVELLERS[level]),
        resource_id=hm.SUITE,
        check_in=MONDAY,
        check_out=MONDAY + timedelta(days=1),
        guests=1,
        purpose="Customer workshop",
        justification="Only room left near the venue.",
    )
    stored = json.loads(booked.policy_json)
    assert [r["code"] for r in stored] == ["nightly_cap"]
    assert f"over the ${hm.SEATTLE_CAPS[level]:,} cap" in stored[0]["message"]
    assert booked.status == "pending_approval"


def test_an_executive_without_a_manager_books_within_the_cap(db):
    suite_at(db, 500)
    booked = service.book_stay(
        db,
        hm.employee(db, hm.CEO),
        resource_id=hm.SUITE,
        check_in=MONDAY,
        check_out=MONDAY + timedelta(days=1),
        guests=1,
        purpose="Board dinner",
    )
    assert booked.status == "confirmed"


def test_the_top_of_the_company_books_over_the_cap_with_the_reason_on_record(db):
    suite_at(db, 501)
    booked = service.book_stay(
        db,
        hm.employee(db, hm.CEO),
        resource_id=hm.SUITE,
        check_in=MONDAY,
        check_out=MONDAY + timedelta(days=1),
        guests=1,
        purpose="Board dinner",
        justification="The board asked for it.",
    )
    assert booked.status == "confirmed" and booked.justification == "The board asked for it."
    assert [r["code"] for r in json.loads(booked.policy_json)] == ["nightly_cap"]
    assert db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).all() == []


def test_the_top_of_the_company_still_gives_a_reason_over_the_cap(db):
    suite_at(db, 501)
    with hm.refused(db, ValidationError, "characters for the record"):
        service.book_stay(
            db,
            hm.employee(db, hm.CEO),
            resource_id=hm.SUITE,
            check_in=MONDAY,
            check_out=MONDAY + timedelta(days=1),
            guests=1,
            purpose="Board dinner",
        )
