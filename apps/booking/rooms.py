"""Meeting rooms: an office's rooms by day or by week in the office's own time, booking a room
(once or weekly) with attendees, a booking's page with cancel, and my calendar.

Every act is a plain form or link: a free slot in the day view is a link to the booking form
with the room, date and time filled in, and the form posts back (PRG). A refused booking
re-renders the form with the service's message and a 4xx; a weekly booking that clashes lists
the clashing dates and offers to book the free weeks only. Times on the rooms pages are the
office's local time (`people_office.timezone`); times are stored as naive UTC.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import flash, jsonify, redirect, render_template, request, url_for

from officegym.apps.registry import MainPage
from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import (
    AppError,
    NotFound,
    ValidationError,
)
from officegym.apps.web.inputs import parse_int
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.connect import connect
from officegym.seed_data.schema import Employee, Reservation

from . import access, availability, service
from . import rooms_reads as reads
from .blueprint import bp

QUARTERS_PER_HOUR = 60 // reads.SLOT_MINUTES
DAY_QUARTERS = (reads.DAY_END.hour - reads.DAY_START.hour) * QUARTERS_PER_HOUR
# The times a booking may start or end: quarter hours of the shown working day.
TIMES = tuple(
    (datetime.combine(date.min, reads.DAY_START) + timedelta(minutes=15 * i)).time()
    for i in range(DAY_QUARTERS + 1)
)
DEFAULT_MINUTES = 30
MAX_CAPACITY_FILTER = 1000
ATTENDEES = "attendees"
VIEWS = ("day", "week")


def _actor() -> Employee:
    return current_user()


def _hhmm(value: time | datetime) -> str:
    return f"{value.hour:02d}:{value.minute:02d}"


def _int(text: Any) -> int | None:
    return parse_int(text)


def _day(text: Any) -> date | None:
    try:
        return date.fromisoformat(str(text or "").strip())
    except ValueError:
        return None


@bp.app_template_filter("booking_hhmm")
def _hhmm_filter(value: time | datetime) -> str:
    return _hhmm(value)


@bp.app_template_filter("booking_local")
def _local_filter(value: datetime, timezone: str) -> datetime:
    """A stored (naive UTC) time in `timezone`."""
    return reads.utc_to_local(value, timezone)


@bp.app_template_filter("booking_longday")
def _long_day(value: date | datetime) -> str:
    """“Wednesday 17 September 2025”."""
    return f"{value:%A} {value.day} {value:%B %Y}"


@bp.app_template_filter("booking_shortday")
def _short_day(value: date | datetime) -> str:
    """“Wed 17 Sep”."""
    return f"{value:%a} {value.day} {value:%b}"


# -- booking through the service --------------------------------------------------------------


def book(
    db,
    actor: Employee,
    *,
    room_id: int,
    start: datetime,
    end: datetime,
    title: Any,
    attendee_ids: Sequence[int],
    weeks: int = 1,
    skip_clashes: bool = False,
) -> tuple[list[Reservation], list[availability.Clash]]:
    """Book a room once (`weeks` 1) or weekly through the service; the bookings made and,
    for a series booked with `skip_clashes`, what the skipped weeks clashed with."""
    if weeks == 1:
        made = service.book_room(
            db,
            actor,
            resource_id=room_id,
            start=start,
            end=end,
            title=title,
            attendee_ids=attendee_ids,
        )
        return [made], []
    result = service.book_room_series(
        db,
        actor,
        resource_id=room_id,
        start=start,
        end=end,
        weeks=weeks,
        title=title,
        attendee_ids=attendee_ids,
        skip_clashes=skip_clashes,
    )
    return list(result.created), list(result.clashes)


# -- the rooms page --------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    """What the rooms page shows: an office, a day (or its week), and which rooms."""

    office: reads.OfficeInfo
    day: date
    view: str
    capacity: int | None
    equipment: tuple[str, ...]
    today: date

    def args(self, **changes: Any) -> dict[str, Any]:
        """Query arguments for a link to this page with `changes`."""
        values: dict[str, Any] = {
            "office": self.office.id,
            "date": self.day.isoformat(),
            "view": self.view,
            "capacity": self.capacity,
            "equipment": list(self.equipment),
        }
        values.update(changes)
        return {k: v for k, v in values.items() if v not in (None, "", [])}


def _filters(db, actor: Employee) -> Filters:
    args = request.args
    office_id = _int(args.get("office"))
    office = reads.office(db, office_id) if office_id else reads.home_office(db, actor)
    today = reads.today(world_now(db), office.timezone)
    view = args.get("view") if args.get("view") in VIEWS else "day"
    capacity = _int(args.get("capacity"))
    if capacity is not None and not 1 <= capacity <= MAX_CAPACITY_FILTER:
        capacity = None
    wanted = set(args.getlist("equipment"))
    equipment = tuple(e for e in reads.EQUIPMENT if e in wanted)
    return Filters(
        office=office,
        day=_day(args.get("date")) or today,
        view=view,
        capacity=capacity,
        equipment=equipment,
        today=today,
    )


@dataclass(frozen=True)
class Slot:
    """One cell of a room's row in the day view: `span` quarter hours from `start` (local),
    a booking, a free stretch (with a link to book it), or time already past."""

    span: int
    start: time
    end: time
    booking: reads.RoomBooking | None = None
    book_url: str | None = None
    closed: str = ""


@dataclass(frozen=True)
class DayRow:
    room: reads.Room
    slots: tuple[Slot, ...]


@dataclass(frozen=True)
class WeekDay:
    day: date
    bookings: tuple[reads.RoomBooking, ...]
    closed: str = ""


@dataclass(frozen=True)
class WeekRow:
    room: reads.Room
    days: tuple[WeekDay, ...]


def _quarter(value: datetime, day: date, up: bool) -> int:
    """The quarter-hour column of a local time on `day` (rounded down, or up), clamped to the
    shown working day."""
    minutes = (value - datetime.combine(day, reads.DAY_START)).total_seconds() / 60
    steps = minutes / reads.SLOT_MINUTES
    index = int(-(-steps // 1)) if up else int(steps // 1)
    return max(0, min(DAY_QUARTERS, index))


def _at(index: int) -> time:
    return TIMES[index]


def day_slots(
    room: reads.Room,
    day: date,
    held: Sequence[reads.RoomBooking],
    now_local: datetime,
    form_url: str,
) -> tuple[Slot, ...]:
    """A room's working day as cells: its bookings, and the free time between them cut at
    the hours, each free hour a link to the booking form at `form_url` filled in for it
    (none for time already past)."""
    if day < now_local.date():
        first_free = DAY_QUARTERS
    elif day > now_local.date():
        first_free = 0
    else:
        first_free = _quarter(now_local, day, up=True)
    slots: list[Slot] = []

    def free(a: int, b: int) -> None:
        if a < first_free and a < b:
            cut = min(b, first_free)
            slots.append(Slot(cut - a, _at(a), _at(cut)))
            a = cut
        while a < b:
            stop = min(b, (a // QUARTERS_PER_HOUR + 1) * QUARTERS_PER_HOUR)
            until = min(b, a + DEFAULT_MINUTES // reads.SLOT_MINUTES)
            query = {"room": room.id, "date": day, "start": _hhmm(_at(a)), "end": _hhmm(_at(until))}
            link = f"{form_url}?{urlencode(query)}"
            slots.append(Slot(stop - a, _at(a), _at(stop), book_url=link))
            a = stop

    cursor = 0
    for booking in held:
        start = reads.utc_to_local(booking.start_at, room.timezone)
        end = reads.utc_to_local(booking.end_at, room.timezone)
        a = max(cursor, _quarter(start, day, up=False))
        b = _quarter(end, day, up=True)
        if b <= a:
            continue
        free(cursor, a)
        slots.append(Slot(b - a, _at(a), _at(b), booking=booking))
        cursor = b
    free(cursor, DAY_QUARTERS)
    return tuple(slots)


def _by_room(found: Iterable[reads.RoomBooking]) -> dict[int, list[reads.RoomBooking]]:
    grouped: dict[int, list[reads.RoomBooking]] = {}
    for booking in found:
        grouped.setdefault(booking.room_id, []).append(booking)
    return grouped


def day_rows(db, filters: Filters, shown: Sequence[reads.Room]) -> list[DayRow]:
    start, end = reads.window(filters.day, filters.office.timezone)
    ids = [r.id for r in shown]
    held = _by_room(reads.bookings(db, ids, start, end))
    closed = reads.closures(db, ids, filters.day, filters.day)
    now_local = reads.utc_to_local(world_now(db), filters.office.timezone)
    # One url_for for every link: building each costs the page milliseconds.
    form_url = url_for("booking.book_room")
    rows = []
    for r in shown:
        reason = closed.get((r.id, filters.day))
        if reason is not None:
            slots: tuple[Slot, ...] = (
                Slot(DAY_QUARTERS, TIMES[0], TIMES[-1], closed=reason or "Closed"),
            )
        else:
            slots = day_slots(r, filters.day, held.get(r.id, []), now_local, form_url)
        rows.append(DayRow(r, slots))
    return rows


def week_rows(
    db, filters: Filters, shown: Sequence[reads.Room]
) -> tuple[list[date], list[WeekRow]]:
    monday = reads.week_of(filters.day)
    days = [monday + timedelta(days=i) for i in range(7)]
    tz = filters.office.timezone
    start = reads.local_to_utc(days[0], time(), tz)
    end = reads.local_to_utc(days[-1] + timedelta(days=1), time(), tz)
    ids = [r.id for r in shown]
    held = _by_room(reads.bookings(db, ids, start, end))
    closed = reads.closures(db, ids, days[0], days[-1])
    rows = []
    for r in shown:
        per_day: dict[date, list[reads.RoomBooking]] = {d: [] for d in days}
        for booking in held.get(r.id, []):
            local = reads.utc_to_local(booking.start_at, tz).date()
            if local in per_day:
                per_day[local].append(booking)
        week = tuple(WeekDay(d, tuple(per_day[d]), closed.get((r.id, d), "")) for d in days)
        rows.append(WeekRow(r, week))
    return days, rows


@bp.get("/rooms")
@login_required
def rooms():
    """An office's meeting rooms on a day (rooms as rows, quarter hours 07:00-20:00 as
    columns) or over a week, filtered by seats and equipment."""
    db, me = get_db(), _actor()
    filters = _filters(db, me)
    shown = reads.rooms(db, filters.office.id, filters.capacity, filters.equipment)
    total = len(reads.rooms(db, filters.office.id))
    step = timedelta(weeks=1) if filters.view == "week" else timedelta(days=1)
    context: dict[str, Any] = {
        "filters": filters,
        "offices": reads.offices(db),
        "equipment": reads.EQUIPMENT,
        "shown": shown,
        "total": total,
        "hours": [time(h) for h in range(reads.DAY_START.hour, reads.DAY_END.hour)],
        "quarters": QUARTERS_PER_HOUR,
        "previous": url_for("booking.rooms", **filters.args(date=(filters.day - step).isoformat())),
        "next": url_for("booking.rooms", **filters.args(date=(filters.day + step).isoformat())),
        "today_url": url_for("booking.rooms", **filters.args(date=filters.today.isoformat())),
        "day_url": url_for("booking.rooms", **filters.args(view="day")),
        "week_url": url_for("booking.rooms", **filters.args(view="week")),
        "book_url": url_for(
            "booking.book_room",
            date=max(filters.day, filters.today).isoformat(),
            office=filters.office.id,
        ),
        # A booking's page is this prefix and its id (one url_for for the page's links).
        "booking_prefix": url_for("booking.room_booking", reservation_id=0)[:-1],
        "section": "rooms",
    }
    if filters.view == "week":
        context["days"], context["week"] = week_rows(db, filters, shown)
        context["day_links"] = {
            d: url_for("booking.rooms", **filters.args(date=d.isoformat(), view="day"))
            for d in context["days"]
        }
    else:
        context["rows"] = day_rows(db, filters, shown)
    return render_template("booking/rooms.html", **context)


# -- booking a room --------------------------------------------------------------------------

# The service's names for the fields of the booking form.
FORM_FIELDS = {"resource_id": "room", "attendee_ids": ATTENDEES}


@dataclass
class BookForm:
    """The booking form's values as the page shows them again."""

    room: str = ""
    date: str = ""
    start: str = ""
    end: str = ""
    title: str = ""
    weeks: str = "1"
    attendee_ids: list[int] = field(default_factory=list)
    attendee_names: list[str] = field(default_factory=list)


