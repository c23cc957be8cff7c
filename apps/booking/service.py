"""Booking's writes: the only code that changes booking tables.

Every public function but `quote_stay` (a read that the booking form and `book_stay` share)
is one act of a user: it takes the request's session `db` and the signed-in `actor`, checks
the input and the permissions in `access` before it writes, and runs inside the request's
transaction (the web kit begins writes with BEGIN IMMEDIATE, commits on success and rolls
back on any refusal, so a refused act writes nothing). Each act takes one `stamp()` from the
world clock for every row it touches; "today" is the world clock's date (UTC).

Stays are priced by `booking_rules.quote` and checked against the traveller's policy
(`policy.for_traveller`); availability is re-checked inside the write transaction
(`availability`), which is what keeps two requests from taking the last unit. A stay that
breaks policy needs a justification and waits for the guest's manager (`pending_approval`
with a `pending` approval). Approval statuses: `pending`, `approved`, `rejected`, and
`withdrawn` when the request is closed without a decision (the stay was cancelled, or its
dates changed and a new request replaced it); `decided_at` is when it was closed.

Meeting rooms take times as datetimes: aware ones in any zone, naive ones as UTC (how they
are stored); office hours and quarter hours are checked in the office's own time zone.

Errors: ValidationError (bad input, with the field at fault), NotFound (no such record, or
one the actor may not see), Forbidden (visible but not theirs to change), Conflict (taken
nights, a past stay, a decided request) and its `RoomTaken` (what holds a meeting room).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, TypeVar

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from officegym.apps.web.errors import Conflict, Forbidden, NotFound, ValidationError
from officegym.apps.web.localtime import to_local, zone
from officegym.seed_data import booking_rules
from officegym.seed_data.booking_rules import PolicyTerms, Quote, Rule, Terms
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.clock import stamp
from officegym.seed_data.schema import Base, Employee, Office
from officegym.seed_data.schema.booking import (
    Approval,
    Attendee,
    CityTax,
    Property,
    Reservation,
    Resource,
    Season,
    Series,
)
from officegym.seed_data.schema.crm import Account, Opportunity

from . import access, availability, policy
from .availability import Clash, midnight

STAY_KINDS = ("hotel_room", "home")
MAX_PURPOSE = 200
MAX_TEXT = 2000
MIN_JUSTIFICATION = 10
OPEN_FROM, OPEN_UNTIL = time(7, 0), time(20, 0)
MIN_MEETING, MAX_MEETING = timedelta(minutes=15), timedelta(hours=8)
MIN_WEEKS, MAX_WEEKS = 2, 26
WITHDRAWN = "withdrawn"
_WHOLE = re.compile(r"[0-9]{1,9}")
_T = TypeVar("_T")


# -- what the service returns ------------------------------------------------------------------


@dataclass(frozen=True)
class StayQuote:
    """A priced stay for one traveller: whether it can be booked (`available`, else
    `unavailable_reason`), the price line by line, and the policy rules it breaks."""

    resource_id: int
    property_id: int
    guest_id: int
    check_in: date
    check_out: date
    guests: int
    available: bool
    units_left: int
    unavailable_reason: str
    price: Quote
    policy: PolicyTerms
    breaches: tuple[Rule, ...]
    cancellation_policy: str

    @property
    def nights(self) -> int:
        return self.price.count

    @property
    def total_cents(self) -> int:
        return self.price.total

    @property
    def in_policy(self) -> bool:
        return not self.breaches

    def to_json(self) -> dict[str, Any]:
        return {
            "resource_id": self.resource_id,
            "property_id": self.property_id,
            "guest_id": self.guest_id,
            "check_in": self.check_in.isoformat(),
            "check_out": self.check_out.isoformat(),
            "guests": self.guests,
            "nights": self.nights,
            "available": self.available,
            "units_left": self.units_left,
            "unavailable_reason": self.unavailable_reason,
            "price": self.price.to_json(),
            "policy": self.policy.name,
            "in_policy": self.in_policy,
            "breaches": _rules_json(self.breaches),
            "cancellation_policy": self.cancellation_policy,
            "refund_text": booking_rules.REFUND_TEXT.get(self.cancellation_policy, ""),
        }


@dataclass(frozen=True)
class SeriesResult:
    """A weekly room booking: the series row, the weeks booked, and the weeks skipped."""

    series: Series
    created: list[Reservation]
    clashes: list[Clash]


class RoomTaken(Conflict):
    """A meeting room is held at a wanted time; `clashes` says by what."""

    def __init__(self, message: str, clashes: Sequence[Clash]) -> None:
        super().__init__(message, "start")
        self.clashes = tuple(clashes)

    def details(self) -> dict[str, Any]:
        return {"clashes": [c.to_json() for c in self.clashes]}


# -- small checks ----------------------------------------------------------------------------


def _text(value: object, label: str, field: str, limit: int, *, required: bool) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValidationError(f"The {label} must be text.", field)
    text = value.strip()
    if required and not text:
        raise ValidationError(f"Enter a {label}.", field)
    if len(text) > limit:
        raise ValidationError(f"The {label} can be at most {limit} characters.", field)
    if any((ord(ch) < 32 and ch not in "\n\t") or ord(ch) == 127 for ch in text):
        raise ValidationError(f"The {label} can't contain control characters.", field)
    return text


def _one_line(value: object, label: str, field: str, limit: int) -> str:
    text = " ".join(_text(value, label, field, limit * 4, required=True).split())
    if len(text) > limit:
        raise ValidationError(f"The {label} can be at most {limit} characters.", field)
    return text


def _whole(value: object, label: str, field: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        return int(value.strip())
    raise ValidationError(f"Enter the {label} as a whole number.", field)


def _id(value: object) -> int | None:
    """A row id from an int or a string of digits; None for anything else."""
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        value = int(value.strip())
    return access.row_id(value)


def _day(value: object, label: str, field: str) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValidationError(f"Enter the {label} as a date like 2025-10-14.", field)


def _moment(value: object, label: str, field: str) -> datetime:
    """A datetime as naive UTC: aware ones are converted, naive ones are UTC already."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValidationError(f"Enter the {label} as a date and time.", field) from None
    if not isinstance(value, datetime):
        raise ValidationError(f"Enter the {label} as a date and time.", field)
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def _show_day(day: date) -> str:
    return f"{day:%a} {day.day} {day:%b %Y}"


