"""officegym tasks as a `verifiers` (0.4) environment: browser actions as turns, the Verdict as
reward.

`load_environment(suite=..., split=..., **kwargs)` returns a `verifiers.v1` `Env`. Each rollout
plays one task instance in its own world: the first user turn is the goal, the instructions and
the start page's accessibility tree; every assistant turn is one officegym action string (read
by the harness's own parser, exactly as `officegym.harness.PolicyAgent` hands text to
`AsyncEnv.step`); each later user turn is the new page, with `last_action_error` when the action
failed. The episode ends when the environment says done (`send_msg_to_user`,
`report_infeasible`) or after `max_turns`. The task's verifier then grades the world, and its
Verdict becomes two reward functions, `score` (weight 1) and `success` (weight 0, recorded for
reporting).

verifiers 0.4 finds a taskset by module name: the id `officegym-verifiers` imports the module
`officegym_verifiers` and reads its `__all__` (one `Taskset`, optionally an `Env` and a
`Harness`). The wheel installs that top-level module, re-exporting this one, so
`vf.load_environment(vf.resolve_env_config({"taskset": {"id": "officegym-verifiers"}}))` returns
`OfficeGymEnv` and `vf-eval officegym-verifiers` runs it.

    >>> env = load_environment(suite="chat.post_update", split="train", instances=2)
    >>> ctx = vf.ModelContext(model="my-model", client=vf.EvalClientConfig(base_url=URL))
    >>> async with env.serving():
    ...     episode = await env.run_episode(next(iter(env.taskset)), ctx)
    >>> episode.traces[0].rewards["score"].score
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Coroutine, Iterator, Sequence
from typing import Any, Literal, TypeVar

import httpx
import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.dialects.chat import message_to_wire

from officegym.harness.actions import action_space_description
from officegym.harness.env import AsyncEnv
from officegym.harness.observation import Observation
from officegym.harness.runtime import (
    RuntimeOptions,
    SharedRuntime,
    acquire_runtime,
    release_runtime,
)
from officegym.seed_data.store import WorldStore
from officegym.tasks import registry
from officegym.tasks.verdict import Verdict

TASKSET_ID = "officegym-verifiers"
"""The id verifiers resolves to this module (`--env.taskset.id`, `vf-eval <id>`)."""

SYSTEM_PROMPT = (
    "You operate a web browser to do a task in a company's internal apps. Every user message "
    "shows the current page as an accessibility tree; elements carry ids in square brackets "
    "(their bids). Reply with the next action and nothing else: one call, or a few calls on "
    "separate lines, optionally inside a ```python fence.\n\n" + action_space_description()
)

T = TypeVar("T")
_rollouts = itertools.count(1)


class OfficeGymConfig(vf.TasksetConfig):
    """Which task instances the taskset yields (`--env.taskset.*`)."""

    suite: str | list[str] = "all"
    """Templates: `all`, an app (`crm`, templates using it), `cross`, or template ids; a list
    or a comma-separated string takes the union."""
    split: Literal["train", "test", "all"] = "train"
    """The templates' `split`; `all` keeps both."""
    instances: int = Field(1, ge=1)
    """Instances per template."""
    seed: int = Field(0, ge=0)
    """The first instance seed; instance i of a template uses seed + i."""
    home: str | None = None
    """The world store's home (default: `OFFICEGYM_HOME`, else the user cache folder)."""


class OfficeGymData(vf.TaskData):
    """One task instance: the template, its instance seed and the goal it phrases."""

    template: str
    instance_seed: int
    goal: str
    apps: list[str]
    split: str


class OfficeGymTask(vf.Task[OfficeGymData, vf.State, vf.TaskConfig]):
    """The rewards read the Verdict the task's verifier gave at the end of the rollout."""

    @property
    def key(self) -> str:
        return f"{self.data.template}#{self.data.instance_seed}"

    @vf.reward(weight=1.0)
    async def verdict_score(self, trace: vf.Trace) -> dict[str, float]:
        """`score`: the Verdict's weighted score in [0, 1]."""
        return {"score": float(_verdict_of(trace)["score"])}

    @vf.reward(weight=0.0)
    async def verdict_success(self, trace: vf.Trace) -> dict[str, float]:
        """`success`: the Verdict's strict success, 1.0 or 0.0 (weight 0: reported, not
        summed into the trace's reward)."""
        return {"success": 1.0 if _verdict_of(trace)["success"] else 0.0}


