"""The Booking templates that find and book stays, and answer which is cheapest, without a
browser: instances on the small seed-0 world, and each verifier on final worlds made through
the Booking service, right and wrong: the wrong listing, dates or guests, an extra booking, a
stay booked for the user by someone else, a forged price, an answer off by a cent or hedged,
and the right work reported infeasible."""

from __future__ import annotations

from datetime import timedelta

import pytest

from officegym.apps.booking import service
from officegym.tasks import registry
from officegym.tasks.booking import _world
from officegym.tasks.booking._formats import money

from .acts import fails, passes, pick, play

IDS = (
    "booking.book_stay_in_policy",
    "booking.book_cheapest_stay",
    "booking.book_out_of_policy",
    "booking.cheapest_stay_answer",
)
SEEDS = range(30)
IN_POLICY, CHEAPEST, OUT_OF_POLICY, ANSWER = IDS
BOOKINGS = (IN_POLICY, CHEAPEST, OUT_OF_POLICY)


def dates(params):
    return _world.day_of(params["check_in"]), _world.day_of(params["check_out"])


def booking(params, resource_id: int, *, by: str | None = None, reason: str = "", **changes):
    """An act: `by` (default the user) books `resource_id` for the user as the params ask,
    with `changes` to what is asked (check_in, check_out, guests, purpose)."""
    check_in, check_out = dates(params)
    wanted = {
        "check_in": check_in,
        "check_out": check_out,
        "guests": params["guests"],
        "purpose": params["trip"],
        **changes,
    }

    def act(db, people):
        user = people(params["user"])
        actor = people(by) if by else user
        service.book_stay(
            db,
            actor,
            resource_id=resource_id,
            justification=reason,
            guest_id=user.id,
            **wanted,
        )

    return act


def offers(world, params):
    check_in, check_out = dates(params)
    return _world.search(world, params["city"], check_in, check_out, params["guests"])


def allowed(world, params):
    """The free listings of the instance's city that are / are not in the user's policy."""
    today = _world.world_today(world)
    found = offers(world, params)
    inside = [o for o in found if _world.in_policy(world, params["user_id"], o, today)]
    outside = [o for o in found if o not in inside]
    return inside, outside


def coordinator(world) -> str:
    (email,) = world.execute(
        "SELECT email FROM people_employee WHERE title = 'Travel Coordinator' AND is_active "
        "ORDER BY id LIMIT 1"
    ).fetchone()
    return email


# -- instances -------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_ask_for_real_stays(golden, world, instances, tid):
    today = _world.world_today(world)
    people = {p.email: p for p in _world.people(world).values()}
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        p = task.params
        assert people[p["user"]].active and p["city"] in task.goal
        check_in, check_out = dates(p)
        assert today < check_in < check_out
        if tid in BOOKINGS:
            assert p["trip"] in task.goal and p["user_id"] == people[p["user"]].id
        if "title" in p and tid != CHEAPEST:
            assert p["title"] in task.goal or tid == ANSWER
    assert len({t.goal for t in instances[tid]}) >= 6


def test_in_policy_instances_have_listings_on_both_sides_of_the_policy(world, instances):
    for task in instances[IN_POLICY]:
        inside, outside = allowed(world, task.params)
        assert inside and outside
        assert {o.listing.resource_id for o in inside} <= set(task.params["resources"])


def test_the_cheapest_stay_is_clearly_cheapest_and_in_policy(world, instances):
    today = _world.world_today(world)
    for task in instances[CHEAPEST]:
        p = task.params
        check_in, check_out = dates(p)
        found = _world.search(
            world, p["city"], check_in, check_out, p["guests"], amenities=[p["amenity"]]
        )
        assert found[0].listing.resource_id == p["resource_id"]
        assert found[1].total - found[0].total >= 100
        assert _world.in_policy(world, p["user_id"], found[0], today)
        assert found[1].listing.title == p["decoy"]["title"]