def _rules_json(rules: Iterable[Rule]) -> list[dict[str, str]]:
    return [{"code": r.code, "message": r.message} for r in rules]


def _today(db: Session) -> date:
    return world_now(db).date()


def _you(actor: Employee, person: Employee) -> str:
    return "You" if actor.id == person.id else person.display_name


def _field(errors: dict[str, str], check: Callable[[], _T]) -> _T | None:
    """The checked value, or None with its message added to `errors` under its field, so a
    form hears about every field at fault at once."""
    try:
        return check()
    except ValidationError as error:
        errors[error.field or "form"] = error.message
        return None


# -- stays: pricing and checks -----------------------------------------------------------------


def _stay_listing(db: Session, resource_id: object) -> tuple[Resource, Property]:
    found = db.get(Resource, rid) if (rid := _id(resource_id)) else None
    if found is None or found.kind not in STAY_KINDS or found.nightly_rate is None:
        raise NotFound("That listing doesn't exist.", "resource_id")
    return found, db.get(Property, found.property_id)


def _columns(row: Base) -> dict[str, Any]:
    return {c.name: getattr(row, c.key) for c in row.__table__.columns}


def _terms(db: Session, resource: Resource, prop: Property) -> tuple[Terms, tuple[str, ...]]:
    """The listing's pricing terms (`booking_rules.stay_terms` over its rows), with its
    seasons' names in the same order."""
    seasons = db.execute(select(Season.__table__).where(Season.property_id == prop.id))
    tax = db.execute(
        select(CityTax.__table__)
        .where(func.lower(CityTax.city) == prop.city.lower())
        .order_by(CityTax.id)
    ).first()
    return booking_rules.stay_terms(
        _columns(resource),
        _columns(prop),
        seasons.mappings().all(),
        tax._mapping if tax is not None else None,
    )


def _guest(db: Session, actor: Employee, guest_id: object) -> Employee:
    """The traveller: the actor, or the colleague they may book for."""
    if guest_id is None or guest_id == "":
        return actor
    guest = db.get(Employee, gid) if (gid := _id(guest_id)) else None
    if guest is None or not guest.is_active:
        raise ValidationError("Choose the traveller from the directory.", "guest_id")
    if not access.can_book_for(actor, guest):
        raise Forbidden(
            f"You can't book travel for {guest.display_name}: only their manager, travel "
            "coordinators, office managers and executive assistants can."
        )
    return guest


