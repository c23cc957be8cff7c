"""The Booking templates that book meeting rooms, without a browser: instances on the small
seed-0 world, and each verifier on final worlds made through the Booking service, right and
wrong: a room without a screen or too small, the wrong time, an attendee too many or too few,
someone else as the organizer, the free weeks booked one by one, the wrong clashing date, and
the right work reported infeasible."""

from __future__ import annotations

import contextlib
from datetime import timedelta

import pytest

from officegym.apps.booking import service
from officegym.tasks import registry
from officegym.tasks.booking import _world

from .acts import fails, passes, pick, play

IDS = ("booking.book_room_with_screen", "booking.weekly_meeting_clash")
SEEDS = range(30)
SCREEN, WEEKLY = IDS


def meeting(params, room_id: int, shift=timedelta(0), attendees=None, organizer=None):
    """An act: the organizer (default the user) books `room_id` at the instance's time."""
    start = _world.moment(params["utc_start"]) + shift
    end = _world.moment(params["utc_end"]) + shift

    def act(db, people):
        service.book_room(
            db,
            people(organizer or params["user"]),
            resource_id=room_id,
            start=start,
            end=end,
            title=params["title"],
            attendee_ids=params["attendee_ids"] if attendees is None else attendees,
        )

    return act


def weekly(params, room_id: int | None = None, attendees=None):
    """An act: the user books the instance's six weeks, the free ones only."""

    def act(db, people):
        service.book_room_series(
            db,
            people(params["user"]),
            resource_id=room_id or params["room_id"],
            start=_world.moment(params["utc_start"]),
            end=_world.moment(params["utc_end"]),
            weeks=6,
            title=params["title"],
            attendee_ids=params["attendee_ids"] if attendees is None else attendees,
            skip_clashes=True,
        )

    return act


# -- instances -------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_in_the_users_office(golden, world, instances, tid):
    people = {p.email: p for p in _world.people(world).values()}
    rooms = {r.id: r for r in _world.rooms(world)}
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        p = task.params
        user = people[p["user"]]
        assert user.active and user.id not in p["attendee_ids"]
        assert all(name in task.goal for name in p["attendees"])
        offices = {rooms[r].office_id for r in p.get("rooms", [p.get("room_id")]) if r}
        assert offices <= {user.office_id}
    assert len({t.goal for t in instances[tid]}) >= 6


def test_screen_rooms_offered_fit_the_party_and_are_free(world, instances):
    rooms = {r.id: r for r in _world.rooms(world)}
    for task in instances[SCREEN]:
        p = task.params
        start, end = _world.moment(p["utc_start"]), _world.moment(p["utc_end"])
        assert p["seats"] == len(p["attendee_ids"]) + 1
        for room_id in p["rooms"]:
            room = rooms[room_id]
            assert room.has("screen") and room.capacity >= p["seats"]
            assert not _world.held(world, room, start, end)
        assert bool(p["rooms"]) is p["feasible"]


def test_weekly_instances_clash_on_exactly_one_week(world, instances):
    rooms = {r.id: r for r in _world.rooms(world)}
    for task in instances[WEEKLY]:
        p = task.params
        room = rooms[p["room_id"]]
        assert len(p["occurrences"]) == 5 and p["room"] in task.goal
        for start, end in p["occurrences"]:
            assert not _world.held(world, room, _world.moment(start), _world.moment(end))


# -- a room with a screen ----------------------------------------------------------------------


def test_any_free_screen_room_that_fits_passes_and_nothing_done_scores_zero(
    store, golden, instances
):
    params = pick(instances, SCREEN, when=lambda p: len(p["rooms"]) >= 2)
    for room_id in (params["rooms"][0], params["rooms"][-1]):
        assert passes(play(store, golden, SCREEN, params, meeting(params, room_id)))
    untouched = play(store, golden, SCREEN, params)
    assert not untouched.success and untouched.score == 0.0


