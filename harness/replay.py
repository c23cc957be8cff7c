"""Re-run a recorded episode's actions in a fresh world and compare the outcome.

A replay is faithful when the final diff and the verdict equal the recorded ones; the first
step whose error or own diff differs is reported to show where a replay diverged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from officegym.seed_data.diff import WorldDiff
from officegym.tasks.protocol import Task, TaskError, WorldSpec
from officegym.tasks.verdict import Verdict

from .env import AsyncEnv
from .recording import Episode, RecordingError, load_episode
from .runtime import Runtime, RuntimeOptions, acquire_runtime, release_runtime
from .session import SessionOptions


@dataclass(frozen=True)
class ReplayResult:
    episode: Path
    recorded_verdict: Verdict
    replayed_verdict: Verdict
    recorded_diff: WorldDiff
    replayed_diff: WorldDiff
    first_divergence: int | None
    divergence: str
    record_dir: Path | None

    @property
    def same_diff(self) -> bool:
        return _canon(self.recorded_diff) == _canon(self.replayed_diff)

    @property
    def same_verdict(self) -> bool:
        return self.recorded_verdict.to_json() == self.replayed_verdict.to_json()

    @property
    def reproduced(self) -> bool:
        return self.same_diff and self.same_verdict


def _canon(diff: WorldDiff) -> str:
    return json.dumps(diff.to_json(), sort_keys=True)


def task_of(episode: Episode, task: Task | None = None) -> Any:
    """The task to replay: the registered template at the recorded instance seed."""
    if task is not None:
        return task
    meta = episode.meta.get("task", {})
    if meta.get("id", "adhoc") == "adhoc" or meta.get("instance_seed") is None:
        raise TaskError(
            f"{episode.directory} records an ad-hoc task; pass the same Task to replay it"
        )
    from officegym.tasks import registry

    return registry.get(meta["id"])


async def replay_async(
    directory: Path | str,
    runtime: Runtime,
    *,
    task: Task | None = None,
    record: Path | str | None = None,
    session: SessionOptions | None = None,
) -> ReplayResult:
    """Replay one recorded episode in a fresh world of `runtime`. `session` sets the
    browser's timeouts; a replay on a busier machine than the recording's may need longer
    ones, or an action that once succeeded times out (and counts as a divergence)."""
    episode = load_episode(directory)
    if episode.diff is None or episode.verdict is None:
        raise RecordingError(f"{episode.directory} did not finish; there is nothing to compare")
    source = task_of(episode, task)
    options = episode.meta.get("options", {})
    world = episode.meta.get("task", {}).get("world", {})
    if isinstance(source, Task):
        source_world = WorldSpec(int(world.get("seed", 0)), world.get("scale", "small"))
        if source.world != source_world:
            raise TaskError(
                f"the given task's world {source.world} is not the recorded {source_world}"
            )
    env = AsyncEnv(
        source,
        runtime,
        observation=options.get("observation"),
        max_steps=options.get("max_steps"),
        record=record,
        record_screenshots=record is not None,
        name="replay",
        session=session,
    )
    try:
        await env.reset(options={"instance_seed": episode.meta["task"].get("instance_seed")})
        env.set_agent_name(f"replay:{episode.directory.name}")
        recorded_steps = [s for s in episode.steps if s.get("action") is not None]
        divergence_at, why = None, ""
        for step in recorded_steps:
            if env.done:
                break
            before = env.runtime.store.snapshot(env.world_id)
            _, _, _, _, info = await env.step(step["action"])
            own = env.runtime.store.diff(env.world_id, since=before)
            if divergence_at is None:
                error = env.last_error or None
                if error != step.get("error"):
                    divergence_at = step["step"]
                    why = f"error {step.get('error')!r} became {error!r}"
                elif step.get("diff") is not None and json.dumps(
                    own.to_json(), sort_keys=True
                ) != json.dumps(step["diff"], sort_keys=True):
                    divergence_at = step["step"]
                    why = "the step changed the world differently"
        if not env.graded:
            await env.finish()
        verdict, diff = env._final
        return ReplayResult(
            episode=episode.directory,
            recorded_verdict=episode.verdict,
            replayed_verdict=verdict,
            recorded_diff=episode.diff,
            replayed_diff=diff,
            first_divergence=divergence_at,
            divergence=why,
            record_dir=env._recorder.directory if env._recorder else None,
        )
    finally:
        await env.close()


def replay(
    directory: Path | str,
    *,
    task: Task | None = None,
    home: Path | str | None = None,
    server: str | None = None,
    record: Path | str | None = None,
    session: SessionOptions | None = None,
) -> ReplayResult:
    """Replay one recorded episode in a fresh world (sync; shares the process's runtime)."""
    shared = acquire_runtime(RuntimeOptions(home=home, server=server))
    try:
        return shared.run(
            replay_async(directory, shared.runtime, task=task, record=record, session=session)
        )
    finally:
        release_runtime(shared)


__all__ = ["ReplayResult", "replay", "replay_async", "task_of"]