def _form_from(source) -> BookForm:
    ids = [i for i in (_int(v) for v in source.getlist(ATTENDEES)) if i is not None]
    return BookForm(
        room=str(source.get("room", "")),
        date=str(source.get("date", "")),
        start=str(source.get("start", "")),
        end=str(source.get("end", "")),
        title=str(source.get("title", "")),
        weeks=str(source.get("weeks", "") or "1").strip(),
        attendee_ids=ids,
    )


def _default_form(db, me: Employee) -> BookForm:
    form = _form_from(request.args)
    office_id = _int(request.args.get("office"))
    if not form.room and office_id:
        first = reads.rooms(db, office_id)
        form.room = str(first[0].id) if first else ""
    if not form.date:
        tz = reads.home_office(db, me).timezone
        form.date = reads.today(world_now(db), tz).isoformat()
    shown = [_hhmm(t) for t in TIMES]
    if form.start not in shown[:-1]:
        form.start = "09:00"
    if form.end not in shown[1:] or form.end <= form.start:
        form.end = shown[min(len(shown) - 1, shown.index(form.start) + 2)]
    return form


def _clock(text: str, name: str, label: str, errors: dict[str, str]) -> time | None:
    raw = text.strip()
    if not raw:
        errors[name] = f"Choose a {label} time."
        return None
    try:
        return time.fromisoformat(raw)
    except ValueError:
        errors[name] = f"Enter the {label} time as HH:MM, e.g. 09:30."
        return None


