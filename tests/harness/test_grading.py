"""Grading: the task's verdict plus informational process checks."""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path

import pytest

from officegym.harness.grading import final_info, grade, process_checks
from officegym.seed_data.diff import WorldDiff
from officegym.tasks.protocol import EpisodeContext, Task, TaskError
from officegym.tasks.verdict import Check, Verdict


def run_alone(coroutine):
    """Run `coroutine` on a fresh loop in its own thread: a browser test that ran before in
    this worker may have left an event loop running on the main thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


ORIGIN = "http://127.0.0.1:8000"


def context(verify=lambda ctx: Verdict([Check("done", True)]), **fields) -> EpisodeContext:
    task = Task(goal="Do it.", user="a@example.test", verify=verify, apps=("crm",))
    values = {"task": task, "diff": WorldDiff(), "world": Path("w"), "golden": Path("g")}
    return EpisodeContext(**{**values, **fields})


def checks(ctx: EpisodeContext, max_steps: int = 5) -> dict[str, Check]:
    return {c.name: c for c in process_checks(ctx, origin=ORIGIN, max_steps=max_steps)}


def test_process_checks_never_count_towards_the_score() -> None:
    urls = (f"{ORIGIN}/booking/",)
    found = checks(context(steps=9, action_errors=2, blocked_requests=1, urls=urls))
    assert all(c.weight == 0.0 and not c.required and c.kind == "process" for c in found.values())
    assert not any(c.passed for c in found.values())


def test_pages_of_the_tasks_apps_and_neutral_pages_are_inside() -> None:
    urls = (f"{ORIGIN}/", f"{ORIGIN}/login", f"{ORIGIN}/crm/deals", f"{ORIGIN}/static/a.css")
    assert checks(context(urls=urls))["process.outside_apps"].passed


def test_a_page_of_another_app_is_outside() -> None:
    outside = checks(context(urls=(f"{ORIGIN}/chat/c/1",)))["process.outside_apps"]
    assert not outside.passed
    assert "1 pages outside ['crm']" in outside.detail


def test_steps_within_the_budget_pass() -> None:
    assert checks(context(steps=5))["process.steps"].detail == "5 of 5"
    assert checks(context(steps=5))["process.steps"].passed


def test_grade_adds_the_process_checks_to_the_verdict() -> None:
    verdict = run_alone(grade(context(), origin=ORIGIN, max_steps=5))
    assert [c.name for c in verdict.checks][0] == "done"
    assert {c.name for c in verdict.checks} >= {"process.steps", "process.blocked_requests"}
    assert verdict.success and verdict.score == 1.0


def test_a_verifier_returning_something_else_is_a_task_error() -> None:
    with pytest.raises(TaskError, match="must return a Verdict"):
        run_alone(grade(context(verify=lambda ctx: 1.0), origin=ORIGIN, max_steps=5))


def test_final_info_holds_the_verdict_and_the_outcome() -> None:
    verdict = Verdict([Check("done", True)])
    info = final_info(verdict, WorldDiff(), "42", None)
    assert info == {
        "verdict": verdict,
        "diff": WorldDiff(),
        "success": True,
        "score": 1.0,
        "answer": "42",
        "infeasible": None,
    }
