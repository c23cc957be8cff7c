"""Env server benchmark: remote steps and resets against in-process ones, and sessions per server.

    python bench/serve_env.py [--scale small] [--runs 20] [--levels 1,2,4,8,16] [--steps 5]
                              [--home DIR] [--json out.json]

One `EnvServer` on loopback; the in-process baseline is an `AsyncEnv` on the server's own
runtime and event loop (same Chromium, same apps server), so the only difference measured is
the protocol: the server's encoding, the WebSocket and `RemoteEnv`'s decoding. Remote and
in-process rounds alternate, so the machine's load falls on both alike.

    step        a `fill` of the channel composer with the page's text observation (axtree and
                DOM, the default parts), timed by the caller: RemoteEnv.step vs AsyncEnv.step;
                and the protocol's own share (the remote step's wall time minus the step's
                time inside the server, from its `info["timings_ms"]`)
    reset       a new episode of chat.post_update with its first observation, same pairing
                (in process, the instance is sampled at every reset as a template's
                AsyncEnv does; the server does the same)
    saturation  n concurrent RemoteEnv sessions, each reset then --steps steps, for n in
                --levels (stopping at the first level with errors or a step p50 over
                --latency-limit): reset p50 (resets past the server's reset concurrency
                queue), step p50 / p95, steps/s, errors. The knee is the fewest
                sessions that reach 90 % of the best throughput; past it more sessions only
                queue for the same CPU.

Target (issue 23): remote step p50 and p95 <= 1.15x in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import statistics
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from percentiles import percentile
from rich.console import Console
from rich.table import Table

from officegym.client import RemoteEnv, RemoteEnvError
from officegym.envserver import EnvServer, ServerOptions
from officegym.harness.env import AsyncEnv
from officegym.tasks import registry
from officegym.tasks.protocol import WorldSpec

STEP_TARGET = 1.15
KNEE_SHARE = 0.9
TASK = "chat.post_update"


def composer(axtree: str) -> str:
    """The bid of the #general composer on the start page."""
    match = re.search(r"\[([^\]]+)\] textbox 'Message #general'", axtree)
    if match is None:
        raise RuntimeError("the start page has no #general composer")
    return match.group(1)


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def pair(server: EnvServer, scale: str, runs: int, steps: int) -> dict[str, list[float]]:
    """Alternating in-process and remote rounds: one reset and `steps` steps each."""
    world = {"seed": 0, "scale": scale}
    template = registry.get(TASK)
    golden = server.runtime.store.golden(0, scale)

    async def local_reset():
        # What a local AsyncEnv of a template does at every reset: sample the instance.
        task = await asyncio.to_thread(template.instance, golden, 0)
        local.source = replace(task, world=WorldSpec(0, scale))
        return await local.reset()

    local = AsyncEnv(template, server.runtime, name="bench-local")
    remote = RemoteEnv(server.url, TASK, world=world)
    samples: dict[str, list[float]] = {
        k: [] for k in ("local_reset", "remote_reset", "local_step", "remote_step", "protocol")
    }

    def prepared(env: AsyncEnv) -> None:
        # After a reset an env prepares its next context in the background; waiting for it
        # keeps that work out of the other env's timings.
        server.run(env.ready())

    def remote_env() -> AsyncEnv:
        return server.app.state.table.sessions[remote.session_id].env

    obs: dict[str, dict] = {}

    def reset(side: str) -> None:
        started = time.perf_counter()
        if side == "local":
            obs[side], _ = server.run(local_reset())
        else:
            obs[side], _ = remote.reset(seed=0)
        samples[f"{side}_reset"].append(ms_since(started))
        prepared(local if side == "local" else remote_env())

    def step(side: str, text: str) -> None:
        action = f'fill("{composer(obs[side]["axtree_txt"])}", "{text}")'
        started = time.perf_counter()
        if side == "local":
            server.run(local.step(action))
            samples["local_step"].append(ms_since(started))
        else:
            *_, info = remote.step(action)
            elapsed = ms_since(started)
            samples["remote_step"].append(elapsed)
            # The protocol's own cost: the client's wall time minus the env's step inside.
            samples["protocol"].append(elapsed - info["timings_ms"]["total"])

    try:
        server.run(local_reset())  # warm: world files, first contexts
        remote.reset(seed=0)
        for run in range(runs):
            # Who goes first alternates: a closed context's teardown and the like land on
            # whatever runs next, so each side gets its share.
            order = ("local", "remote") if run % 2 == 0 else ("remote", "local")
            prepared(local)
            prepared(remote_env())
            for side in order:
                reset(side)
            for index in range(steps):
                for side in order:
                    step(side, f"draft {run}.{index}")
    finally:
        remote.close()
        server.run(local.close())
    return samples


