"""What the meeting-room pages and the rooms API read: offices with rooms, rooms by seats and
equipment, a room's bookings in a window, one booking with its attendees, a person's calendar,
and the people an attendee picker offers.

Times are stored as naive UTC; an office's rooms are shown in the office's own time zone
(`people_office.timezone`), a person's calendar in theirs. The conversions live here, in
`local_to_utc` and `window`, so pages and the API agree on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TypedDict

from sqlalchemy import and_, exists, func, or_, select
from sqlalchemy.orm import Session, aliased

from officegym.apps.web.errors import NotFound, ValidationError
from officegym.apps.web.localtime import zone
from officegym.apps.web.typeahead import matching_people
from officegym.seed_data.schema import Employee, Office, Property, Reservation, Resource
from officegym.seed_data.schema.booking import Attendee, Availability, Series

from .availability import HOLDING, Clash

# The rooms grid shows the working day from 07:00 to 20:00, office time, in quarter hours.
DAY_START = time(7, 0)
DAY_END = time(20, 0)
SLOT_MINUTES = 15
# What the equipment filter offers (a room's `features` may list more).
EQUIPMENT = ("screen", "video conferencing", "whiteboard")
# A meeting room is held (and shown) by its confirmed bookings only.
HELD = ("confirmed",)
STAY_KINDS = ("hotel_room", "home")  # as `service.STAY_KINDS`
PEOPLE_LIMIT = 10
TEXT_SUFFIX = "_text"


@dataclass(frozen=True)
class OfficeInfo:
    id: int
    name: str
    city: str
    timezone: str


@dataclass(frozen=True)
class Room:
    id: int
    name: str
    capacity: int
    features: tuple[str, ...]
    office_id: int
    office_name: str
    timezone: str

    def has(self, equipment: str) -> bool:
        return equipment in self.features


@dataclass(frozen=True)
class RoomBooking:
    """A meeting-room booking as a grid or a calendar shows it (times naive UTC)."""

    id: int
    room_id: int
    start_at: datetime
    end_at: datetime
    title: str
    organizer_id: int
    organizer_name: str
    series_id: int | None
    status: str


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    title: str
    email: str


@dataclass(frozen=True)
class BookingDetail:
    """One room booking with its room, organizer, attendees and series."""

    booking: RoomBooking
    room: Room
    organizer: Person
    attendees: tuple[Person, ...]
    series_weeks: int | None
    created_at: datetime
    cancelled_at: datetime | None


@dataclass(frozen=True)
class StayItem:
    """A stay on a person's calendar: an all-day item from check-in to check-out."""

    id: int
    property_name: str
    city: str
    check_in: date
    check_out: date
    status: str


class Choice(TypedDict):
    """One option of the attendee picker (the web kit's `lookup` macro)."""

    id: int
    label: str
    detail: str


# -- time ------------------------------------------------------------------------------------


def local_to_utc(day: date, at: time, timezone: str) -> datetime:
    """`day` at `at` in `timezone` as naive UTC (how times are stored)."""
    local = datetime.combine(day, at, tzinfo=zone(timezone) or UTC)
    return local.astimezone(UTC).replace(tzinfo=None)


def utc_to_local(value: datetime, timezone: str) -> datetime:
    """A stored (naive UTC) time as a naive local time in `timezone`."""
    return value.replace(tzinfo=UTC).astimezone(zone(timezone) or UTC).replace(tzinfo=None)


def window(day: date, timezone: str) -> tuple[datetime, datetime]:
    """The shown working day (07:00-20:00 in `timezone`) as naive UTC."""
    return local_to_utc(day, DAY_START, timezone), local_to_utc(day, DAY_END, timezone)


def today(now_utc: datetime, timezone: str) -> date:
    """The date it is in `timezone` at the (naive UTC) world time `now_utc`."""
    return utc_to_local(now_utc, timezone).date()