def _checked(db, me: Employee, form: BookForm) -> tuple[reads.Room, datetime, datetime, int]:
    """What the form asks for as the service takes it: the room, the times in the room's
    office read as UTC, and the number of weeks. Only what the service can't read (the
    room, the date, the times as text, a typed attendee, the weeks) is checked here."""
    errors: dict[str, str] = {}
    room = None
    try:
        room = reads.room(db, _int(form.room))
    except NotFound:
        errors["room"] = "Choose a room from the list."
    day = _day(form.date)
    if day is None:
        errors["date"] = "Enter the date as YYYY-MM-DD."
    start = _clock(form.start, "start", "start", errors)
    end = _clock(form.end, "end", "end", errors)
    weeks = _int(form.weeks)
    if weeks is None:
        weeks = 0
        errors["weeks"] = "Enter the number of weeks as a whole number (1 books this date only)."
    typed = request.form.get(ATTENDEES + reads.TEXT_SUFFIX, "")
    if " ".join(typed.split()):
        try:
            person = reads.person_named(db, me, typed, ATTENDEES)
        except ValidationError as error:
            errors[ATTENDEES] = error.message
        else:
            if person not in form.attendee_ids:
                form.attendee_ids.append(person)
    if errors:
        raise ValidationError.of(errors)
    assert room is not None and day is not None and start is not None and end is not None
    return (
        room,
        reads.local_to_utc(day, start, room.timezone),
        reads.local_to_utc(day, end, room.timezone),
        weeks,
    )