def test_the_out_of_policy_listing_breaks_the_users_nightly_cap(world, instances):
    today = _world.world_today(world)
    for task in instances[OUT_OF_POLICY]:
        p = task.params
        check_in, check_out = dates(p)
        rules = _world.breaches(world, p["user_id"], p["resource_id"], check_in, check_out, today)
        assert "nightly_cap" in {r.code for r in rules}
        manager = _world.active_manager(world, _world.people(world)[p["user_id"]])
        assert manager is not None and manager.id == p["manager_id"]


def test_some_cheapest_questions_have_no_answer_and_the_rest_a_clear_one(world, instances):
    impossible = [t.params for t in instances[ANSWER] if not t.params["feasible"]]
    assert 1 <= len(impossible) <= len(SEEDS) // 3
    for p in impossible:
        check_in, check_out = dates(p)
        assert not _world.search(world, p["city"], check_in, check_out, p["guests"], bedrooms=2)
    for task in instances[ANSWER]:
        p = task.params
        if p["feasible"]:
            check_in, check_out = dates(p)
            found = _world.search(world, p["city"], check_in, check_out, p["guests"], bedrooms=2)
            assert found[0].listing.title == p["title"] and found[0].total == p["total_cents"]
            assert p["title"] not in p["others"]


# -- book a stay within the policy -----------------------------------------------------------


def test_any_listing_within_the_policy_passes_and_nothing_done_scores_zero(
    store, golden, world, instances
):
    params = pick(instances, IN_POLICY)
    inside, _outside = allowed(world, params)
    for offer in (inside[0], inside[-1]):
        assert passes(
            play(store, golden, IN_POLICY, params, booking(params, offer.listing.resource_id))
        )
    untouched = play(store, golden, IN_POLICY, params)
    assert not untouched.success and untouched.score == 0.0


def test_a_listing_outside_the_policy_fails_even_with_a_justification(
    store, golden, world, instances
):
    params = pick(instances, IN_POLICY)
    _inside, outside = allowed(world, params)
    act = booking(params, outside[0].listing.resource_id, reason="The customer asked for it.")
    assert fails(play(store, golden, IN_POLICY, params, act))


def test_wrong_dates_guests_or_trip_name_fail(store, golden, world, instances):
    params = pick(instances, IN_POLICY, when=lambda p: p["guests"] == 1)
    inside, _outside = allowed(world, params)
    roomy = next(o for o in inside if o.listing.capacity > params["guests"])
    resource = roomy.listing.resource_id
    check_in, check_out = dates(params)
    for changes in (
        {"check_out": check_out + timedelta(days=1)},
        {"check_in": check_in + timedelta(days=1)},
        {"guests": params["guests"] + 1},
        {"purpose": params["trip"] + " 2"},
    ):
        act = booking(params, resource, **changes)
        assert fails(play(store, golden, IN_POLICY, params, act)), changes


def test_an_extra_booking_or_a_booking_in_another_city_fails(store, golden, world, instances):
    params = pick(instances, IN_POLICY)
    inside, _outside = allowed(world, params)
    first = booking(params, inside[0].listing.resource_id)
    if len(inside) > 1:
        second = booking(params, inside[1].listing.resource_id)
        assert fails(play(store, golden, IN_POLICY, params, first, second))
    elsewhere = {**params, "city": params["decoy"]["city"]}
    other = [o for o in offers(world, elsewhere)]
    assert other
    assert fails(
        play(store, golden, IN_POLICY, params, booking(params, other[0].listing.resource_id))
    )


def test_a_stay_booked_for_the_user_by_someone_else_fails(store, golden, world, instances):
    params = pick(instances, IN_POLICY)
    inside, _outside = allowed(world, params)
    act = booking(params, inside[0].listing.resource_id, by=coordinator(world))
    assert fails(play(store, golden, IN_POLICY, params, act))


