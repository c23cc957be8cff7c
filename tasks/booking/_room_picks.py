"""What the meeting-room templates that cancel, repeat, look up and place bookings share: the
room bookings read once with their attendees, the scans that find weekly slots free every week
and the first free hour of a window, and the UI moves for My calendar, a booking's page and
reading an organizer off the day grid.

Slots are scanned with `RoomCalendar.busy` (rows read once); the slots an instance uses are
checked again with `_world.held`, the app's own rule.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING

from officegym.apps.booking.rooms_reads import utc_to_local
from officegym.tasks.match import squash
from officegym.tasks.pools import per_golden

from . import _world
from ._formats import clock, month_number
from .ui import nav

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# What the rooms page's equipment filter offers, as a goal names it.
EQUIPMENT = {
    "screen": "a screen",
    "video conferencing": "video conferencing",
    "whiteboard": "a whiteboard",
}
# The day grid shows 07:00-20:00 office time.
GRID_START, GRID_END = time(7, 0), time(20, 0)


# ---- bookings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Meeting(_world.Kept):
    """A meeting-room reservation of any status (times naive UTC)."""

    id: int
    room_id: int
    organizer_id: int
    title: str
    start: datetime
    end: datetime
    status: str
    series_id: int | None


@per_golden
def meetings(world: sqlite3.Connection) -> tuple[Meeting, ...]:
    """Every meeting-room reservation, by start then id."""
    rows = world.execute(
        """
        SELECT b.id, b.resource_id, b.guest_id, b.purpose, b.start_at, b.end_at, b.status,
               b.series_id
        FROM booking_reservation b JOIN booking_resource r ON r.id = b.resource_id
        WHERE r.kind = 'meeting_room'
        ORDER BY b.start_at, b.id
        """
    )
    return tuple(
        Meeting(r[0], r[1], r[2], r[3] or "", _world.moment(r[4]), _world.moment(r[5]), r[6], r[7])
        for r in rows
    )


@dataclass(frozen=True)
class Calendars(_world.Kept):
    """Each person's confirmed room bookings, organized or attended, by person id (what My
    calendar shows them), and each booking's attendees."""

    by_person: Mapping[int, tuple[Meeting, ...]]
    invited: Mapping[int, frozenset[int]]

    def of(self, person_id: int) -> tuple[Meeting, ...]:
        return self.by_person.get(person_id, ())


@per_golden
def calendars(world: sqlite3.Connection) -> Calendars:
    """Every person's calendar of room bookings, read once."""
    guests: dict[int, set[int]] = {}
    for reservation_id, employee_id in world.execute(
        "SELECT reservation_id, employee_id FROM booking_attendee ORDER BY id"
    ):
        guests.setdefault(reservation_id, set()).add(employee_id)
    found: dict[int, list[Meeting]] = {}
    for m in meetings(world):
        if m.status != "confirmed":
            continue
        for person in sorted({m.organizer_id, *guests.get(m.id, ())}):
            found.setdefault(person, []).append(m)
    return Calendars(
        MappingProxyType({k: tuple(v) for k, v in found.items()}),
        MappingProxyType({k: frozenset(v) for k, v in guests.items()}),
    )


def local_span(meeting: Meeting, timezone: str) -> tuple[datetime, datetime]:
    """The meeting's start and end in `timezone` (naive)."""
    return utc_to_local(meeting.start, timezone), utc_to_local(meeting.end, timezone)


def on_grid(meeting: Meeting, room: _world.Room) -> bool:
    """Whether the day grid shows the meeting whole: one office day within 07:00-20:00."""
    start, end = local_span(meeting, room.timezone)
    return start.date() == end.date() and start.time() >= GRID_START and end.time() <= GRID_END


# ---- slot scans ------------------------------------------------------------------------------


def weeks_free(
    world: sqlite3.Connection, room: _world.Room, first: date, start: time, end: time, weeks: int
) -> list[tuple[datetime, datetime]] | None:
    """The `weeks` weekly spans (naive UTC) of the room from `first`, when every one is free by
    the app's rule; None when some week is held."""
    spans = [_world.slot(room, first + timedelta(weeks=w), start, end) for w in range(weeks)]
    calendar = _world.room_calendar(world)
    if any(calendar.busy(room, *span) for span in spans):
        return None
    if any(_world.held(world, room, *span) for span in spans):
        raise LookupError("the quick room scan disagrees with the app's rule")
    return spans


