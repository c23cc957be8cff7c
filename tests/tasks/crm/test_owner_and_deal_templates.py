"""Templates that change who owns records and where deals stand (a departing rep's deals, an
account's owner, closing stale deals, advancing deals in bulk, a next step, a new
opportunity): instances on the small seed-0 world, checked against the world with SQL of
their own, and verifiers on hand-made diffs.
"""

from __future__ import annotations

from datetime import date

import pytest

from officegym.apps.crm.fields import LOSS_REASONS, OPEN_STAGES, STAGE_PROBABILITY
from officegym.tasks import registry
from officegym.tasks.coverage import MIN_DISTINCT, instance_stats
from officegym.tasks.crm._calendar import today
from officegym.tasks.crm._people import may_edit, team_of
from tests.tasks.episodes import changed, grade, one

IDS = (
    "crm.reassign_departing_rep",
    "crm.close_stale_deals",
    "crm.advance_deals_bulk",
    "crm.reassign_account",
    "crm.set_next_step",
    "crm.create_opportunity",
)
SEEDS = range(30)
OPEN_SQL = "stage NOT IN ('Closed Won', 'Closed Lost')"
TODAY = "2025-09-17"  # the small seed-0 world's clock


def merge(*diffs: dict) -> dict:
    tables: dict = {}
    for d in diffs:
        for table, parts in d.items():
            for kind, found in parts.items():
                tables.setdefault(table, {}).setdefault(kind, {}).update(found)
    return tables


def user_id(world, email: str) -> int:
    return one(world, "SELECT id FROM people_employee WHERE email = ?", email)[0]


def stray_note(pk: int = 9100) -> dict:
    note = {"id": pk, "title": "Done, closing this out.", "body": "x", "account_id": 1}
    return {"crm_note": {"inserted": {pk: note}}}


# -- instances -----------------------------------------------------------------------------


@pytest.mark.parametrize("template_id", IDS)
def test_the_user_is_active(world, instances, template_id):
    for task in instances[template_id]:
        active = one(world, "SELECT is_active FROM people_employee WHERE email = ?", task.user)
        assert active == (1,), (template_id, task.params)


def test_a_departing_rep_reports_to_the_user_and_every_open_deal_of_theirs_is_named(
    world, instances
):
    for task in instances["crm.reassign_departing_rep"]:
        p = task.params
        manager = one(world, "SELECT manager_id FROM people_employee WHERE id = ?", p["rep_id"])
        assert manager == (p["user_id"],) and p["user_id"] == user_id(world, p["user"])
        deals = world.execute(
            f"SELECT id FROM crm_opportunity WHERE owner_id = ? AND {OPEN_SQL} ORDER BY id",
            (p["rep_id"],),
        ).fetchall()
        assert [d[0] for d in deals] == p["deal_ids"] and 2 <= len(deals) <= 15
        assert p["rep"] in task.goal and p["decoy"] == {"stage_filter": "Any"}


def test_a_departing_rep_s_deals_go_to_the_user_or_to_a_named_teammate(world, instances):
    teammates = 0
    for task in instances["crm.reassign_departing_rep"]:
        p = task.params
        if p["to_me"]:
            assert p["owner_id"] == p["user_id"] and p["owner"] == p["manager"]
            continue
        teammates += 1
        (manager,) = one(
            world, "SELECT manager_id FROM people_employee WHERE id = ?", p["owner_id"]
        )
        assert manager == p["user_id"] and p["owner_id"] != p["rep_id"]
        assert p["owner"] in task.goal
    assert 5 <= teammates <= 25


def test_departing_reps_give_enough_distinct_instances(golden):
    stats = instance_stats(registry.get("crm.reassign_departing_rep"), golden, samples=100)
    assert stats.distinct_100 >= MIN_DISTINCT