def test_a_forged_price_or_the_right_stay_reported_infeasible_fails(
    store, golden, world, instances
):
    params = pick(instances, IN_POLICY)
    inside, _outside = allowed(world, params)
    act = booking(params, inside[0].listing.resource_id)
    cheaper = ("UPDATE booking_reservation SET total_cents = total_cents - 1 WHERE id > 1000", ())
    assert fails(play(store, golden, IN_POLICY, params, act, forge=cheaper))
    padded = (
        "UPDATE booking_reservation SET price_json = price_json || ' ' WHERE id > 1000",
        (),
    )
    assert passes(play(store, golden, IN_POLICY, params, act, forge=padded))
    noted = (
        "UPDATE booking_reservation SET price_json = replace(price_json, '\"discount\"', "
        '\'"note": "paid", "discount"\') WHERE id > 1000',
        (),
    )
    assert fails(play(store, golden, IN_POLICY, params, act, forge=noted))
    assert fails(play(store, golden, IN_POLICY, params, act, infeasible="No such place."))


# -- book the cheapest -------------------------------------------------------------------------


def test_booking_the_cheapest_passes_and_the_runner_up_fails(store, golden, world, instances):
    params = pick(instances, CHEAPEST)
    check_in, check_out = dates(params)
    found = _world.search(
        world, params["city"], check_in, check_out, params["guests"], amenities=[params["amenity"]]
    )
    assert passes(
        play(store, golden, CHEAPEST, params, booking(params, found[0].listing.resource_id))
    )
    assert fails(
        play(store, golden, CHEAPEST, params, booking(params, found[1].listing.resource_id))
    )
    fewer = booking(params, found[0].listing.resource_id, guests=max(1, params["guests"] - 1))
    if params["guests"] > 1:
        assert fails(play(store, golden, CHEAPEST, params, fewer))


# -- book outside the policy -----------------------------------------------------------------


def test_the_request_with_the_justification_passes_and_goes_to_the_manager(
    store, golden, instances
):
    params = pick(instances, OUT_OF_POLICY)
    act = booking(params, params["resource_id"], reason=params["reason"])
    verdict = play(store, golden, OUT_OF_POLICY, params, act)
    assert passes(verdict), verdict


def test_another_justification_or_listing_fails(store, golden, world, instances):
    params = pick(instances, OUT_OF_POLICY)
    other = booking(params, params["resource_id"], reason="Because I want to stay there.")
    assert fails(play(store, golden, OUT_OF_POLICY, params, other))
    check_in, check_out = dates(params)
    elsewhere = next(
        o.listing.resource_id
        for o in offers(world, params)
        if o.listing.resource_id != params["resource_id"]
    )
    act = booking(params, elsewhere, reason=params["reason"])
    assert fails(play(store, golden, OUT_OF_POLICY, params, act))


# -- the cheapest, answered --------------------------------------------------------------------


def test_the_cheapest_name_and_total_pass_in_any_common_form(store, golden, instances):
    params = pick(instances, ANSWER)
    total = money(params["total_cents"])
    for text in (
        f"{params['title']}, {total}",
        f"The cheapest is {params['title']} at {total} in total.",
        f"{params['title']}: {total[1:]} dollars",
    ):
        assert passes(play(store, golden, ANSWER, params, answer=text)), text


def test_a_wrong_name_a_total_off_by_a_cent_or_a_hedge_fails(store, golden, instances):
    params = pick(instances, ANSWER, when=lambda p: p["others"])
    title, cents = params["title"], params["total_cents"]
    for text in (
        f"{params['others'][0]}, {money(cents)}",
        f"{title}, {money(cents + 1)}",
        f"{title}, {money(cents)} or maybe {params['others'][0]}",
        f"{title}, about {money(cents)}",
        "; ".join(params["candidates"]),
        title,
    ):
        assert fails(play(store, golden, ANSWER, params, answer=text)), text
    right = f"{title}, {money(cents)}"
    assert fails(play(store, golden, ANSWER, params, answer=right, infeasible="None free."))


def test_when_nothing_matches_only_the_report_passes(store, golden, instances):
    params = pick(instances, ANSWER, feasible=False)
    assert passes(play(store, golden, ANSWER, params, infeasible="Nothing with 2 bedrooms."))
    assert fails(play(store, golden, ANSWER, params, answer="None, $0.00"))