def _verdict_of(trace: vf.Trace) -> dict[str, Any]:
    found = trace.info.get("officegym")
    if not found or "score" not in found:
        raise ValueError("the rollout ended before officegym graded the world; no verdict")
    return found


def select_templates(suite: str | Sequence[str], split: str) -> list[str]:
    """The template ids `suite` names whose split is `split` (`all`: either), sorted."""
    tokens = [suite] if isinstance(suite, str) else list(suite)
    wanted = {t.strip() for token in tokens for t in token.split(",") if t.strip()}
    if not wanted:
        raise ValueError("suite names no templates; use 'all', an app name or template ids")
    chosen: list[str] = []
    used: set[str] = set()
    for template in registry.templates():
        names = {"all", template.id, template.id.split(".", 1)[0], *template.apps}
        hits = wanted & names
        used |= hits
        if hits and split in ("all", template.split):
            chosen.append(template.id)
    unknown = sorted(wanted - used)
    if unknown:
        raise ValueError(
            f"suite names no template for {', '.join(unknown)}; use 'all', an app name "
            "(chat, crm, sheets, booking), 'cross' or template ids"
        )
    return sorted(chosen)


class OfficeGymTaskset(vf.Taskset[OfficeGymTask, OfficeGymConfig]):
    """Task instances of the selected templates: `instances` seeds each, goals phrased from
    the template's golden world."""

    def load(self) -> Iterator[OfficeGymTask]:
        store = WorldStore(self.config.home)
        try:
            for template_id in select_templates(self.config.suite, self.config.split):
                template = registry.get(template_id)
                golden = store.golden(template.world.seed, template.world.scale)
                for seed in range(self.config.seed, self.config.seed + self.config.instances):
                    instance = template.instance(golden, seed)
                    yield OfficeGymTask(
                        OfficeGymData(
                            id=f"{template_id}#{seed}",
                            name=f"{template_id}#{seed}",
                            description=instance.goal,
                            system_prompt=SYSTEM_PROMPT,
                            template=template_id,
                            instance_seed=seed,
                            goal=instance.goal,
                            apps=list(template.apps),
                            split=template.split,
                        ),
                        self.config.task,
                    )
        finally:
            store.close()


class OfficeGymHarnessConfig(vf.HarnessConfig):
    """Knobs of the chat turn (none yet)."""


class OfficeGymHarness(vf.Harness[OfficeGymHarnessConfig]):
    """One chat completion per segment, in-process: the program is a single model call through
    the rollout's interception endpoint (no tools, no code run, nothing installed)."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> vf.ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt is not None:
            messages.extend(message_to_wire(m) for m in prompt)
        async with httpx.AsyncClient(timeout=httpx.Timeout(None, connect=30.0)) as client:
            reply = await client.post(
                f"{endpoint.rstrip('/')}/chat/completions",
                json={"model": ctx.model, "messages": messages},
                headers={"Authorization": f"Bearer {secret}"},
            )
        if reply.status_code != 200:
            return vf.ProgramResult(1, "", f"HTTP {reply.status_code}: {reply.text[:2000]}")
        return vf.ProgramResult(0, "", "")


class OfficeGymEnvConfig(vf.EnvConfig):
    """The player seat and the browser episode's knobs (`--env.*`)."""

    player: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    max_turns: int = Field(15, ge=1)
    """Actions per episode; the episode is cut (and graded) after this many."""
    observation: dict[str, bool] = Field(default_factory=lambda: {"dom": False})
    """`ObservationOptions` parts: `axtree` and `dom` are shown as text."""
    server: str | None = None
    """URL of a running officegym server on the same store home (default: one in-process)."""
    headless: bool = True