def _check_dates(
    errors: dict[str, str],
    resource: Resource,
    check_in: date,
    check_out: date,
    today: date,
) -> None:
    if check_out <= check_in:
        errors["check_out"] = "Check-out must be after check-in."
        return
    if check_in < today:
        errors["check_in"] = f"Check-in can't be before today ({_show_day(today)})."
    nights = (check_out - check_in).days
    if nights > booking_rules.MAX_NIGHTS:
        errors["check_out"] = (
            f"A stay can be at most {booking_rules.MAX_NIGHTS} nights; this one is {nights}."
        )
    elif nights < resource.min_nights:
        errors["check_out"] = f"This listing has a {resource.min_nights}-night minimum stay."


def _check_guests(errors: dict[str, str], resource: Resource, guests: object) -> int:
    count = _field(errors, lambda: _whole(guests, "number of guests", "guests"))
    if count is None:
        return 0
    limit = min(resource.capacity, booking_rules.MAX_GUESTS)
    if count < 1:
        errors["guests"] = "A stay needs at least 1 guest."
    elif count > limit:
        errors["guests"] = f"{resource.name} sleeps at most {limit} guests."
    return count


@dataclass(frozen=True)
class _Stay:
    """A checked stay request."""

    resource: Resource
    prop: Property
    guest: Employee
    check_in: date
    check_out: date
    guests: int
    today: date


def _stay_input(
    db: Session,
    actor: Employee,
    resource_id: object,
    check_in: object,
    check_out: object,
    guests: object,
    guest_id: object,
    errors: dict[str, str],
) -> _Stay:
    """Check a stay request; ValidationError lists every field at fault, those already in
    `errors` included."""
    resource, prop = _stay_listing(db, resource_id)
    guest = _guest(db, actor, guest_id)
    first = _field(errors, lambda: _day(check_in, "check-in date", "check_in"))
    last = _field(errors, lambda: _day(check_out, "check-out date", "check_out"))
    today = _today(db)
    if first is not None and last is not None:
        _check_dates(errors, resource, first, last, today)
    count = _check_guests(errors, resource, guests)
    if errors or first is None or last is None:
        raise ValidationError.of(errors)
    return _Stay(resource, prop, guest, first, last, count, today)


def _unavailable_reason(db: Session, resource: Resource, check_in: date, check_out: date) -> str:
    closed = availability.closures(db, resource.id, check_in, check_out - timedelta(days=1))
    if closed:
        window = closed[0]
        return (
            f"{resource.name} is unavailable from {_show_day(window.start_date)} to "
            f"{_show_day(window.end_date)}: {window.reason}."
        )
    return f"{resource.name} is fully booked for some of those nights."


def _price_stay(db: Session, wanted: _Stay, exclude_reservation_id: int | None = None) -> StayQuote:
    """Price a checked stay, find its breaches and whether its nights are free."""
    resource, prop, guest = wanted.resource, wanted.prop, wanted.guest
    check_in, check_out, today = wanted.check_in, wanted.check_out, wanted.today
    terms, season_names = _terms(db, resource, prop)
    price = booking_rules.quote(terms, check_in, check_out, season_names)
    rules = policy.for_traveller(db, guest, prop.city)
    breaches = booking_rules.policy_breaches(
        rules, price, today=today, check_in=check_in, preferred=bool(prop.is_preferred)
    )
    left = availability.units_left(db, resource.id, check_in, check_out, exclude_reservation_id)
    return StayQuote(
        resource_id=resource.id,
        property_id=prop.id,
        guest_id=guest.id,
        check_in=check_in,
        check_out=check_out,
        guests=wanted.guests,
        available=left > 0,
        units_left=left,
        unavailable_reason=""
        if left > 0
        else _unavailable_reason(db, resource, check_in, check_out),
        price=price,
        policy=rules,
        breaches=tuple(breaches),
        cancellation_policy=prop.cancellation_policy,
    )


def quote_stay(
    db: Session,
    actor: Employee,
    *,
    resource_id: object,
    check_in: object,
    check_out: object,
    guests: object,
    guest_id: object = None,
) -> StayQuote:
    """Price a stay for the actor (or `guest_id`, whom the actor may book for) and say whether
    it can be booked and which policy rules it breaks. Reads only.

    Bad input raises ValidationError (every field at fault at once): dates (check-out after
    check-in, check-in not before today, at most `MAX_NIGHTS` nights and the listing's minimum
    stay) and guests (1 to the listing's capacity). Nights that are taken or closed are not an
    error: the quote says `available` False and why.
    """
    wanted = _stay_input(db, actor, resource_id, check_in, check_out, guests, guest_id, {})
    return _price_stay(db, wanted)


