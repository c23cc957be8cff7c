"""What the harness runs: a `Task` (goal, user, start page, world, verifier, optional oracle).

A task is a frozen value. Registered templates make one per instance seed
(`template.instance(golden, seed)`); a user can also build one directly, which is what
`officegym.make(goal=..., user=..., verify=...)` does. The verifier reads an
`EpisodeContext`: the diff from the golden world to the episode's world, the agent's answer,
and what the agent did.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from officegym.seed_data.clock import now_of
from officegym.seed_data.connect import connect
from officegym.seed_data.diff import WorldDiff
from officegym.seed_data.generate import SCALES

from .verdict import Verdict

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions


class TaskError(ValueError):
    """A task definition is invalid (unknown scale, empty goal, a start URL off the site...)."""


@dataclass(frozen=True)
class WorldSpec:
    """Which golden world an episode starts from."""

    seed: int = 0
    scale: str = "small"

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise TaskError(f"unknown scale {self.scale!r}; choose one of {sorted(SCALES)}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise TaskError(f"world seed must be a non-negative int, got {self.seed!r}")


@dataclass(frozen=True)
class EpisodeContext:
    """What a verifier may look at when it grades an episode (final or mid-episode)."""

    task: Task
    diff: WorldDiff
    world: Path
    golden: Path
    answer: str | None = None
    infeasible: str | None = None
    steps: int = 0
    action_errors: int = 0
    urls: tuple[str, ...] = ()
    blocked_requests: int = 0
    final: bool = True
    today: date | None = None

    def db(self) -> sqlite3.Connection:
        """A read-only connection to the episode's world as it is now (close it when done)."""
        return connect(self.world, read_only=True)

    def golden_db(self) -> sqlite3.Connection:
        """A read-only connection to the world as it was at reset."""
        return connect(self.golden, read_only=True)

    def world_today(self) -> date | None:
        """The world clock's date (relative dates in answers are read against it), or None
        when the context has no world file."""
        if self.today is not None:
            return self.today
        if not self.golden.is_file():
            return None
        return now_of(self.golden).date()


Verifier = Callable[[EpisodeContext], Verdict]
Solver = Callable[["PageActions"], None]


@dataclass(frozen=True)
class Task:
    """One runnable task instance.

    `user` is the email of the employee the agent acts as (signed in at reset); `start_url`
    is a path on the suite (`/chat/`); `verify` grades the episode; `solve`, when given,
    reaches the goal through the harness action API (the oracle). `files` are placed in the
    episode folder at reset (the only place `upload_file` reads from).
    """

    goal: str
    user: str
    verify: Verifier
    start_url: str = "/"
    world: WorldSpec = field(default_factory=WorldSpec)
    solve: Solver | None = None
    id: str = "adhoc"
    apps: tuple[str, ...] = ()
    max_steps: int = 30
    params: Mapping[str, Any] = field(default_factory=dict)
    instance_seed: int | None = None
    files: Mapping[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.goal, str) or not self.goal.strip():
            raise TaskError("a task needs a non-empty goal")
        if not isinstance(self.user, str) or "@" not in self.user:
            raise TaskError(f"task user must be an employee email, got {self.user!r}")
        if not callable(self.verify):
            raise TaskError("task verify must be callable: verify(ctx) -> Verdict")
        if self.solve is not None and not callable(self.solve):
            raise TaskError("task solve must be callable: solve(actions) -> None")
        if not isinstance(self.start_url, str) or not self.start_url.startswith("/"):
            raise TaskError(f"start_url must be a path on the suite, got {self.start_url!r}")
        if self.start_url.startswith("//"):
            raise TaskError(f"start_url must be a path on the suite, got {self.start_url!r}")
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise TaskError(f"max_steps must be a positive int, got {self.max_steps!r}")

    def describe(self) -> dict[str, Any]:
        """The JSON-safe part of the task (what a recording keeps)."""
        return {
            "id": self.id,
            "goal": self.goal,
            "user": self.user,
            "start_url": self.start_url,
            "world": {"seed": self.world.seed, "scale": self.world.scale},
            "apps": list(self.apps),
            "max_steps": self.max_steps,
            "params": _jsonable(self.params),
            "instance_seed": self.instance_seed,
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


__all__ = ["EpisodeContext", "Solver", "Task", "TaskError", "Verifier", "WorldSpec"]
