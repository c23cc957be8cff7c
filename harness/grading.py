"""Grading an episode: the task's verifier on the episode's context, plus the process checks.

Process checks (steps used, action errors, pages outside the task's apps, requests the
sandbox blocked) are informational: weight 0 and not required, so they never change the
score, but they show up in every verdict and report.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

from officegym.seed_data.diff import WorldDiff
from officegym.tasks.protocol import EpisodeContext, TaskError
from officegym.tasks.verdict import Check, Verdict

# Paths every task may visit whatever its apps: the launcher, sign-in and assets.
NEUTRAL_PATHS = ("", "login", "logout", "static")


def process_checks(ctx: EpisodeContext, *, origin: str, max_steps: int) -> list[Check]:
    """The episode's process checks (weight 0, not required)."""
    apps = set(ctx.task.apps)
    outside = sorted(
        {
            url
            for url in ctx.urls
            if apps
            and url.startswith(origin)
            and urlsplit(url).path.strip("/").split("/")[0] not in apps | set(NEUTRAL_PATHS)
        }
    )

    def info(name: str, passed: bool, detail: str) -> Check:
        return Check(name, passed, weight=0.0, detail=detail, kind="process", required=False)

    return [
        info("process.steps", ctx.steps <= max_steps, f"{ctx.steps} of {max_steps}"),
        info("process.action_errors", ctx.action_errors == 0, f"{ctx.action_errors} errors"),
        info(
            "process.outside_apps",
            not outside,
            f"{len(outside)} pages outside {sorted(apps)}"
            + (f": {outside[:3]}" if outside else ""),
        ),
        info(
            "process.blocked_requests",
            ctx.blocked_requests == 0,
            f"{ctx.blocked_requests} requests blocked",
        ),
    ]


async def grade(ctx: EpisodeContext, *, origin: str, max_steps: int) -> Verdict:
    """The task's verdict on `ctx` (run in a worker thread) with the process checks added."""
    verdict = await asyncio.to_thread(ctx.task.verify, ctx)
    if not isinstance(verdict, Verdict):
        raise TaskError(
            f"task {ctx.task.id!r}: verify() must return a Verdict, got {type(verdict)}"
        )
    return verdict.with_checks(*process_checks(ctx, origin=origin, max_steps=max_steps))


def final_info(
    verdict: Verdict, diff: WorldDiff, answer: str | None, infeasible: str | None
) -> dict[str, Any]:
    """What `info` holds on an episode's last step."""
    return {
        "verdict": verdict,
        "diff": diff,
        "success": verdict.success,
        "score": verdict.score,
        "answer": answer,
        "infeasible": infeasible,
    }


__all__ = ["NEUTRAL_PATHS", "final_info", "grade", "process_checks"]
