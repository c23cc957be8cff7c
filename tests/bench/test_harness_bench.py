"""The harness benchmark runs end to end (figures are read by people, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.browser
def test_harness_bench_prints_every_figure_and_writes_raw_samples(tmp_path):
    out = tmp_path / "harness.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "harness.py"), "--scale", "tiny", "--runs", "2",
         "--episodes", "2", "--levels", "1,2", "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    for label in ("reset light", "reset heavy", "step fill", "step click", "episodes/s"):
        assert label in done.stdout
    figures = json.loads(out.read_text())
    assert all(len(samples) == 2 for samples in figures["samples"].values())
    assert set(figures["throughput"]) == {"light/1", "light/2", "heavy/1", "heavy/2"}
