"""Booking's writes, as specifications: stays priced, checked and booked; approvals; changes and
cancellations with their refunds; meeting rooms and weekly series; the CRM merge's move.

Most tests act on the hand-made world of `handmade` (every rate and date known); the last ones
book on a generated tiny world. A refused act is checked to write nothing (`hm.refused`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from officegym.apps.booking import availability, service
from officegym.apps.booking.service import RoomTaken
from officegym.apps.web.errors import Conflict, Forbidden, NotFound, ValidationError
from officegym.seed_data import booking_rules
from officegym.seed_data.diff import diff
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import (
    Approval,
    Attendee,
    Availability,
    Reservation,
    Resource,
    Series,
)
from tests.apps.booking import handmade as hm
from tests.apps.booking.handmade import utc

# A Monday three weeks after the world's today, outside the Seattle hotel's peak season.
MONDAY = date(2025, 10, 20)
SEATTLE = ZoneInfo("America/Los_Angeles")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory):
    return hm.build(tmp_path_factory.mktemp("booking") / "handmade.sqlite")


@pytest.fixture
def db(template, tmp_path) -> Iterator[Session]:
    with hm.session(hm.copy(template, tmp_path / "world.sqlite")) as session:
        yield session


def person(db: Session, emp_id: int):
    return hm.employee(db, emp_id)


def stay(db: Session, who: int = hm.TRAVELLER, **changes):
    """Book a stay (by default Dan, the Standard King, three weeknights from MONDAY)."""
    values = {
        "resource_id": hm.KING,
        "check_in": MONDAY,
        "check_out": MONDAY + timedelta(days=3),
        "guests": 1,
        "purpose": "Northwind QBR",
    }
    values.update(changes)
    return service.book_stay(db, person(db, who), **values)


def out_of_policy(db: Session, who: int = hm.TRAVELLER, **changes):
    """Book the Executive Suite ($400, over Dan's $250 cap) with a justification."""
    values = {"resource_id": hm.SUITE, "justification": "The customer hosts us in the suite."}
    values.update(changes)
    return stay(db, who, **values)


def local(y: int, m: int, d: int, h: int, mi: int = 0, tz: ZoneInfo = SEATTLE) -> datetime:
    return datetime(y, m, d, h, mi, tzinfo=tz)


def meeting(db: Session, who: int = hm.TRAVELLER, **changes):
    """Book Denali for Thursday 18 September 10:00–11:00 Seattle time."""
    values = {
        "resource_id": hm.DENALI,
        "start": local(2025, 9, 18, 10),
        "end": local(2025, 9, 18, 11),
        "title": "Pipeline review",
    }
    values.update(changes)
    return service.book_room(db, person(db, who), **values)


def approvals(db: Session, reservation_id: int) -> list[tuple[str, int]]:
    return [
        (a.status, a.approver_id)
        for a in db.scalars(
            select(Approval).where(Approval.reservation_id == reservation_id).order_by(Approval.id)
        )
    ]


# -- pricing flows end to end ------------------------------------------------------------------


def test_quote_stay_prices_nights_fees_discount_and_taxes_of_a_home(db):
    quoted = service.quote_stay(
        db,
        person(db, hm.TRAVELLER),
        resource_id=hm.HOME,
        check_in=MONDAY,
        check_out=MONDAY + timedelta(days=7),
        guests=4,
    )
    price = quoted.price
    assert [n.cents for n in price.nights] == [15000] * 4 + [18000] * 2 + [15000]
    assert (price.subtotal, price.discount, price.cleaning) == (111000, 11100, 8000)
    assert price.service == 12948  # 12% of 1,079.00
    assert price.taxes == 12085 + 7 * 300  # 10% of 1,208.48, plus $3.00 a night
    assert quoted.total_cents == 135033
    assert quoted.available and quoted.units_left == 1


def test_book_stay_charges_exactly_the_quote(db):
    dan = person(db, hm.TRAVELLER)
    args = {
        "resource_id": hm.HOME,
        "check_in": MONDAY,
        "check_out": MONDAY + timedelta(days=7),
        "guests": 4,
    }
    quoted = service.quote_stay(db, dan, **args)
    booked = service.book_stay(
        db, dan, purpose="Team offsite", justification="Six of us, one house.", **args
    )
    assert booked.total_cents == quoted.total_cents == 135033
    assert booked.price_json == json.dumps(quoted.price.to_json(), sort_keys=True)
    assert json.loads(booked.price_json)["total"] == 135033


def test_book_stay_prices_season_nights_higher(db):
    booked = stay(db, check_in=date(2025, 10, 14), check_out=date(2025, 10, 17))
    nights = json.loads(booked.price_json)["nights"]
    assert [n["cents"] for n in nights] == [25000, 25000, 20000]
    assert nights[0]["label"] == "weekday · Autumn peak"
    assert booked.total_cents == 70000 + 7000 + 900


def test_book_stay_stores_the_stay_as_booked(db):
    booked = stay(db, guests=2, account_id=hm.ACCOUNT, opportunity_id=hm.OPPORTUNITY)
    assert (booked.start_at, booked.end_at) == (utc(2025, 10, 20), utc(2025, 10, 23))
    assert (booked.guest_id, booked.booked_by_id, booked.guests) == (hm.TRAVELLER,) * 2 + (2,)
    assert (booked.status, booked.policy_json, booked.refund_cents) == ("confirmed", "[]", None)
    assert (booked.account_id, booked.opportunity_id) == (hm.ACCOUNT, hm.OPPORTUNITY)
    assert booked.created_at == hm.NOW + timedelta(seconds=1)
    assert approvals(db, booked.id) == []


def test_book_stay_takes_the_account_of_the_deal(db):
    booked = stay(db, opportunity_id=hm.OPPORTUNITY)
    assert booked.account_id == hm.ACCOUNT


def test_book_stay_refuses_a_deal_of_another_account(db):
    with hm.refused(db, ValidationError, "belongs to another account"):
        stay(db, account_id=hm.OTHER_ACCOUNT, opportunity_id=hm.OPPORTUNITY)


def test_book_stay_refuses_an_unknown_account(db):
    with hm.refused(db, ValidationError, "account"):
        stay(db, account_id=999)


def test_digit_strings_are_accepted_where_numbers_belong(db):
    booked = stay(db, resource_id=str(hm.KING), guests="2", check_in="2025-10-20")
    assert (booked.resource_id, booked.guests) == (hm.KING, 2)


# -- policy and approvals ------------------------------------------------------------------------


def test_out_of_policy_stay_without_justification_names_the_broken_rule(db):
    with hm.refused(db, ValidationError, r"\$400\.00 is over the \$250 cap") as caught:
        stay(db, resource_id=hm.SUITE)
    assert caught.value.field == "justification"
    assert "Cleo Park" in caught.value.message


def test_out_of_policy_stay_with_too_short_a_justification_is_refused(db):
    with hm.refused(db, ValidationError, "at least 10 characters"):
        stay(db, resource_id=hm.SUITE, justification="  because ")


def test_out_of_policy_stay_waits_for_the_guests_manager(db):
    booked = out_of_policy(db)
    assert booked.status == "pending_approval"
    assert [r["code"] for r in json.loads(booked.policy_json)] == ["nightly_cap"]
    assert booked.justification == "The customer hosts us in the suite."
    assert approvals(db, booked.id) == [("pending", hm.MANAGER)]


def test_someone_without_a_manager_books_out_of_policy_confirmed_with_no_approval(db):
    booked = out_of_policy(
        db,
        hm.CEO,
        resource_id=hm.TWIN,
        check_in=date(2025, 9, 19),
        check_out=date(2025, 9, 21),
    )
    assert booked.status == "confirmed" and json.loads(booked.policy_json)
    assert approvals(db, booked.id) == []


def test_someone_whose_manager_has_left_cannot_book_out_of_policy(db):
    db.execute(update(Employee).where(Employee.id == hm.MANAGER).values(is_active=False))
    with hm.refused(db, ValidationError, "You have no manager"):
        out_of_policy(db)


def test_the_travellers_level_sets_the_cap(db):
    booked = stay(db, hm.DIRECTOR, resource_id=hm.SUITE)  # $400 is a director's cap
    assert booked.status == "confirmed"


def test_approving_confirms_the_stay(db):
    booked = out_of_policy(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    decided = service.decide_approval(
        db, person(db, hm.MANAGER), approval_id=request.id, decision="approve", comment="Fine."
    )
    assert (decided.status, decided.comment) == ("approved", "Fine.")
    assert decided.decided_at is not None and decided.decided_at > request.created_at
    assert (booked.status, booked.updated_at) == ("confirmed", decided.decided_at)


def test_rejecting_needs_a_comment(db):
    booked = out_of_policy(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    with hm.refused(db, ValidationError, "Say why"):
        service.decide_approval(
            db, person(db, hm.MANAGER), approval_id=request.id, decision="reject", comment="  "
        )


def test_rejecting_with_a_comment_rejects_the_stay(db):
    booked = out_of_policy(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    service.decide_approval(
        db,
        person(db, hm.MANAGER),
        approval_id=request.id,
        decision="Reject",
        comment="Pick a room under the cap.",
    )
    assert (request.status, booked.status) == ("rejected", "rejected")
    assert availability.units_left(db, hm.SUITE, MONDAY, MONDAY + timedelta(days=3)) == 1


def test_the_traveller_cannot_approve_their_own_request(db):
    booked = out_of_policy(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    with hm.refused(db, Forbidden, "Only Cleo Park, the approver"):
        service.decide_approval(
            db, person(db, hm.TRAVELLER), approval_id=request.id, decision="approve"
        )


def test_the_managers_manager_cannot_decide_a_request(db):
    booked = out_of_policy(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    with hm.refused(db, NotFound):
        service.decide_approval(
            db, person(db, hm.DIRECTOR), approval_id=request.id, decision="approve"
        )


def test_a_request_decided_twice_is_a_conflict(db):
    booked = out_of_policy(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    manager = person(db, hm.MANAGER)
    service.decide_approval(db, manager, approval_id=request.id, decision="approve")
    with hm.refused(db, Conflict, "already approved"):
        service.decide_approval(
            db, manager, approval_id=request.id, decision="reject", comment="Changed my mind."
        )


@pytest.mark.parametrize("decision", ["maybe", "", None, 1])
def test_a_decision_is_approve_or_reject(db, decision):
    booked = out_of_policy(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    with hm.refused(db, ValidationError, "approve or reject"):
        service.decide_approval(
            db, person(db, hm.MANAGER), approval_id=request.id, decision=decision
        )


def test_approving_rechecks_the_nights(db):
    booked = out_of_policy(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    db.add(
        Availability(
            resource_id=hm.SUITE,
            start_date=MONDAY,
            end_date=MONDAY,
            units=0,
            reason="Flood damage",
        )
    )
    db.flush()
    with hm.refused(db, Conflict, "no longer available for those nights"):
        service.decide_approval(
            db, person(db, hm.MANAGER), approval_id=request.id, decision="approve"
        )


@pytest.mark.parametrize("approval_id", [999, "abc", None, True, -1])
def test_an_unknown_approval_is_not_found(db, approval_id):
    with hm.refused(db, NotFound):
        service.decide_approval(
            db, person(db, hm.MANAGER), approval_id=approval_id, decision="approve"
        )


# -- booking for someone else --------------------------------------------------------------------


@pytest.mark.parametrize("booker", [hm.COORDINATOR, hm.ASSISTANT, hm.MANAGER])
def test_coordinators_assistants_and_the_manager_book_for_the_traveller(db, booker):
    booked = stay(db, booker, guest_id=hm.TRAVELLER)
    assert (booked.guest_id, booked.booked_by_id) == (hm.TRAVELLER, booker)


@pytest.mark.parametrize("booker", [hm.PEER, hm.STRANGER, hm.DIRECTOR])
def test_others_cannot_book_for_the_traveller(db, booker):
    with hm.refused(db, Forbidden, "You can't book travel for Dan Reyes"):
        stay(db, booker, guest_id=hm.TRAVELLER)


def test_a_stay_booked_for_someone_follows_their_policy_and_manager(db):
    booked = out_of_policy(db, hm.COORDINATOR, guest_id=hm.TRAVELLER)
    assert booked.status == "pending_approval"
    assert approvals(db, booked.id) == [("pending", hm.MANAGER)]


def test_a_colleague_who_left_cannot_be_booked_for(db):
    with hm.refused(db, ValidationError, "traveller"):
        stay(db, hm.COORDINATOR, guest_id=hm.LEFT)


# -- bad input writes nothing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"check_out": MONDAY - timedelta(days=1)}, "check_out", "after check-in"),
        ({"check_out": MONDAY}, "check_out", "after check-in"),
        ({"guests": 0}, "guests", "at least 1 guest"),
        ({"guests": -3}, "guests", "at least 1 guest"),
        ({"guests": 3}, "guests", "Standard King sleeps at most 2 guests"),
        ({"resource_id": hm.HOME, "guests": 17}, "guests", "sleeps at most 16 guests"),
        (
            {"check_in": date(2025, 9, 16), "check_out": date(2025, 9, 18)},
            "check_in",
            r"before today \(Wed 17 Sep 2025\)",
        ),
        ({"check_out": MONDAY + timedelta(days=400)}, "check_out", "at most 90 nights"),
        (
            {"resource_id": hm.HOME, "check_out": MONDAY + timedelta(days=1)},
            "check_out",
            "2-night minimum",
        ),
        ({"guests": "two"}, "guests", "whole number"),
        ({"guests": 1.5}, "guests", "whole number"),
        ({"guests": True}, "guests", "whole number"),
        ({"check_in": "next tuesday"}, "check_in", "date like"),
        ({"check_out": 20251023}, "check_out", "date like"),
        ({"purpose": "   "}, "purpose", "Enter a trip name"),
        ({"purpose": "x" * 201}, "purpose", "at most 200 characters"),
        ({"purpose": 42}, "purpose", "must be text"),
        ({"purpose": "QBR\x00"}, "purpose", "control characters"),
    ],
)
def test_bad_stay_input_is_refused_with_the_field_at_fault(db, changes, field, message):
    with hm.refused(db, ValidationError, message) as caught:
        stay(db, **changes)
    assert field in caught.value.errors


def test_several_bad_fields_are_reported_together(db):
    with hm.refused(db, ValidationError, "Fix the 2 fields") as caught:
        stay(db, check_in="soon", guests=0)
    assert set(caught.value.errors) == {"check_in", "guests"}


@pytest.mark.parametrize("resource_id", [999, "abc", None, 0, 2**70, hm.DENALI])
def test_a_listing_that_is_not_a_stay_is_not_found(db, resource_id):
    with hm.refused(db, NotFound, "That listing doesn't exist"):
        stay(db, resource_id=resource_id)


def test_quote_stay_refuses_what_book_stay_refuses(db):
    with hm.refused(db, ValidationError, "after check-in"):
        service.quote_stay(
            db,
            person(db, hm.TRAVELLER),
            resource_id=hm.KING,
            check_in=MONDAY,
            check_out=MONDAY,
            guests=1,
        )


# -- availability --------------------------------------------------------------------------------


def test_the_last_unit_goes_once(db):
    stay(db)
    stay(db, hm.PEER)
    with hm.refused(db, Conflict, "Standard King at Harbor Hotel Seattle is no longer available"):
        stay(db, hm.STRANGER)


def test_a_quote_for_full_nights_says_why(db):
    stay(db)
    stay(db, hm.PEER, check_in=MONDAY + timedelta(days=2), check_out=MONDAY + timedelta(days=5))
    quoted = service.quote_stay(
        db,
        person(db, hm.STRANGER),
        resource_id=hm.KING,
        check_in=MONDAY + timedelta(days=1),
        check_out=MONDAY + timedelta(days=4),
        guests=1,
    )
    assert (quoted.available, quoted.units_left) == (False, 0)
    assert "fully booked" in quoted.unavailable_reason


def test_a_request_waiting_for_approval_holds_its_room(db):
    out_of_policy(db)
    with hm.refused(db, Conflict, "no longer available"):
        stay(db, hm.DIRECTOR, resource_id=hm.SUITE)


def test_a_cancelled_stay_frees_its_room(db):
    booked = stay(db, hm.DIRECTOR, resource_id=hm.SUITE)
    service.cancel_reservation(db, person(db, hm.DIRECTOR), reservation_id=booked.id)
    again = stay(db, hm.CEO, resource_id=hm.SUITE)
    assert again.status == "confirmed"


def test_back_to_back_stays_share_the_changeover_day(db):
    stay(db, hm.DIRECTOR, resource_id=hm.SUITE)
    after = stay(
        db,
        hm.CEO,
        resource_id=hm.SUITE,
        check_in=MONDAY + timedelta(days=3),
        check_out=MONDAY + timedelta(days=5),
    )
    assert after.status == "confirmed"


def test_a_closed_listing_says_why_in_the_quote_and_refuses_the_booking(db):
    dates = {"check_in": date(2025, 10, 24), "check_out": date(2025, 10, 27)}
    quoted = service.quote_stay(
        db, person(db, hm.TRAVELLER), resource_id=hm.TWIN, guests=1, **dates
    )
    assert not quoted.available
    assert quoted.unavailable_reason == (
        "Twin Room is unavailable from Mon 20 Oct 2025 to Sat 25 Oct 2025: Closed for renovation."
    )
    with hm.refused(db, Conflict, "Closed for renovation"):
        stay(db, resource_id=hm.TWIN, **dates)


def test_units_left_is_the_fewest_over_the_nights(db):
    stay(db, check_in=MONDAY + timedelta(days=1), check_out=MONDAY + timedelta(days=2))
    assert availability.units_left(db, hm.KING, MONDAY, MONDAY + timedelta(days=1)) == 2
    assert availability.units_left(db, hm.KING, MONDAY, MONDAY + timedelta(days=3)) == 1


def test_units_left_many_agrees_with_units_left(db):
    stay(db)
    out_of_policy(db, check_in=MONDAY + timedelta(days=2))
    ids = [hm.KING, hm.SUITE, hm.HOME, hm.TWIN, 999]
    for first, nights in ((MONDAY, 3), (MONDAY + timedelta(days=2), 5), (date(2025, 10, 18), 4)):
        last = first + timedelta(days=nights)
        many = availability.units_left_many(db, ids, first, last)
        assert 999 not in many
        assert many == {i: availability.units_left(db, i, first, last) for i in ids[:-1]}
    assert availability.units_left_many(db, ids, date(2025, 10, 24), date(2025, 10, 26)) == {
        hm.KING: 2,
        hm.SUITE: 1,
        hm.HOME: 1,
        hm.TWIN: 0,
    }


# -- cancellation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource_id", "days_before", "percent"),
    [
        (hm.KING, 5, 100),  # moderate
        (hm.KING, 4, 50),
        (hm.KING, 0, 50),
        (hm.HOME, 14, 100),  # strict
        (hm.HOME, 13, 50),
        (hm.HOME, 7, 50),
        (hm.HOME, 6, 0),
        (hm.TWIN, 1, 100),  # flexible
        (hm.TWIN, 0, 0),
    ],
)
def test_cancelling_refunds_by_the_propertys_policy_and_the_days_left(
    db, resource_id, days_before, percent
):
    arrival = MONDAY + timedelta(days=7)  # the Austin hotel is closed the week before
    booked = stay(
        db,
        resource_id=resource_id,
        check_in=arrival,
        check_out=arrival + timedelta(days=3),
        justification="Only place near the customer.",
    )
    if booked.status == "pending_approval":  # homes are not preferred in Seattle
        request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
        service.decide_approval(
            db, person(db, hm.MANAGER), approval_id=request.id, decision="approve"
        )
    assert booked.status == "confirmed"
    hm.set_clock(db, datetime.combine(arrival - timedelta(days=days_before), hm.NOW.time()))
    cancelled = service.cancel_reservation(db, person(db, hm.TRAVELLER), reservation_id=booked.id)
    assert cancelled.status == "cancelled"
    assert cancelled.refund_cents == booking_rules.percent_of(booked.total_cents, percent)
    assert cancelled.cancelled_at == cancelled.updated_at is not None


def test_cancelling_a_stay_waiting_for_approval_refunds_everything(db):
    booked = out_of_policy(db, resource_id=hm.HOME, check_out=MONDAY + timedelta(days=14))
    hm.set_clock(db, datetime.combine(MONDAY - timedelta(days=1), hm.NOW.time()))
    cancelled = service.cancel_reservation(db, person(db, hm.TRAVELLER), reservation_id=booked.id)
    assert cancelled.refund_cents == booked.total_cents > 0
    assert approvals(db, booked.id) == [(service.WITHDRAWN, hm.MANAGER)]


def test_a_stay_that_has_begun_cannot_be_cancelled(db):
    booked = stay(db)
    hm.set_clock(db, datetime.combine(MONDAY + timedelta(days=1), hm.NOW.time()))
    with hm.refused(db, Conflict, "past stays can't be cancelled"):
        service.cancel_reservation(db, person(db, hm.TRAVELLER), reservation_id=booked.id)


def test_cancelling_twice_is_a_conflict(db):
    booked = stay(db)
    dan = person(db, hm.TRAVELLER)
    service.cancel_reservation(db, dan, reservation_id=booked.id)
    with hm.refused(db, Conflict, "already cancelled"):
        service.cancel_reservation(db, dan, reservation_id=booked.id)


def test_the_booker_may_cancel_the_stay_they_booked(db):
    booked = stay(db, hm.COORDINATOR, guest_id=hm.TRAVELLER)
    cancelled = service.cancel_reservation(db, person(db, hm.COORDINATOR), reservation_id=booked.id)
    assert cancelled.status == "cancelled"


def test_another_user_cannot_cancel_a_stay(db):
    booked = stay(db)
    with hm.refused(db, NotFound, "doesn't exist or you don't have access"):
        service.cancel_reservation(db, person(db, hm.PEER), reservation_id=booked.id)


def test_the_approver_cannot_cancel_the_stay(db):
    booked = out_of_policy(db)
    with hm.refused(db, Forbidden, "Only the guest or the person who booked it"):
        service.cancel_reservation(db, person(db, hm.MANAGER), reservation_id=booked.id)


# -- changing dates ----------------------------------------------------------------------------------


def test_changing_dates_prices_the_stay_again(db):
    booked = stay(
        db,
        resource_id=hm.HOME,
        check_out=MONDAY + timedelta(days=7),
        justification="Only place near the customer.",
    )
    changed = service.change_stay_dates(
        db,
        person(db, hm.TRAVELLER),
        reservation_id=booked.id,
        check_in=MONDAY,
        check_out=MONDAY + timedelta(days=2),
    )
    assert (changed.start_at, changed.end_at) == (utc(2025, 10, 20), utc(2025, 10, 22))
    # 2 × $150 + $80 cleaning, 12% service, 10% tax + 2 × $3.00
    assert changed.total_cents == 38000 + 4560 + 4256 + 600
    assert json.loads(changed.price_json)["total"] == changed.total_cents
    # Still not a preferred property: pending again, on the justification it had.
    assert changed.status == "pending_approval"
    assert changed.justification == "Only place near the customer."
    assert approvals(db, booked.id) == [(service.WITHDRAWN, hm.MANAGER), ("pending", hm.MANAGER)]
    assert changed.updated_at is not None and changed.updated_at > changed.created_at


def test_changing_dates_may_overlap_the_stays_own_nights(db):
    booked = stay(db, hm.DIRECTOR, resource_id=hm.SUITE)
    changed = service.change_stay_dates(
        db,
        person(db, hm.DIRECTOR),
        reservation_id=booked.id,
        check_in=MONDAY + timedelta(days=1),
        check_out=MONDAY + timedelta(days=4),
    )
    assert changed.start_at == utc(2025, 10, 21)


def test_changing_dates_onto_taken_nights_is_a_conflict(db):
    booked = stay(db, hm.DIRECTOR, resource_id=hm.SUITE)
    stay(
        db,
        hm.CEO,
        resource_id=hm.SUITE,
        check_in=MONDAY + timedelta(days=4),
        check_out=MONDAY + timedelta(days=6),
    )
    with hm.refused(db, Conflict, "no longer available for those nights"):
        service.change_stay_dates(
            db,
            person(db, hm.DIRECTOR),
            reservation_id=booked.id,
            check_in=MONDAY + timedelta(days=2),
            check_out=MONDAY + timedelta(days=5),
        )


def test_changing_dates_out_of_policy_needs_approval_again(db):
    booked = stay(db)
    dan = person(db, hm.TRAVELLER)
    dates = {"check_in": MONDAY, "check_out": MONDAY + timedelta(days=15)}
    with hm.refused(db, ValidationError, "longer than the 14-night maximum"):
        service.change_stay_dates(db, dan, reservation_id=booked.id, **dates)
    changed = service.change_stay_dates(
        db, dan, reservation_id=booked.id, justification="The workshop runs two weeks.", **dates
    )
    assert changed.status == "pending_approval"
    assert "length" in [r["code"] for r in json.loads(changed.policy_json)]
    assert approvals(db, booked.id) == [("pending", hm.MANAGER)]


def test_changing_a_pending_stay_replaces_its_request(db):
    booked = out_of_policy(db)
    dan = person(db, hm.TRAVELLER)
    service.change_stay_dates(
        db,
        dan,
        reservation_id=booked.id,
        check_in=MONDAY + timedelta(days=7),
        check_out=MONDAY + timedelta(days=9),
    )
    assert booked.status == "pending_approval"
    assert approvals(db, booked.id) == [(service.WITHDRAWN, hm.MANAGER), ("pending", hm.MANAGER)]


def test_changing_a_pending_stay_into_policy_confirms_it(db):
    booked = stay(db, check_out=MONDAY + timedelta(days=15), justification="A long project.")
    assert booked.status == "pending_approval"
    changed = service.change_stay_dates(
        db,
        person(db, hm.TRAVELLER),
        reservation_id=booked.id,
        check_in=MONDAY,
        check_out=MONDAY + timedelta(days=3),
    )
    assert (changed.status, changed.policy_json) == ("confirmed", "[]")
    assert approvals(db, booked.id) == [(service.WITHDRAWN, hm.MANAGER)]


def test_changing_to_the_same_dates_is_refused(db):
    booked = stay(db)
    with hm.refused(db, ValidationError, "already the dates"):
        service.change_stay_dates(
            db,
            person(db, hm.TRAVELLER),
            reservation_id=booked.id,
            check_in=MONDAY,
            check_out=MONDAY + timedelta(days=3),
        )


@pytest.mark.parametrize(
    ("check_in", "check_out", "message"),
    [
        (MONDAY, MONDAY - timedelta(days=2), "after check-in"),
        (date(2025, 9, 1), date(2025, 9, 20), "before today"),
        (MONDAY, MONDAY + timedelta(days=400), "at most 90 nights"),
        ("someday", MONDAY, "date like"),
    ],
)
def test_changing_to_bad_dates_is_refused(db, check_in, check_out, message):
    booked = stay(db)
    with hm.refused(db, ValidationError, message):
        service.change_stay_dates(
            db,
            person(db, hm.TRAVELLER),
            reservation_id=booked.id,
            check_in=check_in,
            check_out=check_out,
        )


def test_a_cancelled_stay_cannot_be_changed(db):
    booked = stay(db)
    dan = person(db, hm.TRAVELLER)
    service.cancel_reservation(db, dan, reservation_id=booked.id)
    with hm.refused(db, Conflict, "cancelled"):
        service.change_stay_dates(
            db, dan, reservation_id=booked.id, check_in=MONDAY, check_out=MONDAY + timedelta(1)
        )


def test_a_stay_that_has_begun_cannot_be_changed(db):
    booked = stay(db)
    hm.set_clock(db, datetime.combine(MONDAY + timedelta(days=1), hm.NOW.time()))
    with hm.refused(db, Conflict, "already begun"):
        service.change_stay_dates(
            db,
            person(db, hm.TRAVELLER),
            reservation_id=booked.id,
            check_in=MONDAY + timedelta(days=1),
            check_out=MONDAY + timedelta(days=5),
        )


@pytest.mark.parametrize(("who", "error"), [(hm.PEER, NotFound), (hm.MANAGER, Forbidden)])
def test_another_user_cannot_change_a_stay(db, who, error):
    booked = out_of_policy(db)
    with hm.refused(db, error):
        service.change_stay_dates(
            db,
            person(db, who),
            reservation_id=booked.id,
            check_in=MONDAY,
            check_out=MONDAY + timedelta(days=1),
        )


def test_a_meeting_has_no_stay_dates_to_change(db):
    booked = meeting(db)
    with hm.refused(db, ValidationError, "only stays"):
        service.change_stay_dates(
            db,
            person(db, hm.TRAVELLER),
            reservation_id=booked.id,
            check_in=MONDAY,
            check_out=MONDAY + timedelta(days=1),
        )


# -- meeting rooms ----------------------------------------------------------------------------------


def test_book_room_stores_utc_times_and_attendees(db):
    booked = meeting(db, attendee_ids=[hm.PEER, str(hm.MANAGER)])
    assert (booked.start_at, booked.end_at) == (utc(2025, 9, 18, 17), utc(2025, 9, 18, 18))
    assert (booked.status, booked.purpose, booked.guests) == ("confirmed", "Pipeline review", 3)
    assert (booked.guest_id, booked.booked_by_id, booked.total_cents) == (hm.TRAVELLER,) * 2 + (0,)
    invited = db.scalars(
        select(Attendee.employee_id).where(Attendee.reservation_id == booked.id)
    ).all()
    assert sorted(invited) == [hm.MANAGER, hm.PEER]


def test_book_room_takes_naive_times_as_utc(db):
    booked = meeting(db, start=utc(2025, 9, 18, 17), end=utc(2025, 9, 18, 17, 45))
    assert booked.end_at == utc(2025, 9, 18, 17, 45)


def test_book_room_checks_hours_in_the_rooms_office_zone(db):
    london = ZoneInfo("Europe/London")
    booked = meeting(
        db,
        resource_id=hm.THAMES,
        start=local(2025, 9, 18, 7, tz=london),
        end=local(2025, 9, 18, 8, tz=london),
    )
    assert booked.start_at == utc(2025, 9, 18, 6)


def test_a_clash_names_the_meeting_that_holds_the_room(db):
    meeting(db)
    with hm.refused(
        db,
        RoomTaken,
        "^Denali is booked 10:00–11:00 for “Pipeline review” by Dan Reyes.$",
    ) as caught:
        meeting(db, hm.PEER, start=local(2025, 9, 18, 10, 30), end=local(2025, 9, 18, 11, 30))
    assert caught.value.status == 409
    assert [c["title"] for c in caught.value.details()["clashes"]] == ["Pipeline review"]


def test_back_to_back_meetings_do_not_clash(db):
    meeting(db)
    after = meeting(db, hm.PEER, start=local(2025, 9, 18, 11), end=local(2025, 9, 18, 12))
    assert after.status == "confirmed"


def test_a_cancelled_meeting_frees_the_room(db):
    first = meeting(db)
    service.cancel_reservation(db, person(db, hm.TRAVELLER), reservation_id=first.id)
    again = meeting(db, hm.PEER)
    assert again.status == "confirmed"
    assert first.refund_cents is None


def test_a_closed_room_cannot_be_booked(db):
    with hm.refused(db, RoomTaken, r"Everest is closed on Wed 24 Sep 2025 \(AV upgrade\)"):
        meeting(
            db,
            resource_id=hm.EVEREST,
            start=local(2025, 9, 24, 9),
            end=local(2025, 9, 24, 10),
        )


@pytest.mark.parametrize(
    ("start", "end", "field", "message"),
    [
        ((9, 18, 6, 45), (9, 18, 8, 0), "start", "between 07:00 and 20:00"),
        ((9, 18, 19, 0), (9, 18, 20, 15), "start", "between 07:00 and 20:00"),
        ((9, 18, 10, 10), (9, 18, 11, 0), "start", "quarter hour"),
        ((9, 18, 10, 0), (9, 18, 10, 0), "end", "end after it starts"),
        ((9, 18, 11, 0), (9, 18, 10, 0), "end", "end after it starts"),
        ((9, 18, 9, 0), (9, 18, 17, 15), "end", "15 minutes to 8 hours"),
        ((9, 17, 7, 0), (9, 17, 8, 0), "start", "already passed"),
    ],
)
def test_bad_meeting_times_are_refused(db, start, end, field, message):
    with hm.refused(db, ValidationError, message) as caught:
        meeting(db, start=local(2025, *start), end=local(2025, *end))
    assert field in caught.value.errors


def test_a_meeting_until_eight_in_the_evening_is_fine(db):
    booked = meeting(db, start=local(2025, 9, 18, 19), end=local(2025, 9, 18, 20))
    assert booked.end_at == utc(2025, 9, 19, 3)


@pytest.mark.parametrize(
    ("attendees", "message"),
    [
        ([hm.TRAVELLER], "you don't need to invite yourself"),
        ([hm.PEER, hm.PEER], "Eve Novak is invited twice"),
        ([hm.LEFT], "No active colleague"),
        ([999], "No active colleague"),
        (["abc"], "No active colleague"),
        ("5", "Choose attendees"),
        (5, "Choose attendees"),
        ([hm.PEER, hm.MANAGER, hm.DIRECTOR, hm.CEO], "Everest seats 4; you invited 4 people"),
    ],
)
def test_bad_attendees_are_refused(db, attendees, message):
    with hm.refused(db, ValidationError, message):
        meeting(
            db,
            resource_id=hm.EVEREST,
            start=local(2025, 9, 18, 9),
            end=local(2025, 9, 18, 10),
            attendee_ids=attendees,
        )


def test_a_room_fits_its_capacity_with_the_organizer(db):
    booked = meeting(
        db,
        resource_id=hm.EVEREST,
        start=local(2025, 9, 18, 9),
        end=local(2025, 9, 18, 10),
        attendee_ids=[hm.PEER, hm.MANAGER, hm.DIRECTOR],
    )
    assert booked.guests == 4


@pytest.mark.parametrize("title", ["", "   ", "x" * 201, None])
def test_a_meeting_needs_a_title(db, title):
    with hm.refused(db, ValidationError):
        meeting(db, title=title)


@pytest.mark.parametrize("resource_id", [hm.KING, 999, "Denali", None])
def test_a_room_that_is_not_a_meeting_room_is_not_found(db, resource_id):
    with hm.refused(db, NotFound, "That meeting room doesn't exist"):
        meeting(db, resource_id=resource_id)


@pytest.mark.parametrize("value", ["tomorrow at ten", 20250918, date(2025, 9, 18)])
def test_meeting_times_must_be_datetimes(db, value):
    with hm.refused(db, ValidationError, "date and time"):
        meeting(db, start=value)


def test_an_attendee_cannot_cancel_the_meeting(db):
    booked = meeting(db, attendee_ids=[hm.PEER])
    with hm.refused(db, Forbidden):
        service.cancel_reservation(db, person(db, hm.PEER), reservation_id=booked.id)


def test_a_meeting_that_has_started_cannot_be_cancelled(db):
    booked = meeting(db)
    hm.set_clock(db, utc(2025, 9, 18, 17, 30))
    with hm.refused(db, Conflict, "already started"):
        service.cancel_reservation(db, person(db, hm.TRAVELLER), reservation_id=booked.id)


# -- weekly series -------------------------------------------------------------------------------


def series(db: Session, who: int = hm.PEER, **changes):
    """Everest, Wednesdays 10:00–11:00 Seattle time from 1 October, for six weeks."""
    values = {
        "resource_id": hm.EVEREST,
        "start": local(2025, 10, 1, 10),
        "end": local(2025, 10, 1, 11),
        "weeks": 6,
        "title": "Weekly sync",
    }
    values.update(changes)
    return service.book_room_series(db, person(db, who), **values)


def test_a_series_books_every_week_at_the_same_office_time(db):
    made = series(db, attendee_ids=[hm.TRAVELLER])
    assert (made.series.weeks, made.series.title, made.clashes) == (6, "Weekly sync", [])
    starts = [r.start_at for r in made.created]
    # Seattle leaves daylight saving time on 2 November: 10:00 is 17:00 UTC, then 18:00.
    assert starts == [utc(2025, 10, d, 17) for d in (1, 8, 15, 22, 29)] + [utc(2025, 11, 5, 18)]
    assert {r.series_id for r in made.created} == {made.series.id}
    assert all(r.guests == 2 for r in made.created)
    assert db.scalar(select(func.count()).select_from(Attendee)) == 6


def test_a_series_with_clashes_lists_them_all_and_books_nothing(db):
    meeting(
        db, resource_id=hm.EVEREST, start=local(2025, 10, 15, 10, 30), end=local(2025, 10, 15, 12)
    )
    hm_start, hm_end = local(2025, 10, 29, 9), local(2025, 10, 29, 10, 15)
    meeting(db, hm.MANAGER, resource_id=hm.EVEREST, start=hm_start, end=hm_end, title="1:1")
    with hm.refused(db, RoomTaken, "Everest is taken on 2 of the 6 weeks") as caught:
        series(db)
    message = caught.value.message
    assert "Wed 15 Oct: Everest is booked 10:30–12:00 for “Pipeline review” by Dan Reyes" in message
    assert "Wed 29 Oct: Everest is booked 09:00–10:15 for “1:1” by Cleo Park" in message
    assert len(caught.value.clashes) == 2


def test_a_series_skipping_clashes_books_the_free_weeks(db):
    meeting(
        db, resource_id=hm.EVEREST, start=local(2025, 10, 15, 10, 30), end=local(2025, 10, 15, 12)
    )
    made = series(db, skip_clashes=True)
    assert len(made.created) == 5
    assert utc(2025, 10, 15, 17) not in [r.start_at for r in made.created]
    assert [(c.title, c.wanted_start) for c in made.clashes] == [
        ("Pipeline review", utc(2025, 10, 15, 17))
    ]
    assert made.series.weeks == 6


def test_a_series_counts_a_closed_day_as_a_clash(db):
    made = series(
        db, start=local(2025, 9, 17, 10), end=local(2025, 9, 17, 11), weeks=3, skip_clashes=True
    )
    assert [c.reservation_id for c in made.clashes] == [None]
    assert [c.title for c in made.clashes] == ["AV upgrade"]
    assert len(made.created) == 2


def test_a_series_where_every_week_clashes_books_nothing(db):
    for day in (1, 8):
        meeting(
            db, resource_id=hm.EVEREST, start=local(2025, 10, day, 10), end=local(2025, 10, day, 11)
        )
    with hm.refused(db, RoomTaken, "taken on every one of the 2 weeks"):
        series(db, weeks=2, skip_clashes=True)


@pytest.mark.parametrize("weeks", [1, 27, 0, "six", None])
def test_a_series_runs_two_to_twenty_six_weeks(db, weeks):
    with hm.refused(db, ValidationError):
        series(db, weeks=weeks)


def test_a_series_checks_the_first_meeting_like_book_room(db):
    with hm.refused(db, ValidationError, "quarter hour"):
        series(db, start=local(2025, 10, 1, 10, 5))


def test_series_rows_are_written_once(db):
    series(db)
    assert db.scalar(select(func.count()).select_from(Series)) == 1


# -- the CRM merge -------------------------------------------------------------------------------


def test_move_account_reservations_repoints_them(db):
    booked = stay(db, account_id=hm.OTHER_ACCOUNT)
    other = stay(db, hm.PEER, account_id=hm.ACCOUNT)
    moved = service.move_account_reservations(db, hm.OTHER_ACCOUNT, hm.ACCOUNT)
    assert moved == 1
    assert (booked.account_id, other.account_id) == (hm.ACCOUNT, hm.ACCOUNT)


def test_merging_crm_accounts_moves_their_reservations(db):
    from officegym.apps.crm import service as crm

    booked = stay(db, account_id=hm.OTHER_ACCOUNT)
    crm.merge(db, person(db, hm.TRAVELLER), "accounts", [hm.ACCOUNT, hm.OTHER_ACCOUNT], hm.ACCOUNT)
    db.expire_all()
    assert db.get(Reservation, booked.id).account_id == hm.ACCOUNT


# -- a generated world ---------------------------------------------------------------------------


@pytest.fixture
def generated(store, tmp_path) -> Iterator[Session]:
    """A write session on a copy of the tiny seed-0 golden world."""
    path = hm.copy(store.golden(0, "tiny"), tmp_path / "generated.sqlite")
    with hm.session(path) as session:
        yield session


def test_a_generated_world_books_its_listings_at_the_quoted_price(generated):
    db = generated
    today = service._today(db)
    rooms = db.scalars(
        select(Resource).where(Resource.kind.in_(service.STAY_KINDS)).order_by(Resource.id)
    ).all()
    traveller = db.scalars(
        select(Employee)
        .where(Employee.is_active, Employee.manager_id.is_not(None))
        .order_by(Employee.id)
    ).first()
    booked = 0
    for resource in rooms:
        first = today + timedelta(days=30 + resource.id % 20)
        last = first + timedelta(days=max(resource.min_nights, 2))
        quoted = service.quote_stay(
            db, traveller, resource_id=resource.id, check_in=first, check_out=last, guests=1
        )
        if not quoted.available:
            continue
        made = service.book_stay(
            db,
            traveller,
            resource_id=resource.id,
            check_in=first,
            check_out=last,
            guests=1,
            purpose="Customer visit",
            justification="Customer meeting on site.",
        )
        assert made.total_cents == quoted.total_cents > 0
        assert made.status == ("confirmed" if quoted.in_policy else "pending_approval")
        booked += 1
    assert booked >= len(rooms) // 2


def test_a_generated_worlds_availability_agrees_one_by_one_and_all_at_once(generated):
    db = generated
    today = service._today(db)
    ids = db.scalars(select(Resource.id).where(Resource.kind.in_(service.STAY_KINDS))).all()
    for offset in (-30, 0, 10, 45):
        first, last = today + timedelta(days=offset), today + timedelta(days=offset + 9)
        many = availability.units_left_many(db, ids, first, last)
        assert many == {i: availability.units_left(db, i, first, last) for i in ids}
        query = select(Resource.id, Resource.units).where(Resource.id.in_(ids))
        units = {resource_id: count for resource_id, count in db.execute(query)}
        assert all(0 <= many[i] <= units[i] for i in ids)


def test_a_generated_worlds_meetings_clash_by_their_rooms_bookings(generated):
    db = generated
    now = service.world_now(db)
    held = db.scalars(
        select(Reservation)
        .join(Resource, Resource.id == Reservation.resource_id)
        .where(Resource.kind == "meeting_room", Reservation.status == "confirmed")
        .where(Reservation.start_at > now)
        .order_by(Reservation.start_at)
    ).first()
    if held is None:
        pytest.skip("the generated world has no upcoming meeting")
    clashes = availability.room_clashes(db, held.resource_id, held.start_at, held.end_at)
    assert held.id in [c.reservation_id for c in clashes]
    assert availability.room_clashes(
        db, held.resource_id, held.start_at, held.end_at, exclude_reservation_id=held.id
    ) == [c for c in clashes if c.reservation_id != held.id]
    db.execute(update(Reservation).where(Reservation.id == held.id).values(status="cancelled"))
    assert held.id not in [
        c.reservation_id
        for c in availability.room_clashes(db, held.resource_id, held.start_at, held.end_at)
    ]


# -- what an act changes, by the project's diff -----------------------------------------------


def test_an_out_of_policy_booking_adds_one_reservation_and_one_request(template, tmp_path):
    path = hm.copy(template, tmp_path / "diffed.sqlite")
    with hm.session(path) as db:
        booked_id = out_of_policy(db).id
        db.commit()
    changes = diff(template, path)
    assert sorted(changes.tables) == ["booking_approval", "booking_reservation", "world_meta"]
    assert list(changes.table("booking_reservation").inserted) == [booked_id]
    (request,) = changes.table("booking_approval").inserted.values()
    assert (request["status"], request["approver_id"]) == ("pending", hm.MANAGER)
    assert list(changes.table("world_meta").updated[1].changes) == ["clock_ticks"]


def test_a_refused_booking_changes_nothing_once_rolled_back(template, tmp_path):
    path = hm.copy(template, tmp_path / "diffed.sqlite")
    with hm.session(path) as db:
        with pytest.raises(ValidationError):
            stay(db, resource_id=hm.SUITE)
        db.rollback()
    assert not diff(template, path)
