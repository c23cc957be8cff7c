"""World store benchmark: generate, cache hit, create, reset, fork, snapshot/restore, diff.

    python bench/world.py [--scales small large] [--runs 50] [--gen-runs 3] [--writes 100]

Each operation runs `--runs` times per scale (generation `--gen-runs` times: it takes seconds)
in a temporary store home. Reset, restore and diff are timed after `--writes` random writes,
the writes themselves untimed. Prints p50/p95 in milliseconds, the ratio of generating a world
to resetting one, and how each figure compares with its target.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from percentiles import percentile
from rich.console import Console
from rich.table import Table

from officegym.seed_data import store as store_module
from officegym.seed_data.churn import churn
from officegym.seed_data.generate import build_world
from officegym.seed_data.store import WorldStore

# (operation, scale) -> target p50 in ms, from the foundation issue.
TARGETS = {
    ("reset", "small"): 5.0,
    ("reset", "large"): 25.0,
    ("diff", "small"): 20.0,
    ("generate (cold)", "small"): 10_000.0,
    ("golden cache hit", "small"): 50.0,
}


def timed(fn: Callable[[], object]) -> float:
    return timed_value(fn)[0]


def timed_value(fn: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    value = fn()
    return (time.perf_counter() - started) * 1000, value


def bench_scale(scale: str, runs: int, gen_runs: int, writes: int, home: Path) -> dict:
    store = WorldStore(home / scale)
    results: dict[str, list[float]] = {}

    gen = []
    for i in range(gen_runs):
        out = home / f"gen-{scale}-{i}.sqlite"
        gen.append(timed(lambda out=out: build_world(0, scale, out)))
        out.unlink()
    results["generate (cold)"] = gen
    store.golden(0, scale)

    def cache_hit() -> None:
        store_module.world_version.cache_clear()
        WorldStore(store.home).golden(0, scale)

    results["golden cache hit"] = [timed(cache_hit) for _ in range(runs)]

    created = []
    for i in range(runs):
        created.append(timed(lambda i=i: store.create(f"c{i}", 0, scale)))
        store.drop(f"c{i}")
    results["create (copy golden)"] = created

    store.create("main", 0, scale)
    reset, diffs, snaps, restores, forks = [], [], [], [], []
    for i in range(runs):
        churn(store.world_path("main"), i, writes)
        diffs.append(timed(lambda: store.diff("main")))
        took, snap = timed_value(lambda: store.snapshot("main"))
        snaps.append(took)
        churn(store.world_path("main"), 10_000 + i, writes)
        restores.append(timed(lambda snap=snap: store.restore("main", snap)))
        forks.append(timed(lambda i=i: store.fork("main", f"f{i}")))
        store.drop(f"f{i}")
        reset.append(timed(lambda: store.reset("main")))
    results["reset"] = reset
    results["diff"] = diffs
    results["snapshot"] = snaps
    results["restore"] = restores
    results["fork"] = forks
    store.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", nargs="+", default=["small", "large"])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--gen-runs", type=int, default=3)
    parser.add_argument("--writes", type=int, default=100)
    parser.add_argument("--json", type=Path, help="Also write the raw figures here.")
    args = parser.parse_args()

    console = Console(width=120)
    table = Table(
        "operation",
        "scale",
        "runs",
        "p50 ms",
        "p95 ms",
        "target p50",
        "verdict",
        title=f"officegym world store ({args.writes} random writes before reset/diff/restore)",
    )
    raw = {}
    with tempfile.TemporaryDirectory(prefix="officegym-bench-") as tmp:
        for scale in args.scales:
            results = bench_scale(scale, args.runs, args.gen_runs, args.writes, Path(tmp))
            raw[scale] = results
            for name, samples in results.items():
                p50, p95 = statistics.median(samples), percentile(samples, 0.95)
                target = TARGETS.get((name, scale))
                verdict = "" if target is None else ("met" if p50 <= target else "MISSED")
                table.add_row(
                    name,
                    scale,
                    str(len(samples)),
                    f"{p50:.2f}",
                    f"{p95:.2f}",
                    "" if target is None else f"≤ {target:g}",
                    verdict,
                )
            ratio = statistics.median(results["generate (cold)"]) / statistics.median(
                results["reset"]
            )
            table.add_row("generate ÷ reset", scale, "", f"{ratio:,.0f}×", "", "", "")
    console.print(table)
    if args.json:
        args.json.write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
