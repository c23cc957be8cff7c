"""The booking world as templates sample it and verifiers re-price it: people, stay listings,
trips, approval requests, meeting rooms and what holds them.

Prices are the pricing rules' own (`booking_rules.quote` over `booking_rules.stay_terms`, as
the app charges); which nights are free, which policy applies to a traveller and what holds a
meeting room are asked of the app's rules (`apps.booking.availability`, `apps.booking.policy`)
through a read-only session over the template's connection. The one exception is
`RoomCalendar.busy`, a quick room test over rows read once, for samplers that scan thousands
of slots; they check the slots they pick with `held`, the app's rule. `search` is what the stays search shows for a
destination, dates, guests and filters, sorted by total (`tests/tasks/booking` holds it to
the app's own search).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from types import MappingProxyType
from typing import Any

from officegym.apps.booking import availability, policy
from officegym.apps.booking.reads import stay_title
from officegym.apps.booking.rooms_reads import local_to_utc, utc_to_local
from officegym.seed_data import booking_rules
from officegym.seed_data.booking_rules import PolicyTerms, Quote, Rule
from officegym.seed_data.schema import Employee
from officegym.tasks.pools import per_golden
from officegym.tasks.session import read_session

STAY_KINDS = ("hotel_room", "home")


def world_now(world: sqlite3.Connection) -> datetime:
    """The world clock (naive UTC)."""
    (now,) = world.execute("SELECT now FROM world_meta ORDER BY id LIMIT 1").fetchone()
    return datetime.fromisoformat(str(now))


def world_today(world: sqlite3.Connection) -> date:
    """The world clock's date: the app's "today" for stays."""
    return world_now(world).date()


def day_of(value: str | datetime | date) -> date:
    """A stored check-in or check-out (midnight text, a datetime or a date) as a date."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


def moment(value: str | datetime) -> datetime:
    """A stored time (text or datetime) as a naive datetime."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


class Kept:
    """A value nothing can change (a frozen dataclass of immutable fields): a pool's deep copy
    of it is itself, so pools of thousands of them cost nothing to hand out."""

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


# ---- people ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Person(Kept):
    id: int
    email: str
    name: str
    title: str
    job_level: str
    manager_id: int | None
    office_id: int
    active: bool


@per_golden
def people(world: sqlite3.Connection) -> Mapping[int, Person]:
    """Every employee by id."""
    rows = world.execute(
        "SELECT id, email, display_name, title, job_level, manager_id, office_id, is_active "
        "FROM people_employee ORDER BY id"
    )
    return {r[0]: Person(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7])) for r in rows}


@per_golden
def unique_names(world: sqlite3.Connection) -> frozenset[str]:
    """Display names that exactly one employee has (a lookup or a request can name them)."""
    return frozenset(
        n
        for (n,) in world.execute(
            "SELECT display_name FROM people_employee GROUP BY display_name HAVING count(*) = 1"
        )
    )


def active_manager(world: sqlite3.Connection, person: Person) -> Person | None:
    """The person's manager when they have an active one (who approves their stays)."""
    if person.manager_id is None:
        return None
    boss = people(world).get(person.manager_id)
    return boss if boss is not None and boss.active else None


# ---- stay listings and prices -----------------------------------------------------------------


@dataclass(frozen=True)
class Listing(Kept):
    """A stay listing: a home, or one room type of a hotel, titled as search shows it."""

    resource_id: int
    property_id: int
    kind: str
    title: str
    property_type: str
    city: str
    area: str
    bedrooms: int
    capacity: int
    min_nights: int
    amenities: tuple[str, ...]
    preferred: bool
    cancellation: str


