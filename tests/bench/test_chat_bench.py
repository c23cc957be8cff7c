"""The chat benchmark runs end to end (figures are read by people, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_chat_bench_prints_every_request_kind_and_writes_raw_figures(tmp_path):
    out = tmp_path / "chat.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "chat.py"), "--scale", "tiny", "--requests", "3",
         "--min-history", "60", "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    for kind in ("launcher", "channel", "older", "search", "post"):
        assert kind in done.stdout
    figures = json.loads(out.read_text())
    assert figures["info"]["channel_messages"] >= 60
    assert all(len(samples) == 3 for samples in figures["samples"].values())