def _on_form(error: AppError) -> AppError:
    """A refusal with the service's field names as the form's."""
    if isinstance(error, ValidationError):
        renamed = {FORM_FIELDS.get(k, k): v for k, v in error.errors.items()}
        return ValidationError(error.message, errors=renamed)
    return error


def _render_form(db, form: BookForm, status: int = 200, **extra: Any):
    form.attendee_ids, form.attendee_names = reads.names(db, form.attendee_ids)
    grouped: dict[str, list[reads.Room]] = {}
    for r in reads.rooms(db):
        grouped.setdefault(f"{r.office_name} ({r.timezone})", []).append(r)
    shown = [_hhmm(t) for t in TIMES]
    page = render_template(
        "booking/rooms_book.html",
        form=form,
        grouped=grouped,
        starts=shown[:-1],
        ends=shown[1:],
        max_weeks=service.MAX_WEEKS,
        section="rooms",
        error=extra.get("error"),
        clashing=extra.get("clashing"),
        free_weeks=extra.get("free_weeks", 0),
    )
    return page, status


@bp.get("/rooms/book")
@login_required
def book_room():
    """The form to book a room, filled in from the link that opened it (a free slot)."""
    db = get_db()
    return _render_form(db, _default_form(db, _actor()))


@bp.post("/rooms/book")
@login_required
def book_room_post():
    """Book the room (weekly when asked); a refusal shows the form again with the service's
    message, and for a weekly booking that clashes, the clashing dates and an offer to book
    the free weeks only (`skip_clashes`)."""
    db, me = get_db(), _actor()
    form = _form_from(request.form)
    skip = request.form.get("skip_clashes") == "1"
    try:
        room, start, end, weeks = _checked(db, me, form)
        made, skipped = book(
            db,
            me,
            room_id=room.id,
            start=start,
            end=end,
            title=form.title,
            attendee_ids=form.attendee_ids,
            weeks=weeks,
            skip_clashes=skip,
        )
    except service.RoomTaken as error:
        clashing = reads.clashing_weeks(error.clashes, room.timezone) if weeks != 1 else None
        free_weeks = weeks - len(clashing) if clashing else 0
        return _render_form(
            db, form, error.status, error=error, clashing=clashing, free_weeks=free_weeks
        )
    except AppError as error:
        return _render_form(db, form, error.status, error=_on_form(error))
    local = reads.utc_to_local(start, room.timezone)
    when = f"{_short_day(local)} {_hhmm(local)}–{_hhmm(reads.utc_to_local(end, room.timezone))}"
    if weeks == 1:
        flash(f"Booked {room.name} on {when}.", "success")
    else:
        missed = len({c.wanted_start for c in skipped})
        note = f"; skipped {missed} that clashed" if missed else ""
        flash(
            f"Booked {room.name} weekly from {when}: {len(made)} of {weeks} weeks{note}.",
            "success",
        )
    return redirect(url_for("booking.room_booking", reservation_id=made[0].id))