def week_of(day: date) -> date:
    """The Monday of `day`'s week."""
    return day - timedelta(days=day.weekday())


# -- offices and rooms -----------------------------------------------------------------------


def _office_rows(db: Session):
    has_rooms = exists().where(Resource.property_id == Property.id, Resource.kind == "meeting_room")
    return db.execute(
        select(Office.id, Office.name, Office.city, Office.timezone)
        .join(Property, and_(Property.office_id == Office.id, Property.kind == "office"))
        .where(has_rooms)
        .group_by(Office.id)
        .order_by(Office.name, Office.id)
    ).all()


def offices(db: Session) -> list[OfficeInfo]:
    """The offices that have meeting rooms, by name."""
    return [OfficeInfo(*row) for row in _office_rows(db)]


def office(db: Session, office_id: int | None) -> OfficeInfo:
    """One office with meeting rooms; NotFound otherwise."""
    for found in offices(db):
        if found.id == office_id:
            return found
    raise NotFound("No office with meeting rooms has that id.", "office")


def home_office(db: Session, actor: Employee) -> OfficeInfo:
    """The actor's own office, or the first office with rooms when theirs has none."""
    found = offices(db)
    if not found:
        raise NotFound("No office has meeting rooms.")
    return next((o for o in found if o.id == actor.office_id), found[0])


def _features(text: str) -> tuple[str, ...]:
    return tuple(sorted({f.strip().lower() for f in (text or "").split(",") if f.strip()}))


def _rooms_query():
    return (
        select(
            Resource.id,
            Resource.name,
            Resource.capacity,
            Resource.features,
            Office.id,
            Office.name,
            Office.timezone,
        )
        .join(Property, Property.id == Resource.property_id)
        .join(Office, Office.id == Property.office_id)
        .where(Resource.kind == "meeting_room")
    )


def _room(row) -> Room:
    rid, name, capacity, features, office_id, office_name, timezone = row
    return Room(rid, name, capacity, _features(features), office_id, office_name, timezone)


def rooms(
    db: Session,
    office_id: int | None = None,
    min_capacity: int | None = None,
    equipment: Iterable[str] = (),
) -> list[Room]:
    """Meeting rooms (of one office, or all) with at least `min_capacity` seats and every piece
    of `equipment`, by office then name."""
    statement = _rooms_query()
    if office_id is not None:
        statement = statement.where(Office.id == office_id)
    if min_capacity:
        statement = statement.where(Resource.capacity >= min_capacity)
    wanted = tuple(equipment)
    found = [_room(r) for r in db.execute(statement.order_by(Office.name, Resource.name))]
    return [r for r in found if all(r.has(e) for e in wanted)]


def room(db: Session, room_id: int | None) -> Room:
    """One meeting room; NotFound otherwise."""
    row = None
    if room_id is not None:
        row = db.execute(_rooms_query().where(Resource.id == room_id)).first()
    if row is None:
        raise NotFound("No meeting room has that id.", "room")
    return _room(row)


# -- bookings --------------------------------------------------------------------------------

_Organizer = aliased(Employee)


def _booking_query():
    return (
        select(
            Reservation.id,
            Reservation.resource_id,
            Reservation.start_at,
            Reservation.end_at,
            Reservation.purpose,
            _Organizer.id,
            _Organizer.display_name,
            Reservation.series_id,
            Reservation.status,
        )
        .join(_Organizer, _Organizer.id == Reservation.guest_id)
        .join(Resource, Resource.id == Reservation.resource_id)
        .where(Resource.kind == "meeting_room")
    )


def bookings(
    db: Session, room_ids: Sequence[int], start: datetime, end: datetime
) -> list[RoomBooking]:
    """The live bookings of `room_ids` that overlap [start, end) (naive UTC), by start."""
    if not room_ids:
        return []
    statement = _booking_query().where(
        Reservation.resource_id.in_(list(room_ids)),
        Reservation.status.in_(HELD),
        Reservation.start_at < end,
        Reservation.end_at > start,
    )
    rows = db.execute(statement.order_by(Reservation.start_at, Reservation.id))
    return [RoomBooking(*row) for row in rows]


