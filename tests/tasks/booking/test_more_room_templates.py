"""More meeting-room templates, without a browser: instances on the small seed-0 world, and
each verifier on final worlds made through the Booking service, right and wrong: another
booking cancelled or a stray one besides, another room, one week short, the weeks booked one by
one, the wrong hour (too early is taken, too late is not the first), a room without the
equipment, an attendee missing, and answers that name the next organizer, hedge or say
nothing."""

from __future__ import annotations

import contextlib
from datetime import time, timedelta

import pytest

from officegym.apps.booking import service
from officegym.tasks import registry
from officegym.tasks.booking import _room_picks as picks
from officegym.tasks.booking import _world

from .acts import fails, passes, pick, play

IDS = (
    "booking.cancel_room_booking",
    "booking.weekly_meeting",
    "booking.room_booked_by_answer",
    "booking.book_room_for_attendees",
)
SEEDS = range(30)
CANCEL, WEEKLY, WHO, FIRST = IDS


def _meeting(world, reservation_id: int) -> picks.Meeting:
    return next(m for m in picks.meetings(world) if m.id == reservation_id)


def cancelling(params, reservation_id: int | None = None):
    def act(db, people):
        service.cancel_reservation(
            db, people(params["user"]), reservation_id=reservation_id or params["reservation_id"]
        )

    return act


def series(params, room_id: int | None = None, weeks: int | None = None, attendees=None):
    """An act: the user books the instance's weekly meeting."""

    def act(db, people):
        start, end = params["occurrences"][0]
        service.book_room_series(
            db,
            people(params["user"]),
            resource_id=room_id or params["room_id"],
            start=_world.moment(start),
            end=_world.moment(end),
            weeks=weeks or params["weeks"],
            title=params["title"],
            attendee_ids=params["attendee_ids"] if attendees is None else attendees,
        )

    return act


def booking(params, room_id: int, shift=timedelta(0), attendees=None):
    """An act: the user books `room_id` at the instance's hour (shifted by `shift`)."""

    def act(db, people):
        service.book_room(
            db,
            people(params["user"]),
            resource_id=room_id,
            start=_world.moment(params["utc_start"]) + shift,
            end=_world.moment(params["utc_end"]) + shift,
            title=params["title"],
            attendee_ids=params["attendee_ids"] if attendees is None else attendees,
        )

    return act


# -- instances -------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_varied(golden, world, instances, tid):
    people = {p.email: p for p in _world.people(world).values()}
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        assert people[task.params["user"]].active
    assert len({t.goal for t in instances[tid]}) >= 6


def test_cancel_instances_name_an_upcoming_booking_of_the_user_alone_on_its_day(world, instances):
    people = {p.email: p for p in _world.people(world).values()}
    rooms = {r.id: r for r in _world.rooms(world)}
    for task in instances[CANCEL]:
        p = task.params
        found = _meeting(world, p["reservation_id"])
        user = people[p["user"]]
        room = rooms[found.room_id]
        assert found.organizer_id == user.id and found.status == "confirmed"
        assert found.title == p["title"] and p["title"] in task.goal
        day = picks.local_span(found, room.timezone)[0].date()
        assert day.isoformat() == p["day"] and day > _world.office_day(world, room)
        same = [
            m
            for m in picks.calendars(world).of(user.id)
            if m.title == found.title and picks.local_span(m, room.timezone)[0].date() == day
        ]
        assert [m.id for m in same] == [found.id]
    assert sum(1 for t in instances[CANCEL] if t.params["decoy"]) >= 15


def test_weekly_instances_are_free_every_week_in_the_users_office(world, instances):
    people = {p.email: p for p in _world.people(world).values()}
    rooms = {r.id: r for r in _world.rooms(world)}
    for task in instances[WEEKLY]:
        p = task.params
        room = rooms[p["room_id"]]
        assert room.office_id == people[p["user"]].office_id and p["room"] in task.goal
        assert len(p["occurrences"]) == p["weeks"] >= 3
        for start, end in p["occurrences"]:
            assert not _world.held(world, room, _world.moment(start), _world.moment(end))
        assert len(p["attendee_ids"]) + 1 <= room.capacity
        assert all(name in task.goal for name in p["attendees"])


