"""booking.cancel_room_booking — cancel one of the user's upcoming room bookings, named by its
title and day.

The booking is a confirmed meeting the user organizes, on a day after today, whose title is
the only one of that title on that day among the meetings My calendar shows the user (those
they organize or attend, within a day either side, so the room's and the user's time zones
cannot make two read alike). Its day is the same in the room's office and the user's zone.
The verifier expects that reservation cancelled as the service writes it (status
`cancelled`, `cancelled_at` set) and nothing else changed. The wrong-record probe cancels
another upcoming booking the user organizes.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from officegym.apps.booking.rooms_reads import utc_to_local
from officegym.tasks import expect
from officegym.tasks.match import is_set
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from . import _room_picks as picks
from . import _world
from ._formats import short_day
from .base import BookingTemplate
from .ui import page_says

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Please cancel my “{title}” room booking on {day}.",
    "I don't need the room for “{title}” on {day} any more. Cancel that booking.",
    "Can you cancel the meeting room I booked for “{title}” on {day}?",
    "“{title}” on {day} is off. Release the room I booked for it.",
)

# Most instances have a near miss: another booking the same user organizes.
DECOY_SHARE = 3 / 4


@per_golden
def _cancellable(world: sqlite3.Connection) -> dict[int, tuple[tuple[int, date], ...]]:
    """The upcoming bookings (id, day) each active organizer may be asked to cancel by title
    and day."""
    people = _world.people(world)
    rooms = {r.id: r for r in _world.rooms(world)}
    now = _world.world_now(world)
    calendars = picks.calendars(world)
    found: dict[int, list[tuple[int, date]]] = {}
    for meeting in picks.meetings(world):
        person = people.get(meeting.organizer_id)
        if meeting.status != "confirmed" or person is None or not person.active:
            continue
        if not meeting.title:
            continue
        room = rooms[meeting.room_id]
        zone = _zone(world, person.id) or room.timezone
        start, _end = picks.local_span(meeting, zone)
        if start.date() != picks.local_span(meeting, room.timezone)[0].date():
            continue
        if start.date() <= utc_to_local(now, zone).date():
            continue
        near = [
            m
            for m in calendars.of(person.id)
            if m.title.casefold() == meeting.title.casefold()
            and abs((picks.local_span(m, zone)[0].date() - start.date()).days) <= 1
        ]
        if [m.id for m in near] != [meeting.id]:
            continue
        found.setdefault(person.id, []).append((meeting.id, start.date()))
    return {k: tuple(v) for k, v in found.items()}


def _zone(world: sqlite3.Connection, person_id: int) -> str | None:
    """The zone My calendar shows the person's week in: theirs, else their office's."""
    row = world.execute(
        "SELECT coalesce(nullif(e.timezone, ''), o.timezone) FROM people_employee e "
        "LEFT JOIN people_office o ON o.id = e.office_id WHERE e.id = ?",
        (person_id,),
    ).fetchone()
    return row[0] if row and row[0] else None


@register
class CancelRoomBooking(BookingTemplate):
    id = "booking.cancel_room_booking"
    difficulty = 1
    difficulty_reason = (
        "find one meeting by its title and day in My calendar and cancel it on its page"
    )
    tags = ("navigation", "form")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = _world.people(world)
        by_person = _cancellable(world)
        several = sorted(p for p, mine in by_person.items() if len(mine) > 1)
        pool = several if several and rng.random() < DECOY_SHARE else sorted(by_person)
        organizer = rng.choice(pool)
        mine = by_person[organizer]
        chosen, day = rng.choice(mine)
        titles = {m.id: m.title for m in picks.meetings(world)}
        others = [m for m in mine if m[0] != chosen]
        decoy = rng.choice(others) if others else None
        return {
            "user": people[organizer].email,
            "user_id": organizer,
            "reservation_id": chosen,
            "title": titles[chosen],
            "day": day.isoformat(),
            "decoy": {"title": titles[decoy[0]], "day": decoy[1].isoformat()} if decoy else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        day = _world.day_of(params["day"])
        return rng.choice(_PHRASINGS).format(
            title=params["title"], day=f"{day:%A}, {short_day(day)}"
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        picks.open_calendar_meeting(actions, params["title"], _world.day_of(params["day"]))
        picks.cancel_this_booking(actions)
        if not page_says(actions, "This booking was cancelled"):
            raise LookupError("the booking's page does not say it was cancelled")
        actions.send_msg_to_user(f"Cancelled the room booking for “{params['title']}”.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.updated(
                checks.RESERVATION,
                params["reservation_id"],
                name=f"room booking #{params['reservation_id']} cancelled",
                status="cancelled",
                cancelled_at=is_set(),
            ),
            expect.nothing_else(),
        )


__all__ = ["CancelRoomBooking"]
