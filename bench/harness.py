"""Harness benchmark: reset, step overhead and parallel throughput against raw Playwright.

    python bench/harness.py [--scale small] [--runs 30] [--episodes 8] [--json out.json]

All in one process, one Chromium, one in-process server, side by side in the same run:

    reset      env.reset() with its first observation, on a light and a heavy start page,
               the next context prepared in the background (as after any episode)
               vs raw: new context + sign-in (GET/POST /login) + goto + load, no observation
    fill       env.step('fill(bid, text)') with a text observation (axtree), steady state
               vs raw: locator.fill() + CDP Accessibility.getFullAXTree
    click      env.step('click(bid)') on a checkbox  vs  raw: locator.click() + getFullAXTree
    throughput episodes/s of a 5-step scripted episode with 1, 2, 4, 8 concurrent episodes

Targets (harness issue): reset p50 <= 300 ms; step p50 <= 1.2x raw; throughput with 4
concurrent episodes >= 1.6x that with 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sqlite3
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from percentiles import percentile
from rich.console import Console
from rich.table import Table

from officegym.apps.web import WORLD_HEADER
from officegym.harness.actions import format_action
from officegym.harness.env import AsyncEnv
from officegym.harness.pool import run_episodes
from officegym.harness.runtime import Runtime, RuntimeOptions
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.tasks.protocol import EpisodeContext, Task, WorldSpec
from officegym.tasks.verdict import Check, Verdict

RESET_TARGET_MS = 300.0
STEP_TARGET = 1.2
SCALING_TARGET = 1.6
HEAVY = "/chat/new"  # the create-channel form (about 320 elements at small: people by type-ahead)
LIGHT = "/chat/status"  # the set-a-status form (about 370 elements at small)
_CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def machine_busy() -> tuple[int, int]:
    """(total, idle) jiffies of all CPUs from /proc/stat (Linux), for utilisation figures."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    return sum(values), values[3] + values[4]


def grade(ctx: EpisodeContext) -> Verdict:
    return Verdict([Check("changed nothing", not ctx.diff.without("world_meta"))])


def bench_task(golden: Path, scale: str) -> Task:
    conn = sqlite3.connect(f"file:{golden}?mode=ro", uri=True)
    try:
        (email,) = conn.execute(
            "SELECT email FROM people_employee WHERE is_active ORDER BY id LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    return Task(
        goal="Fill in the new channel form.",
        user=email,
        start_url=HEAVY,
        verify=grade,
        world=WorldSpec(0, scale),
        max_steps=50,
    )


class Scripted:
    """Four form actions on the start page, then the final message (five steps)."""

    name = "scripted"

    async def play(self, env: AsyncEnv) -> None:
        bid = await _bids(env)
        if env.task.start_url == HEAVY:
            actions = [
                format_action("fill", bid["name"], "plan-budget"),
                format_action("fill", bid["topic"], "Budget"),
                format_action("check", bid["private"]),
                format_action("fill", bid["description"], "Numbers for next year"),
            ]
        else:
            actions = [
                format_action("fill", bid["status"], "In a meeting"),
                format_action("select_option", bid["emoji"], "No emoji"),
                format_action("fill", bid["status"], "Out to lunch"),
                format_action("clear", bid["status"]),
            ]
        for action in [*actions, format_action("send_msg_to_user", "done")]:
            await env.step(action)


async def _bids(env: AsyncEnv) -> dict[str, str]:
    return await env.session.page.evaluate(
        """() => {
            const bid = s => { const e = document.querySelector(s); return e && e.getAttribute('bid'); };
            return {
                name: bid('#name'), topic: bid('#topic'), description: bid('#description'),
                private: bid('input[name=is_private]'), status: bid('#status-text'),
                emoji: bid('#status-emoji'),
            };
        }"""
    )


async def raw_context(runtime: Runtime, world: str, email: str, start: str = HEAVY):
    """Raw Playwright's reset: new context, sign-in through the form's endpoint, load `start`."""
    context = await runtime.browser.new_context(
        base_url=runtime.url,
        extra_http_headers={WORLD_HEADER: world},
        viewport={"width": 1280, "height": 720},
    )
    form = await context.request.get(f"{runtime.url}/login")
    token = _CSRF.search(await form.text()).group(1)
    await context.request.post(
        f"{runtime.url}/login",
        form={"email": email, "password": DEMO_PASSWORD, "csrf_token": token},
        max_redirects=0,
    )
    page = await context.new_page()
    await page.goto(start, wait_until="load")
    return context, page


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


