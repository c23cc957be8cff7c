"""The Booking templates that pick a stay by rating, amenities, distance to an office or for a
colleague, without a browser: instances on the small seed-0 world, held to the app's own
search, and each verifier on final worlds made through the Booking service, right and wrong:
the runner-up named or a hedge, a home lacking an amenity, the cheapest stay beyond the
distance, a stay booked for the user instead of the colleague, an extra booking, and the
right work reported infeasible."""

from __future__ import annotations

from datetime import timedelta

import pytest

from officegym.apps.booking import access, reads, service
from officegym.seed_data.schema import Employee
from officegym.tasks import registry
from officegym.tasks.booking import _stay_picks as picks
from officegym.tasks.booking import _world
from officegym.tasks.booking.book_near_office import MARGIN
from officegym.tasks.session import read_session

from .acts import fails, passes, pick, play

IDS = (
    "booking.highest_rated_answer",
    "booking.book_home_with_amenities",
    "booking.book_near_office",
    "booking.book_for_colleague",
)
SEEDS = range(30)
RATED, HOME, NEAR, COLLEAGUE = IDS


def dates(params):
    return _world.day_of(params["check_in"]), _world.day_of(params["check_out"])


def booking(params, resource_id: int, *, by: str | None = None, guest: str | None = None,
            reason: str = "", **changes):  # fmt: skip
    """An act: `by` (default the user) books `resource_id` for `guest` (default the user, or
    the colleague the params name) as the params ask, with `changes` to what is asked."""
    check_in, check_out = dates(params)
    wanted = {
        "check_in": check_in,
        "check_out": check_out,
        "guests": params["guests"],
        "purpose": params["trip"],
        **changes,
    }

    def act(db, people):
        actor = people(by or params["user"])
        if guest is not None:
            traveller = people(guest)
        elif "guest_id" in params:
            traveller = db.get(Employee, params["guest_id"])
        else:
            traveller = people(params["user"])
        service.book_stay(
            db,
            actor,
            resource_id=resource_id,
            justification=reason,
            guest_id=traveller.id,
            **wanted,
        )

    return act


def app_search(world, params, *, sort="total", **filters) -> reads.SearchPage:
    """The page the app's stays search shows for the instance's city, dates and guests."""
    check_in, check_out = dates(params)
    with read_session(world) as db:
        search = reads.StaySearch(
            where=params["city"],
            check_in=check_in,
            check_out=check_out,
            guests=params["guests"],
            sort=sort,
            **filters,
        )
        return reads.search_stays(db, search)


def email_of(world, employee_id: int) -> str:
    return _world.people(world)[employee_id].email


def side_trip(world, params):
    """An act: the user books one night in the instance's city, for one, in their policy (a
    change an answer task must not make)."""
    user = next(p for p in _world.people(world).values() if p.email == params["user"])
    check_in, _check_out = dates(params)
    today = _world.world_today(world)
    found = _world.search(world, params["city"], check_in, check_in + timedelta(days=2))
    offer = next(o for o in found if _world.in_policy(world, user.id, o, today))
    return booking(
        {**params, "trip": "Scouting", "guests": 1},
        offer.listing.resource_id,
        check_out=check_in + timedelta(days=2),
    )


# -- instances -------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_name_real_rows(golden, world, instances, tid):
    today = _world.world_today(world)
    people = {p.email: p for p in _world.people(world).values()}
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        p = task.params
        assert people[p["user"]].active and p["city"] in task.goal
        check_in, check_out = dates(p)
        assert today < check_in < check_out
        if "trip" in p:
            assert p["trip"] in task.goal and p["user_id"] == people[p["user"]].id
        if "resource_id" in p:
            assert _world.listing(world, p["resource_id"]).title == p["title"]
    assert len({t.goal for t in instances[tid]}) >= 6


def test_the_best_rated_place_is_first_of_its_kind_in_the_apps_rating_sort(world, instances):
    for task in instances[RATED]:
        p = task.params
        page = app_search(world, p, sort="rating", bedrooms=p["bedrooms"])
        mine = [c for c in page.cards if c.kind == p["kind"]]
        if not p["feasible"]:
            assert page.total <= reads.PER_PAGE and not mine
            continue
        best = mine[0]
        assert best.property_name == p["title"]
        runner_up = next(c for c in mine if c.property_id != best.property_id)
        assert round(best.rating, 2) > round(runner_up.rating, 2)
        assert runner_up.property_name in p["others"] and p["title"] not in p["others"]


