"""The booking benchmark runs end to end on a tiny world and measures every request kind
(figures are read by people, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("launcher", "search", "listing", "book_stay", "rooms_day", "book_room")


def test_booking_bench_prints_every_request_kind_and_writes_raw_figures(tmp_path):
    out = tmp_path / "booking.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "booking.py"), "--scale", "tiny", "--requests", "3",
         "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    for kind in KINDS:
        assert kind in done.stdout
    figures = json.loads(out.read_text())
    assert figures["scale"] == "tiny"
    assert figures["info"]["results"] > 0
    assert set(figures["samples"]) == set(KINDS)
    assert all(len(samples) == 3 for samples in figures["samples"].values())
