"""The Booking templates about the user's own trips, without a browser: instances on the small
seed-0 world, and each verifier on final worlds made through the Booking service, right and
wrong: another trip cancelled or moved, the wrong dates, a stray cancellation, an answer off by
a cent or hedged, a stay that has begun (which the app refuses to touch), and the right work
reported infeasible."""

from __future__ import annotations

from datetime import timedelta

import pytest

from officegym.apps.booking import service
from officegym.apps.web.errors import Conflict
from officegym.seed_data import booking_rules
from officegym.tasks import registry
from officegym.tasks.booking import _world
from officegym.tasks.booking._formats import money
from officegym.tasks.booking.team_nights_answer import periods

from .acts import fails, passes, pick, play

IDS = (
    "booking.trip_total_answer",
    "booking.cancel_trip_refund",
    "booking.change_trip_dates",
    "booking.team_nights_answer",
)
SEEDS = range(30)
TOTAL, CANCEL, CHANGE, NIGHTS = IDS


def trip(world, reservation_id: int) -> _world.Trip:
    return next(t for t in _world.trips(world) if t.id == reservation_id)


def cancelling(params, reservation_id: int | None = None):
    def act(db, people):
        service.cancel_reservation(
            db, people(params["user"]), reservation_id=reservation_id or params["reservation_id"]
        )

    return act


def moving(params, check_in=None, check_out=None, reservation_id=None):
    def act(db, people):
        service.change_stay_dates(
            db,
            people(params["user"]),
            reservation_id=reservation_id or params["reservation_id"],
            check_in=check_in or params["new_check_in"],
            check_out=check_out or params["new_check_out"],
        )

    return act


# -- instances -------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_about_the_users_own_travel(golden, world, instances, tid):
    people = {p.email: p for p in _world.people(world).values()}
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        p = task.params
        assert people[p["user"]].active
        if "reservation_id" in p:
            found = trip(world, p["reservation_id"])
            assert found.guest_id == people[p["user"]].id and found.city == p["city"]
            assert p["city"] in task.goal and found.status == "confirmed"
            same_city = [t for t in _world.trips_of(world, found.guest_id) if t.city == found.city]
            assert len(same_city) == 1
    assert len({t.goal for t in instances[tid]}) >= 6


def test_cancel_instances_are_upcoming_or_already_begun(world, instances):
    today = _world.world_today(world)
    kinds = {True: 0, False: 0}
    for task in instances[CANCEL]:
        p = task.params
        found = trip(world, p["reservation_id"])
        kinds[p["feasible"]] += 1
        if p["feasible"]:
            assert found.check_in >= today
            policy = found.cancellation
            assert p["refund_cents"] == booking_rules.refund_cents(
                policy, today, found.check_in, found.total_cents
            )
        else:
            assert found.check_in < today < found.check_out
    assert kinds[False] >= 1 and kinds[True] >= len(SEEDS) // 2


# -- the trip's total --------------------------------------------------------------------------


def test_the_total_passes_and_nothing_said_scores_zero(store, golden, instances):
    params = pick(instances, TOTAL)
    total = money(params["total_cents"])
    for text in (total, f"It came to {total}.", f"{total[1:]} USD all in"):
        assert passes(play(store, golden, TOTAL, params, answer=text)), text
    silent = play(store, golden, TOTAL, params)
    assert not silent.success and silent.score == 0.0


def test_a_total_off_by_a_cent_another_trips_total_or_a_hedge_fails(store, golden, instances):
    params = pick(instances, TOTAL, when=lambda p: len(p["candidates"]) >= 3)
    cents = params["total_cents"]
    for text in (
        money(cents + 1),
        money(cents - 1),
        params["candidates"][1],
        f"{money(cents)} or {params['candidates'][1]}",
        f"roughly {money(cents)}",
        "; ".join(params["candidates"]),
    ):
        assert fails(play(store, golden, TOTAL, params, answer=text)), text
    assert fails(play(store, golden, TOTAL, params, answer=money(cents), infeasible="no trip"))


def test_the_total_with_a_stray_cancellation_fails(store, golden, world, instances):
    today = _world.world_today(world).isoformat()
    params = pick(instances, TOTAL, when=lambda p: p["check_in"] >= today)
    act = cancelling(params)
    assert fails(play(store, golden, TOTAL, params, act, answer=money(params["total_cents"])))


# -- cancel and say the refund -----------------------------------------------------------------


def test_cancelling_and_stating_the_refund_passes(store, golden, instances):
    params = pick(instances, CANCEL)
    refund = money(params["refund_cents"])
    for text in (f"Cancelled. You get {refund} back.", refund):
        assert passes(play(store, golden, CANCEL, params, cancelling(params), answer=text)), text


