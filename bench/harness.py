"""Harness benchmark: reset, step overhead and parallel throughput against raw Playwright.

    python bench/harness.py [--scale small] [--runs 30] [--episodes 8] [--json out.json]

All in one process, one Chromium, one in-process server, side by side in the same run:

    reset      env.reset()  vs  raw: new context + sign-in (GET/POST /login) + goto + load
    fill       env.step('fill(bid, text)') with a text observation (axtree)
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
START = "/chat/new"
_CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


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
        start_url=START,
        verify=grade,
        world=WorldSpec(0, scale),
        max_steps=50,
    )


class Scripted:
    """Five steps on the create-channel form, then the final message."""

    name = "scripted"

    async def play(self, env: AsyncEnv) -> None:
        bid = await _bids(env)
        await env.step(format_action("fill", bid["name"], "plan-budget"))
        await env.step(format_action("fill", bid["topic"], "Budget"))
        await env.step(format_action("check", bid["private"]))
        await env.step(format_action("fill", bid["description"], "Numbers for next year"))
        await env.step(format_action("send_msg_to_user", "done"))


async def _bids(env: AsyncEnv) -> dict[str, str]:
    return await env.session.page.evaluate(
        """() => ({
            name: document.querySelector('#name').getAttribute('bid'),
            topic: document.querySelector('#topic').getAttribute('bid'),
            description: document.querySelector('#description').getAttribute('bid'),
            private: document.querySelector('input[name=is_private]').getAttribute('bid'),
        })"""
    )


async def raw_context(runtime: Runtime, world: str, email: str):
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
    await page.goto(START, wait_until="load")
    return context, page


async def measure(runs: int, scale: str, episodes: int, levels: tuple[int, ...]) -> dict:
    samples: dict[str, list[float]] = {}
    throughput: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="officegym-bench-") as home:
        async with Runtime(RuntimeOptions(home=Path(home))) as runtime:
            golden = await asyncio.to_thread(runtime.store.golden, 0, scale)
            task = bench_task(golden, scale)
            env = AsyncEnv(task, runtime, observation={"axtree": True, "dom": False})
            await env.reset()  # warm: world file, spare context
            runtime.store.create("raw", 0, scale, replace=True)

            for kind in ("reset", "raw_reset", "fill", "raw_fill", "click", "raw_click"):
                samples[kind] = []
            for i in range(runs):
                started = time.perf_counter()
                await env.reset()
                samples["reset"].append((time.perf_counter() - started) * 1000)

                started = time.perf_counter()
                context, page = await raw_context(runtime, "raw", task.user)
                samples["raw_reset"].append((time.perf_counter() - started) * 1000)

                bid = await _bids(env)
                started = time.perf_counter()
                await env.step(format_action("fill", bid["name"], f"plan-{i}"))
                samples["fill"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await env.step(format_action("click", bid["private"]))
                samples["click"].append((time.perf_counter() - started) * 1000)

                cdp = await context.new_cdp_session(page)
                await cdp.send("Accessibility.getFullAXTree")  # same warm-up as the env's reset
                started = time.perf_counter()
                await page.locator("#name").fill(f"plan-{i}")
                await cdp.send("Accessibility.getFullAXTree")
                samples["raw_fill"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await page.locator("input[name=is_private]").click()
                await cdp.send("Accessibility.getFullAXTree")
                samples["raw_click"].append((time.perf_counter() - started) * 1000)
                await context.close()
            await env.close()

            for n in levels:
                envs = [
                    AsyncEnv(
                        task, runtime, observation={"axtree": True, "dom": False}, name=f"t{n}-{i}"
                    )
                    for i in range(n)
                ]
                await run_episodes(envs, Scripted(), n)  # warm-up: worlds and spare contexts
                count = max(episodes, n)
                started = time.perf_counter()
                await run_episodes(envs, Scripted(), count)
                throughput[n] = count / (time.perf_counter() - started)
                await asyncio.gather(*(e.close() for e in envs))
    return {"samples": samples, "throughput": throughput}


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

    reset50 = statistics.median(s["reset"])
    row(
        "reset",
        "reset",
        "raw_reset",
        f"p50 <= {RESET_TARGET_MS:.0f} ms",
        reset50 <= RESET_TARGET_MS,
    )
    for kind in ("fill", "click"):
        ratio = statistics.median(s[kind]) / statistics.median(s[f"raw_{kind}"])
        row(f"step {kind}", kind, f"raw_{kind}", f"<= {STEP_TARGET}x", ratio <= STEP_TARGET)
    console.print(table)

    t = figures["throughput"]
    scaling = Table(title="5-step scripted episodes, one browser")
    for column in ("concurrent", "episodes/s", f"x {min(t)}"):
        scaling.add_column(column, justify="right")
    for n, rate in sorted(t.items()):
        scaling.add_row(str(n), f"{rate:.2f}", f"{rate / t[min(t)]:.2f}x")
    console.print(scaling)
    if 1 in t and 4 in t:
        four = t[4] / t[1]
        met = "met" if four >= SCALING_TARGET else "NOT met"
        console.print(f"scaling 1 -> 4: {four:.2f}x (target >= {SCALING_TARGET}x: {met})")


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