@bp.get("/rooms/people")
@login_required
def rooms_people():
    """Colleagues the attendee picker offers while one types `?q=` (JSON list of
    `{id, label, detail}`)."""
    return jsonify(reads.people(get_db(), _actor(), request.args.get("q", "")))


# -- one booking -----------------------------------------------------------------------------


@bp.get("/rooms/bookings/<int:reservation_id>")
@login_required
def room_booking(reservation_id: int):
    """A room booking: when, where, who organizes and who is invited; the organizer may
    cancel it. Anyone in the company sees the title and organizer (as on the rooms page);
    the invitees are listed to the people on the booking."""
    db, me = get_db(), _actor()
    found = reads.booking(db, reservation_id)
    reservation = db.get(Reservation, found.booking.id)
    tz = found.room.timezone
    upcoming = found.booking.status == "confirmed" and found.booking.start_at > world_now(db)
    return render_template(
        "booking/rooms_booking.html",
        found=found,
        start=reads.utc_to_local(found.booking.start_at, tz),
        end=reads.utc_to_local(found.booking.end_at, tz),
        on_it=access.sees(db, me, reservation),
        can_cancel=upcoming and access.can_change(me, reservation),
        day_url=url_for(
            "booking.rooms",
            office=found.room.office_id,
            date=reads.utc_to_local(found.booking.start_at, tz).date().isoformat(),
        ),
        section="rooms",
    )


@bp.post("/rooms/bookings/<int:reservation_id>/cancel")
@login_required
def cancel_room_booking(reservation_id: int):
    db, me = get_db(), _actor()
    found = reads.booking(db, reservation_id)
    service.cancel_reservation(db, me, reservation_id=reservation_id)
    flash(f"Cancelled “{found.booking.title}”.", "success")
    return redirect(url_for("booking.room_booking", reservation_id=reservation_id))


# -- my calendar -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Meeting:
    """A room booking on a calendar day: local times and where it is."""

    booking: reads.RoomBooking
    start: datetime
    end: datetime
    where: str


