"""The observation budget: every main page of every app on the small world, as the agent reads
it through the harness, within 8,000 tokens, half of them within 3,000, and no two controls
an agent cannot tell apart by role and name."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from observe import MEDIAN_TOKENS, PAGE_TOKENS, PageCost, budget_problems  # noqa: E402

from officegym.apps.registry import entries  # noqa: E402
from officegym.seed_data.store import WorldStore  # noqa: E402


def cost(page: str, tokens: int, status: int = 200) -> PageCost:
    return PageCost("chat", page, f"/chat/{page}", tokens * 4, tokens, 100, 50.0, status)


def test_a_page_over_its_budget_is_named():
    problems = budget_problems([cost("a", 100), cost("b", PAGE_TOKENS + 1), cost("c", 100)])
    assert problems == [f"chat b (/chat/b): {PAGE_TOKENS + 1:,} tokens > {PAGE_TOKENS:,}"]


def test_a_median_over_its_budget_is_reported():
    problems = budget_problems([cost("a", MEDIAN_TOKENS + 1)] * 3)
    assert problems == [f"p50 over all pages: {MEDIAN_TOKENS + 1:,} tokens > {MEDIAN_TOKENS:,}"]


def test_a_page_that_failed_to_load_is_reported():
    assert budget_problems([cost("a", 10, status=500)]) == ["chat a (/chat/a): HTTP 500"]


def test_controls_an_agent_cannot_tell_apart_are_reported():
    page = replace(cost("a", 10), same_named=("button 'Remove' ×2",))
    assert budget_problems([page]) == ["chat a (/chat/a): same-named button 'Remove' ×2"]


@pytest.mark.browser
def test_every_main_page_is_within_the_observation_budget(tmp_path):
    """Every main page as the agent reads it; the small golden is copied from the cache when
    there is one (it is built otherwise)."""
    out = tmp_path / "observe.json"
    home = tmp_path / "home"
    cached = WorldStore().golden_path(0, "small")
    if cached.is_file():
        target = WorldStore(home).golden_path(0, "small")
        target.parent.mkdir(parents=True)
        shutil.copyfile(cached, target)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "observe.py"), "--scale", "small", "--runs", "1",
         "--home", str(home), "--json", str(out), "--check"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert not figures["problems"], done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
    assert {p["app"] for p in figures["pages"]} == {a.slug for a in entries() if a.pages}
    assert "tokens p50" in done.stdout