async def measure(runs: int, scale: str, episodes: int, levels: tuple[int, ...]) -> dict:
    samples: dict[str, list[float]] = defaultdict(list)
    throughput: dict[str, float] = {}
    busy: dict[str, float] = {}
    text_only = {"axtree": True, "dom": False}
    with tempfile.TemporaryDirectory(prefix="officegym-bench-") as home:
        async with Runtime(RuntimeOptions(home=Path(home))) as runtime:
            golden = await asyncio.to_thread(runtime.store.golden, 0, scale)
            heavy_task = bench_task(golden, scale)
            light_task = replace(heavy_task, start_url=LIGHT)
            envs = {
                "light": AsyncEnv(light_task, runtime, observation=text_only, name="light"),
                "heavy": AsyncEnv(heavy_task, runtime, observation=text_only, name="heavy"),
            }
            for env in envs.values():
                await env.reset()  # warm: world file, first context
            runtime.store.create("raw", 0, scale, replace=True)
            for i in range(runs):
                for kind, env in envs.items():
                    # Steady state: the next context was prepared during the last episode.
                    await env.ready()
                    started = time.perf_counter()
                    await env.reset()
                    samples[f"reset_{kind}"].append(ms_since(started))
                    started = time.perf_counter()
                    context, page = await raw_context(
                        runtime, "raw", heavy_task.user, envs[kind].task.start_url
                    )
                    samples[f"raw_reset_{kind}"].append(ms_since(started))
                    await context.close()

                env = envs["heavy"]
                await env.ready()
                bid = await _bids(env)
                started = time.perf_counter()
                await env.step(format_action("fill", bid["name"], f"plan-{i}"))
                samples["fill"].append(ms_since(started))
                started = time.perf_counter()
                await env.step(format_action("click", bid["private"]))
                samples["click"].append(ms_since(started))

                context, page = await raw_context(runtime, "raw", heavy_task.user)
                cdp = await context.new_cdp_session(page)
                await cdp.send("Accessibility.getFullAXTree")  # the first look, as at reset
                started = time.perf_counter()
                await page.locator("#name").fill(f"plan-{i}")
                await cdp.send("Accessibility.getFullAXTree")
                samples["raw_fill"].append(ms_since(started))
                started = time.perf_counter()
                await page.locator("input[name=is_private]").click()
                await cdp.send("Accessibility.getFullAXTree")
                samples["raw_click"].append(ms_since(started))
                await context.close()
            for env in envs.values():
                await env.close()

            for kind, task in (("light", light_task), ("heavy", heavy_task)):
                for n in levels:
                    pool = [AsyncEnv(task, runtime, observation=text_only, name=f"{kind}{n}-{i}")
                            for i in range(n)]  # fmt: skip
                    await run_episodes(pool, Scripted(), n)  # warm-up: worlds, first contexts
                    count = max(episodes, n)
                    before = machine_busy()
                    started = time.perf_counter()
                    await run_episodes(pool, Scripted(), count)
                    throughput[f"{kind}/{n}"] = count / (time.perf_counter() - started)
                    after = machine_busy()
                    busy[f"{kind}/{n}"] = 1 - (after[1] - before[1]) / max(1, after[0] - before[0])
                    await asyncio.gather(*(e.close() for e in pool))
    return {"samples": dict(samples), "throughput": throughput, "busy": busy}


def report(figures: dict, console: Console) -> None:
    s = figures["samples"]
    table = Table(title="harness vs raw Playwright (ms; p50 / p95)")
    for column in ("operation", "officegym", "raw Playwright", "ratio p50", "target", "met"):
        table.add_column(column, justify="right")

    def row(name: str, ours: str, raw: str, target: str, met: bool) -> None:
        p50 = statistics.median(s[ours])
        raw50 = statistics.median(s[raw])
        table.add_row(
            name,
            f"{p50:.1f} / {percentile(s[ours], 0.95):.1f}",
            f"{raw50:.1f} / {percentile(s[raw], 0.95):.1f}",
            f"{p50 / raw50:.2f}x",
            target,
            "yes" if met else "NO",
        )

    for kind in ("light", "heavy"):
        reset50 = statistics.median(s[f"reset_{kind}"])
        target = f"p50 <= {RESET_TARGET_MS:.0f} ms"
        row(
            f"reset {kind}",
            f"reset_{kind}",
            f"raw_reset_{kind}",
            target,
            reset50 <= RESET_TARGET_MS,
        )
    for kind in ("fill", "click"):
        ratio = statistics.median(s[kind]) / statistics.median(s[f"raw_{kind}"])
        row(f"step {kind}", kind, f"raw_{kind}", f"<= {STEP_TARGET}x", ratio <= STEP_TARGET)
    console.print(table)

    t, busy = figures["throughput"], figures["busy"]
    scaling = Table(title="5-step scripted episodes, one browser")
    for column in ("start page", "concurrent", "episodes/s", "x one", "CPUs busy"):
        scaling.add_column(column, justify="right")
    for key, rate in t.items():
        kind, n = key.split("/")
        first = min((k for k in t if k.startswith(f"{kind}/")), key=lambda k: int(k.split("/")[1]))
        scaling.add_row(kind, n, f"{rate:.2f}", f"{rate / t[first]:.2f}x", f"{busy[key]:.0%}")
    console.print(scaling)
    for kind in ("light", "heavy"):
        if f"{kind}/1" in t and f"{kind}/4" in t:
            four = t[f"{kind}/4"] / t[f"{kind}/1"]
            met = "met" if four >= SCALING_TARGET else "NOT met"
            console.print(
                f"scaling 1 -> 4, {kind} page: {four:.2f}x (target >= {SCALING_TARGET}x: {met}); "
                f"CPUs busy with one episode: {busy[f'{kind}/1']:.0%}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", default="small")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--episodes", type=int, default=8, help="episodes per concurrency level")
    parser.add_argument("--levels", default="1,2,4,8", help="concurrency levels, comma-separated")
    parser.add_argument("--json", type=Path, help="write the raw samples here")
    args = parser.parse_args()
    levels = tuple(int(n) for n in args.levels.split(","))
    figures = asyncio.run(measure(args.runs, args.scale, args.episodes, levels))
    report(figures, Console())
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
