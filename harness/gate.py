"""The quality gate: every template proves its oracle solves it and its verifier resists
degenerate agents, through the real apps in real Chromium.

Per instance seed, the gate plays:

- **oracle**, twice: must score 1.0 both times, with the same goal and the same diff
  (determinism);
- **null** (stops at once) and **random** (50 random actions): must score 0;
- **change-everything**: the oracle's work plus a stray edit in the same app (the template's
  `collateral`), then the oracle's final message: must fail and score below 1. It starts
  from a snapshot of the oracle's final world (`WorldStore.snapshot/restore`) rather than
  replaying the oracle: the verifier sees the same diff and message either way;
- **wrong-record** (when the template has a near miss, `decoy`): the oracle pointed at a
  similar but wrong record: must fail and score below 1;
- the **re-grading probes** of `officegym.harness.probes`, made from the first oracle run's
  final answer and world without a browser: report-infeasible, hedge, all-candidates, spam,
  decorate and junk-columns must fail with a score below 1; paraphrase must pass with 1.
  Each runs where it applies (hedge and paraphrase on answer tasks, decorate where the
  oracle wrote or edited a message...).

Per template, without a browser, it also samples 200 instances (`tasks.coverage`): too few
distinct instances, or one right answer for too many of them, is a problem of the template.

`officegym check [--template ID] [--seeds N]` runs it and prints one row per template.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from officegym.seed_data.connect import connect
from officegym.seed_data.store import Snapshot
from officegym.tasks import registry
from officegym.tasks.coverage import InstanceStats, instance_stats
from officegym.tasks.registry import Template

from .actions import ActionParseError, parse_action
from .agents import NullAgent, OracleAgent, RandomAgent
from .env import AsyncEnv
from .gate_results import fingerprint
from .page_actions import PageActions
from .probes import Outcome, run_probes, variants
from .runtime import Runtime, RuntimeOptions, SharedRuntime, acquire_runtime, release_runtime

PROBES = (
    "oracle",
    "null",
    "random",
    "change-everything",
    "wrong-record",
    "report-infeasible",
    "hedge",
    "paraphrase",
    "all-candidates",
    "spam",
    "decorate",
    "junk-columns",
)


@dataclass(frozen=True)
class Probe:
    """One gate episode: which agent, on which seed, what it scored, and whether that is
    what the gate requires of it."""

    agent: str
    seed: int
    score: float
    success: bool
    ok: bool
    steps: int
    elapsed_s: float
    detail: str = ""


@dataclass(frozen=True)
class GateResult:
    """The gate's findings for one template."""

    template: str
    difficulty: int
    split: str
    seeds: tuple[int, ...]
    probes: tuple[Probe, ...]
    problems: tuple[str, ...]
    elapsed_s: float
    oracle_steps: tuple[int, ...] = field(default_factory=tuple)
    coverage: InstanceStats | None = None
    # Per seed, what the first oracle run left: hashes of its goal and diff, and its steps.
    oracles: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.problems and all(p.ok for p in self.probes)

    def summary(self, agent: str) -> str:
        """`k/n` probes of `agent` that behaved, or `-` when the probe does not apply."""
        runs = [p for p in self.probes if p.agent == agent]
        if not runs:
            return "-"
        return f"{sum(p.ok for p in runs)}/{len(runs)}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["passed"] = self.passed
        return data


class _ScriptAgent:
    """Plays `script(template, actions, params)` through the action API."""

    def __init__(self, name: str, template: Template, script) -> None:
        self.name = name
        self.template = template
        self.script = script

    async def play(self, env: AsyncEnv) -> None:
        params = env.task.params
        await env.run_script(lambda actions: self.script(self.template, actions, params))


def _collateral_then(ending: str | None):
    """The change-everything script on the oracle's final world: the template's collateral
    edit, then the oracle's final message (`ending`, when it sent one)."""

    def script(template: Template, actions: PageActions, params: Mapping) -> None:
        template.collateral(actions, params)
        if ending is not None:
            actions._step(ending)

    return script