def test_some_rating_questions_have_no_answer(instances):
    impossible = [t for t in instances[RATED] if not t.params["feasible"]]
    assert 1 <= len(impossible) <= len(SEEDS) // 3


def test_the_cheapest_home_with_both_amenities_is_first_in_the_apps_search(world, instances):
    today = _world.world_today(world)
    for task in instances[HOME]:
        p = task.params
        page = app_search(world, p, amenities=tuple(p["amenities"]))
        homes = [c for c in page.cards if c.kind == "home"]
        assert homes[0].resource_id == p["resource_id"]
        assert homes[1].total_cents - homes[0].total_cents >= 100
        decoy = next(i for i in _world.listings(world) if i.title == p["decoy"]["title"])
        assert decoy.kind == "home" and not set(p["amenities"]) <= set(decoy.amenities)
        check_in, check_out = dates(p)
        best = _world.quote(world, p["resource_id"], check_in, check_out)
        assert _world.quote(world, decoy.resource_id, check_in, check_out).total < best.total
        rules = _world.breaches(world, p["user_id"], p["resource_id"], check_in, check_out, today)
        assert not rules


def test_the_cheapest_stay_near_the_office_is_first_in_the_apps_distance_filter(world, instances):
    for task in instances[NEAR]:
        p = task.params
        office = next(o for o in picks.offices(world) if o.name == p["office"])
        assert office.city == p["city"]
        near = app_search(world, p, office=office.id, km=float(p["km"]))
        assert near.cards[0].resource_id == p["resource_id"]
        assert near.cards[0].distance_km <= p["km"]
        anywhere = app_search(world, p, office=office.id)
        assert anywhere.cards[0].distance_km > p["km"]
        assert anywhere.cards[0].resource_id != p["resource_id"]
        for item in _world.listings(world):
            if item.city == p["city"]:
                assert abs(picks.distance_km(world, office, item) - p["km"]) >= MARGIN


def test_the_user_may_book_for_the_colleague_and_some_stays_break_their_policy(world, instances):
    today = _world.world_today(world)
    with read_session(world) as db:
        for task in instances[COLLEAGUE]:
            p = task.params
            user, guest = db.get(Employee, p["user_id"]), db.get(Employee, p["guest_id"])
            assert guest.display_name == p["guest"] and guest.id != user.id
            assert access.can_book_for(user, guest) and guest.is_active
            check_in, check_out = dates(p)
            offers = _world.search(world, p["city"], check_in, check_out, 1)
            allowed = [_world.in_policy(world, guest.id, o, today) for o in offers]
            assert any(allowed) and not all(allowed)


# -- the best-rated place, answered ------------------------------------------------------------


def test_the_best_rated_name_passes_in_any_common_form(store, golden, instances):
    params = pick(instances, RATED)
    title = params["title"]
    for text in (title, f"The best rated is {title}.", f"{title} ({params['rating']:.2f} stars)"):
        assert passes(play(store, golden, RATED, params, answer=text)), text


def test_the_runner_up_a_hedge_or_giving_up_fails(store, golden, instances):
    params = pick(instances, RATED)
    title, other = params["title"], params["others"][0]
    for text in (other, f"{title} or maybe {other}", "; ".join(params["candidates"])):
        assert fails(play(store, golden, RATED, params, answer=text)), text
    assert fails(play(store, golden, RATED, params, answer=title, infeasible="None free."))
    untouched = play(store, golden, RATED, params)
    assert not untouched.success and untouched.score == 0.0


def test_the_right_answer_with_a_stay_booked_fails(store, golden, world, instances):
    params = pick(instances, RATED)
    act = side_trip(world, params)
    assert fails(play(store, golden, RATED, params, act, answer=params["title"]))


def test_when_nothing_fits_only_the_report_passes(store, golden, world, instances):
    params = pick(instances, RATED, feasible=False)
    assert passes(play(store, golden, RATED, params, infeasible="No such place is free."))
    assert fails(play(store, golden, RATED, params, answer="None of them."))
    act = side_trip(world, params)
    assert fails(play(store, golden, RATED, params, act, infeasible="No such place."))


# -- the cheapest home with both amenities ------------------------------------------------------