def _account_refs(
    db: Session, account_id: object, opportunity_id: object
) -> tuple[int | None, int | None]:
    account = opportunity = None
    if account_id not in (None, ""):
        account = db.get(Account, aid) if (aid := _id(account_id)) else None
        if account is None:
            raise ValidationError("Choose the account from the CRM.", "account_id")
    if opportunity_id not in (None, ""):
        opportunity = db.get(Opportunity, oid) if (oid := _id(opportunity_id)) else None
        if opportunity is None:
            raise ValidationError("Choose the deal from the CRM.", "opportunity_id")
        if account is not None and opportunity.account_id != account.id:
            raise ValidationError(
                f"The deal “{opportunity.name}” belongs to another account.", "opportunity_id"
            )
        account = account or db.get(Account, opportunity.account_id)
    return (
        account.id if account is not None else None,
        opportunity.id if opportunity is not None else None,
    )


def _approver(db: Session, actor: Employee, guest: Employee) -> Employee | None:
    """Who approves the guest's stay outside policy: their manager. Nobody, for the top of the
    company (no manager): such a stay is confirmed with its justification on record."""
    if guest.manager_id is None:
        return None
    manager = db.get(Employee, guest.manager_id)
    if manager is None or not manager.is_active:
        who = _you(actor, guest)
        has = "have" if who == "You" else "has"
        raise ValidationError(
            f"{who} {has} no manager to approve a stay outside the travel policy. "
            "Choose a stay within the policy.",
            "justification",
        )
    return manager


def _justified(quoted: StayQuote, justification: str, approver: Employee | None) -> str:
    if len(justification) >= MIN_JUSTIFICATION:
        return justification
    broken = " ".join(r.message for r in quoted.breaches)
    reader = f"for {approver.display_name} to review" if approver else "for the record"
    raise ValidationError(
        f"This stay is outside the {quoted.policy.name}. {broken} Add a justification of at "
        f"least {MIN_JUSTIFICATION} characters {reader}.",
        "justification",
    )


def _request_approval(
    db: Session, reservation: Reservation, approver: Employee, at: datetime
) -> Approval:
    request = Approval(
        reservation_id=reservation.id,
        approver_id=approver.id,
        status="pending",
        comment="",
        created_at=at,
        decided_at=None,
    )
    db.add(request)
    return request


def _withdraw_pending(db: Session, reservation_id: int, at: datetime) -> None:
    db.execute(
        update(Approval)
        .where(Approval.reservation_id == reservation_id, Approval.status == "pending")
        .values(status=WITHDRAWN, decided_at=at)
    )


def _taken(resource: Resource, prop: Property) -> Conflict:
    return Conflict(
        f"{resource.name} at {prop.name} is no longer available for those nights.", "check_in"
    )


def _unavailable(db: Session, resource: Resource, prop: Property, quoted: StayQuote) -> Conflict:
    """The refusal of a stay whose nights are closed (the closure's reason) or taken."""
    last_night = quoted.check_out - timedelta(days=1)
    if availability.closures(db, resource.id, quoted.check_in, last_night):
        return Conflict(quoted.unavailable_reason, "check_in")
    return _taken(resource, prop)


