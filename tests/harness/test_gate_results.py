"""Content-keyed gate results: what a template's key covers, which templates a run re-proves,
and that a re-proof catches an entry that was edited by hand or went stale (no browser)."""

from __future__ import annotations

import json

from officegym.harness import gate_results as gr
from officegym.harness.gate import GateResult, Probe
from officegym.tasks.coverage import InstanceStats
from officegym.tasks.registry import get

SETTINGS = gr.GateSettings()


def _result(template: str = "chat.post_update", seeds=(0, 2), score: float = 0.0) -> GateResult:
    probes = []
    for seed in seeds:
        probes += [
            Probe("oracle", seed, 1.0, True, True, 5, 3.0),
            Probe("oracle", seed, 1.0, True, True, 5, 3.1),
            Probe("null", seed, 0.0, False, True, 1, 1.0),
            Probe("change-everything", seed, 0.5, False, True, 7, 2.0),
            Probe("hedge", seed, score, False, True, 0, 0.01),
        ]
        if seed == seeds[0]:
            probes.append(Probe("random", seed, 0.0, False, True, 50, 9.0))
    coverage = InstanceStats(template, 200, 80, 0, None, 0.0, 12, None, True)
    return GateResult(
        template=template,
        difficulty=1,
        split="train",
        seeds=tuple(seeds),
        probes=tuple(probes),
        problems=(),
        elapsed_s=20.0,
        oracle_steps=(5,) * len(seeds),
        coverage=coverage,
        oracles={s: {"goal": f"g{s}", "diff": f"d{s}", "steps": 5} for s in seeds},
    )


def _entry(**kwargs) -> dict:
    template = get("chat.post_update")
    return gr.entry(_result(**kwargs), gr.key_parts(template, SETTINGS))


def test_a_template_key_covers_its_own_modules_and_the_task_modules_it_imports():
    closure = gr.module_closure("officegym.tasks.chat.post_update")
    assert {"officegym.tasks.chat.base", "officegym.tasks.expect"} <= closure.keys()
    assert not [name for name in closure if name.startswith("officegym.tasks.crm")]
    # The harness part covers everything the gate runs, the env and the probes among it.
    harness = gr.module_closure("officegym.harness.gate")
    assert {"officegym.harness.env", "officegym.harness.probes"} <= harness.keys()


def test_templates_of_another_app_keep_their_key_parts_apart():
    chat = gr.key_parts(get("chat.post_update"), SETTINGS)
    crm = gr.key_parts(get("crm.qualify_lead"), SETTINGS)
    assert set(chat) == {"template", "apps", "harness", "world", "chromium", "settings"}
    assert chat["template"] != crm["template"] and chat["apps"] != crm["apps"]
    assert {k: chat[k] for k in ("harness", "world", "chromium", "settings")} == {
        k: crm[k] for k in ("harness", "world", "chromium", "settings")
    }
    other = gr.key_parts(get("chat.post_update"), gr.GateSettings(random_steps=10))
    assert gr.key_of(other) != gr.key_of(chat)


def test_an_edit_of_any_module_in_the_closure_changes_the_hash(tmp_path):
    closure = dict(gr.module_closure("officegym.tasks.chat.post_update"))
    before = gr._digest(gr._modules(closure, ("officegym.tasks",)))
    edited = tmp_path / "expect.py"
    edited.write_bytes(closure["officegym.tasks.expect"].read_bytes() + b"\n# edited\n")
    closure["officegym.tasks.expect"] = edited
    assert gr._digest(gr._modules(closure, ("officegym.tasks",))) != before