def test_stale_deals_are_every_overdue_open_deal_of_the_user(world, instances):
    reasons = set()
    for task in instances["crm.close_stale_deals"]:
        p = task.params
        reasons.add(p["reason"])
        assert p["reason"] in LOSS_REASONS and p["reason"] in task.goal
        overdue = world.execute(
            f"SELECT id, probability FROM crm_opportunity WHERE owner_id = ? AND {OPEN_SQL} "
            "AND close_date < ? ORDER BY close_date, id",
            (p["user_id"], TODAY),
        ).fetchall()
        assert [d[0] for d in overdue] == p["deal_ids"] and 2 <= len(overdue) <= 6
        assert [d[1] for d in overdue] == p["old_probabilities"]
        extra = p["decoy"]["deals"][-1]
        close, owner = one(
            world, "SELECT close_date, owner_id FROM crm_opportunity WHERE name = ?", extra
        )
        assert close >= TODAY and owner == p["user_id"]
    assert "Timing" in reasons and len(reasons) > 1


def test_deals_to_advance_are_all_of_the_user_s_at_that_account_and_stage(world, instances):
    for task in instances["crm.advance_deals_bulk"]:
        p = task.params
        deals = world.execute(
            "SELECT o.id FROM crm_opportunity o JOIN crm_account a ON a.id = o.account_id "
            "WHERE o.owner_id = ? AND a.name = ? AND o.stage = ? ORDER BY o.id",
            (p["user_id"], p["account"], p["from_stage"]),
        ).fetchall()
        assert [d[0] for d in deals] == p["deal_ids"] and len(deals) >= 2
        assert OPEN_STAGES.index(p["stage"]) > OPEN_STAGES.index(p["from_stage"])
        assert p["account"] in task.goal and p["stage"] in task.goal
        assert p["decoy"], p


def test_an_account_is_reassigned_by_someone_who_may_edit_it_unless_impossible(world, instances):
    feasible = 0
    for task in instances["crm.reassign_account"]:
        p = task.params
        owner = one(world, "SELECT owner_id FROM crm_account WHERE id = ?", p["account_id"])[0]
        assert one(world, "SELECT name FROM crm_account WHERE id = ?", p["account_id"]) == (
            p["account"],
        )
        assert p["colleague_id"] != owner and p["colleague"] in task.goal
        assert may_edit(world, p["user"], owner) is p["feasible"]
        feasible += p["feasible"]
        if not p["feasible"]:
            role = one(world, "SELECT role FROM people_employee WHERE email = ?", p["user"])
            assert role == ("member",) and p["decoy"] is None
    assert 1 <= len(SEEDS) - feasible <= len(SEEDS) // 3


def test_the_next_step_goes_on_the_account_s_open_deal_closing_soonest(world, instances):
    for task in instances["crm.set_next_step"]:
        p = task.params
        deals = world.execute(
            "SELECT o.id, o.name, o.close_date, o.owner_id FROM crm_opportunity o "
            f"JOIN crm_account a ON a.id = o.account_id WHERE a.name = ? AND o.{OPEN_SQL} "
            "ORDER BY o.close_date, o.id",
            (p["account"],),
        ).fetchall()
        assert len(deals) >= 2 and deals[0][0] == p["deal_id"] and deals[0][1] == p["deal"]
        assert TODAY <= deals[0][2] < deals[1][2]
        assert may_edit(world, p["user"], deals[0][3])
        assert p["decoy"] == {"deal": deals[1][1]}
        assert f"“{p['account']}”" in task.goal and f"“{p['step']}”" in task.goal
        assert p["deal"] not in task.goal


def test_a_new_opportunity_has_a_fresh_name_on_an_account_of_the_user(world, instances):
    named = 0
    for task in instances["crm.create_opportunity"]:
        p = task.params
        assert not one(world, "SELECT 1 FROM crm_opportunity WHERE name = ?", p["name"])
        owner = one(world, "SELECT owner_id FROM crm_account WHERE id = ?", p["account_id"])
        assert owner == (p["user_id"],) and p["name"].startswith(p["account"])
        assert date.fromisoformat(p["close_date"]) > date.fromisoformat(TODAY)
        assert f"${p['amount']:,}" in task.goal and p["stage"] in task.goal
        if p["named_probability"]:
            named += 1
            assert f"{p['probability']}%" in task.goal
        else:
            assert p["probability"] == STAGE_PROBABILITY[p["stage"]]
    assert 0 < named < len(SEEDS) // 2


def test_today_is_the_world_clock_s_date(world):
    assert today(world) == TODAY


