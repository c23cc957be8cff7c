"""The env server benchmark runs end to end at its smallest size and prints every figure
(figures are read by people, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.browser
def test_serve_env_bench_prints_every_figure_and_writes_raw_samples(store, tmp_path):
    out = tmp_path / "serve_env.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "serve_env.py"), "--scale", "tiny", "--runs", "1",
         "--steps", "1", "--levels", "1", "--home", str(store.home), "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    for label in ("remote step", "remote reset", "ratio p50", "ratio p95", "protocol per step",
                  "steps/s", "knee:"):  # fmt: skip
        assert label in done.stdout, done.stdout
    figures = json.loads(out.read_text())
    assert all(len(samples) == 1 for samples in figures["samples"].values())
    assert [level["sessions"] for level in figures["saturation"]] == [1]