def book_stay(
    db: Session,
    actor: Employee,
    *,
    resource_id: object,
    check_in: object,
    check_out: object,
    guests: object,
    purpose: object,
    justification: object = "",
    guest_id: object = None,
    account_id: object = None,
    opportunity_id: object = None,
) -> Reservation:
    """Book a stay for the actor or for `guest_id` (their report, or anyone when the actor
    books travel for a living); `purpose` names the trip.

    Everything `quote_stay` checks is checked again here, inside the write transaction. In
    policy the stay is `confirmed`; out of policy it needs a justification and becomes
    `pending_approval` with a pending request to the guest's manager. Nights taken meanwhile
    raise Conflict ("no longer available for those nights").
    """
    errors: dict[str, str] = {}
    trip = _field(errors, lambda: _one_line(purpose, "trip name", "purpose", MAX_PURPOSE))
    reason = _field(
        errors,
        lambda: _text(justification, "justification", "justification", MAX_TEXT, required=False),
    )
    wanted = _stay_input(db, actor, resource_id, check_in, check_out, guests, guest_id, errors)
    resource, prop, guest = wanted.resource, wanted.prop, wanted.guest
    account, opportunity = _account_refs(db, account_id, opportunity_id)
    quoted = _price_stay(db, wanted)
    if not quoted.available:
        raise _unavailable(db, resource, prop, quoted)
    approver = None
    if quoted.breaches:
        approver = _approver(db, actor, guest)
        reason = _justified(quoted, reason, approver)
    at = stamp(db)
    reservation = Reservation(
        resource_id=resource.id,
        guest_id=guest.id,
        booked_by_id=actor.id,
        start_at=midnight(wanted.check_in),
        end_at=midnight(wanted.check_out),
        status="pending_approval" if approver is not None else "confirmed",
        purpose=trip,
        guests=wanted.guests,
        total_cents=quoted.price.total,
        price_json=json.dumps(quoted.price.to_json(), sort_keys=True),
        refund_cents=None,
        justification=reason,
        policy_json=json.dumps(_rules_json(quoted.breaches)),
        series_id=None,
        account_id=account,
        opportunity_id=opportunity,
        created_at=at,
        updated_at=None,
        cancelled_at=None,
    )
    db.add(reservation)
    db.flush()
    if approver is not None:
        _request_approval(db, reservation, approver, at)
        db.flush()
    return reservation


def _own_stay(db: Session, actor: Employee, reservation_id: object) -> Reservation:
    reservation = access.changeable_reservation(db, actor, reservation_id)
    resource = db.get(Resource, reservation.resource_id)
    if resource is None or resource.kind not in STAY_KINDS:
        raise ValidationError(
            "That is a meeting-room booking; only stays have check-in and check-out dates.",
            "reservation_id",
        )
    return reservation


def change_stay_dates(
    db: Session,
    actor: Employee,
    *,
    reservation_id: object,
    check_in: object,
    check_out: object,
    justification: object = "",
) -> Reservation:
    """Move an upcoming confirmed or pending stay of the actor (guest or booker) to new dates.

    The stay is priced again and checked against availability (its own nights aside) and the
    policy on the new dates: in policy it is `confirmed`; out of policy it needs a justification
    (the one given, else the one it has) and becomes `pending_approval` with a new request to
    the guest's manager. Either way a request still pending on it is withdrawn.
    """
    reservation = _own_stay(db, actor, reservation_id)
    today = _today(db)
    if reservation.status not in availability.HOLDING:
        raise Conflict(f"This stay is {reservation.status}; its dates can't be changed.")
    if reservation.start_at.date() < today:
        raise Conflict("This stay has already begun; its dates can't be changed.")
    resource = db.get(Resource, reservation.resource_id)
    prop = db.get(Property, resource.property_id)
    guest = db.get(Employee, reservation.guest_id)
    errors: dict[str, str] = {}
    first = _field(errors, lambda: _day(check_in, "check-in date", "check_in"))
    last = _field(errors, lambda: _day(check_out, "check-out date", "check_out"))
    if first is not None and last is not None:
        _check_dates(errors, resource, first, last, today)
    given = _field(
        errors,
        lambda: _text(justification, "justification", "justification", MAX_TEXT, required=False),
    )
    if errors or first is None or last is None:
        raise ValidationError.of(errors)
    if (midnight(first), midnight(last)) == (reservation.start_at, reservation.end_at):
        raise ValidationError("Those are already the dates of this stay.", "check_in")
    wanted = _Stay(resource, prop, guest, first, last, reservation.guests, today)
    quoted = _price_stay(db, wanted, reservation.id)
    if not quoted.available:
        raise _unavailable(db, resource, prop, quoted)
    approver = None
    reason = given or reservation.justification
    if quoted.breaches:
        approver = _approver(db, actor, guest)
        reason = _justified(quoted, reason, approver)
    at = stamp(db)
    _withdraw_pending(db, reservation.id, at)
    reservation.start_at = midnight(first)
    reservation.end_at = midnight(last)
    reservation.status = "pending_approval" if approver is not None else "confirmed"
    reservation.total_cents = quoted.price.total
    reservation.price_json = json.dumps(quoted.price.to_json(), sort_keys=True)
    reservation.policy_json = json.dumps(_rules_json(quoted.breaches))
    reservation.justification = reason
    reservation.updated_at = at
    if approver is not None:
        _request_approval(db, reservation, approver, at)
    db.flush()
    return reservation


