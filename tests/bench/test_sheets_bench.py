"""The sheets benchmark runs end to end, and a 5,000-row sheet's page stays within the
observation budget (timings are read by people, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.browser
def test_sheets_bench_prints_every_measure_and_the_large_page_reads_within_budget(tmp_path):
    out = tmp_path / "sheets.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "sheets.py"), "--rows", "5000", "--formulas", "200",
         "--edits", "3", "--requests", "2", "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=900,
    )  # fmt: skip
    for measure in ("recompute", "baseline: full", "page of 5,000 rows", "baseline: home page"):
        assert measure in done.stdout
    figures = json.loads(out.read_text())
    assert 0 < figures["axtree_tokens"] <= 6_000
    assert len(figures["recompute (dependents)"]["samples"]) == 3