def test_who_instances_ask_about_one_booking_shown_on_the_grid(world, instances):
    rooms = {r.id: r for r in _world.rooms(world)}
    people = _world.people(world)
    named = _world.unique_names(world)
    for task in instances[WHO]:
        p = task.params
        found = _meeting(world, p["reservation_id"])
        room = rooms[found.room_id]
        start = picks.local_span(found, room.timezone)[0]
        assert (room.name, start.date().isoformat(), f"{start:%H:%M}") == (
            p["room"],
            p["day"],
            p["time"],
        )
        assert picks.on_grid(found, room) and found.status == "confirmed"
        assert people[found.organizer_id].name == p["organizer"] in named
        assert p["candidates"][0] == p["organizer"] and len(p["candidates"]) >= 2
        assert p["organizer"] not in p["candidates"][1:]
        others = [
            m
            for m in picks.meetings(world)
            if m.room_id == found.room_id
            and m.id != found.id
            and m.start < found.end
            and m.end > found.start
        ]
        assert not others


def test_first_hour_instances_pick_the_first_hour_a_fitting_room_is_free(world, instances):
    people = {p.email: p for p in _world.people(world).values()}
    for task in instances[FIRST]:
        p = task.params
        user = people[p["user"]]
        day = _world.day_of(p["day"])
        rooms = picks.fitting(
            [r for r in _world.rooms(world) if r.office_id == user.office_id],
            p["seats"],
            p["feature"],
        )
        assert p["seats"] == len(p["attendee_ids"]) + 1
        first, hour = int(p["first"][:2]), int(p["start"][:2])
        for earlier in range(first, hour):
            assert picks.free_at(rooms, day, earlier, world=world) == ()
        assert picks.free_at(rooms, day, hour, world=world) == tuple(p["rooms"]) != ()
    assert any(t.params["start"] != t.params["first"] for t in instances[FIRST])


# -- cancel a room booking -------------------------------------------------------------------


def test_cancelling_the_booking_passes_and_nothing_done_scores_zero(store, golden, instances):
    params = pick(instances, CANCEL)
    assert passes(play(store, golden, CANCEL, params, cancelling(params)))
    untouched = play(store, golden, CANCEL, params)
    assert not untouched.success and untouched.score == 0.0


def test_cancelling_another_booking_or_one_more_fails(store, golden, world, instances):
    params = pick(instances, CANCEL, when=lambda p: p["decoy"])
    zones = {r.id: r.timezone for r in _world.rooms(world)}
    other = next(
        m.id
        for m in picks.calendars(world).of(params["user_id"])
        if m.title == params["decoy"]["title"]
        and m.organizer_id == params["user_id"]
        and picks.local_span(m, zones[m.room_id])[0].date().isoformat() == params["decoy"]["day"]
    )
    assert fails(play(store, golden, CANCEL, params, cancelling(params, other)))
    both = play(store, golden, CANCEL, params, cancelling(params), cancelling(params, other))
    assert fails(both)


def test_cancelling_and_booking_again_fails(store, golden, world, instances):
    params = pick(instances, CANCEL)
    found = _meeting(world, params["reservation_id"])

    def rebook(db, people):
        service.book_room(
            db,
            people(params["user"]),
            resource_id=found.room_id,
            start=found.start,
            end=found.end,
            title=found.title,
        )

    assert fails(play(store, golden, CANCEL, params, cancelling(params), rebook))
    assert fails(play(store, golden, CANCEL, params, cancelling(params), infeasible="Can't."))


# -- a weekly meeting ------------------------------------------------------------------------


def test_the_weekly_series_passes(store, golden, instances):
    for params in (pick(instances, WEEKLY), pick(instances, WEEKLY, lambda p: p["weeks"] > 4)):
        assert passes(play(store, golden, WEEKLY, params, series(params)))
    params = pick(instances, WEEKLY)
    assert play(store, golden, WEEKLY, params).score == 0.0