def cancel_reservation(db: Session, actor: Employee, *, reservation_id: object) -> Reservation:
    """Cancel a stay or a meeting-room booking of the actor (its guest/organizer or booker).

    A confirmed stay refunds what its property's cancellation policy gives back today; a stay
    waiting for approval was never charged, so all of it. A stay that has begun, or a meeting
    that has started, can't be cancelled. A pending approval request on it is withdrawn.
    """
    reservation = access.changeable_reservation(db, actor, reservation_id)
    if reservation.status not in availability.HOLDING:
        raise Conflict(f"This reservation is already {reservation.status}.")
    resource = db.get(Resource, reservation.resource_id)
    now = world_now(db)
    today = now.date()
    stay = resource is not None and resource.kind in STAY_KINDS
    refund: int | None = None
    if stay:
        check_in = reservation.start_at.date()
        if check_in < today:
            raise Conflict(
                f"This stay began on {_show_day(check_in)}; past stays can't be cancelled."
            )
        if reservation.status == "pending_approval":
            refund = reservation.total_cents
        else:
            prop = db.get(Property, resource.property_id)
            refund = booking_rules.refund_cents(
                prop.cancellation_policy, today, check_in, reservation.total_cents
            )
    elif reservation.start_at <= now:
        raise Conflict("This meeting has already started; it can't be cancelled.")
    at = stamp(db)
    _withdraw_pending(db, reservation.id, at)
    reservation.status = "cancelled"
    reservation.refund_cents = refund
    reservation.cancelled_at = at
    reservation.updated_at = at
    db.flush()
    return reservation


def decide_approval(
    db: Session,
    actor: Employee,
    *,
    approval_id: object,
    decision: object,
    comment: object = "",
) -> Approval:
    """The approver approves (the stay becomes `confirmed`, its nights checked again) or
    rejects (`rejected`; a comment saying why is required) a pending request."""
    request = access.decidable_approval(db, actor, approval_id)
    choice = decision.strip().lower() if isinstance(decision, str) else None
    if choice not in ("approve", "reject"):
        raise ValidationError("Choose approve or reject.", "decision")
    note = _text(comment, "comment", "comment", MAX_TEXT, required=False)
    if request.status != "pending":
        when = f" on {_show_day(request.decided_at.date())}" if request.decided_at else ""
        raise Conflict(f"This request was already {request.status}{when}.")
    reservation = db.get(Reservation, request.reservation_id)
    if reservation.status != "pending_approval":
        raise Conflict(f"This stay is {reservation.status}; there is nothing to decide.")
    if choice == "reject" and not note:
        raise ValidationError("Say why you're rejecting this request.", "comment")
    if choice == "approve":
        today = _today(db)
        check_in, check_out = reservation.start_at.date(), reservation.end_at.date()
        if check_in < today:
            raise Conflict(
                f"This stay was to begin on {_show_day(check_in)}; it can only be rejected now."
            )
        left = availability.units_left(
            db, reservation.resource_id, check_in, check_out, reservation.id
        )
        if left < 1:
            resource = db.get(Resource, reservation.resource_id)
            prop = db.get(Property, resource.property_id)
            raise _taken(resource, prop)
    at = stamp(db)
    request.status = "approved" if choice == "approve" else "rejected"
    request.comment = note
    request.decided_at = at
    reservation.status = "confirmed" if choice == "approve" else "rejected"
    reservation.updated_at = at
    db.flush()
    return request


# -- meeting rooms -----------------------------------------------------------------------------


def _room(db: Session, resource_id: object) -> tuple[Resource, str | None]:
    """The meeting room and its office's time zone."""
    found = db.get(Resource, rid) if (rid := _id(resource_id)) else None
    if found is None or found.kind != "meeting_room":
        raise NotFound("That meeting room doesn't exist.", "resource_id")
    prop = db.get(Property, found.property_id)
    office = db.get(Office, prop.office_id) if prop.office_id else None
    return found, office.timezone if office is not None else None


