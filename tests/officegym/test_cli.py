"""The `officegym` command line: seed, worlds."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys

from click.testing import CliRunner

from officegym.cli import main
from officegym.seed_data.store import WorldStore


def run_seed(home, *extra) -> str:
    env = {**os.environ, "OFFICEGYM_HOME": str(home), "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "officegym.cli", "seed", "--scale", "tiny", *extra],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


def test_seed_gives_byte_identical_worlds_in_separate_processes(tmp_path):
    first = run_seed(tmp_path / "a")
    second = run_seed(tmp_path / "b")
    sha = re.compile(r"sha256\s+([0-9a-f]{64})")
    assert sha.search(first).group(1) == sha.search(second).group(1)
    assert "generated" in first


def test_seed_reports_rows_size_time_and_a_cache_hit_the_second_time(tmp_path):
    run_seed(tmp_path)
    out = run_seed(tmp_path, "--out", str(tmp_path / "copy.sqlite"))
    assert "people_employee" in out and "total" in out
    assert re.search(r"size\s+[\d.]+ MB", out)
    assert "cache hit" in out
    assert (tmp_path / "copy.sqlite").is_file()


def test_seed_says_how_the_world_reads(tmp_path):
    out = run_seed(tmp_path)
    assert re.search(r"messages\s+[\d,]+ top-level, [\d.]+% distinct; [\d,]+ thread replies", out)
    assert re.search(r"phrasing\s+[\d.]+% of word bigrams distinct", out)
    assert re.search(r"threads\s+[\d.]+% of replies on their root's topic", out)
    assert re.search(r"duplicates\s+\d+ planted: nickname \d+", out)


def test_different_seeds_give_different_worlds(tmp_path):
    sha = re.compile(r"sha256\s+([0-9a-f]{64})")
    zero = sha.search(run_seed(tmp_path)).group(1)
    one = sha.search(run_seed(tmp_path, "--seed", "1")).group(1)
    assert zero != one


def test_worlds_lists_and_drops(tmp_path):
    store = WorldStore(tmp_path)
    store.create("alpha", 0, "tiny")
    runner = CliRunner()
    listing = runner.invoke(main, ["worlds", "--world-home", str(tmp_path)], terminal_width=200)
    assert listing.exit_code == 0, listing.output
    assert "alpha" in listing.output and "s0-tiny" in listing.output
    dropped = runner.invoke(main, ["worlds", "--world-home", str(tmp_path), "drop", "alpha"])
    assert dropped.exit_code == 0 and not store.exists("alpha")
    again = runner.invoke(main, ["worlds", "--world-home", str(tmp_path), "drop", "alpha"])
    assert again.exit_code == 1 and "no world" in again.output


def test_bad_scale_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["seed", "--scale", "huge", "--world-home", str(tmp_path)])
    assert result.exit_code == 2
    assert "huge" in result.output


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "officegym.cli", "serve", "--port", str(port),
             "--scale", "tiny", "--world-home", str(tmp_path)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"Error: port {port} on 127.0.0.1 is in use: stop what holds it or pass --port"
    ]
