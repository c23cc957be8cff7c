"""Soak benchmark: what the harness holds on to over many episodes through one pool.

    python bench/soak.py [--episodes 1000] [--envs 4] [--every 100] [--templates ID,ID,...]
                         [--oracle-every K] [--types N] [--json out.json]

One `EnvPool` of `--envs` environments on one shared runtime (one server, one Chromium)
plays `--episodes` episodes, cycling over task templates (two of each app by default). Each
episode is a goto to another app, a click on a link, a fill of a text box and the final
message; with `--oracle-every K` every K-th episode plays the template's reference solution
instead. Every `--every` episodes it records:

    python RSS      resident memory of this process
    chromium        processes of the browser (descendants of this process), their total RSS
                    and PSS (shared pages counted once)
    driver RSS      the Playwright driver (node) process
    fds, threads    open file descriptors (/proc/self/fd), threads (Python's and the kernel's)
    worlds          world files on disk and their size
    temp            files and folders left in this run's temp folder (episode folders,
                    browser profiles) and their size

Goals: every series grows by less than 10 % from the first checkpoint to the last, except the
worlds' bytes, which SQLite bounds instead: a world's write-ahead log grows until its automatic
checkpoint (1,000 pages) and is then reused, so each world stays within the golden's size plus
that log (`wal_bound`); after
`pool.close()` no Chromium or driver process is left, no world or temp file is left behind,
and file descriptors and threads are back to their count before the pool (± a few). The exit
code is 1 when a goal is missed, so the run can gate.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

GROWTH_TARGET = 0.10
FD_SLACK = 3
THREAD_SLACK = 0
SETTLE_S = 30.0
DEFAULT_TEMPLATES = (
    "chat.post_update",
    "chat.set_topic",
    "crm.log_call",
    "crm.move_deal_stage",
    "sheets.rename_sheet",
    "sheets.total_column",
    "booking.cancel_room_booking",
    "booking.book_room_with_screen",
)
PAGES = ("/", "/chat/", "/crm/", "/sheets/", "/booking/")
_SIGN_OUT = re.compile(r"sign ?out|log ?out", re.IGNORECASE)
# (key, column title, unit divisor): the series a checkpoint holds, in table order.
SERIES = (
    ("python_rss", "python RSS MB", 1024 * 1024),
    ("chromium_rss", "chromium RSS MB", 1024 * 1024),
    ("chromium_pss", "chromium PSS MB", 1024 * 1024),
    ("chromium_procs", "chromium procs", 1),
    ("driver_rss", "driver RSS MB", 1024 * 1024),
    ("fds", "fds", 1),
    ("threads", "threads", 1),
    ("py_threads", "py threads", 1),
    ("world_files", "world files", 1),
    ("world_bytes", "world MB", 1024 * 1024),
    ("temp_entries", "temp entries", 1),
    ("temp_bytes", "temp MB", 1024 * 1024),
)


# ---- measuring -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    """One process as /proc shows it."""

    pid: int
    ppid: int
    state: str
    argv0: str


def process_table(proc: Path = Path("/proc")) -> dict[int, Proc]:
    """Every process readable under `proc`, by pid (processes that vanish meanwhile are left out)."""
    table: dict[int, Proc] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        table[int(entry.name)] = Proc(
            int(entry.name), int(fields[1]), fields[0], argv[0].decode(errors="replace")
        )
    return table


def descendants(root: int, table: Mapping[int, Proc]) -> list[Proc]:
    """The processes below `root` (children, their children, ...), in pid order."""
    children: dict[int, list[int]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append(table[pid])
        todo.extend(children.get(pid, ()))
    return sorted(found, key=lambda p: p.pid)


def kind_of(proc: Proc) -> str:
    """`chromium`, `driver` (Playwright's node process) or `other`, from the program name."""
    name = Path(proc.argv0.split(" ")[0]).name
    if "chrom" in name:
        return "chromium"
    if name == "node" or name.startswith("node"):
        return "driver"
    return "other"


def status_field(
    pid: int | str, field: str, proc: Path = Path("/proc"), name: str = "status"
) -> int:
    """An integer field of /proc/<pid>/<name> (status: VmRSS in kB, Threads; smaps_rollup:
    Pss in kB); 0 when absent."""
    try:
        text = (proc / str(pid) / name).read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    found = re.search(rf"^{field}:\s*(\d+)", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def open_fds() -> int:
    """Open file descriptors of this process (the one that lists them included)."""
    return len(os.listdir("/proc/self/fd"))


def folder_usage(folder: Path) -> tuple[int, int]:
    """(files and folders below `folder`, their total size in bytes); (0, 0) if it is gone."""
    entries = size = 0
    for root, dirs, files in os.walk(folder):
        entries += len(dirs) + len(files)
        for name in files:
            try:
                size += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                continue
    return entries, size


def sample(worlds: Path, temp: Path) -> dict[str, int]:
    """Every series, now (RSS in bytes)."""
    below = descendants(os.getpid(), process_table())
    chromium = [p for p in below if kind_of(p) == "chromium"]
    driver = [p for p in below if kind_of(p) == "driver"]
    world_files, world_bytes = folder_usage(worlds)
    world_dbs = len(list(worlds.glob("*.sqlite"))) if worlds.is_dir() else 0
    temp_entries, temp_bytes = folder_usage(temp)
    return {
        "python_rss": status_field("self", "VmRSS") * 1024,
        "chromium_rss": sum(status_field(p.pid, "VmRSS") for p in chromium) * 1024,
        # Shared pages count once in PSS: steadier than summed RSS as renderers come and go.
        "chromium_pss": sum(status_field(p.pid, "Pss", name="smaps_rollup") for p in chromium)
        * 1024,
        "chromium_procs": len(chromium),
        "driver_rss": sum(status_field(p.pid, "VmRSS") for p in driver) * 1024,
        "other_procs": len(below) - len(chromium) - len(driver),
        "zombies": sum(p.state == "Z" for p in below),
        "fds": open_fds(),
        "threads": status_field("self", "Threads"),
        "py_threads": threading.active_count(),
        "py_objects": len(gc.get_objects()) + gc.get_freeze_count(),
        "world_files": world_files,
        "world_dbs": world_dbs,
        "world_bytes": world_bytes,
        "temp_entries": temp_entries,
        "temp_bytes": temp_bytes,
    }


def type_counts() -> Counter[str]:
    """Live objects the collector tracks, by type name (the frozen ones left out)."""
    return Counter(type(o).__qualname__ for o in gc.get_objects())


def type_growth(first: Counter[str], last: Counter[str], top: int) -> list[tuple[str, int, int]]:
    """The `top` types whose count grew most from `first` to `last`: (type, first, last)."""
    grown = sorted(last, key=lambda k: (first[k] - last[k], k))[:top]
    return [(k, first[k], last[k]) for k in grown if last[k] > first[k]]


def growth(first: float, last: float) -> float:
    """Relative change from `first` to `last` (0 when both are 0, infinite from 0 to more)."""
    if first == 0:
        return 0.0 if last == 0 else float("inf")
    return (last - first) / first


def wait_until(condition: Callable[[], bool], timeout_s: float, interval_s: float = 0.1) -> bool:
    """Poll `condition` until it holds or `timeout_s` passes; whether it held."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() >= deadline:
            return False
        threading.Event().wait(interval_s)
    return True


# ---- the episodes --------------------------------------------------------------------------


def template_mix(ids: Sequence[str]):
    """One template source that plays `ids` in turn: instance i is template i % n, seed i // n."""
    from officegym.tasks import registry
    from officegym.tasks.protocol import TaskError

    templates = [registry.get(i) for i in ids]
    worlds = {t.world for t in templates}
    if len(worlds) != 1:
        raise SystemExit(f"the templates must share one world spec, got {sorted(map(str, worlds))}")

    class TemplateMix(registry.Template):
        id = "soak.mix"
        apps = tuple(sorted({app for t in templates for app in t.apps}))
        world = worlds.pop()

        def instance(self, golden, seed):
            return templates[seed % len(templates)].instance(golden, seed // len(templates))

        def sample(self, world, rng):
            raise TaskError("a template mix samples through its templates")

        def goal(self, params, rng):
            raise TaskError("a template mix has no goal of its own")

        def solve(self, actions, params):
            raise TaskError("a template mix has no solution of its own")

        def verify(self, ctx, params):
            raise TaskError("a template mix has no verifier of its own")

    return TemplateMix()


@dataclass
class Tally:
    """What the episodes did, over the whole run."""

    episodes: int = 0
    steps: int = 0
    action_errors: int = 0
    agent_errors: int = 0
    oracle_episodes: int = 0
    oracle_successes: int = 0


class Poke:
    """A goto to another app, a click on a link there, a fill of a text box, the final message."""

    name = "poke"

    def __init__(self, index: int, tally: Tally) -> None:
        self.index = index
        self.rng = random.Random(index)
        self.tally = tally

    async def play(self, env) -> None:
        try:
            await self._pokes(env)
        except Exception:  # noqa: BLE001 - counted (e.g. an observation mid-navigation)
            self.tally.agent_errors += 1

    async def _pokes(self, env) -> None:
        from officegym.harness.actions import format_action

        await env.step(format_action("goto", PAGES[self.index % len(PAGES)]))
        links = [n.bid for n in env.nodes if n.bid and n.role == "link" and not _sign_out(n.name)]
        click = format_action("click", self.rng.choice(links)) if links else "noop()"
        await env.step(click)
        boxes = [n.bid for n in env.nodes if n.bid and n.role in ("textbox", "searchbox")]
        fill = (
            format_action("fill", self.rng.choice(boxes), f"soak {self.index}") if boxes else None
        )
        await env.step(fill or "noop()")
        await env.step(format_action("send_msg_to_user", "done"))


def _sign_out(name: str) -> bool:
    return not name or bool(_SIGN_OUT.search(name))


class SafeOracle:
    """The reference solution; a solution that raises is counted, and the episode still ends."""

    name = "oracle"

    def __init__(self, tally: Tally) -> None:
        self.tally = tally

    async def play(self, env) -> None:
        self.tally.oracle_episodes += 1
        try:
            await env.run_oracle()
        except Exception:  # noqa: BLE001 - counted; the soak is about resources, not success
            self.tally.agent_errors += 1
        await env.finish()
        self.tally.oracle_successes += env.final[0].success


WAL_FRAME_HEADER = 24
WAL_HEADER = 32
SHM_BYTES = 32 * 1024
DB_SLACK = 0.05
WAL_SLACK = 0.25


def wal_bound(golden: Path) -> int:
    """The most one world's files (database, write-ahead log, shared-memory index) may hold:
    the golden's size plus `DB_SLACK` (pages freed by resets are reused, not returned), and a
    log of `wal_autocheckpoint` frames plus `WAL_SLACK` of them (the transaction that crosses
    the checkpoint mark is written whole); SQLite reuses the log after each checkpoint."""
    with sqlite3.connect(f"file:{golden}?mode=ro", uri=True) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        frames = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    conn.close()
    log = WAL_HEADER + int(frames * (1 + WAL_SLACK)) * (page_size + WAL_FRAME_HEADER)
    return int(golden.stat().st_size * (1 + DB_SLACK)) + log + SHM_BYTES


def golden_home(home: Path, seed: int, scale: str) -> Path:
    """Put the cached golden for (seed, scale) into `home`, so the run does not rebuild it;
    its path."""
    from officegym.seed_data.store import WorldStore

    cached = WorldStore().golden_path(seed, scale)
    target = WorldStore(home).golden_path(seed, scale)
    if cached.is_file() and not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cached, target)
    return WorldStore(home).golden(seed, scale)  # builds it when there was none to copy


def soak(args: argparse.Namespace, console: Console) -> dict:
    """Play the episodes, measure at every checkpoint and after closing; the figures."""
    root = Path(tempfile.mkdtemp(prefix="officegym-soak-"))
    temp = root / "tmp"
    temp.mkdir()
    # Everything the harness, the driver and Chromium put in a temp folder lands here.
    os.environ["TMPDIR"] = str(temp)
    tempfile.tempdir = None
    home = root / "home"
    worlds = home / "worlds"
    try:
        from officegym.harness import EnvPool

        mix = template_mix(args.templates)
        golden = golden_home(home, mix.world.seed, mix.world.scale)
        tally = Tally()
        failure = ""

        def agent(index: int):
            if args.oracle_every and index % args.oracle_every == args.oracle_every - 1:
                return SafeOracle(tally)
            return Poke(index, tally)

        start = sample(worlds, temp)
        console.print(f"start: {_brief(start)}")
        checkpoints: list[dict] = []
        type_marks: list[Counter[str]] = []
        clock = time.monotonic()

        def on_result(result) -> None:
            tally.episodes += 1
            tally.steps += result.steps
            tally.action_errors += result.action_errors

        def checkpoint() -> None:
            point = {
                "episodes": tally.episodes,
                "elapsed_s": round(time.monotonic() - clock, 1),
                **sample(worlds, temp),
            }
            checkpoints.append(point)
            console.print(f"{tally.episodes:>6} episodes  {_brief(point)}")
            if args.types:
                kinds = type_counts()
                if not type_marks or tally.episodes <= args.warmup:
                    type_marks[:] = [kinds, kinds]
                type_marks[1] = kinds

        pool = EnvPool(mix, args.envs, home=home, observation={"axtree": True, "dom": False})
        try:
            try:
                # The pool plays `--every` episodes at a time and is measured in between, when
                # no episode is in flight: every env then holds one finished episode, so the
                # checkpoints compare like with like.
                for first in range(0, args.episodes, args.every):
                    count = min(args.every, args.episodes - first)
                    pool.run(agent, count, seed=first, on_result=on_result)
                    checkpoint()
            except Exception as error:  # noqa: BLE001 - reported as a missed goal
                failure = f"{type(error).__name__}: {str(error).splitlines()[0]}"
                console.print(f"the run stopped after {tally.episodes} episodes: {failure}")
            open_ = sample(worlds, temp)
        finally:
            pool.close()

        def settled() -> bool:
            now = sample(worlds, temp)
            return (
                now["chromium_procs"] + now["other_procs"] == 0
                and now["threads"] <= start["threads"] + THREAD_SLACK
            )

        wait_until(settled, SETTLE_S)
        closed = sample(worlds, temp)
        leftovers = sorted(
            str(p.relative_to(root)) for folder in (worlds, temp) for p in folder.rglob("*")
        )
        return {
            "args": {k: v for k, v in vars(args).items() if k != "json"},
            "warmup": args.warmup,
            "world_bound": wal_bound(golden),
            "start": start,
            "checkpoints": checkpoints,
            "before_close": open_,
            "closed": closed,
            "leftovers": leftovers[:50],
            "tally": asdict(tally),
            "failure": failure,
            "type_growth": type_growth(*type_marks, args.types) if type_marks else [],
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _brief(point: Mapping[str, int]) -> str:
    mb = 1024 * 1024
    return (
        f"python {point['python_rss'] / mb:.0f} MB, chromium {point['chromium_procs']} procs "
        f"{point['chromium_rss'] / mb:.0f} MB, driver {point['driver_rss'] / mb:.0f} MB, "
        f"fds {point['fds']}, threads {point['threads']}, worlds {point['world_files']} "
        f"({point['world_bytes'] / mb:.1f} MB), temp {point['temp_entries']}"
    )


# ---- the report ----------------------------------------------------------------------------


def goals(figures: Mapping) -> list[tuple[str, bool, str]]:
    """(goal, met, detail) for every goal of the run."""
    start, closed, points = figures["start"], figures["closed"], figures["checkpoints"]
    found: list[tuple[str, bool, str]] = []
    warm = [p for p in points if p["episodes"] >= figures.get("warmup", 0)] or points
    if len(warm) >= 2:
        first, last = warm[0], warm[-1]
        for key, title, unit in SERIES:
            if key == "world_bytes" and "world_bound" in figures:
                continue  # bounded by SQLite, judged below
            rise = growth(first[key], last[key])
            detail = f"{_value(first[key], unit)} -> {_value(last[key], unit)} ({rise:+.1%})"
            found.append((f"{title}: growth after {first['episodes']} episodes < 10 %",
                          rise < GROWTH_TARGET, detail))  # fmt: skip
    if "world_bound" in figures and points:
        worlds = max(p["world_dbs"] for p in points)
        most = max(p["world_bytes"] for p in points)
        bound = worlds * figures["world_bound"]
        found.append(("world files within SQLite's bound (golden + auto-checkpointed log each)",
                      most <= bound, f"at most {_value(most, 1024 * 1024)} MB for {worlds} worlds; "
                      f"bound {_value(bound, 1024 * 1024)} MB"))  # fmt: skip
    if "failure" in figures:
        found.append(("every episode ran (none raised out of the pool)", not figures["failure"],
                      figures["failure"] or "all ran"))  # fmt: skip
    left = closed["chromium_procs"] + closed["other_procs"]
    found.append(("no Chromium or driver process left after close", left == 0,
                  f"{closed['chromium_procs']} chromium, {closed['other_procs']} other"))  # fmt: skip
    found.append(("no world file left after close", closed["world_files"] == 0,
                  f"{closed['world_files']} files, {closed['world_bytes']} bytes"))  # fmt: skip
    found.append(("no temp file left after close", closed["temp_entries"] == 0,
                  f"{closed['temp_entries']} entries, {closed['temp_bytes']} bytes"))  # fmt: skip
    fds = closed["fds"] - start["fds"]
    found.append((f"fds back to the start count (± {FD_SLACK})", abs(fds) <= FD_SLACK,
                  f"{start['fds']} -> {closed['fds']}"))  # fmt: skip
    threads = closed["threads"] - start["threads"]
    found.append(("threads back to the start count", threads <= THREAD_SLACK,
                  f"{start['threads']} -> {closed['threads']} "
                  f"(Python: {start['py_threads']} -> {closed['py_threads']})"))  # fmt: skip
    return found


def _value(value: float, unit: int) -> str:
    return f"{value / unit:.1f}" if unit > 1 else str(value)


def report(figures: Mapping, console: Console) -> bool:
    """Print the curve and one verdict line per goal; True when every goal is met."""
    table = Table(title="soak: one pool, resources at every checkpoint")
    table.add_column("episodes", justify="right")
    table.add_column("s / episode", justify="right")
    for _, title, _ in SERIES:
        table.add_column(title, justify="right")
    table.add_column("py objects", justify="right")

    def row(label: str, point: Mapping, per_episode: str) -> None:
        cells = [_value(point[key], unit) for key, _, unit in SERIES]
        table.add_row(label, per_episode, *cells, str(point["py_objects"]))

    row("start", figures["start"], "")
    previous = (0, 0.0)
    for point in figures["checkpoints"]:
        done = point["episodes"] - previous[0]
        pace = (point["elapsed_s"] - previous[1]) / done if done else 0.0
        row(str(point["episodes"]), point, f"{pace:.2f}")
        previous = (point["episodes"], point["elapsed_s"])
    row("closed", figures["closed"], "")
    console.print(table)

    tally = figures["tally"]
    console.print(
        f"{tally['episodes']} episodes, {tally['steps']} steps, {tally['action_errors']} action "
        f"errors (expected: some pokes miss), {tally['oracle_episodes']} oracle episodes "
        f"({tally['oracle_successes']} succeeded); "
        f"{tally['agent_errors']} episodes raised in the agent"
    )
    for name, first, last in figures.get("type_growth", []):
        console.print(f"objects of type {name}: {first} -> {last}")
    if figures["leftovers"]:
        console.print("left behind: " + ", ".join(figures["leftovers"]))
    met_all = True
    for goal, met, detail in goals(figures):
        met_all &= met
        console.print(f"{'met    ' if met else 'MISSED '} {goal}: {detail}")
    return met_all


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--envs", type=int, default=4, help="environments in the pool")
    parser.add_argument("--every", type=int, default=100, help="episodes between checkpoints")
    parser.add_argument(
        "--warmup",
        type=int,
        default=100,
        help="growth is measured from the first checkpoint at or after this many episodes",
    )
    parser.add_argument(
        "--templates",
        type=lambda text: tuple(t.strip() for t in text.split(",") if t.strip()),
        default=DEFAULT_TEMPLATES,
        help="template ids, comma-separated (default: two of each app)",
    )
    parser.add_argument(
        "--oracle-every", type=int, default=0, help="every K-th episode plays the oracle (0: none)"
    )
    parser.add_argument(
        "--types", type=int, default=0, help="show the N object types that grew most (slow)"
    )
    parser.add_argument("--json", type=Path, help="write the curve here")
    args = parser.parse_args(argv)
    if args.episodes < 1 or args.envs < 1 or args.every < 1 or args.oracle_every < 0:
        parser.error("--episodes, --envs and --every must be >= 1, --oracle-every >= 0")
    console = Console(width=220)
    figures = soak(args, console)
    met = report(figures, console)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
