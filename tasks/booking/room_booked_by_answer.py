"""booking.room_booked_by_answer — who booked a meeting room at a given day and time.

Anyone in the company sees each booking's title and organizer on an office's day grid. The
slot asked about is the start of a confirmed booking that the grid shows whole (07:00-20:00
office time, within one day), from two weeks back to three weeks ahead; no other reservation
of that room, whatever its status, overlaps it, and its organizer's name is the only one of
its kind in the company. The answer is that name as the grid shows it. Plausible wrong
answers: the organizers of the room's bookings just before and after it and of its other
bookings that day. The wrong-record probe asks about the room's next booking (by someone
else).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import time, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _room_picks as picks
from . import _world
from ._formats import clock, short_day
from .base import BookingTemplate
from .ui import open_rooms

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Who booked {room} at {office} on {day} at {time}?",
    "Someone has {room} ({office}) on {day} at {time}. Who booked it?",
    "Can you check who reserved {room} in {office} for {day} at {time}? I need their name.",
)
BACK, AHEAD = timedelta(days=14), timedelta(days=21)


@per_golden
def _askable(world: sqlite3.Connection) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """(booking, the room's next booking, the other bookings of the room near it) for every
    booking that may be asked about: see the module doc."""
    people = _world.people(world)
    named = _world.unique_names(world)
    rooms = {r.id: r for r in _world.rooms(world)}
    by_room: dict[int, list[picks.Meeting]] = {}
    for meeting in picks.meetings(world):
        by_room.setdefault(meeting.room_id, []).append(meeting)
    found = []
    for room_id, everything in sorted(by_room.items()):
        room = rooms[room_id]
        today = _world.office_day(world, room)
        shown = [m for m in everything if m.status == "confirmed" and picks.on_grid(m, room)]
        for i, meeting in enumerate(shown):
            day = picks.local_span(meeting, room.timezone)[0].date()
            if not today - BACK <= day <= today + AHEAD:
                continue
            who = people[meeting.organizer_id].name
            if who not in named:
                continue
            overlapping = [
                m
                for m in everything
                if m.id != meeting.id and m.start < meeting.end and m.end > meeting.start
            ]
            if overlapping:
                continue
            later = [
                m
                for m in shown[i + 1 :]
                if people[m.organizer_id].name != who and people[m.organizer_id].name in named
            ]
            if not later:
                continue
            near = [
                m.id
                for m in shown
                if m.id != meeting.id
                and (
                    picks.local_span(m, room.timezone)[0].date() == day or m is shown[max(i - 1, 0)]
                )
            ]
            found.append((meeting.id, later[0].id, tuple(near)))
    return tuple(found)


@register
class RoomBookedByAnswer(BookingTemplate):
    id = "booking.room_booked_by_answer"
    difficulty = 2
    difficulty_reason = (
        "open the office's rooms on the day and read the organizer of the room's booking at "
        "that time off the grid"
    )
    tags = ("navigation", "answer")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = _world.people(world)
        rooms = {r.id: r for r in _world.rooms(world)}
        by_id = {m.id: m for m in picks.meetings(world)}
        booking_id, next_id, near = rng.choice(_askable(world))
        meeting, following = by_id[booking_id], by_id[next_id]
        room = rooms[meeting.room_id]
        who = people[meeting.organizer_id].name
        start = picks.local_span(meeting, room.timezone)[0]
        later = picks.local_span(following, room.timezone)[0]
        viewers = sorted(
            p.id
            for p in people.values()
            if p.active and p.office_id == room.office_id and p.id != meeting.organizer_id
        )
        user_id = rng.choice(viewers)
        others = [people[following.organizer_id].name]
        others += [people[by_id[i].organizer_id].name for i in near]
        wrong = [n for n in dict.fromkeys(others) if n != who]
        return {
            "user": people[user_id].email,
            "reservation_id": meeting.id,
            "room": room.name,
            "office": room.office,
            "office_id": room.office_id,
            "day": start.date().isoformat(),
            "time": clock(start.time()),
            "organizer": who,
            "candidates": [who, *wrong],
            "decoy": {"day": later.date().isoformat(), "time": clock(later.time())},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        day = _world.day_of(params["day"])
        return rng.choice(_PHRASINGS).format(
            room=params["room"],
            office=params["office"],
            day=f"{day:%A}, {short_day(day)}",
            time=params["time"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_rooms(actions, params["office"], _world.day_of(params["day"]))
        who = picks.organizer_on_grid(actions, params["room"], time.fromisoformat(params["time"]))
        if who is None:
            raise LookupError(f"the grid shows no booking of {params['room']} at {params['time']}")
        actions.send_msg_to_user(f"{who} booked it.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(
                params["organizer"],
                kind="name",
                distractors=params["candidates"][1:],
                name="the organizer",
            ),
            expect.nothing_else(),
        )


__all__ = ["RoomBookedByAnswer"]
