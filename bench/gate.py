"""Gate benchmark: what a template's proof costs, and what `make test` pays for the gate.

    python bench/gate.py [--template ID ...] [--results gate-results] [--jobs 2]

Side by side in the same run, on each chosen template (default: one chat, one CRM and one
cross-app template), on the small seed-0 world:

    sampling   200 instances with each pool read once per golden (`tasks.pools`)
               vs the same with every pool read again for each instance (the baseline)
    impossible the search for a first impossible seed of a template that declares none
               (`impossible_instances = False`: no sampling) vs scanning 100 instances
    change-everything  from a snapshot of the oracle's final world (the gate's way)
               vs replaying the oracle with its final message held back (the baseline)

Then the growth model from the committed entries (their recorded gate seconds): `make test`
pays for the templates whose key changed plus 3 re-proven ones, where the baseline paid for
every template on every run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from officegym.harness.actions import parse_action
from officegym.harness.agents import OracleAgent
from officegym.harness.env import AsyncEnv
from officegym.harness.gate import _collateral_then, _ending, _play, _ScriptAgent
from officegym.harness.page_actions import PageActions
from officegym.harness.runtime import Runtime, RuntimeOptions
from officegym.seed_data.store import WorldStore
from officegym.tasks import pools
from officegym.tasks.registry import get

DEFAULT = ("chat.edit_number", "crm.qualify_lead", "crm.update_phone_from_chat")
RESAMPLED = 3


def _sampling(template_id: str, golden: Path, samples: int) -> tuple[float, float]:
    template = get(template_id)
    pools._pools.clear()
    clock = time.perf_counter()
    for seed in range(samples):
        template.instance(golden, seed)
    pooled = time.perf_counter() - clock
    clock = time.perf_counter()
    for seed in range(samples):
        pools._pools.clear()
        template.instance(golden, seed)
    return pooled, time.perf_counter() - clock


def _replay_script(ending_holder: list[str]):
    """The baseline change-everything: the oracle again, its final message held back."""

    def script(template, actions: PageActions, params) -> None:
        def step(text: str):
            if any(call.ends_episode for call in parse_action(text)):
                ending_holder.append(text)
                return None
            return actions._step(text)

        template.solve(PageActions(step, lambda: actions.nodes), params)
        template.collateral(actions, params)
        for text in ending_holder:
            actions._step(text)

    return script


async def _change_everything(template_id: str, runtime: Runtime) -> tuple[float, float]:
    template = get(template_id)
    env = AsyncEnv(
        template,
        runtime,
        observation={"axtree": True},
        name=f"bench-{template_id.replace('.', '-')}",
    )
    try:
        await _play(env, OracleAgent(), 0)
        snapshot = await asyncio.to_thread(runtime.store.snapshot, env.world_id)
        ending = _ending(env)
        fast, _ = await _play(
            env, _ScriptAgent("change-everything", template, _collateral_then(ending)), 0, snapshot
        )
        slow, _ = await _play(
            env, _ScriptAgent("change-everything", template, _replay_script([])), 0
        )
        assert fast.ok and slow.ok, (fast, slow)
        return fast.elapsed_s, slow.elapsed_s
    finally:
        await env.close()


def _model(results: Path, jobs: int) -> Table:
    seconds = [json.loads(p.read_text())["seconds"] for p in sorted(results.glob("*.json"))]
    table = Table(
        "templates", "every template (baseline, min)", "none changed (min)", "one app changed (min)"
    )
    if not seconds:
        return table
    mean = statistics.fmean(seconds)
    for count in (50, 100, 300):
        every = count * mean / jobs / 60
        none = RESAMPLED * mean / jobs / 60
        half = (count / 4 + RESAMPLED) * mean / jobs / 60
        table.add_row(str(count), f"{every:.1f}", f"{none:.1f}", f"{half:.1f}")
    table.caption = (
        f"gate only, from {len(seconds)} entries: mean {mean:.1f} s per template "
        f"(p50 {statistics.median(seconds):.1f}, max {max(seconds):.1f}), {jobs} jobs; "
        "'one app' = a quarter of the templates (four apps)"
    )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--template", action="append", dest="templates")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--results", type=Path, default=Path("gate-results"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    console = Console()
    ids = args.templates or list(DEFAULT)
    with tempfile.TemporaryDirectory() as home:
        store = WorldStore(home)
        golden = store.golden(0, "small")
        table = Table("template", "measure", "ours (s)", "baseline (s)", "ratio")
        for template_id in ids:
            pooled, cold = _sampling(template_id, golden, args.samples)
            table.add_row(
                template_id,
                f"sampling ×{args.samples}",
                f"{pooled:.2f}",
                f"{cold:.2f}",
                f"{cold / pooled:.1f}×",
            )

        async def browser() -> list[tuple[str, float, float]]:
            async with Runtime(RuntimeOptions(home=Path(home))) as runtime:
                return [(t, *await _change_everything(t, runtime)) for t in ids]

        for template_id, fast, slow in asyncio.run(browser()):
            table.add_row(
                template_id,
                "change-everything",
                f"{fast:.2f}",
                f"{slow:.2f}",
                f"{slow / fast:.1f}×",
            )
        declared = get("chat.set_topic")
        clock = time.perf_counter()
        for seed in range(100):
            declared.instance(golden, seed)
        scan = time.perf_counter() - clock
        table.add_row(declared.id, "impossible-seed search", "0.00", f"{scan:.2f}", "-")
        console.print(table)
    console.print(_model(args.results, args.jobs))


if __name__ == "__main__":
    main()
