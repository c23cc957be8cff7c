"""More Booking templates about trips and approvals, without a browser: approving one report's
request, saying which trip still waits for approval, booking a customer visit linked to the
CRM account, and shortening a trip. Instances on the small seed-0 world, and each verifier on
final worlds made through the Booking service, right and wrong: another request approved or
the opposite decision, a comment missing or added, a wrong or hedged city, a stay in the wrong
city or not linked (or linked to another account, or to a deal too), a trip shortened by the
wrong amount or another trip shortened, a stray change, and the right work reported
infeasible."""

from __future__ import annotations

from datetime import timedelta

import pytest

from officegym.apps.booking import service
from officegym.tasks import registry
from officegym.tasks.booking import _trip_picks, _world

from .acts import fails, passes, pick, play

IDS = (
    "booking.approve_request",
    "booking.pending_trip_answer",
    "booking.customer_visit_stay",
    "booking.shorten_trip",
)
SEEDS = range(30)
APPROVE, PENDING, VISIT, SHORTEN = IDS


def trip(world, reservation_id: int) -> _world.Trip:
    return next(t for t in _world.trips(world) if t.id == reservation_id)


def deciding(params, approval_id: int, decision: str, comment: str = ""):
    def act(db, people):
        service.decide_approval(
            db, people(params["user"]), approval_id=approval_id, decision=decision, comment=comment
        )

    return act


def cancelling(params, reservation_id: int):
    def act(db, people):
        service.cancel_reservation(db, people(params["user"]), reservation_id=reservation_id)

    return act


def moving(params, reservation_id: int, check_in, check_out):
    def act(db, people):
        service.change_stay_dates(
            db,
            people(params["user"]),
            reservation_id=reservation_id,
            check_in=check_in,
            check_out=check_out,
        )

    return act


def visiting(params, resource_id: int, *, reason: str = "", **changes):
    """An act: the user books `resource_id` for themself as the visit asks, with `changes` to
    what is asked (account_id, opportunity_id, check_in, check_out, purpose)."""
    wanted = {
        "check_in": _world.day_of(params["check_in"]),
        "check_out": _world.day_of(params["check_out"]),
        "guests": 1,
        "purpose": params["trip"],
        "account_id": params["account_id"],
        **changes,
    }

    def act(db, people):
        service.book_stay(
            db, people(params["user"]), resource_id=resource_id, justification=reason, **wanted
        )

    return act


def visit_offers(world, params, city: str | None = None):
    """The free listings of the visit's city (or `city`) in / out of the user's policy."""
    today = _world.world_today(world)
    found = _world.search(
        world,
        city or params["city"],
        _world.day_of(params["check_in"]),
        _world.day_of(params["check_out"]),
    )
    inside = [o for o in found if _world.in_policy(world, params["user_id"], o, today)]
    return inside, [o for o in found if o not in inside]


def request_of(world, approver_email: str, traveller: str, city: str) -> _world.Request:
    people = _world.people(world)
    return next(
        r
        for r in _world.pending_requests(world)
        if people[r.approver_id].email == approver_email
        and people[r.trip.guest_id].name == traveller
        and r.trip.city == city
    )


# -- instances -------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_name_real_rows(golden, world, instances, tid):
    people = {p.email: p for p in _world.people(world).values()}
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        assert people[task.params["user"]].active
    least = 3 if tid == PENDING else 6
    assert len({t.goal for t in instances[tid]}) >= least


def test_the_request_to_approve_is_named_by_traveller_and_city_and_can_be_approved(
    world, instances
):
    today = _world.world_today(world)
    people = _world.people(world)
    for task in instances[APPROVE]:
        p = task.params
        request = next(r for r in _world.pending_requests(world) if r.id == p["approval_id"])
        assert people[request.approver_id].email == p["user"]
        assert request.trip.id == p["reservation_id"] and request.trip.city == p["city"]
        assert p["traveller"] in task.goal and p["city"] in task.goal
        assert (p["comment"] is None) or p["comment"] in task.goal
        same = [
            r
            for r in _world.pending_requests(world)
            if r.approver_id == request.approver_id
            and people[r.trip.guest_id].name == p["traveller"]
            and r.trip.city == p["city"]
        ]
        assert same == [request] and request.trip.check_in >= today
        decoy = request_of(world, p["user"], p["decoy"]["traveller"], p["decoy"]["city"])
        assert decoy.id != request.id and decoy.id in _trip_picks.approvable(world)
    assert {p.params["comment"] is None for p in instances[APPROVE]} == {True, False}


def test_the_pending_trip_is_the_users_only_one_and_alone_in_its_city(world, instances):
    people = {p.email: p for p in _world.people(world).values()}
    for task in instances[PENDING]:
        p = task.params
        mine = _world.trips_of(world, people[p["user"]].id)
        pending = [t for t in mine if t.status == "pending_approval"]
        assert [t.id for t in pending] == [p["reservation_id"]]
        assert pending[0].city == p["city"] and pending[0].guest_id == people[p["user"]].id
        others = {t.city for t in mine if t.id != p["reservation_id"]}
        assert others and p["city"] not in others
        assert sorted(others) == p["candidates"][1:]
        assert p["city"] not in task.goal


