"""Built-in agents for `officegym run` and the quality gate: oracle, null, random, replay.

An agent plays one episode of an `AsyncEnv` that has just been reset; when it returns without
having ended the episode, the runner ends it with `finish()`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from .actions import format_action
from .env import AsyncEnv
from .observation import Observation
from .recording import load_episode

_CLICKABLE = {"link", "button", "checkbox", "radio", "tab", "menuitem", "option", "switch"}
_TYPEABLE = {"textbox", "searchbox", "combobox", "spinbutton"}
_WORDS = ("update", "42", "Friday", "approved", "test", "hello", "#general", "@", "2025-01-01")


class Agent(Protocol):
    name: str

    async def play(self, env: AsyncEnv) -> None: ...


class OracleAgent:
    """The task's reference solution, driven through the action API."""

    name = "oracle"

    async def play(self, env: AsyncEnv) -> None:
        await env.run_oracle()


class NullAgent:
    """Does nothing and stops at once (a verifier must not pay for an untouched world)."""

    name = "null"

    async def play(self, env: AsyncEnv) -> None:
        return None


class RandomAgent:
    """`steps` random but valid-looking actions on what the page shows, then stops."""

    name = "random"

    def __init__(self, steps: int = 50, seed: int = 0) -> None:
        self.steps = steps
        self.rng = random.Random(seed)

    def choose(self, env: AsyncEnv) -> str:
        rng = self.rng
        clickable = [n.bid for n in env.nodes if n.bid and n.role in _CLICKABLE]
        typeable = [n.bid for n in env.nodes if n.bid and n.role in _TYPEABLE]
        roll = rng.random()
        if clickable and roll < 0.55:
            return format_action("click", rng.choice(clickable))
        if typeable and roll < 0.8:
            text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4)))
            return format_action("fill", rng.choice(typeable), text)
        if typeable and roll < 0.88:
            return format_action("press", rng.choice(typeable), "Enter")
        if roll < 0.94:
            return format_action("scroll", 0, rng.choice((-600, 600)))
        return format_action("go_back")

    async def play(self, env: AsyncEnv) -> None:
        for _ in range(self.steps):
            if env.done:
                return
            await env.step(self.choose(env))


class ReplayAgent:
    """The actions of a recorded episode, in order."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        self.actions: Sequence[str] = load_episode(self.directory).actions
        self.name = f"replay:{self.directory}"

    async def play(self, env: AsyncEnv) -> None:
        for action in self.actions:
            if env.done:
                return
            await env.step(action)


class PolicyAgent:
    """Wraps a function `policy(obs) -> action string or None (stop)`; runs it in a thread."""

    def __init__(self, policy: Callable[[Observation], str | None], name: str = "policy"):
        self.policy = policy
        self.name = name

    async def play(self, env: AsyncEnv) -> None:
        obs = env.last_obs
        while not env.done:
            action = await asyncio.to_thread(self.policy, obs)
            if action is None:
                return
            obs, *_ = await env.step(action)


def agent_from_spec(spec: str, *, seed: int = 0, random_steps: int = 50) -> Agent:
    """`oracle`, `null`, `random` or `replay:DIR` (the `--agent` option of `officegym run`)."""
    if spec == "oracle":
        return OracleAgent()
    if spec == "null":
        return NullAgent()
    if spec == "random":
        return RandomAgent(random_steps, seed)
    if spec.startswith("replay:"):
        return ReplayAgent(spec.removeprefix("replay:"))
    raise ValueError(f"unknown agent {spec!r}; use oracle, null, random or replay:DIR")


__all__ = [
    "Agent",
    "NullAgent",
    "OracleAgent",
    "PolicyAgent",
    "RandomAgent",
    "ReplayAgent",
    "agent_from_spec",
]