def saturate(server: EnvServer, scale: str, n: int, steps: int) -> dict:
    """n concurrent remote sessions: reset, wait for all, then `steps` timed steps each."""
    world = {"seed": 0, "scale": scale}
    latencies: list[float] = []
    resets: list[float] = []
    errors: list[str] = []
    ready = threading.Barrier(n + 1)
    lock = threading.Lock()

    def session() -> None:
        env = RemoteEnv(server.url, TASK, world=world)
        box = None
        try:
            started = time.perf_counter()
            obs, _ = env.reset(seed=0)
            with lock:
                resets.append(ms_since(started))
            box = composer(obs["axtree_txt"])
        except (RemoteEnvError, RuntimeError) as error:
            with lock:
                errors.append(f"reset: {error}")
        ready.wait()
        try:
            for step in range(steps if box else 0):
                started = time.perf_counter()
                env.step(f'fill("{box}", "load {step}")')
                with lock:
                    latencies.append(ms_since(started))
        except RemoteEnvError as error:
            with lock:
                errors.append(f"step: {error}")
        finally:
            env.close()

    threads = [threading.Thread(target=session) for _ in range(n)]
    for thread in threads:
        thread.start()
    ready.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    return {
        "sessions": n,
        "reset_p50": statistics.median(resets) if resets else float("nan"),
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p95": percentile(latencies, 0.95) if latencies else float("nan"),
        "steps_per_s": len(latencies) / elapsed if elapsed else 0.0,
        "errors": errors,
    }


def knee(levels: list[dict]) -> int | None:
    """The fewest sessions reaching KNEE_SHARE of the best throughput (error-free levels)."""
    clean = [level for level in levels if not level["errors"]]
    if not clean:
        return None
    best = max(level["steps_per_s"] for level in clean)
    return min(level["sessions"] for level in clean if level["steps_per_s"] >= KNEE_SHARE * best)


def measure(args: argparse.Namespace) -> dict:
    # A session past the saturation point fails its reset; the table counts it.
    logging.getLogger("officegym.envserver").setLevel(logging.ERROR)
    levels = [int(n) for n in args.levels.split(",")]
    with tempfile.TemporaryDirectory(prefix="officegym-bench-") as scratch:
        options = ServerOptions(
            port=0,
            max_sessions=max(levels) + 1,
            action_timeout=30.0,
            step_timeout=300.0,
            home=args.home or Path(scratch),
        )
        with EnvServer(options) as server:
            samples = pair(server, args.scale, args.runs, args.steps)
            saturation = []
            for n in levels:
                level = saturate(server, args.scale, n, args.steps)
                saturation.append(level)
                if level["errors"] or level["p50"] > args.latency_limit * 1000:
                    break
    return {"samples": samples, "saturation": saturation, "knee": knee(saturation)}


def report(figures: dict, console: Console, latency_limit: float) -> None:
    s = figures["samples"]
    table = Table(
        title="remote (RemoteEnv over WebSocket) vs in-process AsyncEnv, same runtime (ms)"
    )
    for column in (
        "operation",
        "in-process p50 / p95",
        "remote p50 / p95",
        "ratio p50",
        "ratio p95",
        "target",
        "met",
    ):
        table.add_column(column, justify="right")
    for name in ("step", "reset"):
        local, remote = s[f"local_{name}"], s[f"remote_{name}"]
        p50 = statistics.median(remote) / statistics.median(local)
        p95 = percentile(remote, 0.95) / percentile(local, 0.95)
        target = f"<= {STEP_TARGET}x" if name == "step" else "-"
        met = (
            ("yes" if p50 <= STEP_TARGET and p95 <= STEP_TARGET else "NO")
            if name == "step"
            else "-"
        )
        table.add_row(
            f"remote {name}",
            f"{statistics.median(local):.1f} / {percentile(local, 0.95):.1f}",
            f"{statistics.median(remote):.1f} / {percentile(remote, 0.95):.1f}",
            f"{p50:.2f}x",
            f"{p95:.2f}x",
            target,
            met,
        )
    console.print(table)
    protocol = s["protocol"]
    console.print(
        f"protocol per step (client wall minus the server's step): p50 "
        f"{statistics.median(protocol):.1f} ms, p95 {percentile(protocol, 0.95):.1f} ms"
    )

    sat = Table(
        title=f"concurrent remote sessions on one server (stop: errors or p50 > {latency_limit:g} s)"
    )
    for column in ("sessions", "reset p50 ms", "step p50 ms", "step p95 ms", "steps/s", "errors"):
        sat.add_column(column, justify="right")
    for level in figures["saturation"]:
        sat.add_row(
            str(level["sessions"]),
            f"{level['reset_p50']:.0f}",
            f"{level['p50']:.0f}",
            f"{level['p95']:.0f}",
            f"{level['steps_per_s']:.2f}",
            str(len(level["errors"])),
        )
    console.print(sat)
    console.print(
        f"knee: {figures['knee']} sessions (the fewest reaching {KNEE_SHARE:.0%} of the best steps/s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", default="small")
    parser.add_argument("--runs", type=int, default=20, help="paired rounds (reset + steps)")
    parser.add_argument("--steps", type=int, default=5, help="steps per round and per session")
    parser.add_argument(
        "--levels", default="1,2,4,8,16", help="concurrent sessions, comma-separated"
    )
    parser.add_argument("--latency-limit", type=float, default=10.0, help="seconds (step p50)")
    parser.add_argument("--home", type=Path, help="world store home (default: a scratch one)")
    parser.add_argument("--json", type=Path, help="write the raw samples here")
    args = parser.parse_args()
    figures = measure(args)
    report(figures, Console(width=max(Console().width, 120)), args.latency_limit)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
