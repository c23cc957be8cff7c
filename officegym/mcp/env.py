"""API-mode tasks: any task played through the apps' MCP tools instead of the browser.

`McpEnv` is a `gymnasium.Env` over the same tasks as `officegym.harness.Env`: the same
instances (template, instance seed), the same world per episode made from the same golden, the
same user signed in, and the same verifier through `harness.grading`. Only the agent's hands
differ: a step is one tool call, sent as MCP JSON-RPC (the SDK's client, over its in-memory
transport) to the server `officegym mcp` runs, whose tools call the apps' JSON APIs as that
user. No browser is started.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

import anyio
import gymnasium
import mcp_types as types
from anyio.from_thread import BlockingPortal
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared.exceptions import MCPError

from officegym.apps import registry as app_registry
from officegym.harness.actionspec import INSTRUCTIONS, SPECS, ending_actions
from officegym.harness.env import EpisodeOver, _resolve
from officegym.harness.grading import final_info, grade
from officegym.harness.spaces import AnyDict, Unicode
from officegym.seed_data.clock import now_of
from officegym.seed_data.diff import WorldDiff
from officegym.seed_data.store import WorldStore
from officegym.tasks import registry
from officegym.tasks.protocol import EpisodeContext, Task, TaskError
from officegym.tasks.verdict import Verdict

from .api_session import ApiSession
from .server import build_server
from .toolset import Toolset

_env_ids = itertools.count(1)

TOOL_CALL_HELP = (
    'Each step calls one tool: {"tool": "<name>", "arguments": {...}} (a dict, or its JSON '
    "text), with a name from `tools`. "
)


class ToolCallError(ValueError):
    """A step that is not a tool call (`{"tool": name, "arguments": {...}}`)."""


class McpObservation(TypedDict):
    """What the agent sees after reset and after every step (all JSON values).

    `tools` lists every tool the agent may call (`name`, `description`, `input_schema`): the
    apps' operations and the actions that end the episode. `files` are the files the task
    hands over, shaped as a file argument of an upload tool. `last_result` is the text the
    last tool returned; `last_action_error` is set when the call failed (the API's refusal, a
    bad argument, an unknown tool).
    """

    goal: str
    instructions: str
    user: str
    apps: tuple[str, ...]
    tools: tuple[dict[str, Any], ...]
    files: tuple[dict[str, str], ...]
    last_action: str
    last_action_error: str
    last_result: str


class McpEnv(gymnasium.Env):
    """A task of the officegym suite played through the apps' MCP tools (no browser).

    Each episode gets its own world (a copy of the task's golden, as in `harness.Env`), and
    the task's user is signed in to the apps' JSON APIs; the tools are the operations of the
    task's apps, read from their OpenAPI documents, and act with that user's permissions.

    ## Observation space
    A `Dict` (`McpObservation`): `goal`, `instructions` (how to call a tool, how an episode
    ends and how a final answer is read), `user` (the signed-in email), `apps`, `tools` (name,
    description and JSON schema of each), `files`, `last_action`, `last_action_error` and
    `last_result` (the tool's reply: JSON text, or the API's refusal).

    ## Action space
    One tool call: `{"tool": "chat_post_channels_messages", "arguments": {"channel_id": 4,
    "body": {"body": "Hi"}}}`, as a dict or its JSON text. The actions that end a browser
    episode are tools here too: `{"tool": "send_msg_to_user", "arguments": {"text": ...}}`
    gives the answer, `{"tool": "report_infeasible", "arguments": {"reason": ...}}` says the
    task cannot be done. A malformed call, an unknown tool, arguments outside the schema or
    an API refusal never raise: they come back as `last_action_error`.

    ## Reward
    As `harness.Env`: `reward="sparse"` pays the verifier's score on the last step;
    `reward="dense"` pays each step's change of the score. `verify()` grades at any time.

    ## Episode end
    `send_msg_to_user` or `report_infeasible` terminates; `max_steps` calls truncate;
    `finish()` ends and grades an episode that stops without a final message. The last
    step's `info` holds `verdict`, `diff`, `success`, `score` and `answer`.

    ## Example
        >>> env = McpEnv("chat.set_topic")
        >>> obs, info = env.reset(seed=3)
        >>> obs, reward, terminated, truncated, info = env.step(
        ...     {"tool": "chat_get_channels_by_name_item", "arguments": {"name": "general"}})
        >>> env.close()
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        task: str | Task | registry.Template | type[registry.Template],
        *,
        home: Path | str | None = None,
        store: WorldStore | None = None,
        max_steps: int | None = None,
        reward: str = "sparse",
    ) -> None:
        self.source = _resolve(task)
        if store is not None and home is not None:
            raise TaskError("give either store= or home=, not both")
        self._owns_store = store is None
        self.store = store if store is not None else WorldStore(home)
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise TaskError(f"max_steps must be a positive int, got {max_steps!r}")
        self.max_steps_override = max_steps
        if reward not in ("sparse", "dense"):
            raise TaskError(f"reward must be 'sparse' or 'dense', got {reward!r}")
        self.reward_mode = reward
        self.world_id = f"mcp-{os.getpid()}-{next(_env_ids)}"
        self.observation_space = spaces.Dict(
            {
                "goal": Unicode(),
                "instructions": Unicode(),
                "user": Unicode(),
                "apps": spaces.Sequence(Unicode()),
                "tools": spaces.Sequence(AnyDict()),
                "files": spaces.Sequence(AnyDict()),
                "last_action": Unicode(),
                "last_action_error": Unicode(),
                "last_result": Unicode(),
            }
        )
        self.action_space = AnyDict()
        self.task: Task | None = None
        self.session: ApiSession | None = None
        self.tools: tuple[dict[str, Any], ...] = ()
        self._tools_text = "[]"
        self._portal: _Portal | None = None
        self._client_cm: Any = None
        self._client: Client | None = None
        self._world_spec: tuple[int, str] | None = None
        self._golden: Path | None = None
        self._world_now: datetime | None = None
        self._closed = False
        self._reset_state()

    def _reset_state(self) -> None:
        self.steps = 0
        self.action_errors = 0
        self.answer: str | None = None
        self.infeasible: str | None = None
        self.done = False
        self.truncated = False
        self.last_action = ""
        self.last_error = ""
        self.last_result = ""
        self._last_score = 0.0
        self._final: tuple[Verdict, WorldDiff] | None = None
        self.final_context: EpisodeContext | None = None

    @property
    def max_steps(self) -> int:
        if self.max_steps_override is not None:
            return self.max_steps_override
        return self.task.max_steps if self.task is not None else 30

    @property
    def graded(self) -> bool:
        """True once the episode has ended and its final verdict exists."""
        return self._final is not None

    # ---- episode lifecycle -------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[McpObservation, dict[str, Any]]:
        """A new episode: the instance (option `instance_seed`, else `seed`), a fresh world
        (option `world`: a `Snapshot` of a world of the same golden to start from), the
        task's user signed in and the tools listed."""
        self._check_open()
        super().reset(seed=seed)
        options = dict(options or {})
        clock = time.perf_counter()
        self._end_session()
        self._reset_state()
        task = self._instance(seed, options)
        self.task = task
        spec = (task.world.seed, task.world.scale)
        if self._world_spec != spec or not self.store.exists(self.world_id):
            self.store.create(self.world_id, *spec, replace=True)
            self._world_spec = spec
            self._golden = self.store.golden(*spec)
            self._world_now = now_of(self._golden)
        else:
            self.store.reset(self.world_id)
        if options.get("world") is not None:
            self.store.restore(self.world_id, options["world"])
        world_ms = (time.perf_counter() - clock) * 1000
        self.session = ApiSession.in_process(self.store, self.world_id, task.user)
        apps = task.apps or tuple(app.slug for app in app_registry.entries())
        server = build_server(Toolset(self.session, apps))
        portal = self._portal_started()
        self._client_cm = portal.wrap_async_context_manager(Client(server, mode="legacy"))
        self._client = self._client_cm.__enter__()
        listing = portal.call(self._client.list_tools)
        self.tools = (
            *(_tool_json(tool) for tool in listing.tools),
            *(_ending_tool(name) for name in ending_actions()),
        )
        self._tools_text = json.dumps(self.tools)
        timings = {
            "world": round(world_ms, 2),
            "total": round((time.perf_counter() - clock) * 1000, 2),
        }
        info = {"task": task.describe(), "world_id": self.world_id, "timings_ms": timings}
        return self._obs(), info

    def step(self, action: Any) -> tuple[McpObservation, float, bool, bool, dict[str, Any]]:
        """One tool call; returns (obs, reward, terminated, truncated, info)."""
        self._check_open()
        if self.session is None or self.task is None:
            raise EpisodeOver("call reset() before step()")
        if self.done:
            raise EpisodeOver("the episode has ended; call reset() to start another")
        self.steps += 1
        self.last_error = ""
        self.last_result = ""
        name = None
        try:
            name, arguments = tool_call(action)
            self.last_action = json.dumps({"tool": name, "arguments": arguments})
            if name in SPECS and SPECS[name].ending is not None:
                self._end_with(name, arguments)
            else:
                self._call(name, arguments)
        except ToolCallError as error:
            self.last_action = action if isinstance(action, str) else repr(action)
            self.last_error = str(error)
        if self.last_error:
            self.action_errors += 1
        terminated = self.done
        truncated = not terminated and self.steps >= self.max_steps
        reward = 0.0
        info: dict[str, Any] = {}
        if terminated or truncated:
            self.done = True
            self.truncated = truncated
            verdict, diff = self._grade(final=True)
            self._final = (verdict, diff)
            reward = verdict.score - (self._last_score if self.reward_mode == "dense" else 0.0)
            info.update(final_info(verdict, diff, self.answer, self.infeasible))
        elif self.reward_mode == "dense":
            verdict, _ = self._grade(final=False)
            reward = verdict.score - self._last_score
            self._last_score = verdict.score
            info["verdict"] = verdict
        info.update({"step": self.steps, "tool": name, "is_error": bool(self.last_error)})
        return self._obs(), float(reward), terminated, truncated, info

    def verify(self) -> Verdict:
        """Grade the world as it is now (for shaping), or return the final verdict."""
        if self._final is not None:
            return self._final[0]
        if self.task is None:
            raise EpisodeOver("call reset() before verify()")
        return self._grade(final=False)[0]

    def finish(self) -> tuple[float, dict[str, Any]]:
        """End the episode now (an agent that stops without a final message) and grade it."""
        if self.task is None:
            raise EpisodeOver("call reset() before finish()")
        if self._final is None:
            self.done = True
            self._final = self._grade(final=True)
        verdict, diff = self._final
        return verdict.score, final_info(verdict, diff, self.answer, self.infeasible)

    @property
    def final(self) -> tuple[Verdict, WorldDiff] | None:
        """The final verdict and diff once the episode is graded, else None."""
        return self._final

    def close(self) -> None:
        """Sign out, stop the MCP client and drop the episode's world."""
        if self._closed:
            return
        self._closed = True
        try:
            self._end_session()
        finally:
            if self._portal is not None:
                self._portal.stop()
                self._portal = None
            self.store.drop(self.world_id)
            if self._owns_store:
                self.store.close()
        super().close()

    # ---- internals -----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise EpisodeOver("the environment is closed")

    def _instance(self, seed: int | None, options: Mapping[str, Any]) -> Task:
        if isinstance(self.source, Task):
            return self.source
        instance_seed = options.get("instance_seed", seed)
        if instance_seed is None:
            instance_seed = int(self.np_random.integers(0, 2**31 - 1))
        spec = self.source.world
        golden = self.store.golden(spec.seed, spec.scale)
        return self.source.instance(golden, int(instance_seed))

    def _portal_started(self) -> BlockingPortal:
        if self._portal is None:
            self._portal = _Portal(f"officegym-mcp-{self.world_id}")
        return self._portal.portal

    def _end_session(self) -> None:
        client_cm, self._client_cm, self._client = self._client_cm, None, None
        session, self.session = self.session, None
        try:
            if client_cm is not None:
                client_cm.__exit__(None, None, None)
        finally:
            if session is not None:
                session.close()

    def _call(self, name: str, arguments: dict[str, Any]) -> None:
        try:
            result = self._portal_started().call(self._client.call_tool, name, arguments)
        except MCPError as error:
            self.last_error = error.message
            return
        text = "\n".join(
            block.text for block in result.content if isinstance(block, types.TextContent)
        )
        if result.is_error:
            self.last_error = text or "the tool failed"
        else:
            self.last_result = text

    def _end_with(self, name: str, arguments: dict[str, Any]) -> None:
        spec = SPECS[name]
        problems = list(Draft202012Validator(spec.json_schema()).iter_errors(arguments))
        if problems:
            self.last_error = f"Invalid arguments for {name}: {problems[0].message}"
            return
        outcome = spec.ending.outcome(arguments)
        self.answer, self.infeasible = outcome["answer"], outcome["infeasible"]
        self.last_result = "The episode is over."
        self.done = True

    def _grade(self, *, final: bool) -> tuple[Verdict, WorldDiff]:
        diff = self.store.diff(self.world_id)
        ctx = EpisodeContext(
            task=self.task,
            diff=diff,
            world=self.store.world_path(self.world_id),
            golden=self._golden,
            answer=self.answer,
            infeasible=self.infeasible,
            steps=self.steps,
            action_errors=self.action_errors,
            urls=tuple(self.session.calls) if self.session else (),
            final=final,
            today=self._world_now.date() if self._world_now else None,
        )
        if final:
            self.final_context = ctx
        origin = self.session.origin if self.session else ""
        verdict = self._portal_started().call(
            lambda: grade(ctx, origin=origin, max_steps=self.max_steps)
        )
        return verdict, diff

    def _obs(self) -> McpObservation:
        task = self.task
        return {
            "goal": task.goal,
            "instructions": TOOL_CALL_HELP + INSTRUCTIONS,
            "user": task.user,
            "apps": tuple(task.apps),
            # A fresh copy each time: an observation shares nothing with another.
            "tools": tuple(json.loads(self._tools_text)),
            "files": tuple(_file_json(name, data) for name, data in sorted(task.files.items())),
            "last_action": self.last_action,
            "last_action_error": self.last_error,
            "last_result": self.last_result,
        }