def test_another_room_a_week_short_or_other_attendees_fail(store, golden, world, instances):
    params = pick(instances, WEEKLY, when=lambda p: p["decoy"] and len(p["attendee_ids"]) > 1)
    other = next(r.id for r in _world.rooms(world) if r.name == params["decoy"]["room"])
    with contextlib.suppress(service.RoomTaken):
        assert fails(play(store, golden, WEEKLY, params, series(params, room_id=other)))
    short = series(params, weeks=params["weeks"] - 1)
    assert fails(play(store, golden, WEEKLY, params, short))
    fewer = series(params, attendees=params["attendee_ids"][1:])
    assert fails(play(store, golden, WEEKLY, params, fewer))


def test_the_weeks_booked_one_by_one_fail(store, golden, instances):
    params = pick(instances, WEEKLY)

    def one_by_one(db, people):
        for start, end in params["occurrences"]:
            service.book_room(
                db,
                people(params["user"]),
                resource_id=params["room_id"],
                start=_world.moment(start),
                end=_world.moment(end),
                title=params["title"],
                attendee_ids=params["attendee_ids"],
            )

    assert fails(play(store, golden, WEEKLY, params, one_by_one))


# -- who booked the room ---------------------------------------------------------------------


def test_the_organizers_name_passes_in_any_common_form(store, golden, instances):
    params = pick(instances, WHO)
    first, *_rest, last = params["organizer"].split()
    for text in (
        params["organizer"],
        f"It was booked by {params['organizer']}.",
        f"{last}, {first}",
    ):
        assert passes(play(store, golden, WHO, params, answer=text)), text


def test_another_organizer_a_hedge_or_no_answer_fails(store, golden, instances):
    params = pick(instances, WHO)
    right, wrong = params["candidates"][0], params["candidates"][1]
    for text in (wrong, f"{right} or {wrong}", "; ".join(params["candidates"]), "Not sure."):
        assert fails(play(store, golden, WHO, params, answer=text)), text
    assert fails(play(store, golden, WHO, params))
    assert fails(play(store, golden, WHO, params, infeasible="The grid is empty."))


# -- the first free hour ---------------------------------------------------------------------


def test_any_fitting_room_free_at_the_first_hour_passes(store, golden, instances):
    params = pick(instances, FIRST, when=lambda p: len(p["rooms"]) > 1)
    for room_id in (params["rooms"][0], params["rooms"][-1]):
        assert passes(play(store, golden, FIRST, params, booking(params, room_id)))
    assert play(store, golden, FIRST, params).score == 0.0


def test_a_later_hour_or_an_earlier_one_fails(store, golden, world, instances):
    params = pick(instances, FIRST, when=lambda p: p["decoy"] and p["start"] != p["first"])
    room_id = params["rooms"][0]
    rooms = {r.id: r for r in _world.rooms(world)}
    later = booking(params, room_id, timedelta(hours=1))
    with contextlib.suppress(service.RoomTaken):
        assert fails(play(store, golden, FIRST, params, later))
    earlier = [
        r
        for r in rooms.values()
        if r.office_id == rooms[room_id].office_id
        and r.capacity >= params["seats"]
        and not _world.held(
            world,
            r,
            *_world.slot(
                r, _world.day_of(params["day"]), time(int(params["first"][:2])),
                time(int(params["first"][:2]) + 1),
            ),
        )
    ]  # fmt: skip
    first = int(params["first"][:2]) - int(params["start"][:2])
    for room in earlier:
        assert room.id not in params["rooms"] or first == 0
        act = booking(params, room.id, timedelta(hours=first))
        assert fails(play(store, golden, FIRST, params, act))


def test_a_room_without_the_equipment_or_an_attendee_missing_fails(store, golden, world, instances):
    params = pick(instances, FIRST, when=lambda p: len(p["attendee_ids"]) > 1)
    rooms = {r.id: r for r in _world.rooms(world)}
    office = rooms[params["rooms"][0]].office_id
    start, end = _world.moment(params["utc_start"]), _world.moment(params["utc_end"])
    lacking = [
        r
        for r in rooms.values()
        if r.office_id == office
        and r.id not in params["rooms"]
        and r.capacity >= params["seats"]
        and not _world.held(world, r, start, end)
    ]
    for room in lacking:
        assert not room.has(params["feature"])
        assert fails(play(store, golden, FIRST, params, booking(params, room.id)))
    fewer = booking(params, params["rooms"][0], attendees=params["attendee_ids"][1:])
    assert fails(play(store, golden, FIRST, params, fewer))