def test_the_team_of_a_manager_holds_indirect_reports(world):
    direct = {r[0] for r in world.execute("SELECT id FROM people_employee WHERE manager_id = 2")}
    team = team_of(world, 2)
    assert direct < team


# -- verifiers -----------------------------------------------------------------------------


def test_reassigning_the_open_deals_passes_and_closed_or_missing_ones_fail(world, instances):
    p = instances["crm.reassign_departing_rep"][0].params
    tid = "crm.reassign_departing_rep"
    moves = [changed(world, "crm_opportunity", d, owner_id=p["owner_id"]) for d in p["deal_ids"]]
    assert grade(tid, p, merge(*moves)).success
    assert grade(tid, p).score == 0
    assert not grade(tid, p, merge(*moves[1:])).success
    closed = one(
        world,
        f"SELECT id FROM crm_opportunity WHERE owner_id = ? AND NOT {OPEN_SQL}",
        p["rep_id"],
    )[0]
    extra = changed(world, "crm_opportunity", closed, owner_id=p["owner_id"])
    assert not grade(tid, p, merge(*moves, extra)).success
    assert not grade(tid, p, merge(*moves, stray_note())).success


def test_deals_meant_for_a_teammate_fail_when_the_manager_keeps_them(world, instances):
    tid = "crm.reassign_departing_rep"
    p = next(t.params for t in instances[tid] if not t.params["to_me"])
    to_teammate = [
        changed(world, "crm_opportunity", d, owner_id=p["owner_id"]) for d in p["deal_ids"]
    ]
    assert grade(tid, p, merge(*to_teammate)).success
    kept = [changed(world, "crm_opportunity", d, owner_id=p["user_id"]) for d in p["deal_ids"]]
    verdict = grade(tid, p, merge(*kept))
    assert not verdict.success and verdict.score == 0


def _close(world, deal_id: int, reason: str, **more) -> dict:
    return changed(
        world,
        "crm_opportunity",
        deal_id,
        stage="Closed Lost",
        probability=0,
        loss_reason=reason,
        **more,
    )


def test_closing_the_overdue_deals_needs_stage_reason_and_probability(world, instances):
    tid = "crm.close_stale_deals"
    p = instances[tid][0].params
    closes = [_close(world, d, p["reason"]) for d in p["deal_ids"]]
    assert grade(tid, p, merge(*closes)).success
    wrong_reason = "Price" if p["reason"] != "Price" else "Other"
    assert not grade(
        tid, p, merge(_close(world, p["deal_ids"][0], wrong_reason), *closes[1:])
    ).success
    no_reason = changed(world, "crm_opportunity", p["deal_ids"][0], stage="Closed Lost")
    assert not grade(tid, p, merge(no_reason, *closes[1:])).success
    decoy = one(world, "SELECT id FROM crm_opportunity WHERE name = ?", p["decoy"]["deals"][-1])
    assert not grade(tid, p, merge(*closes, _close(world, decoy[0], p["reason"]))).success
    moved_date = _close(world, p["deal_ids"][0], p["reason"], close_date="2025-09-17")
    assert not grade(tid, p, merge(moved_date, *closes[1:])).success


def test_advancing_needs_every_deal_and_the_stage_default_probability(world, instances):
    tid = "crm.advance_deals_bulk"
    p = instances[tid][0].params
    default = STAGE_PROBABILITY[p["stage"]]
    moves = [
        changed(world, "crm_opportunity", d, stage=p["stage"], probability=default)
        for d in p["deal_ids"]
    ]
    assert grade(tid, p, merge(*moves)).success
    assert not grade(tid, p, merge(*moves[1:])).success
    stage_only = changed(world, "crm_opportunity", p["deal_ids"][0], stage=p["stage"])
    assert grade(tid, p, merge(stage_only, *moves[1:])).success is (
        p["old_probabilities"][0] == default
    )
    wrong = next(s for s in OPEN_STAGES if s not in (p["stage"], p["from_stage"]))
    off = changed(world, "crm_opportunity", p["deal_ids"][0], stage=wrong)
    assert not grade(tid, p, merge(off, *moves[1:])).success
    assert not grade(tid, p, merge(*moves, stray_note())).success


