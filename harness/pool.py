"""Many episodes at once: N `AsyncEnv`s on one browser and one server.

`EnvPool(task, n)` is the sync face for trainers: `reset()` and `step(actions)` run all N
environments concurrently and return lists, and `run(agent, episodes)` plays whole episodes
with N workers. Each environment has its own world and context; nothing is shared between
episodes but the browser process and the WSGI server.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .agents import Agent
from .env import AsyncEnv, EpisodeResult
from .runtime import Runtime, RuntimeOptions, acquire_runtime, release_runtime

_pool_ids = itertools.count(1)

AgentSource = Agent | Callable[[int], Agent]


async def play_episode(env: AsyncEnv, agent: Agent, instance_seed: int) -> EpisodeResult:
    """Reset `env` to instance `instance_seed`, let `agent` play, grade, and summarise."""
    clock = time.monotonic()
    await env.reset(options={"instance_seed": instance_seed})
    env.set_agent_name(agent.name)
    await agent.play(env)
    if not env.graded:
        await env.finish()
    return env.result(time.monotonic() - clock)


async def run_episodes(
    envs: Sequence[AsyncEnv],
    agent: AgentSource,
    episodes: int,
    *,
    seed: int = 0,
    on_result: Callable[[EpisodeResult], None] | None = None,
) -> list[EpisodeResult]:
    """Play `episodes` episodes (instance seeds seed..seed+episodes-1) on the given envs."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(episodes):
        queue.put_nowait(index)
    results: dict[int, EpisodeResult] = {}

    async def worker(env: AsyncEnv) -> None:
        while not queue.empty():
            index = queue.get_nowait()
            player = agent if hasattr(agent, "play") else agent(seed + index)
            result = await play_episode(env, player, seed + index)
            results[index] = result
            if on_result is not None:
                on_result(result)

    await asyncio.gather(*(worker(env) for env in envs))
    return [results[i] for i in range(episodes)]


class EnvPool:
    """N environments for one task, stepped together or playing whole episodes in parallel."""

    def __init__(
        self,
        task: Any,
        n: int,
        *,
        home: Path | str | None = None,
        server: str | None = None,
        headless: bool = True,
        **env_options: Any,
    ) -> None:
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"EnvPool needs n >= 1 environments, got {n!r}")
        self._shared = acquire_runtime(RuntimeOptions(home=home, server=server, headless=headless))
        runtime: Runtime = self._shared.runtime
        number = next(_pool_ids)  # unique in this process; world ids carry the pid
        try:
            self.envs = [
                AsyncEnv(task, runtime, name=f"pool{number}-{i}", **env_options) for i in range(n)
            ]
        except BaseException:
            release_runtime(self._shared)
            raise
        self._closed = False

    def __len__(self) -> int:
        return len(self.envs)

    @property
    def server_url(self) -> str:
        return self._shared.runtime.url

    def reset(self, seeds: Sequence[int | None] | None = None) -> list[tuple[dict, dict]]:
        """Reset every environment (seed i for env i, when given) concurrently."""
        seeds = list(seeds) if seeds is not None else [None] * len(self.envs)
        if len(seeds) != len(self.envs):
            raise ValueError(f"{len(self.envs)} environments but {len(seeds)} seeds")

        async def all_resets():
            return await asyncio.gather(
                *(e.reset(s) for e, s in zip(self.envs, seeds, strict=True))
            )

        return list(self._shared.run(all_resets()))

    def step(self, actions: Sequence[str | None]) -> list[tuple | None]:
        """Step env i with action i concurrently (None leaves env i alone and yields None)."""
        if len(actions) != len(self.envs):
            raise ValueError(f"{len(self.envs)} environments but {len(actions)} actions")

        async def one(env: AsyncEnv, action: str | None):
            return None if action is None else await env.step(action)

        async def all_steps():
            return await asyncio.gather(
                *(one(e, a) for e, a in zip(self.envs, actions, strict=True))
            )

        return list(self._shared.run(all_steps()))

    def run(
        self,
        agent: AgentSource,
        episodes: int,
        *,
        seed: int = 0,
        on_result: Callable[[EpisodeResult], None] | None = None,
    ) -> list[EpisodeResult]:
        """Play `episodes` whole episodes with the pool's environments as workers."""
        return self._shared.run(
            run_episodes(self.envs, agent, episodes, seed=seed, on_result=on_result)
        )

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True

        async def close_all():
            await asyncio.gather(*(e.close() for e in self.envs))

        try:
            self._shared.run(close_all())
        finally:
            release_runtime(self._shared)

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


__all__ = ["EnvPool", "play_episode", "run_episodes"]
