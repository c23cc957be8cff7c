"""booking.book_room_for_attendees — book the earliest hour of a window when a room of the
user's office with a given piece of equipment seats the user and named colleagues.

The window is three to five whole hours of one of the next two weeks' working days; the
meeting is an hour starting on the hour. The right hour is the first of the window at which
some room of the office with the equipment and enough seats is free; in some instances every
such room is taken at the window's first hour (and any others before the right one). Any such
room free at the right hour passes. The verifier expects one new booking of one of those
rooms by the user at that hour (office time), titled as asked, inviting exactly the named
colleagues, and nothing else. The wrong-record probe starts looking an hour after the right
hour.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, time, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from . import _room_picks as picks
from . import _world
from ._form_texts import meeting_title
from ._formats import clock, short_day
from .base import BookingTemplate
from .ui import book_room, free_rooms, open_rooms

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Book a room in our office with {equipment} for me and {people} on {day}: take the first "
    "whole hour (starting on the hour) between {first} and {last} when such a room is free. "
    "Title it “{title}” and invite them.",
    "We need a meeting room with {equipment} for {count} people (me, {people}) on {day}, for "
    "an hour starting on the hour, as early as possible between {first} and {last}. Book it "
    "as “{title}” with them invited.",
    "On {day}, between {first} and {last}, find the earliest hour (on the hour) when a room "
    "in our office with {equipment} is free and seats me plus {people}. Book it for that "
    "hour as “{title}” and invite them.",
)
SEATS = (3, 4, 5, 6)
FIRST_HOURS = tuple(range(8, 16))
WIDTHS = (3, 4, 5)
# Share of instances whose window's first hour has no such room free.
BLOCKED_SHARE = 2 / 5


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class _Window(_world.Kept):
    """A window of whole hours in one office for a party and a piece of equipment: the first
    hour some fitting room is free and which rooms are free then."""

    office_id: int
    day: date
    feature: str
    seats: int
    first: int
    last: int
    hour: int
    free: tuple[int, ...]


@per_golden
def _windows(world: sqlite3.Connection) -> tuple[_Window, ...]:
    """Every window of the next two weeks' working days in every office with some fitting
    room free in it."""
    calendar = _world.room_calendar(world)
    by_office: dict[int, list[_world.Room]] = {}
    for room in _world.rooms(world):
        by_office.setdefault(room.office_id, []).append(room)
    found = []
    for office_id, everything in sorted(by_office.items()):
        start = _world.office_day(world, everything[0]) + timedelta(days=1)
        for day in _world.next_weekdays(start, 10):
            for feature in picks.EQUIPMENT:
                for seats in SEATS:
                    rooms = picks.fitting(everything, seats, feature)
                    if not rooms:
                        continue
                    free = {h: picks.free_at(rooms, day, h, quick=calendar) for h in range(8, 20)}
                    for first in FIRST_HOURS:
                        for width in WIDTHS:
                            last = first + width
                            hour = next((h for h in range(first, last) if free[h]), None)
                            if hour is not None and last <= 19:
                                found.append(
                                    _Window(office_id, day, feature, seats, first, last, hour,
                                            free[hour])
                                )  # fmt: skip
    return tuple(found)


@register
class BookRoomForAttendees(BookingTemplate):
    id = "booking.book_room_for_attendees"
    difficulty = 4
    difficulty_reason = (
        "filter the office's rooms by seats and equipment on the day, scan the grid hour by "
        "hour for the first one a room is free, and book it with attendees picked in the "
        "type-ahead"
    )
    tags = ("search", "sort-filter", "form", "multi-step")
    max_steps = 45

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = _world.people(world)
        named = _world.unique_names(world)
        windows = _windows(world)
        blocked = [w for w in windows if w.hour > w.first]
        pool = blocked if blocked and rng.random() < BLOCKED_SHARE else windows
        chosen = rng.choice(pool)
        everything = [r for r in _world.rooms(world) if r.office_id == chosen.office_id]
        rooms = picks.fitting(everything, chosen.seats, chosen.feature)
        # The app's own rule for the hours the instance depends on.
        for hour in range(chosen.first, chosen.hour + 1):
            free = picks.free_at(rooms, chosen.day, hour, world=world)
            if free != (chosen.free if hour == chosen.hour else ()):
                raise LookupError("the quick room scan disagrees with the app's rule")
        here = sorted(
            p.id
            for p in people.values()
            if p.active and p.office_id == chosen.office_id and p.name in named
        )
        user_id = rng.choice(here)
        attendees = rng.sample([i for i in here if i != user_id], chosen.seats - 1)
        start, end = time(chosen.hour), time(chosen.hour + 1)
        utc_start, utc_end = _world.slot(everything[0], chosen.day, start, end)
        later = chosen.hour + 1
        return {
            "user": people[user_id].email,
            "user_id": user_id,
            "office": everything[0].office,
            "day": chosen.day.isoformat(),
            "first": clock(time(chosen.first)),
            "last": clock(time(chosen.last)),
            "feature": chosen.feature,
            "seats": chosen.seats,
            "start": clock(start),
            "end": clock(end),
            "utc_start": utc_start.isoformat(sep=" "),
            "utc_end": utc_end.isoformat(sep=" "),
            "rooms": list(chosen.free),
            "attendee_ids": sorted(attendees),
            "attendees": [people[i].name for i in attendees],
            "title": meeting_title(rng),
            "decoy": {"first": clock(time(later))} if later < chosen.last else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        day = _world.day_of(params["day"])
        return rng.choice(_PHRASINGS).format(
            equipment=picks.EQUIPMENT[params["feature"]],
            people=_join(params["attendees"]),
            count=params["seats"],
            day=f"{day:%A}, {short_day(day)}",
            first=params["first"],
            last=params["last"],
            title=params["title"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        day = _world.day_of(params["day"])
        open_rooms(
            actions, params["office"], day, seats=params["seats"], equipment=[params["feature"]]
        )
        first = time.fromisoformat(params["first"]).hour
        last = time.fromisoformat(params["last"]).hour
        for hour in range(first, last):
            start, end = time(hour), time(hour + 1)
            free = free_rooms(actions, start, end)
            if free:
                book_room(actions, free[0], day, start, end, params["title"], params["attendees"])
                actions.send_msg_to_user(
                    f"Booked {free[0]} from {clock(start)} to {clock(end)} for “{params['title']}”."
                )
                return
        actions.report_infeasible("No such room is free for a whole hour in that window.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            *checks.meeting_booked(
                params["rooms"],
                params["user_id"],
                _world.moment(params["utc_start"]),
                _world.moment(params["utc_end"]),
                params["title"],
                params["attendee_ids"],
            ),
            expect.nothing_else(),
        )


__all__ = ["BookRoomForAttendees"]