def test_reassigning_an_account_passes_only_for_that_account_and_colleague(world, instances):
    tid = "crm.reassign_account"
    tasks = instances[tid]
    p = next(t.params for t in tasks if t.params["feasible"])
    right = changed(world, "crm_account", p["account_id"], owner_id=p["colleague_id"])
    assert grade(tid, p, right).success
    assert grade(tid, p).score == 0
    other = one(world, "SELECT id FROM crm_account WHERE name = ?", p["decoy"]["account"])[0]
    assert not grade(
        tid, p, changed(world, "crm_account", other, owner_id=p["colleague_id"])
    ).success
    nobody = user_id(world, p["user"])
    wrong_person = changed(world, "crm_account", p["account_id"], owner_id=nobody)
    assert not grade(tid, p, wrong_person).success
    assert not grade(tid, p, merge(right, stray_note())).success


def test_an_impossible_reassignment_is_graded_on_the_report_and_no_change(world, instances):
    tid = "crm.reassign_account"
    p = next(t.params for t in instances[tid] if not t.params["feasible"])
    assert grade(tid, p, infeasible="read only").success
    assert not grade(tid, p, answer="done").success
    right = changed(world, "crm_account", p["account_id"], owner_id=p["colleague_id"])
    assert not grade(tid, p, right, infeasible="read only").success


def test_the_next_step_must_land_on_the_soonest_deal(world, instances):
    tid = "crm.set_next_step"
    p = instances[tid][0].params
    right = changed(world, "crm_opportunity", p["deal_id"], next_step=p["step"].upper() + " ")
    assert grade(tid, p, right).success
    other = one(world, "SELECT id FROM crm_opportunity WHERE name = ?", p["decoy"]["deal"])[0]
    assert not grade(tid, p, changed(world, "crm_opportunity", other, next_step=p["step"])).success
    partial = changed(world, "crm_opportunity", p["deal_id"], next_step=p["step"][:10])
    assert not grade(tid, p, partial).success
    assert not grade(tid, p, merge(right, stray_note())).success


def _new_deal(p, pk: int = 9001, **overrides) -> dict:
    deal = {
        "id": pk,
        "name": p["name"],
        "account_id": p["account_id"],
        "primary_contact_id": None,
        "owner_id": p["user_id"],
        "stage": p["stage"],
        "amount": p["amount"],
        "probability": p["probability"],
        "close_date": p["close_date"],
        "lead_source": None,
        "next_step": None,
        "loss_reason": None,
        **overrides,
    }
    history = {"id": 9500, "opportunity_id": pk, "field": "created"}
    return {
        "crm_opportunity": {"inserted": {pk: deal}},
        "crm_opportunity_history": {"inserted": {9500: history}},
    }


def test_a_new_opportunity_must_hold_every_given_value(world, instances):
    tid = "crm.create_opportunity"
    p = instances[tid][0].params
    assert grade(tid, p, _new_deal(p)).success
    assert grade(tid, p).score == 0
    assert not grade(tid, p, _new_deal(p, amount=p["amount"] + 500)).success
    assert not grade(tid, p, _new_deal(p, close_date="2026-12-31")).success
    assert not grade(tid, p, _new_deal(p, probability=p["probability"] + 5)).success
    other = one(world, "SELECT id FROM crm_account WHERE name = ?", p["decoy"]["account"])[0]
    assert not grade(tid, p, _new_deal(p, account_id=other)).success
    twice = merge(_new_deal(p), _new_deal(p, pk=9002))
    assert not grade(tid, p, twice).success
    assert not grade(tid, p, merge(_new_deal(p), stray_note())).success


@pytest.mark.parametrize(
    "column, junk",
    [("next_step", "zz junk"), ("lead_source", "Web"), ("primary_contact_id", 1)],
)
def test_a_new_opportunity_with_a_detail_nobody_asked_for_fails(instances, column, junk):
    tid = "crm.create_opportunity"
    p = instances[tid][0].params
    verdict = grade(tid, p, _new_deal(p, **{column: junk}))
    assert not verdict.success and verdict.score == 0


def test_a_new_opportunity_named_with_more_than_the_given_name_fails(instances):
    tid = "crm.create_opportunity"
    p = instances[tid][0].params
    assert not grade(tid, p, _new_deal(p, name=p["name"] + " (urgent!)")).success
