"""The quality gate: every registered template holds a current, passing gate result, and the
gate itself catches a verifier that pays collateral damage and an oracle that does not solve.

A template's result is content-keyed (`officegym.harness.gate_results`): a template whose key
changed (its module or the task modules it imports, its apps, the harness core, the world,
Chromium, the gate settings) is re-proven here on instance seed 0, plus its first impossible
instance if it has them (or its first feasible one when seed 0 is impossible), and the test
fails until the refreshed entry in `gate-results/` is committed. Three unchanged templates,
chosen by the commit id, are re-proven every run and must reproduce their entries exactly.
`make check` proves seeds 0-4 of every template.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from officegym.cli import main as cli
from officegym.harness import gate_results
from officegym.harness.env import AsyncEnv
from officegym.harness.gate import GateResult, check_template, run_gate
from officegym.harness.runtime import RuntimeOptions, acquire_runtime, release_runtime
from officegym.tasks import expect
from officegym.tasks.chat.post_update import PostUpdate
from officegym.tasks.registry import get, templates

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "gate-results"
SETTINGS = gate_results.GateSettings()
TEMPLATE_IDS = sorted(t.id for t in templates())
PLAN = gate_results.plan(
    [get(t) for t in TEMPLATE_IDS],
    RESULTS,
    SETTINGS,
    salt=gate_results.commit_id(ROOT) or "no-commit",
)
# Each re-proven template's gate findings, every probe with its detail, kept for review.
FINDINGS = ROOT / "out" / "gate-test"


@pytest.fixture(scope="session")
def gate_runtime(store):
    """One browser and one server for every gate run of this test process."""
    shared = acquire_runtime(RuntimeOptions(home=store.home))
    yield shared
    release_runtime(shared)


def explain(result: GateResult) -> str:
    lines = [f"{result.template} failed the gate:", *result.problems]
    lines += [f"{p.agent} seed {p.seed}: {p.detail}" for p in result.probes if not p.ok]
    return "\n".join(lines)


@pytest.mark.parametrize("template_id", TEMPLATE_IDS)
def test_every_template_holds_a_current_passing_gate_result(store, gate_runtime, template_id):
    status = PLAN.status[template_id]
    recorded = gate_results.load(RESULTS, template_id)
    if status == "recorded":
        # Proven on exactly this source, world, browser and settings, and committed.
        assert recorded["passed"] and "0" in recorded["seeds"]
        return
    (result,) = run_gate(
        [template_id], seeds=(0,), home=store.home, cover_impossible=True, random_seeds=1
    )
    FINDINGS.mkdir(parents=True, exist_ok=True)
    (FINDINGS / f"{template_id}.json").write_text(json.dumps(result.to_json(), indent=1))
    assert result.passed, explain(result)
    assert [p.seed for p in result.probes if p.agent == "random"] == [0]
    agents = {p.agent for p in result.probes}
    assert {"oracle", "null", "random", "change-everything"} <= agents
    assert all(steps > 0 for steps in result.oracle_steps)
    # The gate also samples 200 instances: varied enough, no near-constant right answer.
    assert result.coverage is not None and result.coverage.sampled == 200
    if status == "changed":
        gate_results.record(RESULTS, get(template_id), result, SETTINGS)
        changed = ", ".join(PLAN.changed_parts[template_id])
        pytest.fail(
            f"gate-results/{template_id}.json was stale ({changed}): the gate re-proved "
            "the template and rewrote the entry; commit it"
        )
    fresh = gate_results.entry(result, PLAN.parts[template_id])
    found = gate_results.differences(recorded, fresh)
    assert not found, f"gate-results/{template_id}.json does not match a re-proof: {found}"


def test_every_committed_entry_belongs_to_a_template_and_names_its_key():
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text())
        assert data["template"] == path.stem and path.stem in TEMPLATE_IDS, path.name
        assert data["key"] == gate_results.key_of(data["parts"]), path.name


def test_each_run_reproves_some_unchanged_templates_chosen_by_the_commit():
    unchanged = [t for t, s in PLAN.status.items() if s in ("recorded", "sampled")]
    assert len(PLAN.ids("sampled")) == min(3, len(unchanged))


class _PaysAnyPost(PostUpdate):
    """A careless verifier: any new message counts, collateral is not looked at."""

    def verify(self, ctx, params: Mapping[str, Any]):
        return expect.grade(ctx, expect.inserted("chat_message", count=None))


class _IdleOracle(PostUpdate):
    """An oracle that claims success without doing the work."""

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        actions.send_msg_to_user("Posted.")


def _gate(shared, template, seeds=(0,)) -> GateResult:
    async def main() -> GateResult:
        env = AsyncEnv(template, shared.runtime, observation={"axtree": True}, name="gate-self")
        try:
            return await check_template(template, env, seeds, random_steps=5)
        finally:
            await env.close()

    return shared.run(main())


def test_the_gate_fails_a_verifier_that_pays_collateral_damage_and_wrong_records(gate_runtime):
    result = _gate(gate_runtime, _PaysAnyPost())
    assert not result.passed
    failed = {p.agent for p in result.probes if not p.ok}
    assert "change-everything" in failed
    assert "wrong-record" in failed or not any(p.agent == "wrong-record" for p in result.probes)
    assert all(p.ok for p in result.probes if p.agent in ("oracle", "null"))


def test_the_gate_fails_an_oracle_that_does_not_solve(gate_runtime):
    result = _gate(gate_runtime, _IdleOracle())
    assert not result.passed
    assert [p.ok for p in result.probes if p.agent == "oracle"] == [False, False]
    assert "must succeed" in next(p.detail for p in result.probes if p.agent == "oracle")


def test_check_command_prints_the_table_writes_json_and_entries_and_exits_by_result(
    store, gate_runtime, tmp_path
):
    out, folder = tmp_path / "gate.json", tmp_path / "gate-results"
    args = ["check", "--template", "chat.post_update", "--seeds", "1", "--json", str(out)]
    args += ["--results", str(folder)]
    result = CliRunner().invoke(cli, [*args, "--world-home", str(store.home)])
    assert result.exit_code == 0, result.output
    assert "1/1 templates passed" in result.output
    (row,) = json.loads(out.read_text())
    assert row["template"] == "chat.post_update" and row["passed"] is True
    # Seed 0 names a live channel; the gate adds the first impossible seed (an archived one).
    assert row["seeds"] == [0, 2]
    assert {p["agent"] for p in row["probes"]} >= {"oracle", "null", "random"}
    # The entry it wrote is current for this checkout, and a re-proof matches it...
    written = gate_results.load(folder, "chat.post_update")
    plan = gate_results.plan([get("chat.post_update")], folder, SETTINGS, salt="x", resample=0)
    assert plan.status == {"chat.post_update": "recorded"}
    assert sorted(written["seeds"]) == ["0", "2"] and written["passed"] is True
    assert gate_results.differences(written, written) == []
    # ...while a hand-edited entry fails the sampled re-proof, whatever was changed.
    tampered = json.loads(json.dumps(written))
    tampered["seeds"]["2"]["verdicts"][0][1] = 1.0
    assert gate_results.differences(tampered, written)
    tampered = json.loads(json.dumps(written))
    tampered["seeds"]["0"]["oracle_diff"] = "0" * 16
    assert gate_results.differences(tampered, written)
    unknown = CliRunner().invoke(cli, ["check", "--template", "chat.nope"])
    assert unknown.exit_code != 0 and "chat.post_update" in unknown.output