@dataclass(frozen=True)
class CalendarDay:
    day: date
    stays: tuple[tuple[reads.StayItem, str], ...]  # each with "Check-in", "Staying", ...
    meetings: tuple[Meeting, ...]


def _stay_label(stay: reads.StayItem, day: date) -> str:
    if day == stay.check_in:
        return "Check-in"
    return "Check-out" if day == stay.check_out else "Staying"


@bp.get("/calendar")
@login_required
def my_calendar():
    """The signed-in user's week in their own time zone: room bookings they organize or
    attend, and their stays as all-day items."""
    db, me = get_db(), _actor()
    tz = me.timezone or reads.home_office(db, me).timezone
    today = reads.today(world_now(db), tz)
    monday = reads.week_of(_day(request.args.get("week")) or today)
    days = [monday + timedelta(days=i) for i in range(7)]
    start = reads.local_to_utc(days[0], time(), tz)
    end = reads.local_to_utc(days[-1] + timedelta(days=1), time(), tz)
    stays = reads.stays_of(db, me.id, days[0], days[-1])
    room_names = {r.id: f"{r.name}, {r.office_name}" for r in reads.rooms(db)}
    meetings = [
        Meeting(
            m,
            reads.utc_to_local(m.start_at, tz),
            reads.utc_to_local(m.end_at, tz),
            room_names.get(m.room_id, ""),
        )
        for m in reads.meetings_of(db, me.id, start, end)
    ]
    shown = [
        CalendarDay(
            d,
            tuple((s, _stay_label(s, d)) for s in stays if s.check_in <= d <= s.check_out),
            tuple(m for m in meetings if m.start.date() == d),
        )
        for d in days
    ]
    return render_template(
        "booking/calendar.html",
        days=shown,
        monday=monday,
        today=today,
        timezone=tz,
        me=me,
        previous=url_for("booking.my_calendar", week=(monday - timedelta(weeks=1)).isoformat()),
        next=url_for("booking.my_calendar", week=(monday + timedelta(weeks=1)).isoformat()),
        this_week=url_for("booking.my_calendar"),
        section="calendar",
    )


# -- main pages ------------------------------------------------------------------------------


def rooms_pages(world: Path) -> list[MainPage]:
    """The meeting-room pages as the organizer of the earliest upcoming booking with attendees
    sees them: its office's day and week, the booking form, the booking, and their calendar."""
    conn = connect(world, read_only=True)
    try:
        (now,) = conn.execute("SELECT now FROM world_meta WHERE id = 1").fetchone()
        found = conn.execute(
            "SELECT b.id, b.resource_id, b.start_at, o.id, o.timezone, e.email "
            "FROM booking_reservation b JOIN booking_resource r ON r.id = b.resource_id "
            "JOIN booking_property p ON p.id = r.property_id "
            "JOIN people_office o ON o.id = p.office_id "
            "JOIN people_employee e ON e.id = b.guest_id "
            "WHERE r.kind = 'meeting_room' AND b.status = 'confirmed' AND e.is_active "
            "AND b.start_at > ? "
            "AND EXISTS (SELECT 1 FROM booking_attendee a WHERE a.reservation_id = b.id) "
            "ORDER BY b.start_at, b.id LIMIT 1",
            (str(now),),
        ).fetchone()
    finally:
        conn.close()
    if found is None:
        return []
    booking_id, room_id, start_at, office_id, timezone, email = found
    day = reads.utc_to_local(datetime.fromisoformat(str(start_at)), timezone).date()
    on = {"office": office_id, "date": day.isoformat()}
    form = {"room": room_id, "date": day.isoformat(), "start": "09:00", "end": "09:30"}
    pages = [
        ("meeting rooms, day", f"/booking/rooms?{urlencode(on)}"),
        ("meeting rooms, week", f"/booking/rooms?{urlencode({**on, 'view': 'week'})}"),
        ("book a room", f"/booking/rooms/book?{urlencode(form)}"),
        ("room booking", f"/booking/rooms/bookings/{booking_id}"),
        ("my calendar", f"/booking/calendar?week={day.isoformat()}"),
    ]
    return [MainPage("booking", name, path, email) for name, path in pages]


__all__ = ["TIMES", "book", "day_slots", "rooms_pages"]
