"""booking.book_room_with_screen — book a meeting room with a screen for the user and named
colleagues at a given time.

The room must be in the user's office, seat everyone (the user and the attendees) and have a
screen, and be free then; any such room passes. The verifier expects one new booking of one
of those rooms by the user at that time (office time), titled as asked, inviting exactly the
named colleagues, and nothing else. One instance in six asks for a room no free one fits:
every such room is taken then or, as the seed-0 worlds' bookings are sparse, no room of the
office with a screen seats that many; the right move is `report_infeasible`. The
wrong-record probe books the next working day.
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
from . import _world
from ._form_texts import meeting_title
from ._formats import clock, short_day
from .base import BookingTemplate
from .ui import book_room, free_rooms, open_rooms

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

FEATURE = "screen"
_PHRASINGS = (
    "Book a room with a screen for {count} of us on {day}, {start}–{end}: me, {people}. "
    "Title it “{title}”.",
    "I need a meeting room with a screen in our office on {day} from {start} to {end} for "
    "“{title}”. Invite {people}.",
    "Can you find a free room that has a screen and seats {count} people (me plus {people}) "
    "on {day}, {start} to {end}? Book it as “{title}”.",
)
IMPOSSIBLE_SHARE = 1 / 6
STARTS = tuple(time(h, m) for h in range(8, 17) for m in (0, 30))
# Party sizes, the user included (each attendee is picked in the type-ahead).
SEATS = (3, 4, 6, 8)


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class _Slot(_world.Kept):
    """A meeting time in one office for a party: the screen rooms that seat it and those of
    them that are free."""

    office_id: int
    day: date
    start: time
    end: time
    seats: int
    free: tuple[int, ...]
    fitting: tuple[int, ...]


@per_golden
def _slots(world: sqlite3.Connection) -> tuple[_Slot, ...]:
    """Every half-hour or hour meeting of the next two weeks' working days in every office,
    for each party size of `SEATS`."""
    calendar = _world.room_calendar(world)
    found = []
    by_office: dict[int, list[_world.Room]] = {}
    for room in _world.rooms(world):
        by_office.setdefault(room.office_id, []).append(room)
    for office_id, everything in sorted(by_office.items()):
        rooms = [r for r in everything if r.has(FEATURE)]
        first = _world.office_day(world, everything[0]) + timedelta(days=1)
        for day in _world.next_weekdays(first, 10):
            for start in STARTS:
                for minutes in (30, 60):
                    end = _world.plus_minutes(start, minutes)
                    for seats in SEATS:
                        fitting = [r for r in rooms if r.capacity >= seats]
                        free = tuple(
                            r.id
                            for r in fitting
                            if not calendar.busy(r, *_world.slot(r, day, start, end))
                        )
                        fits = tuple(r.id for r in fitting)
                        found.append(_Slot(office_id, day, start, end, seats, free, fits))
    return tuple(found)


@register
class BookRoomWithScreen(BookingTemplate):
    id = "booking.book_room_with_screen"
    difficulty = 3
    difficulty_reason = (
        "filter the office's rooms by seats and a screen on the day, find one free at the "
        "time, and book it with attendees picked in the type-ahead"
    )
    impossible_instances = True
    tags = ("search", "sort-filter", "form")
    max_steps = 45

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = _world.people(world)
        named = _world.unique_names(world)
        feasible = rng.random() >= IMPOSSIBLE_SHARE
        chosen = rng.choice([s for s in _slots(world) if bool(s.free) == feasible])
        office_id, day, start, end = chosen.office_id, chosen.day, chosen.start, chosen.end
        seats, free, fitting = chosen.seats, chosen.free, chosen.fitting
        here = sorted(p.id for p in people.values() if p.active and p.office_id == office_id)
        here = [i for i in here if people[i].name in named]
        user_id = rng.choice(here)
        attendees = rng.sample([i for i in here if i != user_id], seats - 1)
        rooms = {r.id: r for r in _world.rooms(world)}
        office = next(r for r in rooms.values() if r.office_id == office_id)
        # The app's own rule for the rooms chosen (the scan above reads rows once).
        checked = tuple(
            r
            for r in fitting
            if not _world.held(world, rooms[r], *_world.slot(rooms[r], day, start, end))
        )
        if checked != free:
            raise LookupError("the quick room scan disagrees with the app's rule")
        utc_start, utc_end = _world.slot(office, day, start, end)
        return {
            "user": people[user_id].email,
            "user_id": user_id,
            "feasible": feasible,
            "office": office.office,
            "day": day.isoformat(),
            "start": clock(start),
            "end": clock(end),
            "utc_start": utc_start.isoformat(sep=" "),
            "utc_end": utc_end.isoformat(sep=" "),
            "seats": seats,
            "attendee_ids": sorted(attendees),
            "attendees": [people[i].name for i in attendees],
            "rooms": list(free),
            "title": meeting_title(rng),
            "decoy": {"day": _world.next_weekdays(day + timedelta(days=1), 1)[0].isoformat()}
            if feasible
            else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(
            count=params["seats"],
            day=f"{_world.day_of(params['day']):%A}, {short_day(_world.day_of(params['day']))}",
            start=params["start"],
            end=params["end"],
            people=_join(params["attendees"]),
            title=params["title"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        day = _world.day_of(params["day"])
        start, end = time.fromisoformat(params["start"]), time.fromisoformat(params["end"])
        open_rooms(actions, params["office"], day, seats=params["seats"], equipment=[FEATURE])
        free = free_rooms(actions, start, end)
        if not free:
            actions.report_infeasible(
                f"No room in our office with a screen for {params['seats']} people is free then."
            )
            return
        book_room(actions, free[0], day, start, end, params["title"], params["attendees"])
        actions.send_msg_to_user(f"Booked {free[0]} for “{params['title']}”.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
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


__all__ = ["BookRoomWithScreen"]