def test_a_room_without_a_screen_or_too_small_fails(store, golden, world, instances):
    params = pick(instances, SCREEN)
    office = next(r for r in _world.rooms(world) if r.id == params["rooms"][0])
    start, end = _world.moment(params["utc_start"]), _world.moment(params["utc_end"])
    others = [
        r
        for r in _world.rooms(world)
        if r.office_id == office.office_id
        and r.id not in params["rooms"]
        and r.capacity >= params["seats"]
        and not _world.held(world, r, start, end)
    ]
    for room in others:
        assert fails(play(store, golden, SCREEN, params, meeting(params, room.id)))


def test_the_wrong_time_attendees_or_organizer_fail(store, golden, world, instances):
    params = pick(instances, SCREEN, when=lambda p: len(p["attendee_ids"]) >= 2)
    room = params["rooms"][0]
    assert fails(play(store, golden, SCREEN, params, meeting(params, room, timedelta(minutes=30))))
    fewer = meeting(params, room, attendees=params["attendee_ids"][1:])
    assert fails(play(store, golden, SCREEN, params, fewer))
    user = next(p for p in _world.people(world).values() if p.email == params["user"])
    extra = next(
        p.id
        for p in _world.people(world).values()
        if p.active and p.id != user.id and p.id not in params["attendee_ids"]
    )
    capacity = {r.id: r.capacity for r in _world.rooms(world)}
    roomy = max(params["rooms"], key=lambda r: capacity[r])
    if capacity[roomy] > params["seats"]:
        more = meeting(params, roomy, attendees=[*params["attendee_ids"], extra])
        assert fails(play(store, golden, SCREEN, params, more))
    someone = _world.people(world)[params["attendee_ids"][0]]
    invited = [user.id, *params["attendee_ids"][1:]]
    theirs = meeting(params, room, attendees=invited, organizer=someone.email)
    assert fails(play(store, golden, SCREEN, params, theirs))
    twice = play(
        store, golden, SCREEN, params, meeting(params, room), meeting(params, params["rooms"][-1])
    )
    if len(params["rooms"]) > 1:
        assert fails(twice)
    right = meeting(params, room)
    assert fails(play(store, golden, SCREEN, params, right, infeasible="All taken."))


def test_when_no_screen_room_fits_only_the_report_passes(store, golden, instances):
    params = pick(instances, SCREEN, feasible=False)
    assert passes(play(store, golden, SCREEN, params, infeasible="Nothing fits."))
    assert fails(play(store, golden, SCREEN, params))


# -- weekly, with a clash --------------------------------------------------------------------


def test_the_free_weeks_and_the_clashing_date_pass(store, golden, instances):
    params = pick(instances, WEEKLY)
    clash = _world.day_of(params["clash"])
    for text in (clash.isoformat(), f"Booked 5 weeks; {clash:%A %d %B %Y} was taken."):
        verdict = play(store, golden, WEEKLY, params, weekly(params), answer=text)
        assert passes(verdict), (text, verdict)


def test_a_wrong_date_or_no_date_fails(store, golden, instances):
    params = pick(instances, WEEKLY)
    clash = _world.day_of(params["clash"])
    act = weekly(params)
    for text in (
        (clash + timedelta(weeks=1)).isoformat(),
        f"{clash.isoformat()} or {(clash + timedelta(weeks=1)).isoformat()}",
        "One week clashed.",
    ):
        assert fails(play(store, golden, WEEKLY, params, act, answer=text)), text
    assert fails(play(store, golden, WEEKLY, params, answer=clash.isoformat()))


def test_another_room_other_attendees_or_single_bookings_fail(store, golden, world, instances):
    params = pick(instances, WEEKLY, when=lambda p: p["decoy"])
    answer = params["clash"]
    other = next(r.id for r in _world.rooms(world) if r.name == params["decoy"]["room"])
    with contextlib.suppress(service.RoomTaken):
        assert fails(play(store, golden, WEEKLY, params, weekly(params, other), answer=answer))
    nobody = weekly(params, attendees=[])
    assert fails(play(store, golden, WEEKLY, params, nobody, answer=answer))

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

    assert fails(play(store, golden, WEEKLY, params, one_by_one, answer=answer))
