"""The world benchmark runs end to end (figures are read by people, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_world_bench_prints_every_operation_and_writes_raw_figures(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "world.py"), "--scales", "tiny", "--runs", "3",
         "--gen-runs", "1", "--writes", "20", "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    for operation in ("generate (cold)", "golden cache hit", "reset", "diff", "fork", "restore"):
        assert operation in done.stdout
    figures = json.loads(out.read_text())
    assert len(figures["tiny"]["reset"]) == 3
    assert all(ms > 0 for ms in figures["tiny"]["diff"])