@per_golden
def listings(world: sqlite3.Connection) -> tuple[Listing, ...]:
    """Every stay listing, by resource id."""
    rows = world.execute(
        """
        SELECT r.id, p.id, r.kind, p.name, r.name, p.property_type, p.city, p.area, r.bedrooms,
               r.capacity, r.min_nights, p.amenities, p.is_preferred, p.cancellation_policy
        FROM booking_resource r JOIN booking_property p ON p.id = r.property_id
        WHERE r.kind IN ('hotel_room', 'home') AND r.nightly_rate IS NOT NULL
        ORDER BY r.id
        """
    )
    return tuple(
        Listing(
            resource_id=r[0],
            property_id=r[1],
            kind=r[2],
            title=stay_title(r[2], r[3], r[4]),
            property_type=r[5] or ("Hotel" if r[2] == "hotel_room" else "Home"),
            city=r[6],
            area=r[7] or "",
            bedrooms=r[8],
            capacity=r[9],
            min_nights=r[10],
            amenities=tuple(a.strip().lower() for a in (r[11] or "").split(",") if a.strip()),
            preferred=bool(r[12]),
            cancellation=r[13],
        )
        for r in rows
    )


@per_golden
def _by_resource(world: sqlite3.Connection) -> Mapping[int, Listing]:
    return {item.resource_id: item for item in listings(world)}


def listing(world: sqlite3.Connection, resource_id: int) -> Listing:
    """The stay listing of `resource_id` (LookupError when it is no stay)."""
    found = _by_resource(world).get(resource_id)
    if found is None:
        raise LookupError(f"no stay listing #{resource_id}")
    return found


