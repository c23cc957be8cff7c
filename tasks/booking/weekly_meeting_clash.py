"""booking.weekly_meeting_clash — set up a six-week weekly meeting in a named room where one
week is already taken: book the free weeks and say which date clashed (test split).

The room is in the user's office; the first week is within the next two weeks, at a time on
the half hour, and exactly one of the six weeks is held (another booking overlaps, or the room
is closed that day). The booking form refuses a series with a clash and offers to book the
free weeks only. The verifier expects one new six-week series in that room by the user, titled
as asked, with one booking at each free week's time (office time, so a daylight-saving change
moves the hour in UTC, not on the wall) inviting exactly the named colleagues, the clashing
date stated, and nothing else. The wrong-record probe books the same in another room of the
office.
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
from ._formats import clock, long_day, weekday_long
from .base import BookingTemplate
from .ui import book_free_weeks, book_room, clashing_days

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

WEEKS = 6
STARTS = tuple(time(h, m) for h in range(8, 17) for m in (0, 30))
# Test split: phrased unlike any training goal.
_PHRASINGS = (
    "Set up “{title}” as a recurring booking of {room} ({office}): every {weekday}, "
    "{start}–{end}, six weeks running from {first}, with {people}. Should any week already be "
    "taken, keep the others and tell me the date that collided.",
    "Please reserve {room} at {office} weekly for “{title}” — {weekday}s between {start} and {end}, "
    "starting {first}, for six consecutive weeks — and add {people}. Where a week is "
    "unavailable, go ahead with the open weeks and report the conflicting date.",
    "I want {room} in {office} held for “{title}” on {weekday}s from {start} until {end}, "
    "beginning {first} and repeating for six weeks; invite {people}. One week might be "
    "occupied: book what's free and let me know which date that was.",
)


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{names[0]} plus {names[1]}"


@dataclass(frozen=True)
class _Weekly(_world.Kept):
    """A weekly meeting of `WEEKS` weeks in a room from its first day, one week of it held."""

    room_id: int
    first: date
    start: time
    end: time
    held: int


@per_golden
def _series(world: sqlite3.Connection) -> tuple[_Weekly, ...]:
    """Every weekly half-hour or hour slot starting on the next two weeks' working days whose
    six weeks are all free but one."""
    calendar = _world.room_calendar(world)
    found = []
    for room in _world.rooms(world):
        first = _world.office_day(world, room) + timedelta(days=1)
        for day in _world.next_weekdays(first, 10):
            for start in STARTS:
                for minutes in (30, 60):
                    end = _world.plus_minutes(start, minutes)
                    held = [
                        week
                        for week in range(WEEKS)
                        if calendar.busy(
                            room, *_world.slot(room, day + timedelta(weeks=week), start, end)
                        )
                    ]
                    if len(held) == 1:
                        found.append(_Weekly(room.id, day, start, end, held[0]))
    return tuple(found)


@register
class WeeklyMeetingClash(BookingTemplate):
    id = "booking.weekly_meeting_clash"
    difficulty = 4
    difficulty_reason = (
        "fill the room form with a weekly repeat and attendees, read the clash it reports, "
        "book only the free weeks and report the clashing date"
    )
    split = "test"
    tags = ("form", "multi-step", "answer")
    max_steps = 24

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = _world.people(world)
        named = _world.unique_names(world)
        rooms = {r.id: r for r in _world.rooms(world)}
        chosen = rng.choice(_series(world))
        room_id, first, start, end = chosen.room_id, chosen.first, chosen.start, chosen.end
        clash = chosen.held
        room = rooms[room_id]
        here = sorted(
            p.id
            for p in people.values()
            if p.active and p.office_id == room.office_id and p.name in named
        )
        user_id = rng.choice(here)
        attendees = rng.sample([i for i in here if i != user_id], rng.choice((1, 2)))
        weeks = [first + timedelta(weeks=w) for w in range(WEEKS)]
        spans = [_world.slot(room, day, start, end) for day in weeks]
        # The app's own rule for the six weeks chosen (the scan above reads rows once).
        held = [w for w, span in enumerate(spans) if _world.held(world, room, *span)]
        if held != [clash]:
            raise LookupError("the quick room scan disagrees with the app's rule")
        others = [r for r in rooms.values() if r.office_id == room.office_id and r.id != room_id]
        return {
            "user": people[user_id].email,
            "user_id": user_id,
            "room_id": room_id,
            "room": room.name,
            "office": room.office,
            "first": first.isoformat(),
            "start": clock(start),
            "end": clock(end),
            "clash": weeks[clash].isoformat(),
            "utc_start": spans[0][0].isoformat(sep=" "),
            "utc_end": spans[0][1].isoformat(sep=" "),
            "occurrences": [
                [s.isoformat(sep=" "), e.isoformat(sep=" ")]
                for w, (s, e) in enumerate(spans)
                if w != clash
            ],
            "attendee_ids": sorted(attendees),
            "attendees": [people[i].name for i in attendees],
            "title": meeting_title(rng),
            "decoy": {"room": rng.choice(others).name} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first = _world.day_of(params["first"])
        return rng.choice(_PHRASINGS).format(
            title=params["title"],
            room=params["room"],
            office=params["office"],
            weekday=f"{first:%A}",
            start=params["start"],
            end=params["end"],
            first=long_day(first),
            people=_join(params["attendees"]),
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        first = _world.day_of(params["first"])
        start, end = time.fromisoformat(params["start"]), time.fromisoformat(params["end"])
        book_room(
            actions, params["room"], first, start, end, params["title"], params["attendees"],
            weeks=WEEKS,
        )  # fmt: skip
        clashes = clashing_days(actions)
        book_free_weeks(actions)
        if len(clashes) != 1:
            actions.send_msg_to_user(f"Booked {params['room']}; {len(clashes)} weeks clashed.")
            return
        actions.send_msg_to_user(
            f"Booked the free weeks; {weekday_long(clashes[0])} {clashes[0].year} was taken."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        occurrences = [(_world.moment(s), _world.moment(e)) for s, e in params["occurrences"]]
        return expect.grade(
            ctx,
            *checks.series_booked(
                params["room_id"],
                params["user_id"],
                WEEKS,
                occurrences,
                params["title"],
                params["attendee_ids"],
            ),
            expect.answer(_world.day_of(params["clash"]), kind="date", name="the clashing date"),
            expect.nothing_else(),
        )


__all__ = ["WeeklyMeetingClash"]