def test_the_cheapest_home_passes_and_the_one_lacking_an_amenity_fails(
    store, golden, world, instances
):
    params = pick(instances, HOME)
    assert passes(play(store, golden, HOME, params, booking(params, params["resource_id"])))
    decoy = next(i for i in _world.listings(world) if i.title == params["decoy"]["title"])
    assert fails(play(store, golden, HOME, params, booking(params, decoy.resource_id)))
    untouched = play(store, golden, HOME, params)
    assert not untouched.success and untouched.score == 0.0


def test_the_next_home_an_extra_booking_or_other_dates_fail(store, golden, world, instances):
    params = pick(instances, HOME)
    check_in, check_out = dates(params)
    found = _world.search(
        world, params["city"], check_in, check_out, params["guests"],
        amenities=params["amenities"],
    )  # fmt: skip
    runner_up = [o for o in found if o.listing.kind == "home"][1].listing.resource_id
    best = booking(params, params["resource_id"])
    assert fails(play(store, golden, HOME, params, booking(params, runner_up)))
    assert fails(play(store, golden, HOME, params, best, booking(params, runner_up)))
    later = booking(params, params["resource_id"], check_out=check_out + timedelta(days=1))
    assert fails(play(store, golden, HOME, params, later))
    assert fails(play(store, golden, HOME, params, best, infeasible="Nothing fits."))


# -- the cheapest stay near the office ------------------------------------------------------------


def test_the_cheapest_nearby_passes_and_the_cheapest_beyond_fails(store, golden, world, instances):
    params = pick(instances, NEAR)
    assert passes(play(store, golden, NEAR, params, booking(params, params["resource_id"])))
    far = next(i for i in _world.listings(world) if i.title == params["decoy"]["title"])
    assert fails(play(store, golden, NEAR, params, booking(params, far.resource_id)))
    capacity = _world.listing(world, params["resource_id"]).capacity
    other = 1 if params["guests"] > 1 else min(2, capacity)
    if other != params["guests"]:
        party = booking(params, params["resource_id"], guests=other)
        assert fails(play(store, golden, NEAR, params, party))
    renamed = booking(params, params["resource_id"], purpose=params["trip"] + " 2")
    assert fails(play(store, golden, NEAR, params, renamed))


# -- a stay for a colleague ---------------------------------------------------------------------


def colleague_offers(world, params):
    today = _world.world_today(world)
    check_in, check_out = dates(params)
    found = _world.search(world, params["city"], check_in, check_out, 1)
    inside = [o for o in found if _world.in_policy(world, params["guest_id"], o, today)]
    return inside, [o for o in found if o not in inside]


def test_any_stay_in_the_colleagues_policy_booked_for_them_passes(store, golden, world, instances):
    params = pick(instances, COLLEAGUE)
    inside, _outside = colleague_offers(world, params)
    for offer in (inside[0], inside[-1]):
        act = booking(params, offer.listing.resource_id)
        assert passes(play(store, golden, COLLEAGUE, params, act))
    untouched = play(store, golden, COLLEAGUE, params)
    assert not untouched.success and untouched.score == 0.0


def test_a_stay_for_the_user_or_booked_by_the_colleague_fails(store, golden, world, instances):
    params = pick(instances, COLLEAGUE)
    inside, _outside = colleague_offers(world, params)
    resource = inside[0].listing.resource_id
    mine = booking(params, resource, guest=params["user"])
    today = _world.world_today(world)
    if _world.in_policy(world, params["user_id"], inside[0], today):
        assert fails(play(store, golden, COLLEAGUE, params, mine))
    guest = email_of(world, params["guest_id"])
    themselves = booking(params, resource, by=guest, guest=guest)
    assert fails(play(store, golden, COLLEAGUE, params, themselves))


def test_a_stay_outside_the_colleagues_policy_or_an_extra_one_fails(
    store, golden, world, instances
):
    params = pick(instances, COLLEAGUE)
    inside, outside = colleague_offers(world, params)
    guest = _world.people(world)[params["guest_id"]]
    if _world.active_manager(world, guest) is not None:
        act = booking(params, outside[0].listing.resource_id, reason="The customer asked.")
        assert fails(play(store, golden, COLLEAGUE, params, act))
    if len(inside) > 1:
        both = [booking(params, o.listing.resource_id) for o in inside[:2]]
        assert fails(play(store, golden, COLLEAGUE, params, *both))
    right = booking(params, inside[0].listing.resource_id)
    assert fails(play(store, golden, COLLEAGUE, params, right, infeasible="Can't book for them."))