def _mapping(cursor: sqlite3.Cursor) -> list[dict[str, object]]:
    names = [c[0] for c in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


@per_golden
def _terms(
    world: sqlite3.Connection, resource_id: int
) -> tuple[booking_rules.Terms, tuple[str, ...]]:
    (resource,) = _mapping(
        world.execute(
            "SELECT nightly_rate, weekend_rate, cleaning_fee, weekly_discount_pct, property_id "
            "FROM booking_resource WHERE id = ?",
            (resource_id,),
        )
    )
    (prop,) = _mapping(
        world.execute(
            "SELECT id, city, service_fee_pct FROM booking_property WHERE id = ?",
            (resource["property_id"],),
        )
    )
    seasons = _mapping(
        world.execute(
            "SELECT id, name, start_date, end_date, percent FROM booking_season "
            "WHERE property_id = ?",
            (prop["id"],),
        )
    )
    taxes = _mapping(
        world.execute(
            "SELECT percent, per_night_cents FROM booking_city_tax WHERE lower(city) = lower(?) "
            "ORDER BY id LIMIT 1",
            (prop["city"],),
        )
    )
    return booking_rules.stay_terms(resource, prop, seasons, taxes[0] if taxes else None)


def quote(world: sqlite3.Connection, resource_id: int, check_in: date, check_out: date) -> Quote:
    """What staying in the listing from `check_in` to `check_out` costs, line by line."""
    terms, names = _terms(world, resource_id)
    return booking_rules.quote(terms, check_in, check_out, names)


def quote_json(world: sqlite3.Connection, resource_id: int, check_in: date, check_out: date):
    """The quote as the app stores it in `price_json` (parsed)."""
    return json.loads(json.dumps(quote(world, resource_id, check_in, check_out).to_json()))


def free_units(
    world: sqlite3.Connection,
    resource_ids: Iterable[int],
    check_in: date,
    check_out: date,
    exclude_reservation_id: int | None = None,
) -> dict[int, int]:
    """Units of each listing free on every night of the stay (the app's own count)."""
    with read_session(world) as db:
        return availability.units_left_many(
            db,
            list(resource_ids),
            check_in,
            check_out,
            exclude_reservation_id=exclude_reservation_id,
        )


def free_spans(
    world: sqlite3.Connection,
    resource_id: int,
    spans: Iterable[tuple[date, date]],
    exclude_reservation_id: int | None = None,
) -> dict[tuple[date, date], bool]:
    """For each (check-in, check-out) of `spans`, whether the listing has a unit free on every
    night (one session for all of them)."""
    with read_session(world) as db:
        return {
            (first, last): availability.units_left(
                db, resource_id, first, last, exclude_reservation_id
            )
            > 0
            for first, last in spans
        }


@per_golden
def policy_of(world: sqlite3.Connection, employee_id: int, city: str) -> PolicyTerms:
    """The travel policy for the employee staying in `city` (the app's own rule)."""
    with read_session(world) as db:
        return policy.for_traveller(db, db.get(Employee, employee_id), city)


def breaches(
    world: sqlite3.Connection,
    employee_id: int,
    resource_id: int,
    check_in: date,
    check_out: date,
    today: date,
) -> list[Rule]:
    """The policy rules the employee's stay in the listing breaks when booked `today`."""
    found = listing(world, resource_id)
    return booking_rules.policy_breaches(
        policy_of(world, employee_id, found.city),
        quote(world, resource_id, check_in, check_out),
        today=today,
        check_in=check_in,
        preferred=found.preferred,
    )


def rules_json(rules: Sequence[Rule]) -> list[dict[str, str]]:
    """Broken rules as the app stores them in `policy_json` (parsed)."""
    return [{"code": r.code, "message": r.message} for r in rules]


@dataclass(frozen=True)
class Offer(Kept):
    """A listing free for a search's dates, with its quote."""

    listing: Listing
    quote: Quote

    @property
    def total(self) -> int:
        return self.quote.total


def search(
    world: sqlite3.Connection,
    city: str,
    check_in: date,
    check_out: date,
    guests: int = 1,
    *,
    bedrooms: int = 0,
    amenities: Sequence[str] = (),
) -> list[Offer]:
    """The listings the stays search shows for a city, dates, guests, at least `bedrooms` and
    every one of `amenities`, cheapest total first (ties by resource id, as the app sorts)."""
    nights = (check_out - check_in).days
    wanted = [
        item
        for item in listings(world)
        if item.city == city
        and item.capacity >= guests
        and item.bedrooms >= bedrooms
        and item.min_nights <= nights
        and all(a in item.amenities for a in amenities)
    ]
    free = free_units(world, [item.resource_id for item in wanted], check_in, check_out)
    offers = [
        Offer(item, quote(world, item.resource_id, check_in, check_out))
        for item in wanted
        if free.get(item.resource_id, 0) > 0
    ]
    return sorted(offers, key=lambda o: (o.total, o.listing.resource_id))


def in_policy(world: sqlite3.Connection, employee_id: int, offer: Offer, today: date) -> bool:
    """Whether the employee may book the offer without an approval (it breaks no rule)."""
    found = offer.listing
    return not booking_rules.policy_breaches(
        policy_of(world, employee_id, found.city),
        offer.quote,
        today=today,
        check_in=offer.quote.nights[0].night,
        preferred=found.preferred,
    )


def stay_dates(
    rng, today: date, lead: tuple[int, int] = (15, 60), nights: tuple[int, int] = (2, 5)
) -> tuple[date, date]:
    """Check-in `lead` days ahead (far enough for every policy's notice) and check-out
    `nights` later."""
    check_in = today + timedelta(days=rng.randint(*lead))
    return check_in, check_in + timedelta(days=rng.randint(*nights))


@per_golden
def stay_cities(world: sqlite3.Connection, least: int = 1) -> tuple[str, ...]:
    """Cities with at least `least` stay listings, by name."""
    count: dict[str, int] = {}
    for item in listings(world):
        count[item.city] = count.get(item.city, 0) + 1
    return tuple(sorted(city for city, n in count.items() if n >= least))


# ---- trips ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trip(Kept):
    """A stay reservation, as My trips and a trip's page show it."""

    id: int
    guest_id: int
    booked_by_id: int
    resource_id: int
    title: str
    city: str
    check_in: date
    check_out: date
    status: str
    guests: int
    total_cents: int
    refund_cents: int | None
    purpose: str
    cancellation: str
    account_id: int | None
    price: Mapping[str, Any]

    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days


@per_golden
def trips(world: sqlite3.Connection) -> tuple[Trip, ...]:
    """Every stay reservation, by id."""
    rows = world.execute(
        """
        SELECT b.id, b.guest_id, b.booked_by_id, b.resource_id, b.start_at, b.end_at, b.status,
               b.guests, b.total_cents, b.refund_cents, b.purpose, b.account_id, b.price_json
        FROM booking_reservation b JOIN booking_resource r ON r.id = b.resource_id
        WHERE r.kind IN ('hotel_room', 'home')
        ORDER BY b.id
        """
    ).fetchall()
    by_id = _by_resource(world)
    return tuple(
        Trip(
            id=r[0],
            guest_id=r[1],
            booked_by_id=r[2],
            resource_id=r[3],
            title=by_id[r[3]].title,
            city=by_id[r[3]].city,
            check_in=day_of(r[4]),
            check_out=day_of(r[5]),
            status=r[6],
            guests=r[7],
            total_cents=r[8],
            refund_cents=r[9],
            purpose=r[10],
            cancellation=by_id[r[3]].cancellation,
            account_id=r[11],
            price=MappingProxyType(json.loads(r[12]) if r[12] else {}),
        )
        for r in rows
    )


def trip_tab(trip: Trip, today: date) -> str:
    """The My trips tab that lists the trip ("Upcoming", "Past", "Pending approval"...)."""
    if trip.status == "confirmed":
        return "Upcoming" if trip.check_out > today else "Past"
    return {"pending_approval": "Pending approval", "cancelled": "Cancelled"}.get(
        trip.status, "Rejected"
    )


@per_golden
def lone_trips(world: sqlite3.Connection) -> frozenset[int]:
    """Ids of the stays that are the only one in their city among the trips My trips lists
    for their traveller ("my trip to Austin" names exactly one)."""
    listed: dict[tuple[int, str], int] = {}
    for t in trips(world):
        for person in {t.guest_id, t.booked_by_id}:
            listed[person, t.city] = listed.get((person, t.city), 0) + 1
    return frozenset(t.id for t in trips(world) if listed[t.guest_id, t.city] == 1)


def trips_of(world: sqlite3.Connection, employee_id: int) -> list[Trip]:
    """The stays My trips lists for the employee: those they take or booked."""
    return [t for t in trips(world) if employee_id in (t.guest_id, t.booked_by_id)]


@dataclass(frozen=True)
class Request(Kept):
    """An approval request waiting for its approver."""

    id: int
    approver_id: int
    trip: Trip


@per_golden
def pending_requests(world: sqlite3.Connection) -> tuple[Request, ...]:
    """Approval requests still pending, by id."""
    by_id = {t.id: t for t in trips(world)}
    return tuple(
        Request(a, approver, by_id[reservation])
        for a, approver, reservation in world.execute(
            "SELECT id, approver_id, reservation_id FROM booking_approval "
            "WHERE status = 'pending' ORDER BY id"
        )
    )


# ---- meeting rooms ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Room(Kept):
    id: int
    name: str
    capacity: int
    features: tuple[str, ...]
    office_id: int
    office: str
    timezone: str

    def has(self, feature: str) -> bool:
        return feature in self.features


@per_golden
def rooms(world: sqlite3.Connection) -> tuple[Room, ...]:
    """Every meeting room with its office (a `people_office`), by id."""
    rows = world.execute(
        """
        SELECT r.id, r.name, r.capacity, r.features, o.id, o.name, o.timezone
        FROM booking_resource r JOIN booking_property p ON p.id = r.property_id
        JOIN people_office o ON o.id = p.office_id
        WHERE r.kind = 'meeting_room'
        ORDER BY r.id
        """
    )
    return tuple(
        Room(
            id=r[0],
            name=r[1],
            capacity=r[2],
            features=tuple(f.strip() for f in (r[3] or "").split(",") if f.strip()),
            office_id=r[4],
            office=r[5],
            timezone=r[6],
        )
        for r in rows
    )


def slot(room: Room, day: date, start: time, end: time) -> tuple[datetime, datetime]:
    """A meeting's local day and times in the room's office, as stored (naive UTC)."""
    return local_to_utc(day, start, room.timezone), local_to_utc(day, end, room.timezone)


def held(world: sqlite3.Connection, room: Room, start: datetime, end: datetime) -> bool:
    """Whether the room is taken from `start` to `end` (naive UTC): a confirmed booking
    overlaps, or the room is closed that local day (the app's own rules)."""
    day = utc_to_local(start, room.timezone).date()
    with read_session(world) as db:
        return bool(
            availability.closures(db, room.id, day, day)
            or availability.room_clashes(db, room.id, start, end)
        )


@dataclass(frozen=True)
class RoomCalendar(Kept):
    """What holds each meeting room, read once: confirmed bookings (naive UTC) and closed
    days, by room id."""

    bookings: Mapping[int, tuple[tuple[datetime, datetime], ...]]
    closed: Mapping[int, tuple[tuple[date, date], ...]]

    def busy(self, room: Room, start: datetime, end: datetime) -> bool:
        """`held` over the rows read once: the quick test samplers scan many slots with (the
        slots an instance uses are then checked with `held`, the app's rule)."""
        day = utc_to_local(start, room.timezone).date()
        if any(first <= day <= last for first, last in self.closed.get(room.id, ())):
            return True
        return any(s < end and e > start for s, e in self.bookings.get(room.id, ()))


@per_golden
def room_calendar(world: sqlite3.Connection) -> RoomCalendar:
    """Every room's confirmed bookings and closed days."""
    bookings: dict[int, list[tuple[datetime, datetime]]] = {}
    for room_id, start, end in world.execute(
        "SELECT b.resource_id, b.start_at, b.end_at FROM booking_reservation b "
        "JOIN booking_resource r ON r.id = b.resource_id "
        "WHERE r.kind = 'meeting_room' AND b.status = 'confirmed' ORDER BY b.start_at, b.id"
    ):
        bookings.setdefault(room_id, []).append((moment(start), moment(end)))
    closed: dict[int, list[tuple[date, date]]] = {}
    for room_id, first, last in world.execute(
        "SELECT a.resource_id, a.start_date, a.end_date FROM booking_availability a "
        "JOIN booking_resource r ON r.id = a.resource_id "
        "WHERE r.kind = 'meeting_room' AND a.units < 1"
    ):
        closed.setdefault(room_id, []).append((day_of(first), day_of(last)))
    return RoomCalendar(
        MappingProxyType({k: tuple(v) for k, v in bookings.items()}),
        MappingProxyType({k: tuple(v) for k, v in closed.items()}),
    )


def plus_minutes(at: time, minutes: int) -> time:
    """The time `minutes` after `at` on the same day."""
    total = at.hour * 60 + at.minute + minutes
    return time(total // 60, total % 60)


def office_day(world: sqlite3.Connection, room: Room) -> date:
    """Today in the room's office."""
    return utc_to_local(world_now(world), room.timezone).date()


def next_weekdays(first: date, count: int) -> list[date]:
    """The first `count` weekdays on or after `first`."""
    found, day = [], first
    while len(found) < count:
        if day.weekday() < 5:
            found.append(day)
        day += timedelta(days=1)
    return found


__all__ = [
    "Listing",
    "Offer",
    "Person",
    "Request",
    "Kept",
    "Room",
    "RoomCalendar",
    "Trip",
    "active_manager",
    "breaches",
    "day_of",
    "free_spans",
    "free_units",
    "held",
    "in_policy",
    "listing",
    "lone_trips",
    "listings",
    "moment",
    "next_weekdays",
    "office_day",
    "pending_requests",
    "people",
    "plus_minutes",
    "policy_of",
    "quote",
    "quote_json",
    "room_calendar",
    "rooms",
    "rules_json",
    "search",
    "slot",
    "stay_cities",
    "stay_dates",
    "trip_tab",
    "trips",
    "trips_of",
    "unique_names",
    "world_now",
    "world_today",
]
