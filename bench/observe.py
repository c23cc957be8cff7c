"""Observation budget: what an agent reads on every main page of every app.

    python bench/observe.py [--scale small] [--seed 0] [--app chat] [--runs 3] [--json out.json]
                            [--check]

Every app's main pages (`AppEntry.main_pages`: paths and users read from the world) are opened
through the harness as an episode's start page, and for each the table prints what the agent
is given and what the page costs:

    chars      characters of `axtree_txt`, the text observation
    tokens     estimated tokens (chars / 4) and that as a share of the page budget
    nodes      DOM elements of the page
    same-named controls that share an accessible name with another control of the same role
               (links only when they lead to different places), or have no name: what an
               agent cannot tell apart from the text alone
    load ms    the page opened in the episode's tab until its load event, as the harness does
               for `goto` (median of --runs loads; the page's own timers run on the world's
               frozen clock, so the time is taken outside the page)

The pages of one user are read in one signed-in episode, one after the other.

Budgets at the default page size: p50 <= 3,000 tokens over all pages, no page over 8,000,
and no same-named controls. `--check` exits 1 when a budget is broken, naming the pages.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from officegym.apps.registry import MainPage, main_pages
from officegym.harness.env import AsyncEnv
from officegym.harness.runtime import Runtime, RuntimeOptions
from officegym.tasks.protocol import EpisodeContext, Task, WorldSpec
from officegym.tasks.verdict import Check, Verdict

PAGE_TOKENS = 8_000
MEDIAN_TOKENS = 3_000
CHARS_PER_TOKEN = 4
_NODES = "() => document.getElementsByTagName('*').length"
_HREFS = """bids => bids.map(bid => {
    const e = document.querySelector(`[bid="${bid}"]`);
    return e ? e.href || '' : '';
})"""
# Roles an agent acts on by name. Options are read inside their list, and a date field's
# month/day/year spinbuttons are parts of one named field.
CONTROL_ROLES = frozenset(
    {"button", "link", "checkbox", "radio", "textbox", "searchbox", "combobox", "switch",
     "tab", "menuitem", "slider"}
)  # fmt: skip


@dataclass(frozen=True)
class PageCost:
    app: str
    page: str
    path: str
    chars: int
    tokens: int
    nodes: int
    load_ms: float
    status: int | None
    same_named: tuple[str, ...] = ()

    @property
    def over_budget(self) -> bool:
        return self.tokens > PAGE_TOKENS


def _nothing(ctx: EpisodeContext) -> Verdict:
    return Verdict([Check("opened the page", True)])


def tokens_of(text: str) -> int:
    """The estimated token count of an observation text (chars / 4, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


async def measure_user(
    runtime: Runtime, pages: list[MainPage], seed: int, scale: str, runs: int
) -> list[PageCost]:
    """Every page of one user, in one signed-in episode: each is opened in the episode's tab
    as `goto` opens it (timed, with its HTTP status), then observed as after a step."""
    first = pages[0]
    task = Task(
        goal=f"Look at the {first.app} {first.name} page.",
        user=first.user,
        start_url=first.path,
        verify=_nothing,
        world=WorldSpec(seed, scale),
    )
    env = AsyncEnv(
        task,
        runtime,
        observation={"axtree": True, "dom": False},
        name="observe",
        max_steps=len(pages) + 1,
    )
    costs = []
    try:
        await env.reset()
        for page in pages:
            tab = env.session.page
            loads: list[float] = []
            status = None
            for _ in range(max(runs, 1)):
                started = time.perf_counter()
                response = await tab.goto(page.path, wait_until="load")
                loads.append((time.perf_counter() - started) * 1000)
                status = response.status if response else None
            obs, *_ = await env.step("noop(0)")
            tab = env.session.page
            text = obs["axtree_txt"]
            costs.append(
                PageCost(
                    app=page.app,
                    page=page.name,
                    path=page.path,
                    chars=len(text),
                    tokens=tokens_of(text),
                    nodes=await tab.evaluate(_NODES),
                    load_ms=round(statistics.median(loads), 1),
                    status=status,
                    same_named=await _same_named(tab, env.nodes),
                )
            )
    finally:
        await env.close()
    return costs


async def _same_named(page, nodes) -> tuple[str, ...]:
    """Controls an agent cannot tell apart by role and name, as "role 'name' ×N"."""
    controls = [n for n in nodes if n.role in CONTROL_ROLES and n.bid]
    links = [n for n in controls if n.role == "link"]
    bids = [n.bid for n in links]
    hrefs = dict(zip(bids, await page.evaluate(_HREFS, bids), strict=True))
    targets: dict[tuple[str, str], set[str]] = {}
    counts: Counter[tuple[str, str]] = Counter()
    for node in controls:
        key = (node.role, node.name.strip())
        counts[key] += 1
        targets.setdefault(key, set()).add(hrefs[node.bid] if node.role == "link" else node.bid)
    return tuple(
        f"{role} {name!r} ×{counts[role, name]}" if name else f"{role} without a name"
        for (role, name), places in sorted(targets.items())
        if len(places) > 1 or not name
    )


async def measure(seed: int, scale: str, apps: set[str], runs: int, home: Path | None):
    with tempfile.TemporaryDirectory(prefix="officegym-observe-") as scratch:
        options = RuntimeOptions(home=home or Path(scratch))
        async with Runtime(options) as runtime:
            golden = await asyncio.to_thread(runtime.store.golden, seed, scale)
            pages = [p for p in main_pages(golden) if not apps or p.app in apps]
            by_user: dict[str, list[MainPage]] = {}
            for page in pages:
                by_user.setdefault(page.user, []).append(page)
            costs = {}
            for group in by_user.values():
                for page, cost in zip(
                    group, await measure_user(runtime, group, seed, scale, runs), strict=True
                ):
                    costs[id(page)] = cost
            return [costs[id(page)] for page in pages]


def budget_problems(costs: list[PageCost]) -> list[str]:
    """What breaks the budget: pages over the per-page limit, and the median over its own."""
    problems = [
        f"{c.app} {c.page} ({c.path}): {c.tokens:,} tokens > {PAGE_TOKENS:,}"
        for c in costs
        if c.over_budget
    ]
    if costs:
        median = statistics.median(c.tokens for c in costs)
        if median > MEDIAN_TOKENS:
            problems.append(f"p50 over all pages: {median:,.0f} tokens > {MEDIAN_TOKENS:,}")
    problems += [f"{c.app} {c.page} ({c.path}): HTTP {c.status}" for c in costs if c.status != 200]
    problems += [
        f"{c.app} {c.page} ({c.path}): same-named {', '.join(c.same_named)}"
        for c in costs
        if c.same_named
    ]
    return problems


def print_table(costs: list[PageCost], console: Console) -> None:
    table = Table(title="What the agent reads per page (axtree_txt)")
    for column in ("app", "page", "chars", "tokens", "of budget", "nodes", "same-named", "load ms"):
        table.add_column(column, justify="left" if column in ("app", "page") else "right")
    for c in costs:
        share = f"{c.tokens / PAGE_TOKENS:.0%}"
        style = "red" if c.over_budget or c.same_named else None
        table.add_row(
            c.app,
            c.page,
            f"{c.chars:,}",
            f"{c.tokens:,}",
            share,
            f"{c.nodes:,}",
            str(len(c.same_named)),
            f"{c.load_ms:,.0f}",
            style=style,
        )
    console.print(table)
    if costs:
        tokens = sorted(c.tokens for c in costs)
        console.print(
            f"pages {len(costs)}  tokens p50 {statistics.median(tokens):,.0f} "
            f"(budget {MEDIAN_TOKENS:,})  max {tokens[-1]:,} (budget {PAGE_TOKENS:,})  "
            f"total {sum(tokens):,}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", default="small")
    parser.add_argument("--app", action="append", default=[], help="only this app (repeatable)")
    parser.add_argument("--runs", type=int, default=3, help="loads per page for load ms")
    parser.add_argument("--home", type=Path, help="world store home (default: a scratch one)")
    parser.add_argument("--json", type=Path, help="also write every page's figures here")
    parser.add_argument("--check", action="store_true", help="exit 1 when over budget")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    costs = asyncio.run(measure(args.seed, args.scale, set(args.app), args.runs, args.home))
    console = Console(width=max(Console().width, 100))
    print_table(costs, console)
    problems = budget_problems(costs)
    for problem in problems:
        console.print(f"[red]over budget[/red] {problem}")
    console.print(f"measured in {time.perf_counter() - started:.1f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        figures = {"pages": [asdict(c) for c in costs], "problems": problems}
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