class _Portal:
    """An event loop on a daemon thread with an anyio portal into it: the env's sync calls run
    the MCP client there. A daemon thread (not `start_blocking_portal`'s context manager) so an
    env that is never closed does not hold up the interpreter's exit."""

    def __init__(self, name: str) -> None:
        ready: Future[BlockingPortal] = Future()

        async def main() -> None:
            async with BlockingPortal() as portal:
                ready.set_result(portal)
                await portal.sleep_until_stopped()

        self._thread = threading.Thread(target=anyio.run, args=(main,), name=name, daemon=True)
        self._thread.start()
        self.portal = ready.result()

    def stop(self) -> None:
        self.portal.call(self.portal.stop, True)
        self._thread.join()


def tool_call(action: Any) -> tuple[str, dict[str, Any]]:
    """The (tool name, arguments) of a step: `{"tool": ..., "arguments": {...}}` or its
    JSON text; ToolCallError says what is wrong with anything else."""
    if isinstance(action, str):
        try:
            action = json.loads(action)
        except ValueError as error:
            raise ToolCallError(
                f"a step is a JSON tool call; this text is not JSON ({error})"
            ) from None
    if not isinstance(action, Mapping):
        raise ToolCallError(
            'a step is a tool call {"tool": "<name>", "arguments": {...}}, '
            f"got {type(action).__name__}"
        )
    extra = sorted(set(action) - {"tool", "arguments"})
    if extra:
        raise ToolCallError(f"a tool call has only 'tool' and 'arguments'; remove {extra}")
    name = action.get("tool")
    if not isinstance(name, str) or not name:
        raise ToolCallError("a tool call needs 'tool': the name of a tool from `tools`")
    arguments = action.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ToolCallError(f"'arguments' must be an object, got {type(arguments).__name__}")
    return name, dict(arguments)