def _check_slot(
    start: datetime, end: datetime, timezone: str | None, now: datetime, errors: dict[str, str]
) -> None:
    if end <= start:
        errors["end"] = "The meeting must end after it starts."
        return
    if not MIN_MEETING <= end - start <= MAX_MEETING:
        errors["end"] = "A meeting room can be booked for 15 minutes to 8 hours."
    local_start, local_end = to_local(start, timezone), to_local(end, timezone)
    if any(t.minute % 15 or t.second or t.microsecond for t in (local_start, local_end)):
        errors.setdefault("start", "Start and end on a quarter hour (10:00, 10:15, 10:30, 10:45).")
    if (
        local_start.date() != local_end.date()
        or local_start.time() < OPEN_FROM
        or local_end.time() > OPEN_UNTIL
    ):
        errors.setdefault(
            "start",
            f"Rooms can be booked between {OPEN_FROM:%H:%M} and {OPEN_UNTIL:%H:%M} office time"
            f" ({timezone or 'UTC'}).",
        )
    if start < now:
        errors.setdefault("start", "That time has already passed.")


def _attendees(
    db: Session, actor: Employee, room: Resource, attendee_ids: object
) -> list[Employee]:
    if attendee_ids is None:
        attendee_ids = ()
    if isinstance(attendee_ids, str | bytes) or not isinstance(attendee_ids, Iterable):
        raise ValidationError("Choose attendees from the directory.", "attendee_ids")
    people: list[Employee] = []
    seen: set[int] = set()
    for value in attendee_ids:
        person = db.get(Employee, pid) if (pid := _id(value)) else None
        if person is None or not person.is_active:
            raise ValidationError(
                f"No active colleague has the id {value!r}: choose attendees from the directory.",
                "attendee_ids",
            )
        if person.id == actor.id:
            raise ValidationError(
                "You're the organizer; you don't need to invite yourself.", "attendee_ids"
            )
        if person.id in seen:
            raise ValidationError(f"{person.display_name} is invited twice.", "attendee_ids")
        seen.add(person.id)
        people.append(person)
    if len(people) + 1 > room.capacity:
        raise ValidationError(
            f"{room.name} seats {room.capacity}; you invited {len(people)} "
            f"{'person' if len(people) == 1 else 'people'} plus yourself.",
            "attendee_ids",
        )
    return people


def _room_request(
    db: Session,
    actor: Employee,
    resource_id: object,
    start: object,
    end: object,
    title: object,
    attendee_ids: object,
) -> tuple[Resource, str | None, datetime, datetime, str, list[Employee]]:
    room, timezone = _room(db, resource_id)
    errors: dict[str, str] = {}
    first = _field(errors, lambda: _moment(start, "start", "start"))
    last = _field(errors, lambda: _moment(end, "end", "end"))
    if first is not None and last is not None:
        _check_slot(first, last, timezone, world_now(db), errors)
    name = _field(errors, lambda: _one_line(title, "meeting title", "title", MAX_PURPOSE))
    if errors or first is None or last is None or name is None:
        raise ValidationError.of(errors)
    return room, timezone, first, last, name, _attendees(db, actor, room, attendee_ids)


def _holders(
    db: Session, room: Resource, timezone: str | None, start: datetime, end: datetime
) -> list[Clash]:
    """What holds the room from `start` to `end`: a closure of its local day, else bookings."""
    day = to_local(start, timezone).date()
    closed = availability.closures(db, room.id, day, day)
    if closed:
        return [
            Clash(
                resource_id=room.id,
                room=room.name,
                wanted_start=start,
                wanted_end=end,
                start=start,
                end=end,
                title=closed[0].reason,
                organizer="",
                reservation_id=None,
            )
        ]
    return availability.room_clashes(db, room.id, start, end)


def _meeting(
    db: Session,
    actor: Employee,
    room: Resource,
    start: datetime,
    end: datetime,
    title: str,
    people: Sequence[Employee],
    at: datetime,
    series_id: int | None = None,
) -> Reservation:
    reservation = Reservation(
        resource_id=room.id,
        guest_id=actor.id,
        booked_by_id=actor.id,
        start_at=start,
        end_at=end,
        status="confirmed",
        purpose=title,
        guests=len(people) + 1,
        total_cents=0,
        price_json="",
        refund_cents=None,
        justification="",
        policy_json="",
        series_id=series_id,
        account_id=None,
        opportunity_id=None,
        created_at=at,
        updated_at=None,
        cancelled_at=None,
    )
    db.add(reservation)
    db.flush()
    db.add_all(Attendee(reservation_id=reservation.id, employee_id=p.id) for p in people)
    return reservation


