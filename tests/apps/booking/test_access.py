"""Who sees which reservation, who may change it, who decides a request and who may book for
whom: on the hand-made world, then over every reservation of a generated world."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.booking import access, service
from officegym.apps.web.errors import Forbidden, NotFound
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import Approval, Attendee, Reservation
from tests.apps.booking import handmade as hm

MONDAY = date(2025, 10, 20)
NOT_FOUND = "That reservation doesn't exist or you don't have access to it."


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory):
    return hm.build(tmp_path_factory.mktemp("access") / "handmade.sqlite")


@pytest.fixture
def db(template, tmp_path) -> Iterator[Session]:
    with hm.session(hm.copy(template, tmp_path / "world.sqlite")) as session:
        yield session


def person(db: Session, emp_id: int) -> Employee:
    return hm.employee(db, emp_id)


def stay(db: Session, who: int = hm.TRAVELLER, **changes) -> Reservation:
    values = {
        "resource_id": hm.KING,
        "check_in": MONDAY,
        "check_out": MONDAY + timedelta(days=2),
        "guests": 1,
        "purpose": "Northwind QBR",
    }
    values.update(changes)
    return service.book_stay(db, person(db, who), **values)


def request_for(db: Session, who: int = hm.TRAVELLER, **changes) -> Reservation:
    """A stay over the cap, waiting for Cleo Park (Dan's manager)."""
    changes.setdefault("resource_id", hm.SUITE)
    changes.setdefault("justification", "The customer hosts us in the suite.")
    return stay(db, who, **changes)


def meeting(db: Session, attendees=(hm.PEER,)) -> Reservation:
    seattle = ZoneInfo("America/Los_Angeles")
    return service.book_room(
        db,
        person(db, hm.TRAVELLER),
        resource_id=hm.DENALI,
        start=datetime(2025, 9, 18, 10, tzinfo=seattle),
        end=datetime(2025, 9, 18, 11, tzinfo=seattle),
        title="Pipeline review",
        attendee_ids=attendees,
    )


def sees(db: Session, who: int, reservation: Reservation) -> bool:
    try:
        access.visible_reservation(db, person(db, who), reservation.id)
    except NotFound:
        return False
    return True


# -- seeing ------------------------------------------------------------------------------------


def test_the_guest_sees_their_stay(db):
    booked = stay(db)
    assert access.visible_reservation(db, person(db, hm.TRAVELLER), booked.id) is booked


def test_the_booker_sees_the_stay_they_booked_for_someone(db):
    booked = stay(db, hm.COORDINATOR, guest_id=hm.TRAVELLER)
    assert sees(db, hm.COORDINATOR, booked) and sees(db, hm.TRAVELLER, booked)


@pytest.mark.parametrize("who", [hm.PEER, hm.STRANGER, hm.COORDINATOR, hm.CEO])
def test_others_do_not_see_a_stay(db, who):
    booked = stay(db)
    with pytest.raises(NotFound, match=NOT_FOUND):
        access.visible_reservation(db, person(db, who), booked.id)


def test_a_manager_does_not_see_a_reports_trip_in_policy(db):
    booked = stay(db)
    assert not sees(db, hm.MANAGER, booked)


def test_a_manager_sees_a_reports_request_they_approve(db):
    booked = request_for(db)
    assert sees(db, hm.MANAGER, booked)
    assert not sees(db, hm.DIRECTOR, booked)  # the manager's manager approves nothing here


def test_the_approver_still_sees_the_stay_after_deciding(db):
    booked = request_for(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    service.decide_approval(db, person(db, hm.MANAGER), approval_id=request.id, decision="approve")
    assert sees(db, hm.MANAGER, booked)


def test_attendees_see_the_meeting_and_others_do_not(db):
    booked = meeting(db)
    assert sees(db, hm.TRAVELLER, booked) and sees(db, hm.PEER, booked)
    assert not sees(db, hm.MANAGER, booked)


@pytest.mark.parametrize("reservation_id", [999, 0, -1, "1", "abc", None, 1.0, True, 2**64])
def test_unknown_and_junk_ids_are_not_found_with_the_same_message(db, reservation_id):
    stay(db)
    with pytest.raises(NotFound, match=NOT_FOUND):
        access.visible_reservation(db, person(db, hm.TRAVELLER), reservation_id)


# -- changing ----------------------------------------------------------------------------------


def test_the_guest_and_the_booker_may_change_a_stay(db):
    booked = stay(db, hm.COORDINATOR, guest_id=hm.TRAVELLER)
    assert access.can_change(person(db, hm.TRAVELLER), booked)
    assert access.can_change(person(db, hm.COORDINATOR), booked)


def test_the_approver_may_not_change_a_stay(db):
    booked = request_for(db)
    assert not access.can_change(person(db, hm.MANAGER), booked)
    with pytest.raises(Forbidden, match="Only the guest or the person who booked it"):
        access.changeable_reservation(db, person(db, hm.MANAGER), booked.id)


def test_an_attendee_may_not_change_a_meeting(db):
    booked = meeting(db)
    assert not access.can_change(person(db, hm.PEER), booked)


def test_someone_who_cannot_see_a_stay_is_told_it_does_not_exist(db):
    booked = stay(db)
    with pytest.raises(NotFound, match=NOT_FOUND):
        access.changeable_reservation(db, person(db, hm.PEER), booked.id)


# -- deciding ----------------------------------------------------------------------------------


def test_only_the_approver_gets_the_request_to_decide(db):
    booked = request_for(db)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    assert access.decidable_approval(db, person(db, hm.MANAGER), request.id) is request
    with pytest.raises(Forbidden, match="Only Cleo Park, the approver"):
        access.decidable_approval(db, person(db, hm.TRAVELLER), request.id)
    for outsider in (hm.DIRECTOR, hm.PEER, hm.STRANGER):
        with pytest.raises(NotFound, match="approval request doesn't exist"):
            access.decidable_approval(db, person(db, outsider), request.id)


def test_a_booker_sees_the_request_but_may_not_decide_it(db):
    booked = request_for(db, hm.COORDINATOR, guest_id=hm.TRAVELLER)
    request = db.scalars(select(Approval).where(Approval.reservation_id == booked.id)).one()
    with pytest.raises(Forbidden):
        access.decidable_approval(db, person(db, hm.COORDINATOR), request.id)


# -- booking for someone -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("booker", "guest", "allowed"),
    [
        (hm.TRAVELLER, hm.TRAVELLER, True),
        (hm.MANAGER, hm.TRAVELLER, True),
        (hm.COORDINATOR, hm.TRAVELLER, True),
        (hm.ASSISTANT, hm.TRAVELLER, True),
        (hm.COORDINATOR, hm.CEO, True),
        (hm.PEER, hm.TRAVELLER, False),
        (hm.DIRECTOR, hm.TRAVELLER, False),
        (hm.TRAVELLER, hm.MANAGER, False),
        (hm.STRANGER, hm.TRAVELLER, False),
    ],
)
def test_who_may_book_for_whom(db, booker, guest, allowed):
    assert access.can_book_for(person(db, booker), person(db, guest)) is allowed


@pytest.mark.parametrize(
    ("title", "books"),
    [
        ("Travel Coordinator", True),
        ("Senior travel coordinator", True),
        ("Office Manager", True),
        ("Executive Assistant to the CEO", True),
        ("Business Operations Manager", False),
        ("Account Executive", False),
        ("", False),
    ],
)
def test_booking_for_others_is_a_job_title(db, title, books):
    someone = person(db, hm.STRANGER)
    someone.title = title
    assert access.books_for_others(someone) is books


# -- a generated world -------------------------------------------------------------------------


@pytest.fixture
def generated(store, tmp_path) -> Iterator[Session]:
    path = hm.copy(store.golden(0, "tiny"), tmp_path / "generated.sqlite")
    with hm.session(path) as session:
        yield session


def test_in_a_generated_world_each_reservation_is_seen_by_exactly_its_people(generated):
    db = generated
    people = db.scalars(select(Employee).order_by(Employee.id)).all()
    reservations = db.scalars(select(Reservation).order_by(Reservation.id)).all()
    assert reservations
    for reservation in reservations:
        involved = {reservation.guest_id, reservation.booked_by_id}
        involved |= set(
            db.scalars(
                select(Attendee.employee_id).where(Attendee.reservation_id == reservation.id)
            )
        )
        involved |= set(
            db.scalars(
                select(Approval.approver_id).where(Approval.reservation_id == reservation.id)
            )
        )
        seen = {p.id for p in people if access.sees(db, p, reservation)}
        assert seen == involved, reservation.id