def _ending(env: AsyncEnv) -> str | None:
    """The action that ended the episode in `env`, when one did."""
    if not env.done or env.truncated or not env.last_action:
        return None
    try:
        calls = parse_action(env.last_action)
    except ActionParseError:
        return None
    return env.last_action if any(call.ends_episode for call in calls) else None


def _wrong_record(template: Template, actions: PageActions, params: Mapping) -> None:
    template.solve(actions, {**params, **(template.decoy(params) or {})})


def _expectation(agent: str) -> tuple[Callable[[float, bool], bool], str]:
    if agent == "oracle":
        return (lambda score, success: success and score == 1.0), "must succeed with score 1"
    if agent in ("null", "random"):
        return (lambda score, success: score == 0.0), "must score 0"
    return (lambda score, success: not success and score < 1.0), "must fail with score < 1"


async def _play(
    env: AsyncEnv, agent, seed: int, start: Snapshot | None = None
) -> tuple[Probe, Any]:
    clock = time.monotonic()
    # The random agent gets its full budget of actions whatever the task's step limit.
    env.max_steps_override = agent.steps if isinstance(agent, RandomAgent) else None
    await env.reset(options={"instance_seed": seed, "world": start})
    env.set_agent_name(agent.name)
    error = ""
    try:
        await agent.play(env)
    except Exception as exc:  # noqa: BLE001 - a crashing script is a gate finding
        error = f"{type(exc).__name__}: {exc}"
    if not env.graded:
        await env.finish()
    verdict, diff = env.final
    accept, rule = _expectation(agent.name)
    ok = accept(verdict.score, verdict.success) and not (error and agent.name == "oracle")
    detail = error if ok else f"{rule}; got score {verdict.score:.3f}. {error}".strip()
    if not ok:
        failed = "; ".join(f"{c.name}: {c.detail}" for c in verdict.failed if c.kind != "process")
        passed = "; ".join(c.name for c in verdict.checks if c.passed and c.kind != "process")
        detail += f" Failed: {failed or 'none'}. Passed: {passed or 'none'}."
    probe = Probe(
        agent=agent.name,
        seed=seed,
        score=verdict.score,
        success=verdict.success,
        ok=ok,
        steps=env.steps,
        elapsed_s=round(time.monotonic() - clock, 3),
        detail=detail,
    )
    return probe, diff


async def _regrade(template: Template, env: AsyncEnv, seed: int) -> list[Probe]:
    """The re-grading probes on the oracle's finished episode in `env` (see `probes`)."""
    task, ctx = env.task, env.final_context
    store = env.runtime.store

    def work() -> list[Outcome]:
        world = connect(store.world_path(env.world_id), read_only=True)
        try:
            rng = random.Random(f"{template.id}/{seed}/probes")
            found = variants(task, template.candidates(task.params), ctx, world, rng)
        finally:
            world.close()
        return run_probes(store, env.world_id, task, ctx, found)

    clock = time.monotonic()
    outcomes = await asyncio.to_thread(work)
    share = round((time.monotonic() - clock) / max(1, len(outcomes)), 3)
    return [
        Probe(
            agent=o.probe,
            seed=seed,
            score=o.score,
            success=o.success,
            ok=o.ok,
            steps=0,
            elapsed_s=share,
            detail=o.detail(),
        )
        for o in outcomes
    ]