def test_the_visit_names_a_unique_account_whose_city_has_stays_on_both_sides_of_the_policy(
    world, instances
):
    for task in instances[VISIT]:
        p = task.params
        rows = world.execute(
            "SELECT id, billing_city FROM crm_account WHERE lower(name) = lower(?)",
            (p["account"],),
        ).fetchall()
        assert rows == [(p["account_id"], p["city"])]
        assert p["account"] in task.goal and p["trip"] in task.goal
        assert p["city"] not in task.goal
        inside, outside = visit_offers(world, p)
        assert inside and outside
        assert {o.listing.resource_id for o in inside} <= set(p["resources"])
        (decoy_city,) = world.execute(
            "SELECT billing_city FROM crm_account WHERE name = ?", (p["decoy"]["account"],)
        ).fetchone()
        assert decoy_city != p["city"]


def test_the_trip_to_shorten_still_meets_its_minimum_and_the_policy(world, instances):
    today = _world.world_today(world)
    people = {p.email: p for p in _world.people(world).values()}
    decoys = 0
    for task in instances[SHORTEN]:
        p = task.params
        found = trip(world, p["reservation_id"])
        assert found.guest_id == people[p["user"]].id and found.city == p["city"]
        assert found.status == "confirmed" and found.check_in >= today
        assert found.id in _world.lone_trips(world) and p["city"] in task.goal
        new_out = _world.day_of(p["new_check_out"])
        assert new_out == found.check_out - timedelta(days=p["days"])
        assert (new_out - found.check_in).days >= _world.listing(
            world, found.resource_id
        ).min_nights
        assert not _world.breaches(
            world, found.guest_id, found.resource_id, found.check_in, new_out, today
        )
        decoys += p["decoy"] is not None
    assert decoys >= len(SEEDS) // 4


# -- approve one request ---------------------------------------------------------------------


def test_approving_as_asked_passes_and_nothing_done_scores_zero(store, golden, instances):
    asked = pick(instances, APPROVE, when=lambda p: p["comment"] is not None)
    silent = pick(instances, APPROVE, when=lambda p: p["comment"] is None)
    for params in (asked, silent):
        act = deciding(params, params["approval_id"], "approve", params["comment"] or "")
        assert passes(play(store, golden, APPROVE, params, act)), params["comment"]
    untouched = play(store, golden, APPROVE, params)
    assert not untouched.success and untouched.score == 0.0


def test_approving_another_request_or_rejecting_fails(store, golden, world, instances):
    params = pick(instances, APPROVE)
    decoy = request_of(world, params["user"], params["decoy"]["traveller"], params["decoy"]["city"])
    note = params["comment"] or ""
    right = deciding(params, params["approval_id"], "approve", note)
    wrong = deciding(params, decoy.id, "approve", note)
    assert fails(play(store, golden, APPROVE, params, wrong))
    assert fails(play(store, golden, APPROVE, params, right, wrong))
    no = deciding(params, params["approval_id"], "reject", "Not this time.")
    assert fails(play(store, golden, APPROVE, params, no))
    assert fails(play(store, golden, APPROVE, params, right, infeasible="Not mine to decide."))


def test_a_comment_missing_changed_or_added_fails(store, golden, instances):
    asked = pick(instances, APPROVE, when=lambda p: p["comment"] is not None)
    for note in ("", "Approved.", asked["comment"] + " Thanks."):
        act = deciding(asked, asked["approval_id"], "approve", note)
        assert fails(play(store, golden, APPROVE, asked, act)), note
    silent = pick(instances, APPROVE, when=lambda p: p["comment"] is None)
    act = deciding(silent, silent["approval_id"], "approve", "Fine by me.")
    assert fails(play(store, golden, APPROVE, silent, act))


# -- which trip is pending ---------------------------------------------------------------------


def test_the_city_passes_in_any_common_phrasing_and_silence_scores_zero(store, golden, instances):
    params = pick(instances, PENDING)
    city = params["city"]
    for text in (
        city,
        f"Your {city} trip is still waiting for approval.",
        f"The stay in {city.upper()} hasn't been approved yet.",
    ):
        assert passes(play(store, golden, PENDING, params, answer=text)), text
    silent = play(store, golden, PENDING, params)
    assert not silent.success and silent.score == 0.0


def test_another_trips_city_a_hedge_or_every_city_fails(store, golden, instances):
    params = pick(instances, PENDING, when=lambda p: len(p["candidates"]) >= 3)
    city, other = params["city"], params["candidates"][1]
    for text in (
        other,
        f"Your {other} trip.",
        f"Either {city} or {other}.",
        f"Probably {city}.",
        ", ".join(params["candidates"]),
    ):
        assert fails(play(store, golden, PENDING, params, answer=text)), text
    assert fails(play(store, golden, PENDING, params, answer=city, infeasible="No pending trip."))