def test_the_plan_reproves_changed_templates_and_samples_unchanged_ones(tmp_path):
    ids = ["chat.post_update", "chat.set_status", "crm.qualify_lead", "crm.move_deal_stage"]
    for template_id in ids[1:]:
        template = get(template_id)
        gr.save(tmp_path, gr.entry(_result(template_id), gr.key_parts(template, SETTINGS)))
    stale = gr.load(tmp_path, "crm.move_deal_stage")
    stale["parts"]["apps"], stale["key"] = "0" * 16, "1" * 16
    gr.save(tmp_path, stale)
    plan = gr.plan([get(t) for t in ids], tmp_path, SETTINGS, salt="abc", resample=1)
    assert plan.status["chat.post_update"] == "changed"
    assert plan.changed_parts["chat.post_update"] == ("no entry",)
    assert plan.status["crm.move_deal_stage"] == "changed"
    assert plan.changed_parts["crm.move_deal_stage"] == ("apps",)
    assert sorted(plan.ids("sampled") + plan.ids("recorded")) == [
        "chat.set_status",
        "crm.qualify_lead",
    ]
    assert len(plan.ids("sampled")) == 1


def test_the_sample_moves_with_the_commit_and_is_the_same_for_the_same_commit():
    ids = [f"t{i}" for i in range(40)]
    picks = {tuple(gr.sample(ids, f"commit{n}", 3)) for n in range(10)}
    assert len(picks) > 5 and all(len(p) == 3 for p in picks)
    assert gr.sample(ids, "c1", 3) == gr.sample(ids, "c1", 3)


def test_a_reproof_matching_the_entry_finds_no_difference_whatever_the_timings():
    recorded, fresh = _entry(), _entry()
    fresh["seconds"] = 999.0
    fresh["seeds"]["0"]["seconds"] = 1.0
    assert gr.differences(recorded, fresh) == []


def test_a_hand_edited_verdict_diff_goal_coverage_or_seed_is_caught():
    fresh = _entry()
    edits = [
        lambda e: e["seeds"]["0"]["verdicts"].pop(),
        lambda e: e["seeds"]["2"]["verdicts"][0].__setitem__(3, False),
        lambda e: e["seeds"]["0"].update(oracle_diff="x"),
        lambda e: e["seeds"]["2"].update(goal="y"),
        lambda e: e["coverage"].update(impossible=0),
        lambda e: e["seeds"].pop("2"),
        lambda e: e.update(problems=["none"]),
    ]
    for edit in edits:
        tampered = json.loads(json.dumps(fresh))
        edit(tampered)
        assert gr.differences(tampered, fresh), tampered


def test_a_changed_score_in_a_reproof_is_a_difference():
    assert gr.differences(_entry(), _entry(score=0.4))


def test_agents_a_longer_run_also_played_on_a_seed_are_not_demanded_of_a_shorter_one():
    longer = gr.entry(_result(), _entry()["parts"])
    longer["seeds"]["2"]["verdicts"].append(["random", 0.0, False, True])
    assert gr.differences(longer, _entry()) == []


def test_an_entry_of_another_key_is_not_compared_but_reported():
    recorded = _entry()
    recorded["key"] = "f" * 16
    assert gr.differences(recorded, _entry()) == [
        f"key {'f' * 16} is not the current key {_entry()['key']}"
    ]


def test_merging_keeps_seeds_a_longer_run_recorded_under_the_same_key_only():
    longer = gr.entry(_result(seeds=(0, 1, 2, 3, 4)), _entry()["parts"])
    merged = gr.merged(longer, _entry())
    assert sorted(merged["seeds"], key=int) == ["0", "1", "2", "3", "4"]
    longer["key"] = "0" * 16
    assert sorted(gr.merged(longer, _entry())["seeds"]) == ["0", "2"]


def test_entries_are_saved_as_stable_reviewable_json(tmp_path):
    path = gr.save(tmp_path, _entry())
    text = path.read_text()
    assert '["oracle", 1.0, true, true]' in text
    assert gr.load(tmp_path, "chat.post_update") == _entry()
    gr.save(tmp_path, gr.load(tmp_path, "chat.post_update"))
    assert path.read_text() == text
