"""The quality gate: every registered template passes it on instance seed 0, plus its first
impossible instance if it has them (or its first feasible one when seed 0 is impossible),
and the gate itself catches a verifier that pays collateral damage and an oracle that does
not solve."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from officegym.cli import main as cli
from officegym.harness.env import AsyncEnv
from officegym.harness.gate import GateResult, check_template, run_gate
from officegym.harness.runtime import RuntimeOptions, acquire_runtime, release_runtime
from officegym.tasks import expect
from officegym.tasks.chat.post_update import PostUpdate
from officegym.tasks.registry import templates

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TEMPLATE_IDS = sorted(t.id for t in templates())
# Each template's gate findings, every probe with its detail, kept for review after a run.
FINDINGS = Path(__file__).resolve().parents[2] / "out" / "gate-test"


def explain(result: GateResult) -> str:
    lines = [f"{result.template} failed the gate:", *result.problems]
    lines += [f"{p.agent} seed {p.seed}: {p.detail}" for p in result.probes if not p.ok]
    return "\n".join(lines)


@pytest.mark.parametrize("template_id", TEMPLATE_IDS)
def test_every_template_passes_the_gate_on_a_feasible_and_an_impossible_seed(store, template_id):
    # Seed 0, plus the first impossible instance of templates that have them, keeps the 50
    # templates' gate within `make test`'s time; `make check` plays every probe on seeds 0-4.
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


class _PaysAnyPost(PostUpdate):
    """A careless verifier: any new message counts, collateral is not looked at."""

    def verify(self, ctx, params: Mapping[str, Any]):
        return expect.grade(ctx, expect.inserted("chat_message", count=None))


class _IdleOracle(PostUpdate):
    """An oracle that claims success without doing the work."""

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        actions.send_msg_to_user("Posted.")


def _gate(store, template, seeds=(0,)) -> GateResult:
    shared = acquire_runtime(RuntimeOptions(home=store.home))

    async def main() -> GateResult:
        env = AsyncEnv(template, shared.runtime, observation={"axtree": True}, name="gate-self")
        try:
            return await check_template(template, env, seeds, random_steps=5)
        finally:
            await env.close()

    try:
        return shared.run(main())
    finally:
        release_runtime(shared)


def test_the_gate_fails_a_verifier_that_pays_collateral_damage_and_wrong_records(store):
    result = _gate(store, _PaysAnyPost())
    assert not result.passed
    failed = {p.agent for p in result.probes if not p.ok}
    assert "change-everything" in failed
    assert "wrong-record" in failed or not any(p.agent == "wrong-record" for p in result.probes)
    assert all(p.ok for p in result.probes if p.agent in ("oracle", "null"))


def test_the_gate_fails_an_oracle_that_does_not_solve(store):
    result = _gate(store, _IdleOracle())
    assert not result.passed
    assert [p.ok for p in result.probes if p.agent == "oracle"] == [False, False]
    assert "must succeed" in next(p.detail for p in result.probes if p.agent == "oracle")


def test_check_command_prints_the_table_writes_json_and_exits_by_result(store, tmp_path):
    out = tmp_path / "gate.json"
    args = ["check", "--template", "chat.post_update", "--seeds", "1", "--json", str(out)]
    result = CliRunner().invoke(cli, [*args, "--world-home", str(store.home)])
    assert result.exit_code == 0, result.output
    assert "1/1 templates passed" in result.output
    (row,) = json.loads(out.read_text())
    assert row["template"] == "chat.post_update" and row["passed"] is True
    # Seed 0 names a live channel; the gate adds the first impossible seed (an archived one).
    assert row["seeds"] == [0, 2]
    assert {p["agent"] for p in row["probes"]} >= {"oracle", "null", "random"}
    unknown = CliRunner().invoke(cli, ["check", "--template", "chat.nope"])
    assert unknown.exit_code != 0 and "chat.post_update" in unknown.output
