"""The Booking templates where a manager decides travel requests, without a browser: instances
on the small seed-0 world, and each verifier on final worlds made through the Booking service,
right and wrong: another request decided, the opposite decision, another comment, a request
left waiting, a comment added to an approval, and the right work reported infeasible."""

from __future__ import annotations

import pytest

from officegym.apps.booking import service
from officegym.tasks import registry
from officegym.tasks.booking import _world

from .acts import fails, passes, pick, play

IDS = ("booking.reject_request", "booking.approve_by_policy")
SEEDS = range(30)
REJECT, BY_POLICY = IDS


def deciding(params, approval_id: int, decision: str, comment: str = ""):
    def act(db, people):
        service.decide_approval(
            db, people(params["user"]), approval_id=approval_id, decision=decision, comment=comment
        )

    return act


def by_the_rule(params, flip: int | None = None, comment: str | None = None):
    """Acts deciding every request of an approve_by_policy instance by its limit (the
    request at index `flip` the other way)."""
    acts = []
    for index, r in enumerate(params["requests"]):
        approve = r["approve"] != (index == flip)
        note = "" if approve else (comment or params["comment"])
        acts.append(deciding(params, r["approval_id"], "approve" if approve else "reject", note))
    return acts


# -- instances -------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_asked_of_the_approver(golden, world, instances, tid):
    people = {p.email: p for p in _world.people(world).values()}
    pending = {r.id: r for r in _world.pending_requests(world)}
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        p = task.params
        user = people[p["user"]]
        assert user.active
        asked = p["requests"] if tid == BY_POLICY else [p]
        for r in asked:
            assert pending[r["approval_id"]].approver_id == user.id
            assert pending[r["approval_id"]].trip.id == r["reservation_id"]
        if tid == REJECT:
            assert p["traveller"] in task.goal and p["title"] in task.goal
    assert len({t.goal for t in instances[tid]}) >= 6


def test_every_policy_instance_covers_the_whole_queue_and_splits_it(world, instances):
    today = _world.world_today(world)
    for task in instances[BY_POLICY]:
        p = task.params
        user = next(x for x in _world.people(world).values() if x.email == p["user"])
        queue = [r for r in _world.pending_requests(world) if r.approver_id == user.id]
        assert sorted(r.id for r in queue) == sorted(r["approval_id"] for r in p["requests"])
        assert all(r.trip.check_in >= today for r in queue)
        decisions = {r["approve"] for r in p["requests"]}
        assert decisions == {True, False}
        for r in p["requests"]:
            assert r["approve"] == (r["total_cents"] < p["limit"] * 100)
        assert f"${p['limit']:,}" in task.goal


# -- reject one request ----------------------------------------------------------------------


def test_rejecting_with_the_comment_passes_and_nothing_done_scores_zero(store, golden, instances):
    params = pick(instances, REJECT)
    act = deciding(params, params["approval_id"], "reject", params["comment"])
    assert passes(play(store, golden, REJECT, params, act))
    untouched = play(store, golden, REJECT, params)
    assert not untouched.success and untouched.score == 0.0


def test_approving_another_comment_or_another_request_fails(store, golden, world, instances):
    params = pick(instances, REJECT, when=lambda p: p["decoy"])
    approval = params["approval_id"]
    assert fails(play(store, golden, REJECT, params, deciding(params, approval, "approve")))
    other_words = deciding(params, approval, "reject", "No.")
    assert fails(play(store, golden, REJECT, params, other_words))
    other = next(
        r.id
        for r in _world.pending_requests(world)
        if r.id != approval
        and r.trip.check_in.isoformat() == params["decoy"]["check_in"]
        and _world.people(world)[r.trip.guest_id].name == params["decoy"]["traveller"]
    )
    right = deciding(params, approval, "reject", params["comment"])
    wrong = deciding(params, other, "reject", params["comment"])
    assert fails(play(store, golden, REJECT, params, wrong))
    assert fails(play(store, golden, REJECT, params, right, wrong))
    assert fails(play(store, golden, REJECT, params, right, infeasible="Not mine to decide."))


def test_the_comment_padded_with_more_text_fails(store, golden, instances):
    params = pick(instances, REJECT)
    padded = deciding(params, params["approval_id"], "reject", params["comment"] + " Call me.")
    assert fails(play(store, golden, REJECT, params, padded))


# -- decide the queue by the limit ---------------------------------------------------------------


def test_deciding_every_request_by_the_limit_passes(store, golden, instances):
    params = pick(instances, BY_POLICY)
    verdict = play(store, golden, BY_POLICY, params, *by_the_rule(params))
    assert passes(verdict), verdict


def test_one_request_the_other_way_or_left_waiting_fails(store, golden, instances):
    params = pick(instances, BY_POLICY)
    for flip in range(len(params["requests"])):
        assert fails(play(store, golden, BY_POLICY, params, *by_the_rule(params, flip=flip)))
    assert fails(play(store, golden, BY_POLICY, params, *by_the_rule(params)[1:]))


def test_approving_everything_or_rejecting_with_another_note_fails(store, golden, instances):
    params = pick(instances, BY_POLICY)
    everything = [deciding(params, r["approval_id"], "approve") for r in params["requests"]]
    assert fails(play(store, golden, BY_POLICY, params, *everything))
    other_note = by_the_rule(params, comment="Over the limit.")
    assert fails(play(store, golden, BY_POLICY, params, *other_note))


def test_an_approval_with_a_comment_added_fails(store, golden, instances):
    params = pick(instances, BY_POLICY)
    acts = []
    for r in params["requests"]:
        if r["approve"]:
            acts.append(deciding(params, r["approval_id"], "approve", "Fine by me."))
        else:
            acts.append(deciding(params, r["approval_id"], "reject", params["comment"]))
    assert fails(play(store, golden, BY_POLICY, params, *acts))