def _person(e: Employee) -> Person:
    return Person(e.id, e.display_name, e.title, e.email)


def attendees(db: Session, reservation_id: int) -> tuple[Person, ...]:
    statement = (
        select(Employee)
        .join(Attendee, Attendee.employee_id == Employee.id)
        .where(Attendee.reservation_id == reservation_id)
        .order_by(Employee.display_name, Employee.id)
    )
    return tuple(_person(e) for e in db.scalars(statement))


def booking(db: Session, reservation_id: int) -> BookingDetail:
    """One meeting-room booking (any status) with its room, people and series; NotFound for
    anything else."""
    row = db.execute(_booking_query().where(Reservation.id == reservation_id)).first()
    if row is None:
        raise NotFound("No room booking has that id.")
    found = RoomBooking(*row)
    reservation = db.get(Reservation, reservation_id)
    weeks = None
    if found.series_id is not None:
        weeks = db.scalar(select(Series.weeks).where(Series.id == found.series_id))
    return BookingDetail(
        booking=found,
        room=room(db, found.room_id),
        organizer=_person(db.get(Employee, found.organizer_id)),
        attendees=attendees(db, reservation_id),
        series_weeks=weeks,
        created_at=reservation.created_at,
        cancelled_at=reservation.cancelled_at,
    )


def meetings_of(db: Session, person_id: int, start: datetime, end: datetime) -> list[RoomBooking]:
    """A person's live room bookings, organized or attended, overlapping [start, end) (naive
    UTC), by start."""
    attending = exists().where(
        Attendee.reservation_id == Reservation.id, Attendee.employee_id == person_id
    )
    rows = db.execute(
        _booking_query()
        .where(
            Reservation.status.in_(HELD),
            Reservation.start_at < end,
            Reservation.end_at > start,
            or_(Reservation.guest_id == person_id, attending),
        )
        .order_by(Reservation.start_at, Reservation.id)
    )
    return [RoomBooking(*row) for row in rows]


def stays_of(db: Session, person_id: int, first: date, last: date) -> list[StayItem]:
    """A person's live stays (as the guest) from check-in to check-out day that touch the days
    `first` to `last`, by check-in."""
    rows = db.execute(
        select(
            Reservation.id,
            Property.name,
            Property.city,
            Reservation.start_at,
            Reservation.end_at,
            Reservation.status,
        )
        .join(Resource, Resource.id == Reservation.resource_id)
        .join(Property, Property.id == Resource.property_id)
        .where(
            Resource.kind.in_(STAY_KINDS),
            Reservation.guest_id == person_id,
            Reservation.status.in_(HOLDING),
            Reservation.start_at < datetime.combine(last + timedelta(days=1), time()),
            Reservation.end_at >= datetime.combine(first, time()),
        )
        .order_by(Reservation.start_at, Reservation.id)
    )
    return [
        StayItem(rid, name, city, s.date(), e.date(), status)
        for rid, name, city, s, e, status in rows
    ]


def closures(
    db: Session, room_ids: Sequence[int], first: date, last: date
) -> dict[tuple[int, date], str]:
    """The days from `first` to `last` on which a room is closed (a window with no units),
    keyed by (room id, day), with the reason."""
    if not room_ids:
        return {}
    rows = db.execute(
        select(
            Availability.resource_id,
            Availability.start_date,
            Availability.end_date,
            Availability.reason,
        )  # fmt: skip
        .where(
            Availability.resource_id.in_(list(room_ids)),
            Availability.units < 1,
            Availability.start_date <= last,
            Availability.end_date >= first,
        )
        .order_by(Availability.start_date, Availability.id)
    )
    closed: dict[tuple[int, date], str] = {}
    for room_id, start, end, reason in rows:
        day = max(start, first)
        while day <= min(end, last):
            closed.setdefault((room_id, day), reason)
            day += timedelta(days=1)
    return closed


