"""The soak benchmark's measuring functions: process tree, counts, growth and the goals."""

from __future__ import annotations

import io
import sqlite3
import subprocess
import sys
from pathlib import Path

from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import soak  # noqa: E402


def point(**overrides: int) -> dict[str, int]:
    base = {key: 10 for key, _, _ in soak.SERIES}
    base.update(other_procs=0, zombies=0, py_objects=1000, episodes=100, elapsed_s=10, world_dbs=4)
    return {**base, **overrides}


def test_descendants_follow_parent_links_below_the_root_only():
    table = {
        pid: soak.Proc(pid, ppid, "S", name)
        for pid, ppid, name in [
            (1, 0, "init"),
            (10, 1, "python"),
            (11, 10, "node"),
            (12, 11, "/usr/lib/chromium/chromium"),
            (13, 12, "/usr/lib/chromium/chromium"),
            (20, 1, "/usr/lib/chromium/chromium"),
        ]
    }
    assert [p.pid for p in soak.descendants(10, table)] == [11, 12, 13]
    assert [soak.kind_of(p) for p in soak.descendants(10, table)] == [
        "driver",
        "chromium",
        "chromium",
    ]


def test_a_child_process_shows_in_this_process_tree_until_it_ends():
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        below = soak.descendants(soak.os.getpid(), soak.process_table())
        assert child.pid in [p.pid for p in below]
        assert soak.status_field(child.pid, "VmRSS") > 0
    finally:
        child.stdin.close()
        child.wait(30)
    below = soak.descendants(soak.os.getpid(), soak.process_table())
    assert child.pid not in [p.pid for p in below]


def test_sample_counts_files_below_the_worlds_and_temp_folders(tmp_path):
    worlds, temp = tmp_path / "worlds", tmp_path / "tmp"
    worlds.mkdir()
    (worlds / "a.sqlite").write_bytes(b"x" * 100)
    (worlds / "a.sqlite-wal").write_bytes(b"x" * 20)
    (temp / "episode" / "00001").mkdir(parents=True)
    now = soak.sample(worlds, temp)
    assert (now["world_files"], now["world_bytes"]) == (2, 120)
    assert (now["temp_entries"], now["temp_bytes"]) == (2, 0)
    assert now["fds"] > 0 and now["threads"] >= 1 and now["python_rss"] > 0


def test_growth_is_relative_to_the_first_value():
    assert soak.growth(100, 105) == 0.05
    assert soak.growth(0, 0) == 0.0
    assert soak.growth(0, 1) == float("inf")


def test_every_goal_is_met_by_a_flat_curve_and_a_clean_close():
    start = point(fds=6, threads=3, chromium_procs=0, world_files=0, temp_entries=0)
    closed = {**start}
    figures = {"start": start, "closed": closed, "checkpoints": [point(), point(episodes=200)]}
    assert all(met for _, met, _ in soak.goals(figures))


def test_a_growing_series_or_a_world_left_behind_misses_its_goal():
    start = point(fds=6, threads=3, chromium_procs=0, world_files=0, temp_entries=0)
    closed = {**start, "world_files": 1}
    curve = [point(), point(episodes=200, temp_entries=12)]
    figures = {"start": start, "closed": closed, "checkpoints": curve}
    missed = [goal for goal, met, _ in soak.goals(figures) if not met]
    assert missed == [
        "temp entries: growth after 100 episodes < 10 %",
        "no world file left after close",
    ]
    report = {**figures, "tally": {k: 0 for k in soak.Tally().__dict__}, "leftovers": []}
    printed = io.StringIO()
    assert soak.report(report, Console(file=printed, width=200)) is False
    assert "MISSED  no world file left after close" in printed.getvalue()


def test_type_growth_names_the_types_that_grew_most_first():
    first = soak.Counter({"dict": 100, "Request": 5, "Page": 3})
    last = soak.Counter({"dict": 101, "Request": 50, "Page": 3, "Route": 7})
    assert soak.type_growth(first, last, 2) == [("Request", 5, 50), ("Route", 0, 7)]


def test_a_run_that_raised_out_of_the_pool_misses_its_goal():
    start = point(fds=6, threads=3, chromium_procs=0, world_files=0, temp_entries=0)
    figures = {"start": start, "closed": {**start}, "checkpoints": [point()]}
    failure = "TimeoutError: APIRequestContext.get: Timeout 3000ms exceeded."
    missed = [d for _, met, d in soak.goals({**figures, "failure": failure}) if not met]
    assert missed == [failure]
    assert all(met for _, met, _ in soak.goals({**figures, "failure": ""}))


def test_world_bytes_are_judged_against_sqlites_bound_not_their_growth():
    start = point(fds=6, threads=3, chromium_procs=0, world_files=0, temp_entries=0)
    curve = [point(world_bytes=100), point(episodes=200, world_bytes=190)]
    figures = {"start": start, "closed": {**start}, "checkpoints": curve, "world_bound": 50}
    assert all(met for _, met, _ in soak.goals(figures))  # 190 % growth, 4 worlds x 50 bytes
    over = {**figures, "world_bound": 40}
    missed = [goal for goal, met, _ in soak.goals(over) if not met]
    assert missed == ["world files within SQLite's bound (golden + auto-checkpointed log each)"]


def test_the_bound_of_a_world_is_its_golden_plus_a_full_write_ahead_log_with_slack(tmp_path):
    golden = tmp_path / "golden.sqlite"
    with sqlite3.connect(golden) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    log = soak.WAL_HEADER + 1250 * (4096 + soak.WAL_FRAME_HEADER)
    database = int(golden.stat().st_size * 1.05)
    assert soak.wal_bound(golden) == database + log + soak.SHM_BYTES
