"""`make test` runs `--dist loadgroup`: tests sharing an `xdist_group` share one worker (and
so one costly module fixture, such as a Ray cluster), with the pytest and xdist installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GROUPED = """
import os
import pytest

pytestmark = pytest.mark.xdist_group("one")


@pytest.mark.parametrize("i", range(8))
def test_grouped(i):
    print("worker", os.environ["PYTEST_XDIST_WORKER"])
"""


def test_an_xdist_group_runs_on_a_single_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.xdist_groups", "-p", "no:cacheprovider",
         "-n", "2", "--dist", "loadgroup", "-v", "--rootdir", str(tmp_path),
         str(tmp_path / "test_grouped.py")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {line.split("]")[0] for line in done.stdout.splitlines() if "PASSED" in line}
    assert len(workers) == 1 and done.stdout.count("PASSED") == 8, done.stdout
