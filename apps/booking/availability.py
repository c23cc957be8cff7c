"""What is free: units of a stay left on given nights, and what holds a meeting room.

A stay night counts every `confirmed` and `pending_approval` reservation of the resource (a
request waiting for approval holds its room until it is decided) against the resource's
`units`, lowered by any `booking_availability` window covering that night (`units` 0: closed).
A meeting room is held by its `confirmed` bookings and closed on the days of a window with no
units. The service checks here inside its write transaction (BEGIN IMMEDIATE), which is what
keeps two requests from taking the last unit; search uses `units_left_many`, two queries for
any number of listings.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from operator import sub

from sqlalchemy import func, literal_column, select
from sqlalchemy.orm import Session

from officegym.apps.web.localtime import to_local
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import Availability, Reservation, Resource

HOLDING = ("confirmed", "pending_approval")
_TICK = timedelta(microseconds=1)


def midnight(day: date) -> datetime:
    """How a stay's check-in or check-out day is stored: that day at 00:00."""
    return datetime.combine(day, time())


def _ids_in(column, ids: Iterable[int]):
    """`column IN (ids)` with the ids bound as one JSON array, so thousands fit in one query."""
    values = json.dumps(sorted({int(i) for i in ids}))
    return column.in_(select(literal_column("value")).select_from(func.json_each(values)))


def units_left_many(
    db: Session,
    resource_ids: Iterable[int],
    check_in: date,
    check_out: date,
    *,
    exclude_reservation_id: int | None = None,
) -> dict[int, int]:
    """Units of each resource free on every night from `check_in` to `check_out` (the fewest
    over those nights, never below 0), keyed by resource id; ids of no resource are left out.

    Two queries whatever the number of resources: the resources with the windows that overlap,
    and the holding reservations that overlap. A resource with neither is answered from its
    `units` without a per-night count.
    """
    ids = list(resource_ids)
    if not ids or check_out <= check_in:
        return {}
    nights = (check_out - check_in).days
    # Core results on the session's connection: no ORM row loading for thousands of rows.
    conn = db.connection()
    left: dict[int, int] = {}
    caps: dict[int, list[int]] = {}
    windows = conn.execute(
        select(
            Resource.id,
            Resource.units,
            Availability.start_date,
            Availability.end_date,
            Availability.units,
        )
        .outerjoin(
            Availability,
            (Availability.resource_id == Resource.id)
            & (Availability.start_date < check_out)
            & (Availability.end_date >= check_in),
        )
        .where(_ids_in(Resource.id, ids))
    ).all()
    for resource_id, units, first, last, limit in windows:
        left[resource_id] = units
        if first is None:
            continue
        cap = caps.setdefault(resource_id, [units] * nights)
        for i in range(max(0, (first - check_in).days), min(nights, (last - check_in).days + 1)):
            cap[i] = min(cap[i], limit)
    query = select(Reservation.resource_id, Reservation.start_at, Reservation.end_at).where(
        _ids_in(Reservation.resource_id, ids),
        Reservation.status.in_(HOLDING),
        Reservation.start_at < midnight(check_out),
        Reservation.end_at > midnight(check_in),
    )
    if exclude_reservation_id is not None:
        query = query.where(Reservation.id != exclude_reservation_id)
    used: dict[int, list[int]] = {}
    for resource_id, start_at, end_at in conn.execute(query).all():
        count = used.get(resource_id)
        if count is None:
            count = used[resource_id] = [0] * nights
        last_night = (end_at - _TICK).date()
        for i in range(
            max(0, (start_at.date() - check_in).days),
            min(nights, (last_night - check_in).days + 1),
        ):
            count[i] += 1
    for resource_id, cap in caps.items():
        count = used.pop(resource_id, None) or [0] * nights
        left[resource_id] = min(map(sub, cap, count))
    for resource_id, count in used.items():
        left[resource_id] -= max(count)
    return {resource_id: max(0, units) for resource_id, units in left.items()}


def units_left(
    db: Session,
    resource_id: int,
    check_in: date,
    check_out: date,
    exclude_reservation_id: int | None = None,
) -> int:
    """Units of one resource free on every night of the stay (0 for an unknown resource)."""
    found = units_left_many(
        db, [resource_id], check_in, check_out, exclude_reservation_id=exclude_reservation_id
    )
    return found.get(resource_id, 0)


def closures(db: Session, resource_id: int, first: date, last: date) -> list[Availability]:
    """Windows with no units of the resource that touch the days `first`..`last` (inclusive)."""
    return list(
        db.scalars(
            select(Availability)
            .where(
                Availability.resource_id == resource_id,
                Availability.units < 1,
                Availability.start_date <= last,
                Availability.end_date >= first,
            )
            .order_by(Availability.start_date, Availability.id)
        )
    )


@dataclass(frozen=True)
class Clash:
    """What holds a meeting room at a wanted time: another confirmed booking (its times,
    title and organizer), or a closure (`reservation_id` None, `title` its reason, times the
    wanted ones). Times are naive UTC."""

    resource_id: int
    room: str
    wanted_start: datetime
    wanted_end: datetime
    start: datetime
    end: datetime
    title: str
    organizer: str
    reservation_id: int | None

    def describe(self, timezone: str | None) -> str:
        """“Denali is booked 10:00–11:00 for “Pipeline review” by Ana Ruiz”, in `timezone`."""
        if self.reservation_id is None:
            day = to_local(self.wanted_start, timezone)
            return f"{self.room} is closed on {day:%a} {day.day} {day:%b %Y} ({self.title})"
        start, end = to_local(self.start, timezone), to_local(self.end, timezone)
        return (
            f"{self.room} is booked {start:%H:%M}–{end:%H:%M} for “{self.title}” "
            f"by {self.organizer}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "resource_id": self.resource_id,
            "room": self.room,
            "wanted_start": self.wanted_start.isoformat(),
            "wanted_end": self.wanted_end.isoformat(),
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "title": self.title,
            "organizer": self.organizer,
            "reservation_id": self.reservation_id,
        }


def room_clashes(
    db: Session,
    resource_id: int,
    start: datetime,
    end: datetime,
    exclude_reservation_id: int | None = None,
) -> list[Clash]:
    """The confirmed bookings of the room that overlap `start`..`end` (naive UTC), earliest
    first. Back-to-back meetings (one ends as the next starts) do not clash."""
    query = (
        select(Reservation, Resource.name, Employee.display_name)
        .join(Resource, Resource.id == Reservation.resource_id)
        .join(Employee, Employee.id == Reservation.guest_id)
        .where(
            Reservation.resource_id == resource_id,
            Reservation.status == "confirmed",
            Reservation.start_at < end,
            Reservation.end_at > start,
        )
        .order_by(Reservation.start_at, Reservation.id)
    )
    if exclude_reservation_id is not None:
        query = query.where(Reservation.id != exclude_reservation_id)
    return [
        Clash(
            resource_id=resource_id,
            room=room,
            wanted_start=start,
            wanted_end=end,
            start=held.start_at,
            end=held.end_at,
            title=held.purpose,
            organizer=organizer,
            reservation_id=held.id,
        )
        for held, room, organizer in db.execute(query)
    ]


__all__ = [
    "HOLDING",
    "Clash",
    "closures",
    "midnight",
    "room_clashes",
    "units_left",
    "units_left_many",
]
