"""The CRM benchmark runs end to end (figures are read by people, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_crm_bench_prints_every_request_kind_and_writes_raw_figures(tmp_path):
    out = tmp_path / "crm.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "crm.py"), "--scale", "tiny", "--requests", "3",
         "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    for kind in ("launcher", "list_filters", "search", "record", "account", "inline_save"):
        assert kind in done.stdout
    figures = json.loads(out.read_text())
    assert figures["tiny"]["info"]["crm_opportunity"] > 0
    assert all(len(samples) == 3 for samples in figures["tiny"]["samples"].values())