async def check_template(
    template: Template,
    env: AsyncEnv,
    seeds: Sequence[int],
    *,
    random_steps: int = 50,
    random_seeds: int | None = None,
) -> GateResult:
    """Run every probe of the gate for `template` on `seeds` in `env` (a fresh world each);
    the random agent plays only the first `random_seeds` seeds when that is set."""
    clock = time.monotonic()
    probes: list[Probe] = []
    problems: list[str] = []
    oracle_steps: list[int] = []
    oracles: dict[int, dict[str, Any]] = {}
    store = env.runtime.store
    for seed in seeds:
        first, diff_a = await _play(env, OracleAgent(), seed)
        goal_a, params_a = env.task.goal, env.task.params
        finished = await asyncio.to_thread(store.snapshot, env.world_id)
        ending = _ending(env)
        oracles[seed] = {
            "goal": fingerprint(goal_a),
            "diff": fingerprint(diff_a.to_json()),
            "steps": first.steps,
        }
        if first.ok:
            probes += await _regrade(template, env, seed)
        second, diff_b = await _play(env, OracleAgent(), seed)
        probes += [first, second]
        oracle_steps.append(first.steps)
        if env.task.goal != goal_a or dict(env.task.params) != dict(params_a):
            problems.append(f"seed {seed}: the same instance seed gave a different goal")
        if json.dumps(diff_a.to_json(), sort_keys=True) != json.dumps(
            diff_b.to_json(), sort_keys=True
        ):
            problems.append(f"seed {seed}: two oracle runs left different diffs")
        agents: list[Any] = [NullAgent()]
        if random_seeds is None or seeds.index(seed) < random_seeds:
            agents.append(RandomAgent(random_steps, seed))
        if template.decoy(env.task.params):
            agents.append(_ScriptAgent("wrong-record", template, _wrong_record))
        for agent in agents:
            probe, _ = await _play(env, agent, seed)
            probes.append(probe)
        changer = _ScriptAgent("change-everything", template, _collateral_then(ending))
        probe, _ = await _play(env, changer, seed, start=finished)
        probes.append(probe)
    return GateResult(
        template=template.id,
        difficulty=template.difficulty,
        split=template.split,
        seeds=tuple(seeds),
        probes=tuple(probes),
        problems=tuple(problems),
        elapsed_s=round(time.monotonic() - clock, 3),
        oracle_steps=tuple(oracle_steps),
        oracles=oracles,
    )


def _first_seed(
    template: Template, golden: Path, seeds: Sequence[int], feasible: bool, search: int
) -> int | None:
    def kind(seed: int) -> bool:
        return _feasible(type(template), str(golden), seed) is feasible

    if any(kind(seed) for seed in seeds):
        return None
    return next((s for s in range(search) if s not in seeds and kind(s)), None)


@lru_cache(maxsize=4096)
def _feasible(template: type[Template], golden: str, seed: int) -> bool:
    """Whether instance `seed` of `template` on `golden` is feasible (goldens never change,
    so each template's instances are looked at once per process)."""
    return template().instance(golden, seed).params.get("feasible", True) is not False


def impossible_seed(
    template: Template, golden: Path, seeds: Sequence[int], search: int = 100
) -> int | None:
    """The first instance seed below `search` whose instance is impossible (its params say
    `feasible: False`), when none of `seeds` is; None when `seeds` already hold one or the
    template declares no impossible instances (`Template.impossible_instances`, held true by
    the coverage sampling). Sampling needs no browser."""
    if not getattr(template, "impossible_instances", True):
        return None
    return _first_seed(template, golden, seeds, False, search)


def feasible_seed(
    template: Template, golden: Path, seeds: Sequence[int], search: int = 100
) -> int | None:
    """The first instance seed below `search` whose instance is feasible, when none of `seeds`
    is (so the probes of a feasible episode run even when the chosen seeds are all
    impossible); None when `seeds` already hold one."""
    return _first_seed(template, golden, seeds, True, search)


def _spec(template: Template) -> tuple[int, str]:
    return template.world.seed, template.world.scale