def fitting(rooms: Sequence[_world.Room], seats: int, feature: str) -> list[_world.Room]:
    """The rooms with `feature` that seat `seats`, as the rooms page's filters leave them."""
    return [r for r in rooms if r.has(feature) and r.capacity >= seats]


def free_at(
    rooms: Sequence[_world.Room],
    day: date,
    hour: int,
    quick: _world.RoomCalendar | None = None,
    world: sqlite3.Connection | None = None,
) -> tuple[int, ...]:
    """Ids of `rooms` free from `hour`:00 for an hour on `day` (office time): by the quick
    scan `quick` (a RoomCalendar) or, given `world`, by the app's rule."""
    start, end = time(hour), time(hour + 1)
    if quick is not None:
        return tuple(r.id for r in rooms if not quick.busy(r, *_world.slot(r, day, start, end)))
    return tuple(r.id for r in rooms if not _world.held(world, r, *_world.slot(r, day, start, end)))


# ---- My calendar and a booking's page ---------------------------------------------------------


_WEEK_OF = re.compile(r"Week of [A-Z][a-z]+day (\d{1,2}) ([A-Z][a-z]+) (\d{4})")


def short_day(day: date) -> str:
    """ "Wed 17 Sep", as My calendar and the rooms pages label a day."""
    return f"{day:%a} {day.day} {day:%b}"


def _shown_monday(actions: PageActions) -> date:
    for node in actions.nodes:
        if node.role == "heading":
            found = _WEEK_OF.search(squash(node.name or ""))
            if found:
                day, month, year = found.groups()
                return date(int(year), month_number(month), int(day))
    raise LookupError("the page shows no 'Week of ...' heading")


def open_calendar_week(actions: PageActions, day: date, most: int = 30) -> None:
    """My calendar, on the week holding `day` (following Previous/Next week)."""
    nav(actions, "My calendar")
    for _ in range(most):
        monday = _shown_monday(actions)
        if monday <= day < monday + timedelta(days=7):
            return
        label = "Next week" if day >= monday else "Previous week"
        actions.click(actions.find("link", label, exact=True))
    raise LookupError(f"My calendar did not reach the week of {day.isoformat()}")


def open_calendar_meeting(actions: PageActions, title: str, day: date) -> None:
    """From anywhere in Booking: open the meeting titled `title` on `day` from My calendar."""
    open_calendar_week(actions, day)
    wanted = f"{squash(title)}, {short_day(day)} "
    for node in actions.nodes:
        if node.bid and node.role == "link" and squash(node.name or "").startswith(wanted):
            actions.click(node.bid)
            return
    raise LookupError(f"My calendar shows no {title!r} on {day.isoformat()}")


def cancel_this_booking(actions: PageActions) -> None:
    """On a room booking's page: cancel it."""
    actions.click(actions.find("button", "Cancel this booking", exact=True))


def organizer_on_grid(actions: PageActions, room: str, start: time) -> str | None:
    """On the rooms day grid: the organizer of the booking of `room` that starts at `start`
    (the booking's link reads "<title>, <room> <start>–<end>, <organizer>"); None if none."""
    pattern = re.compile(
        rf", {re.escape(room)} {re.escape(clock(start))}–\d\d:\d\d, (?P<who>[^,]+)$"
    )
    for node in actions.nodes:
        if node.bid and node.role == "link":
            found = pattern.search(squash(node.name or ""))
            if found:
                return found["who"].strip()
    return None


__all__ = [
    "EQUIPMENT",
    "Meeting",
    "Calendars",
    "calendars",
    "cancel_this_booking",
    "fitting",
    "free_at",
    "local_span",
    "meetings",
    "on_grid",
    "open_calendar_meeting",
    "open_calendar_week",
    "organizer_on_grid",
    "short_day",
    "weeks_free",
]