def test_cancelling_alone_another_refund_or_another_trip_fails(store, golden, instances):
    params = pick(instances, CANCEL, when=lambda p: p["decoy"])
    refund = params["refund_cents"]
    act = cancelling(params)
    assert fails(play(store, golden, CANCEL, params, act))
    assert fails(play(store, golden, CANCEL, params, answer=money(refund)))
    assert fails(play(store, golden, CANCEL, params, act, answer=money(refund + 1)))
    assert fails(play(store, golden, CANCEL, params, act, answer=params["candidates"][1]))
    assert fails(play(store, golden, CANCEL, params, act, answer=money(refund), infeasible="x"))


def test_cancelling_the_users_other_trip_fails(store, golden, world, instances):
    params = pick(instances, CANCEL, when=lambda p: p["decoy"])
    other = next(
        t.id
        for t in _world.trips_of(world, trip(world, params["reservation_id"]).guest_id)
        if t.city == params["decoy"]["city"]
        and t.check_in.isoformat() == params["decoy"]["check_in"]
    )
    act = cancelling(params, other)
    assert fails(play(store, golden, CANCEL, params, act, answer=money(params["refund_cents"])))


def test_a_stay_that_has_begun_cannot_be_cancelled_and_only_the_report_passes(
    store, golden, instances
):
    params = pick(instances, CANCEL, feasible=False)
    with pytest.raises(Conflict):
        play(store, golden, CANCEL, params, cancelling(params))
    assert passes(play(store, golden, CANCEL, params, infeasible="It has already begun."))
    assert fails(play(store, golden, CANCEL, params, answer="$0.00"))


# -- change the dates -----------------------------------------------------------------------


def test_moving_the_trip_to_the_new_dates_passes(store, golden, instances):
    params = pick(instances, CHANGE)
    verdict = play(store, golden, CHANGE, params, moving(params))
    assert passes(verdict), verdict


def test_other_dates_another_trip_or_a_cancellation_fail(store, golden, world, instances):
    params = pick(instances, CHANGE, when=lambda p: p["decoy"])
    new_in = _world.day_of(params["new_check_in"])
    new_out = _world.day_of(params["new_check_out"])
    later = moving(params, new_in + timedelta(days=1), new_out + timedelta(days=1))
    assert fails(play(store, golden, CHANGE, params, later))
    assert fails(play(store, golden, CHANGE, params, cancelling(params)))
    other = next(
        t
        for t in _world.trips_of(world, params["user_id"])
        if t.city == params["decoy"]["city"]
        and t.check_in.isoformat() == params["decoy"]["check_in"]
    )
    shifted = moving(
        params,
        other.check_in + timedelta(days=14),
        other.check_out + timedelta(days=14),
        reservation_id=other.id,
    )
    try:
        verdict = play(store, golden, CHANGE, params, shifted)
    except Conflict:
        return
    assert fails(verdict)


def test_dates_the_place_is_taken_on_are_refused_and_only_the_report_passes(
    store, golden, instances
):
    params = pick(instances, CHANGE, feasible=False)
    with pytest.raises(Conflict):
        play(store, golden, CHANGE, params, moving(params))
    assert passes(play(store, golden, CHANGE, params, infeasible="Not available then."))
    assert fails(play(store, golden, CHANGE, params))


# -- nights in a period ----------------------------------------------------------------------


def test_the_nights_count_the_users_confirmed_stays_by_check_in(world, instances):
    today = _world.world_today(world)
    known = {(first.isoformat(), last.isoformat()) for _l, first, last in periods(today)}
    people = {p.email: p for p in _world.people(world).values()}
    for task in instances[NIGHTS]:
        p = task.params
        assert (p["first"], p["last"]) in known and p["period"] in task.goal
        first, last = _world.day_of(p["first"]), _world.day_of(p["last"])
        mine = [
            t
            for t in _world.trips(world)
            if t.guest_id == people[p["user"]].id
            and t.status == "confirmed"
            and first <= t.check_in <= last
        ]
        assert mine and p["nights"] == sum(t.nights for t in mine)


def test_the_nights_pass_as_a_number_and_a_wrong_or_hedged_count_fails(store, golden, instances):
    params = pick(instances, NIGHTS, when=lambda p: len(p["candidates"]) >= 2)
    n = params["nights"]
    for text in (f"{n} nights", str(n), f"You stayed {n} nights."):
        assert passes(play(store, golden, NIGHTS, params, answer=text)), text
    for text in (
        f"{n + 1} nights",
        f"{params['candidates'][1]} nights",
        f"{n} or {params['candidates'][1]} nights",
        f"about {n} nights",
    ):
        assert fails(play(store, golden, NIGHTS, params, answer=text)), text
    assert fails(play(store, golden, NIGHTS, params, answer=f"{n} nights", infeasible="x"))