async def run_gate_async(
    template_ids: Iterable[str] | None = None,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    *,
    runtime: Runtime,
    workers: int = 1,
    random_steps: int = 50,
    random_seeds: int | None = None,
    on_result: Callable[[GateResult], None] | None = None,
    cover_impossible: bool = False,
) -> list[GateResult]:
    """The gate for each template (all registered ones by default), `workers` at a time.

    With `cover_impossible`, a template whose `seeds` hold no impossible instance is also
    played on its first impossible seed (see `impossible_seed`), and one whose `seeds` hold
    only impossible instances on its first feasible seed (`feasible_seed`): every template is
    proven on both kinds of episode it has."""
    ids = list(template_ids) if template_ids else [cls.id for cls in registry.templates()]
    templates = [registry.get(template_id) for template_id in ids]
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(templates)):
        queue.put_nowait(index)
    results: dict[int, GateResult] = {}

    async def worker(number: int) -> None:
        envs: dict[str, AsyncEnv] = {}
        try:
            while not queue.empty():
                index = queue.get_nowait()
                template = templates[index]
                env = envs.get(template.id) or AsyncEnv(
                    template, runtime, observation={"axtree": True}, name=f"gate{number}-{index}"
                )
                envs[template.id] = env
                chosen = list(seeds)
                if cover_impossible:
                    golden = runtime.store.golden(*_spec(template))
                    for find in (feasible_seed, impossible_seed):
                        extra = find(template, golden, chosen)
                        chosen += [] if extra is None else [extra]
                result = await check_template(
                    template, env, chosen, random_steps=random_steps, random_seeds=random_seeds
                )
                stats = await asyncio.to_thread(
                    instance_stats, template, runtime.store.golden(*_spec(template))
                )
                result = replace(
                    result, coverage=stats, problems=(*result.problems, *stats.problems())
                )
                results[index] = result
                await env.close()
                if on_result is not None:
                    on_result(result)
        finally:
            for env in envs.values():
                await env.close()

    await asyncio.gather(*(worker(n) for n in range(max(1, workers))))
    return [results[i] for i in range(len(templates))]


def run_gate(
    template_ids: Iterable[str] | None = None,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    *,
    home: Path | None = None,
    workers: int = 1,
    random_steps: int = 50,
    random_seeds: int | None = None,
    on_result: Callable[[GateResult], None] | None = None,
    cover_impossible: bool = False,
) -> list[GateResult]:
    """`run_gate_async` on the process's shared runtime for `home` (browser and server on a
    loop thread of their own, so it works beside other event loops and sync Playwright)."""
    shared = acquire_runtime(RuntimeOptions(home=home))
    try:
        return shared.run(
            run_gate_async(
                template_ids,
                seeds,
                runtime=shared.runtime,
                workers=workers,
                random_steps=random_steps,
                random_seeds=random_seeds,
                on_result=on_result,
                cover_impossible=cover_impossible,
            )
        )
    finally:
        release_runtime(shared)


_held: SharedRuntime | None = None


def _job_start(home: Path | None) -> None:
    """In each job process: start its runtime once and hold it for every template."""
    global _held
    _held = acquire_runtime(RuntimeOptions(home=home))


def _job(template_id: str, seeds: Sequence[int], home: Path | None, options: dict) -> GateResult:
    (result,) = run_gate([template_id], seeds, home=home, **options)
    return result


def run_gate_jobs(
    template_ids: Iterable[str] | None = None,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    *,
    jobs: int = 2,
    home: Path | None = None,
    on_result: Callable[[GateResult], None] | None = None,
    **options: Any,
) -> list[GateResult]:
    """`run_gate` in `jobs` processes at once, each with one browser and server of its own
    that takes the templates in turn (the gate is CPU-bound: one process per core)."""
    ids = list(template_ids) if template_ids else registry.template_ids()
    if jobs <= 1 or len(ids) <= 1:
        return run_gate(ids, seeds, home=home, on_result=on_result, **options)
    results: dict[str, GateResult] = {}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        min(jobs, len(ids)), mp_context=context, initializer=_job_start, initargs=(home,)
    ) as pool:
        pending = [pool.submit(_job, t, tuple(seeds), home, options) for t in ids]
        for done in as_completed(pending):
            result = done.result()
            results[result.template] = result
            if on_result is not None:
                on_result(result)
    return [results[t] for t in ids]


__all__ = [
    "PROBES",
    "GateResult",
    "Probe",
    "check_template",
    "feasible_seed",
    "impossible_seed",
    "run_gate",
    "run_gate_async",
    "run_gate_jobs",
]
