"""crm.move_deal_stage without a browser: instances on the small seed-0 world and the verifier
on hand-made diffs."""

from __future__ import annotations

from officegym.apps.crm.fields import STAGE_PROBABILITY
from officegym.tasks import registry
from officegym.tasks.crm.move_deal_stage import OPEN_STAGES
from tests.tasks.episodes import ctx, one, update

IDS = ("crm.move_deal_stage",)
SEEDS = range(30)
TID = IDS[0]


def grade(params, tables=None, **kwargs):
    return registry.get(TID).verify(ctx(tables, **kwargs), params)


def deal_row(world, deal_id):
    columns = [c[1] for c in world.execute("PRAGMA table_info(crm_opportunity)")]
    return dict(
        zip(columns, one(world, "SELECT * FROM crm_opportunity WHERE id = ?", deal_id), strict=True)
    )


def moved(world, params, **extra):
    row = deal_row(world, params["deal_id"])
    changes = {"stage": (row["stage"], params["stage"])}
    new_probability = STAGE_PROBABILITY[params["stage"]]
    if new_probability != row["probability"]:
        changes["probability"] = (row["probability"], new_probability)
    changes["updated_at"] = (row["updated_at"], "2025-09-17 14:30:05")
    changes.update(extra)
    return {"crm_opportunity": {"updated": {params["deal_id"]: update(row, **changes)}}}


def test_instances_are_deterministic_and_name_a_real_open_deal(instances, golden, world):
    for seed, task in zip(SEEDS, instances[TID], strict=True):
        again = registry.get(TID).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        p = task.params
        name, stage, owner = one(
            world, "SELECT name, stage, owner_id FROM crm_opportunity WHERE id = ?", p["deal_id"]
        )
        assert name == p["deal"] and name in task.goal and p["stage"] in task.goal
        assert stage == p["old_stage"] and stage in OPEN_STAGES and p["stage"] != stage
        (count,) = one(world, "SELECT count(*) FROM crm_opportunity WHERE name = ?", name)
        assert count == 1
        (user_id, role) = one(
            world, "SELECT id, role FROM people_employee WHERE email = ?", p["user"]
        )
        if p["feasible"]:
            assert user_id == owner
        else:
            assert user_id != owner and role == "member"


def test_about_one_instance_in_six_is_a_read_only_deal(instances):
    impossible = sum(not t.params["feasible"] for t in instances[TID])
    assert 2 <= impossible <= 10


def test_the_decoy_is_another_open_deal_of_the_same_owner_not_already_at_the_stage(
    instances, world
):
    for task in instances[TID]:
        decoy = task.params["decoy"]
        if decoy is None:
            continue
        owner, stage = one(
            world, "SELECT owner_id, stage FROM crm_opportunity WHERE name = ?", decoy["deal"]
        )
        (real_owner,) = one(
            world, "SELECT owner_id FROM crm_opportunity WHERE id = ?", task.params["deal_id"]
        )
        assert owner == real_owner and decoy["deal"] != task.params["deal"]
        assert stage in OPEN_STAGES and stage != task.params["stage"]


def feasible(instances):
    return next(t.params for t in instances[TID] if t.params["feasible"])


def test_the_move_passes_and_an_untouched_world_scores_zero(instances, world):
    params = feasible(instances)
    verdict = grade(params, moved(world, params))
    assert verdict.success and verdict.score == 1.0
    nothing = grade(params)
    assert not nothing.success and nothing.score == 0.0


def test_the_wrong_stage_another_field_or_another_deal_fail(instances, world):
    params = feasible(instances)
    wrong = next(s for s in OPEN_STAGES if s not in (params["stage"], params["old_stage"]))
    assert not grade({**params, "stage": wrong}, moved(world, params)).success
    row = deal_row(world, params["deal_id"])
    extra = moved(world, params, amount=(row["amount"], 1))
    assert not grade(params, extra).success
    other = next(t.params for t in instances[TID] if t.params["deal_id"] != params["deal_id"])
    both = moved(world, params)
    both["crm_opportunity"]["updated"].update(moved(world, other)["crm_opportunity"]["updated"])
    assert not grade(params, both).success


def test_a_read_only_deal_pays_only_the_report(instances, world):
    params = next(t.params for t in instances[TID] if not t.params["feasible"])
    assert grade(params, infeasible="read only").success
    assert not grade(params).success
    assert not grade(params, moved(world, params), infeasible="read only").success
