"""Who may see and change which reservation, and who may book for whom.

A reservation is visible to its guest (a meeting's organizer), the person who booked it,
the attendees of a meeting, and the approver of any approval request on it: a manager sees
the requests of their reports, not every trip those reports take. To anyone else a
reservation does not exist: every lookup raises NotFound with the same message as for an id
never used, so nobody learns of a colleague's trip by guessing ids. Only the guest and the
booker may change or cancel it.

Booking a stay for someone else is for travel coordinators, office managers and executive
assistants (by job title), and for the guest's own manager.
"""

from __future__ import annotations

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from officegym.apps.web.errors import Forbidden, NotFound
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import Approval, Attendee, Reservation

# Titles (matched ignoring case, anywhere in the title) of people who book travel for others.
BOOKER_TITLES = ("travel coordinator", "office manager", "executive assistant")


def row_id(value: object) -> int | None:
    """`value` if it can be a row id (an int SQLite can store, not a bool), else None: ids
    arrive from URLs and JSON, where any size of integer parses."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63:
        return value
    return None


def reservation_not_found() -> NotFound:
    return NotFound("That reservation doesn't exist or you don't have access to it.")


def approval_not_found() -> NotFound:
    return NotFound("That approval request doesn't exist or you don't have access to it.")


def sees(db: Session, actor: Employee, reservation: Reservation) -> bool:
    """Whether the actor may see the reservation (see the module doc for who may)."""
    if actor.id in (reservation.guest_id, reservation.booked_by_id):
        return True
    attendee = exists().where(
        Attendee.reservation_id == reservation.id, Attendee.employee_id == actor.id
    )
    approver = exists().where(
        Approval.reservation_id == reservation.id, Approval.approver_id == actor.id
    )
    return bool(db.scalar(select(attendee | approver)))


def visible_reservation(db: Session, actor: Employee, reservation_id: object) -> Reservation:
    """The reservation if the actor may see it; NotFound otherwise (also for junk ids)."""
    found = db.get(Reservation, reservation_id) if row_id(reservation_id) else None
    if found is None or not sees(db, actor, found):
        raise reservation_not_found()
    return found


def can_change(actor: Employee, reservation: Reservation) -> bool:
    """Whether the actor may change or cancel the reservation: its guest or its booker."""
    return actor.id in (reservation.guest_id, reservation.booked_by_id)


def changeable_reservation(db: Session, actor: Employee, reservation_id: object) -> Reservation:
    """The reservation if the actor may change it: NotFound when they may not see it,
    Forbidden when they see it (an attendee, an approver) but it isn't theirs."""
    found = visible_reservation(db, actor, reservation_id)
    if not can_change(actor, found):
        raise Forbidden("Only the guest or the person who booked it can change this reservation.")
    return found


def books_for_others(actor: Employee) -> bool:
    """Whether the actor's job is booking travel for colleagues (by title)."""
    title = (actor.title or "").lower()
    return any(words in title for words in BOOKER_TITLES)


def can_book_for(actor: Employee, guest: Employee) -> bool:
    """Whether the actor may book a stay with `guest` as the traveller."""
    return actor.id == guest.id or guest.manager_id == actor.id or books_for_others(actor)


def decidable_approval(db: Session, actor: Employee, approval_id: object) -> Approval:
    """The approval request if the actor is its approver. Someone who can see the
    reservation (its guest, booker, an attendee) gets Forbidden; anyone else NotFound."""
    found = db.get(Approval, approval_id) if row_id(approval_id) else None
    if found is None:
        raise approval_not_found()
    if found.approver_id == actor.id:
        return found
    reservation = db.get(Reservation, found.reservation_id)
    if reservation is None or not sees(db, actor, reservation):
        raise approval_not_found()
    approver = db.get(Employee, found.approver_id)
    who = approver.display_name if approver is not None else "the approver"
    raise Forbidden(f"Only {who}, the approver, can decide this request.")


__all__ = [
    "BOOKER_TITLES",
    "approval_not_found",
    "books_for_others",
    "can_book_for",
    "can_change",
    "changeable_reservation",
    "decidable_approval",
    "reservation_not_found",
    "row_id",
    "sees",
    "visible_reservation",
]
