"""`officegym run`: play N episodes of one task with W workers, with progress and a summary."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .agents import agent_from_spec
from .env import EpisodeResult
from .pool import EnvPool
from .session import SessionOptions


@dataclass(frozen=True)
class Summary:
    task_id: str
    agent: str
    episodes: int
    success_rate: float
    mean_score: float
    mean_steps: float
    mean_seconds: float
    errors_per_episode: float
    blocked_requests: int

    def table(self) -> Table:
        table = Table(title=f"{self.task_id} · {self.agent}")
        for column in (
            "episodes",
            "success",
            "mean score",
            "steps",
            "s / episode",
            "errors",
            "blocked",
        ):
            table.add_column(column, justify="right")
        table.add_row(
            str(self.episodes),
            f"{self.success_rate:.0%}",
            f"{self.mean_score:.3f}",
            f"{self.mean_steps:.1f}",
            f"{self.mean_seconds:.2f}",
            f"{self.errors_per_episode:.1f}",
            str(self.blocked_requests),
        )
        return table


def summarise(task_id: str, agent: str, results: Sequence[EpisodeResult]) -> Summary:
    n = len(results)

    def mean(values) -> float:
        values = list(values)
        return statistics.fmean(values) if values else 0.0

    return Summary(
        task_id=task_id,
        agent=agent,
        episodes=n,
        success_rate=mean(r.success for r in results),
        mean_score=mean(r.score for r in results),
        mean_steps=mean(r.steps for r in results),
        mean_seconds=mean(r.elapsed_s for r in results),
        errors_per_episode=mean(r.action_errors for r in results),
        blocked_requests=sum(r.blocked_requests for r in results),
    )


def run_task(
    task_id: str,
    agent: str,
    *,
    episodes: int = 1,
    workers: int = 1,
    seed: int = 0,
    record: Path | None = None,
    server: str | None = None,
    home: Path | None = None,
    screenshots: bool = False,
    console: Console | None = None,
    session: SessionOptions | None = None,
) -> tuple[list[EpisodeResult], Summary]:
    """Play `episodes` episodes of `task_id` with the agent spec; print progress and a table.
    `session` sets the browser's viewport and timeouts (the harness's defaults otherwise)."""
    console = console or Console()
    agent_from_spec(agent)  # fail fast on a bad spec
    workers = max(1, min(workers, episodes))
    pool = EnvPool(
        task_id,
        workers,
        home=home,
        server=server,
        observation={"axtree": True, "dom": False, "screenshot": screenshots},
        record=record,
        record_screenshots=screenshots,
        session=session,
    )
    try:
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[state]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        with progress:
            bar = progress.add_task(f"{task_id} · {agent}", total=episodes, state="")
            passed = 0

            def done(result: EpisodeResult) -> None:
                nonlocal passed
                passed += result.success
                progress.update(bar, advance=1, state=f"{passed} succeeded")

            results = pool.run(
                lambda index: agent_from_spec(agent, seed=index),
                episodes,
                seed=seed,
                on_result=done,
            )
    finally:
        pool.close()
    summary = summarise(task_id, agent, results)
    console.print(summary.table())
    return results, summary


__all__ = ["Summary", "run_task", "summarise"]