def free_between(
    start: datetime, end: datetime, held: Iterable[RoomBooking]
) -> list[tuple[datetime, datetime]]:
    """The stretches of [start, end) that none of `held` (sorted by start) covers."""
    free: list[tuple[datetime, datetime]] = []
    cursor = start
    for booking in held:
        if booking.start_at > cursor:
            free.append((cursor, min(booking.start_at, end)))
        cursor = max(cursor, booking.end_at)
        if cursor >= end:
            break
    if cursor < end:
        free.append((cursor, end))
    return [(a, b) for a, b in free if a < b]


@dataclass(frozen=True)
class ClashingWeek:
    """One week of a weekly booking whose time is taken: its local date and what holds it."""

    day: date
    clashes: tuple[str, ...]


def clashing_weeks(clashes: Iterable[Clash], timezone: str) -> list[ClashingWeek]:
    """The service's clashes (`RoomTaken.clashes`) grouped by the week they fall in."""
    weeks: dict[datetime, list[str]] = {}
    for clash in clashes:
        weeks.setdefault(clash.wanted_start, []).append(clash.describe(timezone))
    return [
        ClashingWeek(utc_to_local(start, timezone).date(), tuple(held))
        for start, held in sorted(weeks.items())
    ]


# -- people ----------------------------------------------------------------------------------


def people(db: Session, actor: Employee, q: str) -> list[Choice]:
    """Active colleagues other than the actor whose name or email holds every word of `q`:
    exact names first, then names starting with `q`, then by name (at most PEOPLE_LIMIT)."""
    others = select(Employee).where(Employee.is_active.is_(True), Employee.id != actor.id)
    found = matching_people(db, others, q, PEOPLE_LIMIT)
    return [Choice(id=e.id, label=e.display_name, detail=e.title or e.email) for e in found]


def person_named(db: Session, actor: Employee, text: str, field: str) -> int:
    """The one active colleague whose name or email is `text` (case ignored); a
    ValidationError naming the problem when no one or several are."""
    typed = " ".join(text.split())
    wanted = typed.lower()
    name = wanted.split(" — ")[0].strip()
    found = list(
        db.scalars(
            select(Employee.id)
            .where(
                Employee.is_active.is_(True),
                Employee.id != actor.id,
                or_(
                    func.lower(Employee.display_name).in_({wanted, name}),
                    func.lower(Employee.email) == wanted,
                ),
            )
            .order_by(Employee.id)
        )
    )
    if len(found) == 1:
        return found[0]
    if found:
        raise ValidationError(
            f"{len(found)} people are called “{typed}”: choose the one you mean from the list.",
            field,
        )
    raise ValidationError(f"No colleague is called “{typed}”: choose from the list.", field)


def names(db: Session, ids: Iterable[int]) -> tuple[list[int], list[str]]:
    """The ids among `ids` that are people (in that order) and their names, for the chips of
    an attendee picker shown again."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return [], []
    found = dict(
        db.execute(select(Employee.id, Employee.display_name).where(Employee.id.in_(wanted))).all()
    )
    known = [i for i in wanted if i in found]
    return known, [found[i] for i in known]


__all__ = [
    "DAY_END",
    "DAY_START",
    "EQUIPMENT",
    "HELD",
    "SLOT_MINUTES",
    "BookingDetail",
    "Choice",
    "ClashingWeek",
    "OfficeInfo",
    "Person",
    "Room",
    "RoomBooking",
    "StayItem",
    "attendees",
    "booking",
    "clashing_weeks",
    "bookings",
    "closures",
    "free_between",
    "home_office",
    "local_to_utc",
    "meetings_of",
    "names",
    "office",
    "offices",
    "people",
    "person_named",
    "room",
    "rooms",
    "stays_of",
    "today",
    "utc_to_local",
    "week_of",
    "window",
]