def test_the_city_with_a_stray_cancellation_fails(store, golden, world, instances):
    today = _world.world_today(world)
    params = pick(
        instances, PENDING, when=lambda p: trip(world, p["reservation_id"]).check_in >= today
    )
    act = cancelling(params, params["reservation_id"])
    assert fails(play(store, golden, PENDING, params, act, answer=params["city"]))


# -- a customer visit ----------------------------------------------------------------------------


def test_any_stay_in_policy_linked_to_the_account_passes_and_nothing_done_scores_zero(
    store, golden, world, instances
):
    params = pick(instances, VISIT)
    inside, _outside = visit_offers(world, params)
    for offer in (inside[0], inside[-1]):
        act = visiting(params, offer.listing.resource_id)
        assert passes(play(store, golden, VISIT, params, act))
    untouched = play(store, golden, VISIT, params)
    assert not untouched.success and untouched.score == 0.0


def test_a_stay_not_linked_linked_elsewhere_or_to_a_deal_too_fails(store, golden, world, instances):
    params = pick(instances, VISIT)
    resource = visit_offers(world, params)[0][0].listing.resource_id
    (other,) = world.execute(
        "SELECT id FROM crm_account WHERE name = ?", (params["decoy"]["account"],)
    ).fetchone()
    for changes in ({"account_id": None}, {"account_id": other}):
        act = visiting(params, resource, **changes)
        assert fails(play(store, golden, VISIT, params, act)), changes
    deals = dict(
        world.execute("SELECT account_id, min(id) FROM crm_opportunity GROUP BY account_id")
    )
    dealt = pick(instances, VISIT, when=lambda p: p["account_id"] in deals)
    resource = visit_offers(world, dealt)[0][0].listing.resource_id
    with_deal = visiting(dealt, resource, opportunity_id=deals[dealt["account_id"]])
    assert fails(play(store, golden, VISIT, dealt, with_deal))


def test_a_stay_in_another_city_out_of_policy_or_misnamed_fails(store, golden, world, instances):
    params = pick(instances, VISIT)
    inside, outside = visit_offers(world, params)
    resource = inside[0].listing.resource_id
    (decoy_city,) = world.execute(
        "SELECT billing_city FROM crm_account WHERE name = ?", (params["decoy"]["account"],)
    ).fetchone()
    elsewhere = visit_offers(world, params, decoy_city)[0]
    acts = {
        "another city": visiting(params, elsewhere[0].listing.resource_id),
        "out of policy": visiting(
            params, outside[0].listing.resource_id, reason="The customer asked for it."
        ),
        "trip name": visiting(params, resource, purpose=params["trip"] + " 2"),
        "a night more": visiting(
            params, resource, check_out=_world.day_of(params["check_out"]) + timedelta(days=1)
        ),
    }
    for what, act in acts.items():
        assert fails(play(store, golden, VISIT, params, act)), what
    right = visiting(params, resource)
    if len(inside) > 1:
        twice = visiting(params, inside[1].listing.resource_id)
        assert fails(play(store, golden, VISIT, params, right, twice))
    assert fails(play(store, golden, VISIT, params, right, infeasible="No account found."))


# -- shorten a trip ------------------------------------------------------------------------------


def test_leaving_early_as_asked_passes_and_nothing_done_scores_zero(store, golden, instances):
    params = pick(instances, SHORTEN)
    act = moving(params, params["reservation_id"], params["check_in"], params["new_check_out"])
    assert passes(play(store, golden, SHORTEN, params, act))
    untouched = play(store, golden, SHORTEN, params)
    assert not untouched.success and untouched.score == 0.0


def test_another_length_a_moved_check_in_or_another_trip_fails(store, golden, world, instances):
    params = pick(instances, SHORTEN, when=lambda p: p["decoy"] is not None)
    check_in = _world.day_of(params["check_in"])
    new_out = _world.day_of(params["new_check_out"])
    stay = trip(world, params["reservation_id"])
    minimum = _world.listing(world, stay.resource_id).min_nights
    spans = [(check_in + timedelta(days=1), new_out + timedelta(days=1))]
    if (new_out - check_in).days - 1 >= minimum:
        spans.append((check_in, new_out - timedelta(days=1)))
    if params["days"] == 2:
        spans.append((check_in, new_out + timedelta(days=1)))
    for first, last in spans:
        act = moving(params, params["reservation_id"], first, last)
        assert fails(play(store, golden, SHORTEN, params, act)), (first, last)
    decoy = next(
        t
        for t in _world.trips_of(world, stay.guest_id)
        if t.city == params["decoy"]["city"]
        and t.check_in.isoformat() == params["decoy"]["check_in"]
    )
    wrong = moving(params, decoy.id, decoy.check_in, params["decoy"]["new_check_out"])
    right = moving(params, params["reservation_id"], check_in, new_out)
    assert fails(play(store, golden, SHORTEN, params, wrong))
    assert fails(play(store, golden, SHORTEN, params, right, wrong))
    assert fails(play(store, golden, SHORTEN, params, right, infeasible="It can't be shortened."))


def test_cancelling_instead_of_shortening_fails(store, golden, instances):
    params = pick(instances, SHORTEN)
    assert fails(play(store, golden, SHORTEN, params, cancelling(params, params["reservation_id"])))