class OfficeGymEnv(vf.Env[OfficeGymEnvConfig]):
    """Each rollout: one task instance in its own world, turn by turn, graded by its Verdict."""

    _shared: SharedRuntime | None = None

    def _runtime_options(self) -> RuntimeOptions:
        return RuntimeOptions(
            home=self.taskset.config.home, server=self.config.server, headless=self.config.headless
        )

    async def start(self) -> None:
        self._shared = await asyncio.to_thread(acquire_runtime, self._runtime_options())

    async def stop(self) -> None:
        shared, self._shared = self._shared, None
        if shared is not None:
            await asyncio.to_thread(release_runtime, shared)

    async def run(self, task: OfficeGymTask, agents: vf.Agents) -> None:
        own = self._shared is None
        shared = (
            await asyncio.to_thread(acquire_runtime, self._runtime_options())
            if own
            else self._shared
        )
        try:
            await self._play(shared, task, agents)
        finally:
            if own:
                await asyncio.to_thread(release_runtime, shared)

    async def _play(self, shared: SharedRuntime, task: OfficeGymTask, agents: vf.Agents) -> None:
        data = task.data
        env = AsyncEnv(
            data.template,
            shared.runtime,
            observation=self.config.observation,
            max_steps=self.config.max_turns,
            name=f"vf{next(_rollouts)}",
        )
        try:
            obs, _ = await _on(shared, env.reset(options={"instance_seed": data.instance_seed}))
            async with agents.player.interaction(task) as interaction:
                segment = await interaction.turn(first_turn(obs))
                while not segment.terminated:
                    obs, *_ = await _on(shared, env.step(segment.last_reply))
                    if env.done:
                        break
                    segment = await interaction.turn(next_turn(obs))
                await _on(shared, env.finish())
                verdict, _ = env.final
                interaction.trace.info["officegym"] = verdict_record(env, verdict)
        finally:
            await _on(shared, env.close())


async def _on(shared: SharedRuntime, coro: Coroutine[Any, Any, T]) -> T:
    """Await `coro` on the shared runtime's loop (where its browser and server live)."""
    return await asyncio.wrap_future(shared.loop.submit(coro))


def _page(obs: Observation) -> str:
    parts = [f"URL: {obs.get('url', '')}"]
    if obs.get("axtree_txt"):
        parts.append(f"Accessibility tree:\n{obs['axtree_txt']}")
    if obs.get("dom_txt"):
        parts.append(f"DOM:\n{obs['dom_txt']}")
    return "\n\n".join(parts)


def first_turn(obs: Observation) -> str:
    """The opening user turn: goal, instructions and the start page."""
    return f"Goal: {obs['goal']}\n\n{obs['instructions']}\n\n{_page(obs)}"


def next_turn(obs: Observation) -> str:
    """A later user turn: the page after the last action, and its error when it failed."""
    error = obs.get("last_action_error") or ""
    head = f"Last action failed: {error}\n\n" if error else ""
    return head + _page(obs)


def verdict_record(env: AsyncEnv, verdict: Verdict) -> dict[str, Any]:
    """What the trace keeps of the graded episode (read by the reward functions)."""
    return {
        "template": env.task.id if env.task else None,
        "instance_seed": env.task.instance_seed if env.task else None,
        "score": verdict.score,
        "success": verdict.success,
        "checks": [check.to_json() for check in verdict.checks],
        "steps": env.steps,
        "action_errors": env.action_errors,
        "truncated": env.truncated,
        "answer": env.answer,
        "infeasible": env.infeasible,
    }


def load_environment(
    suite: str | Sequence[str] = "all",
    split: Literal["train", "test", "all"] = "train",
    *,
    instances: int = 1,
    seed: int = 0,
    max_turns: int = 15,
    observation: dict[str, bool] | None = None,
    home: str | None = None,
    server: str | None = None,
    headless: bool = True,
    player: dict[str, Any] | None = None,
) -> OfficeGymEnv:
    """The officegym environment over the templates `suite` names in `split`.

    `instances` seeds per template starting at `seed`; `max_turns` actions per episode (also
    the player's model-turn cap); `observation` the `ObservationOptions` parts shown;
    `home`/`server` the world store and server; `player` overrides the seat's `AgentConfig`
    fields (its default runtime is the local subprocess one)."""
    taskset: dict[str, Any] = {
        "id": TASKSET_ID,
        "suite": suite if isinstance(suite, str) else list(suite),
        "split": split,
        "instances": instances,
        "seed": seed,
        "home": None if home is None else str(home),
    }
    config: dict[str, Any] = {
        "taskset": taskset,
        "max_turns": max_turns,
        "server": server,
        "headless": headless,
        "player": {"runtime": {"type": "subprocess"}, "max_turns": max_turns, **(player or {})},
    }
    if observation is not None:
        config["observation"] = dict(observation)
    env = vf.load_environment(vf.resolve_env_config(config))
    if not isinstance(env, OfficeGymEnv):
        raise TypeError(f"{TASKSET_ID} resolved to {type(env).__name__}, not OfficeGymEnv")
    return env


__all__ = [
    "TASKSET_ID",
    "OfficeGymEnv",
    "OfficeGymHarness",
    "OfficeGymTaskset",
    "load_environment",
    "select_templates",
]
