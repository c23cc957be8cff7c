"""The gate benchmark runs end to end (figures are read by people, not asserted here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.browser
@pytest.mark.slow
def test_gate_bench_compares_each_saving_with_its_baseline_and_prints_the_model():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "gate.py"), "--template", "chat.set_status",
         "--samples", "5", "--results", str(ROOT / "gate-results")],
        capture_output=True, text=True, check=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    for label in ("sampling ×5", "change-everything", "impossible-seed search", "templates"):
        assert label in done.stdout, done.stdout
