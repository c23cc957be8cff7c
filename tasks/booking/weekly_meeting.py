"""booking.weekly_meeting — set up a weekly meeting in a named room of the user's office, every
week of it free.

The first week is one of the next two weeks' working days, at a time on the half hour, for
half an hour or an hour, running three to eight weeks; the room is free at that office time
every one of those weeks (a clash is `weekly_meeting_clash`'s case). The verifier expects one
new series of that many weeks in that room by the user, titled as asked, with one booking at
each week's time (office time, so a daylight-saving change moves the hour in UTC, not on the
wall) inviting exactly the named colleagues, and nothing else. The wrong-record probe books the
same in another room of the office.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import time, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from . import _room_picks as picks
from . import _world
from ._form_texts import meeting_title
from ._formats import clock, short_day
from .base import BookingTemplate
from .ui import book_room

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

WEEKS = (3, 4, 5, 6, 8)
STARTS = tuple(time(h, m) for h in range(8, 17) for m in (0, 30))
_PHRASINGS = (
    "Book {room} for “{title}” every {weekday} from {start} to {end}, for {weeks} weeks "
    "starting {first}. Invite {people}.",
    "Set up a weekly meeting in {room}: “{title}”, {weekday}s {start}–{end}, {weeks} weeks "
    "from {first}, with {people}.",
    "I'd like {room} on {weekday}s, {start} to {end}, for the next {weeks} weeks beginning "
    "{first}. Call it “{title}” and add {people}.",
)


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@register
class WeeklyMeeting(BookingTemplate):
    id = "booking.weekly_meeting"
    difficulty = 3
    difficulty_reason = (
        "fill the room form for the named room with the date, times, title, a weekly repeat "
        "and attendees picked in the type-ahead"
    )
    tags = ("form", "multi-step")
    max_steps = 24

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = _world.people(world)
        named = _world.unique_names(world)
        rooms = _world.rooms(world)
        for _ in range(200):
            room = rng.choice(rooms)
            first = rng.choice(
                _world.next_weekdays(_world.office_day(world, room) + timedelta(days=1), 10)
            )
            start = rng.choice(STARTS)
            end = _world.plus_minutes(start, rng.choice((30, 60)))
            weeks = rng.choice(WEEKS)
            spans = picks.weeks_free(world, room, first, start, end, weeks)
            here = sorted(
                p.id
                for p in people.values()
                if p.active and p.office_id == room.office_id and p.name in named
            )
            if spans is not None and len(here) >= 3:
                break
        else:
            raise LookupError("no weekly slot free every week in 200 tries")
        user_id = rng.choice(here)
        attendees = rng.sample(
            [i for i in here if i != user_id], min(rng.choice((1, 2, 3)), room.capacity - 1)
        )
        others = [r for r in rooms if r.office_id == room.office_id and r.id != room.id]
        return {
            "user": people[user_id].email,
            "user_id": user_id,
            "room_id": room.id,
            "room": room.name,
            "office": room.office,
            "first": first.isoformat(),
            "start": clock(start),
            "end": clock(end),
            "weeks": weeks,
            "occurrences": [[s.isoformat(sep=" "), e.isoformat(sep=" ")] for s, e in spans],
            "attendee_ids": sorted(attendees),
            "attendees": [people[i].name for i in attendees],
            "title": meeting_title(rng),
            "decoy": {"room": rng.choice(others).name} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first = _world.day_of(params["first"])
        return rng.choice(_PHRASINGS).format(
            room=params["room"],
            title=params["title"],
            weekday=f"{first:%A}",
            start=params["start"],
            end=params["end"],
            weeks=params["weeks"],
            first=f"{first:%A}, {short_day(first)}",
            people=_join(params["attendees"]),
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        book_room(
            actions,
            params["room"],
            _world.day_of(params["first"]),
            time.fromisoformat(params["start"]),
            time.fromisoformat(params["end"]),
            params["title"],
            params["attendees"],
            weeks=params["weeks"],
        )
        actions.send_msg_to_user(
            f"Booked {params['room']} weekly for {params['weeks']} weeks: “{params['title']}”."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        occurrences = [(_world.moment(s), _world.moment(e)) for s, e in params["occurrences"]]
        return expect.grade(
            ctx,
            *checks.series_booked(
                params["room_id"],
                params["user_id"],
                params["weeks"],
                occurrences,
                params["title"],
                params["attendee_ids"],
            ),
            expect.nothing_else(),
        )


__all__ = ["WeeklyMeeting"]