def book_room(
    db: Session,
    actor: Employee,
    *,
    resource_id: object,
    start: object,
    end: object,
    title: object,
    attendee_ids: object = (),
) -> Reservation:
    """Book a meeting room for the actor (the organizer) with invited colleagues.

    `start` and `end` are datetimes: aware in any zone, or naive UTC. The meeting lies within
    07:00–20:00 of the office's day, on quarter hours, 15 minutes to 8 hours, not in the past;
    the attendees (active colleagues, each once, not the organizer) and the organizer fit the
    room. A closure of that day or another confirmed booking raises `RoomTaken` naming it.
    """
    room, timezone, first, last, name, people = _room_request(
        db, actor, resource_id, start, end, title, attendee_ids
    )
    held = _holders(db, room, timezone, first, last)
    if held:
        raise RoomTaken("; ".join(c.describe(timezone) for c in held) + ".", held)
    at = stamp(db)
    reservation = _meeting(db, actor, room, first, last, name, people, at)
    db.flush()
    return reservation


def book_room_series(
    db: Session,
    actor: Employee,
    *,
    resource_id: object,
    start: object,
    end: object,
    weeks: object,
    title: object,
    attendee_ids: object = (),
    skip_clashes: bool = False,
) -> SeriesResult:
    """Book a meeting room weekly, at the same office time, for `weeks` (2–26) weeks from
    `start`, with the checks of `book_room` for the first week.

    When any week is taken (booked or closed), RoomTaken lists every such date and what holds
    it and nothing is booked; with `skip_clashes` the free weeks are booked and the taken ones
    returned in `clashes`.
    """
    room, timezone, first, last, name, people = _room_request(
        db, actor, resource_id, start, end, title, attendee_ids
    )
    count = _whole(weeks, "number of weeks", "weeks")
    if not MIN_WEEKS <= count <= MAX_WEEKS:
        raise ValidationError(
            f"A weekly series runs for {MIN_WEEKS} to {MAX_WEEKS} weeks.", "weeks"
        )
    here = zone(timezone) or UTC
    local_start = first.replace(tzinfo=UTC).astimezone(here)
    length = last - first
    free: list[tuple[datetime, datetime]] = []
    taken: list[list[Clash]] = []
    for week in range(count):
        wall = (local_start + timedelta(weeks=week)).replace(tzinfo=None)
        occurrence = wall.replace(tzinfo=here).astimezone(UTC).replace(tzinfo=None)
        held = _holders(db, room, timezone, occurrence, occurrence + length)
        if held:
            taken.append(held)
        else:
            free.append((occurrence, occurrence + length))
    clashes = [c for held in taken for c in held]
    if taken and (not skip_clashes or not free):

        def when(held: list[Clash]) -> str:
            day = to_local(held[0].wanted_start, timezone)
            return f"{day:%a} {day.day} {day:%b}: " + "; ".join(c.describe(timezone) for c in held)

        lead = (
            f"{room.name} is taken on every one of the {count} weeks"
            if not free
            else f"{room.name} is taken on {len(taken)} of the {count} weeks"
        )
        raise RoomTaken(f"{lead}. " + ". ".join(when(h) for h in taken) + ".", clashes)
    at = stamp(db)
    series = Series(
        organizer_id=actor.id, resource_id=room.id, title=name, weeks=count, created_at=at
    )
    db.add(series)
    db.flush()
    created = [_meeting(db, actor, room, s, e, name, people, at, series.id) for s, e in free]
    db.flush()
    return SeriesResult(series=series, created=created, clashes=clashes)


# -- other apps' changes ------------------------------------------------------------------------


def move_account_reservations(db: Session, from_account_id: int, to_account_id: int) -> int:
    """Point the reservations made for CRM account `from_account_id` at `to_account_id`, as a
    CRM merge does before deleting the merged account; returns how many moved.

    Not an act of its own: it runs inside the merge's transaction and the merge stamps it.
    """
    if access.row_id(from_account_id) is None or access.row_id(to_account_id) is None:
        raise ValidationError("Account ids must be whole numbers.", "account_id")
    result = db.execute(
        update(Reservation)
        .where(Reservation.account_id == from_account_id)
        .values(account_id=to_account_id)
        .execution_options(synchronize_session="fetch")
    )
    return result.rowcount or 0


__all__ = [
    "MAX_PURPOSE",
    "MIN_JUSTIFICATION",
    "WITHDRAWN",
    "RoomTaken",
    "SeriesResult",
    "StayQuote",
    "book_room",
    "book_room_series",
    "book_stay",
    "cancel_reservation",
    "change_stay_dates",
    "decide_approval",
    "move_account_reservations",
    "quote_stay",
]