def _tool_json(tool: types.Tool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


def _ending_tool(name: str) -> dict[str, Any]:
    spec = SPECS[name]
    description = f"{spec.description} Ends the episode ({spec.ending.when})."
    return {"name": name, "description": description, "input_schema": spec.json_schema()}


def _file_json(name: str, data: bytes) -> dict[str, str]:
    try:
        return {"filename": name, "content": data.decode("utf-8"), "encoding": "text"}
    except UnicodeDecodeError:
        import base64

        return {"filename": name, "content": base64.b64encode(data).decode(), "encoding": "base64"}


_OPTIONS = ("home", "store", "max_steps", "reward")
_ADHOC = ("goal", "user", "verify", "start_url", "solve", "world", "apps")


def make(task: Any = None, **options: Any) -> McpEnv:
    """An `McpEnv` for a template id, a Template or a Task (`officegym.make(id,
    mode="mcp")`), or an ad-hoc task from `goal=`, `user=`, `verify=` (and `apps=`,
    `world=`...), as `harness.make` builds one. Options: `home` or `store`, `max_steps`,
    `reward`."""
    fields = {name: options.pop(name) for name in _ADHOC if name in options}
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TaskError(
            f"mode='mcp' takes the options {', '.join(_OPTIONS)}; {', '.join(unknown)} "
            "belong to the browser mode"
        )
    if task is None:
        if not {"goal", "user", "verify"} <= fields.keys():
            raise TaskError(
                "make() needs a task id, or goal=, user= and verify= for an ad-hoc task"
            )
        if options.get("max_steps") is not None:
            fields["max_steps"] = options["max_steps"]
        fields["apps"] = tuple(fields.get("apps", ()))
        task = Task(**fields)
    elif fields:
        raise TaskError("give either a task or goal=/user=/verify=, not both")
    env = McpEnv(task, **options)
    task_id = getattr(env.source, "id", "adhoc")
    env.spec = EnvSpec(
        id=f"officegym/{task_id}",
        entry_point=McpEnv,
        nondeterministic=True,
        max_episode_steps=None,
        kwargs={"task": task, **options},
    )
    return env


__all__ = ["McpEnv", "McpObservation", "ToolCallError", "make", "tool_call"]
