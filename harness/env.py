"""The environments: `AsyncEnv` (the one implementation, async) and `Env` (Gymnasium, sync).

An episode's parts live beside this module: actions in `actionspec`/`actions`, the browser
in `session`, observations in `observation`/`observe`, grading in `grading`, the files in
`recording`; Gymnasium ids in `registration`.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils import seeding

from officegym.seed_data.clock import now_of
from officegym.seed_data.diff import WorldDiff
from officegym.tasks import registry
from officegym.tasks.protocol import EpisodeContext, Task, TaskError
from officegym.tasks.verdict import Verdict

from .actions import ActionParseError, parse_action
from .actionspec import INSTRUCTIONS, ActionFailed
from .grading import final_info, grade
from .observation import Observation, assemble
from .observe import AXNode, ObservationError, PageObservation, observe
from .page_actions import PageActions
from .recording import Recorder
from .runtime import Runtime, RuntimeOptions, SharedRuntime, acquire_runtime, release_runtime
from .sandbox import Sandbox
from .session import BrowserSession, SessionOptions
from .spaces import ObservationOptions, Unicode, observation_space

_world_ids = itertools.count(1)
# Observations tried before a page that keeps navigating is an error (each try settles first).
OBSERVE_TRIES = 3


class EpisodeOver(RuntimeError):
    """`step()` after the episode ended, or before the first `reset()`."""


@dataclass(frozen=True)
class EpisodeResult:
    """How one finished episode went (what `officegym run` tabulates)."""

    task_id: str
    instance_seed: int | None
    success: bool
    score: float
    steps: int
    action_errors: int
    elapsed_s: float
    terminated: bool
    truncated: bool
    answer: str | None
    infeasible: str | None
    blocked_requests: int
    record_dir: str | None


def _resolve(task: str | Task | registry.Template | type[registry.Template]) -> Any:
    if isinstance(task, Task | registry.Template):
        return task
    if isinstance(task, type) and issubclass(task, registry.Template):
        return task()
    if isinstance(task, str):
        name = task.removeprefix("officegym/")
        return registry.get(name)
    raise TaskError(f"task must be a Task, a Template or a template id, got {task!r}")


class AsyncEnv:
    """One episode at a time in a browser context bound to its own world (async API).

    Same behaviour as `Env` (see its docstring for the full manual) without Gymnasium's
    base class: `await reset(seed, options)`, `await step(action)`, `await verify()`,
    `await finish()`, `await close()`. All `AsyncEnv`s of one `Runtime` share its browser
    and server; each has its own world file and a new context per episode.
    """

    def __init__(
        self,
        task: str | Task | registry.Template | type[registry.Template],
        runtime: Runtime,
        *,
        observation: ObservationOptions | Mapping[str, bool] | None = None,
        session: SessionOptions | None = None,
        max_steps: int | None = None,
        reward: str = "sparse",
        record: Path | str | None = None,
        record_screenshots: bool = True,
        name: str | None = None,
    ) -> None:
        self.source = _resolve(task)
        self.runtime = runtime
        if isinstance(observation, Mapping):
            observation = ObservationOptions(**observation)
        self.parts = observation or ObservationOptions()
        self.session_options = session or SessionOptions()
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise TaskError(f"max_steps must be a positive int, got {max_steps!r}")
        self.max_steps_override = max_steps
        if reward not in ("sparse", "dense"):
            raise TaskError(f"reward must be 'sparse' or 'dense', got {reward!r}")
        self.reward_mode = reward
        self.record_root = Path(record) if record is not None else None
        self.record_screenshots = record_screenshots
        self.name = name or f"env{next(_world_ids)}"
        self.world_id = f"ep-{os.getpid()}-{self.name}".lower()[:64]
        self.observation_space = observation_space(self.parts, self.session_options.viewport)
        self.action_space = Unicode()
        self.np_random, _ = seeding.np_random(None)
        self.task: Task | None = None
        self.session: BrowserSession | None = None
        self.nodes: tuple[AXNode, ...] = ()
        self._spare: asyncio.Future[BrowserSession] | None = None
        self._world_spec: tuple[int, str] | None = None
        self._golden: Path | None = None
        self._world_now: datetime | None = None
        self._scratch = Path(tempfile.mkdtemp(prefix="officegym-episode-"))
        self._episodes = 0
        self.last_obs: Observation = {}
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
        self._started = time.monotonic()
        self._last_score = 0.0
        self._recorder: Recorder | None = None
        self._snapshot = None
        self._final: tuple[Verdict, WorldDiff] | None = None
        self.final_context: EpisodeContext | None = None

    # ---- episode lifecycle -------------------------------------------------------------

    @property
    def graded(self) -> bool:
        """True once the episode has ended and its final verdict exists."""
        return self._final is not None

    @property
    def max_steps(self) -> int:
        if self.max_steps_override is not None:
            return self.max_steps_override
        return self.task.max_steps if self.task is not None else 30

    def _instance(self, seed: int | None, options: Mapping[str, Any]) -> Task:
        if isinstance(self.source, Task):
            return self.source
        instance_seed = options.get("instance_seed", seed)
        if instance_seed is None:
            instance_seed = int(self.np_random.integers(0, 2**31 - 1))
        spec = self.source.world
        golden = self.runtime.store.golden(spec.seed, spec.scale)
        return self.source.instance(golden, int(instance_seed))

    async def _instance_async(self, seed: int | None, options: Mapping[str, Any]) -> Task:
        return await asyncio.to_thread(self._instance, seed, options)

    async def reset(
        self, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start a new episode: fresh world, new signed-in context at the start page.

        Options: `instance_seed` (which instance of a template), `world` (a `Snapshot` of a
        world of the same golden to start from instead of the golden itself)."""
        options = dict(options or {})
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        await self.runtime.start()
        await self._close_session()
        if self._recorder is not None:
            self._recorder.close()
        self._reset_state()
        clock = time.perf_counter()
        task = await self._instance_async(seed, options)
        self.task = task
        store = self.runtime.store
        spec = (task.world.seed, task.world.scale)
        if self._world_spec != spec or not store.exists(self.world_id):
            await asyncio.to_thread(store.create, self.world_id, *spec, replace=True)
            self._world_spec = spec
            # Both are fixed for the world's golden: read them once, not at every reset/grade.
            self._golden = store.golden(*spec)
            self._world_now = now_of(self._golden)
        else:
            await asyncio.to_thread(store.reset, self.world_id)
        start = options.get("world")
        if start is not None:
            # Start from a saved state of a world of the same golden (`WorldStore.snapshot`).
            await asyncio.to_thread(store.restore, self.world_id, start)
        world_time = self._world_now
        self._episodes += 1
        folder = self._episode_folder(task)
        self._place_files(task, folder)
        world_ms = (time.perf_counter() - clock) * 1000
        session = await self._take_spare()
        session.sandbox.rebind(folder)
        try:
            await session.start(
                origin=self.runtime.url,
                world_now=world_time,
                user=task.user,
                start_url=task.start_url,
            )
        except BaseException:
            await session.close()
            raise
        self.session = session
        self.sandbox = session.sandbox
        self._spare = asyncio.ensure_future(self._prepare())
        self._started = time.monotonic()
        browser_ms = (time.perf_counter() - clock) * 1000 - world_ms
        page_obs = await self._observe()
        if self._recorder is not None:
            self._snapshot = await asyncio.to_thread(store.snapshot, self.world_id)
        obs = await self._obs(page_obs)
        timings = {
            "world": round(world_ms, 2),
            "browser": round(browser_ms, 2),
            "observe": round(sum(page_obs.timings_ms.values()), 2),
            "total": round((time.perf_counter() - clock) * 1000, 2),
        }
        info = {"task": task.describe(), "world_id": self.world_id, "timings_ms": timings}
        self._record_step(None, obs, page_obs, 0.0, None, timings)
        self.last_obs = obs
        return obs, info

    def _episode_folder(self, task: Task) -> Path:
        if self.record_root is None:
            # Only the current episode's folder is kept: the last one's context is closed.
            shutil.rmtree(self._scratch / f"{self._episodes - 1:05d}", ignore_errors=True)
            folder = self._scratch / f"{self._episodes:05d}"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            return folder
        seed = "x" if task.instance_seed is None else task.instance_seed
        directory = self.record_root / f"{task.id}-s{seed}-{self.name}-{self._episodes:04d}"
        self._recorder = Recorder(directory)
        self._recorder.begin(
            task.describe(),
            {
                "observation": asdict(self.parts),
                "session": asdict(self.session_options),
                "max_steps": self.max_steps,
                "reward": self.reward_mode,
            },
        )
        return self._recorder.files_dir

    @staticmethod
    def _place_files(task: Task, folder: Path) -> None:
        for name, data in task.files.items():
            (folder / Path(name).name).write_bytes(data)

    def set_agent_name(self, agent: str) -> None:
        """Note which agent plays this episode in the recording (call after reset)."""
        if self._recorder is not None:
            self._recorder.set_agent(agent)

    async def step(self, action: str) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Run the action string; returns (obs, reward, terminated, truncated, info)."""
        if self.session is None or self.task is None:
            raise EpisodeOver("call reset() before step()")
        if self.done:
            raise EpisodeOver("the episode has ended; call reset() to start another")
        clock = time.perf_counter()
        self.steps += 1
        self.last_action = action if isinstance(action, str) else repr(action)
        self.last_error = ""
        timings: dict[str, float] = {}
        try:
            if not isinstance(action, str):
                raise ActionParseError(
                    f"an action is a string such as 'click(\"12\")', got {type(action).__name__}"
                )
            calls = parse_action(action)
        except ActionParseError as error:
            calls = []
            self.last_error = str(error)
        for call in calls:
            try:
                await self.session.execute(call)
            except ActionFailed as error:
                self.last_error = str(error)
                break
            ending = call.spec.ending
            if ending is not None:
                outcome = ending.outcome(call.kwargs)
                self.answer, self.infeasible = outcome["answer"], outcome["infeasible"]
                self.done = True
                break
        if self.last_error:
            self.action_errors += 1
        timings["action"] = (time.perf_counter() - clock) * 1000
        settled = await self.session.settle()
        timings["settle"] = (time.perf_counter() - clock) * 1000 - timings["action"]
        page_obs = await self._observe()
        timings["observe"] = sum(page_obs.timings_ms.values())
        terminated = self.done
        truncated = not terminated and self.steps >= self.max_steps
        reward = 0.0
        info: dict[str, Any] = {}
        if terminated or truncated:
            self.done = True
            self.truncated = truncated
            verdict, diff = await self._grade(final=True)
            self._final = (verdict, diff)
            reward = verdict.score - (self._last_score if self.reward_mode == "dense" else 0.0)
            info.update(final_info(verdict, diff, self.answer, self.infeasible))
        elif self.reward_mode == "dense":
            verdict, _ = await self._grade(final=False)
            reward = verdict.score - self._last_score
            self._last_score = verdict.score
            info["verdict"] = verdict
        obs = await self._obs(page_obs)
        timings["total"] = (time.perf_counter() - clock) * 1000
        timings = {k: round(v, 2) for k, v in timings.items()}
        info.update(
            {
                "step": self.steps,
                "actions": [str(c) for c in calls],
                "settled": settled,
                "timings_ms": timings,
                "blocked_requests": self.sandbox.blocked,
                "blocked_urls": list(self.sandbox.blocked_urls),
                "downloads": list(self.sandbox.downloads),
            }
        )
        self._record_step(action, obs, page_obs, reward, (terminated, truncated), timings)
        self.last_obs = obs
        if self.done and self._recorder is not None:
            self._finish_recording()
        return obs, float(reward), terminated, truncated, info

    async def verify(self) -> Verdict:
        """Grade the world as it is now (for dense shaping); does not end the episode."""
        if self._final is not None:
            return self._final[0]
        if self.task is None:
            raise EpisodeOver("call reset() before verify()")
        verdict, _ = await self._grade(final=False)
        return verdict

    async def finish(self) -> tuple[float, dict[str, Any]]:
        """End the episode now (a script returned without a final message) and grade it."""
        if self.task is None:
            raise EpisodeOver("call reset() before finish()")
        if self._final is None:
            self.done = True
            verdict, diff = await self._grade(final=True)
            self._final = (verdict, diff)
            if self._recorder is not None:
                self._finish_recording()
        verdict, diff = self._final
        return verdict.score, final_info(verdict, diff, self.answer, self.infeasible)

    @property
    def final(self) -> tuple[Verdict, WorldDiff] | None:
        """The final verdict and diff once the episode is graded, else None."""
        return self._final

    async def run_oracle(self) -> None:
        """Play the task's reference solution through the action API (in a worker thread)."""
        if self.task is None:
            raise EpisodeOver("call reset() before run_oracle()")
        if self.task.solve is None:
            raise TaskError(f"task {self.task.id!r} has no reference solution")
        await self.run_script(self.task.solve)

    async def run_script(self, script: Callable[[PageActions], Any]) -> None:
        """Run `script(actions)` in a worker thread; each `PageActions` call is one step."""
        if self.task is None:
            raise EpisodeOver("call reset() before run_script()")
        loop = asyncio.get_running_loop()

        def step(text: str):
            return asyncio.run_coroutine_threadsafe(self.step(text), loop).result()

        def run() -> None:
            try:
                script(PageActions(step, lambda: self.nodes))
            except StopIteration as exc:  # would hang the awaiting future
                raise RuntimeError(f"the script stopped on an exhausted iterator: {exc!r}") from exc

        await asyncio.to_thread(run)

    def result(self, elapsed_s: float) -> EpisodeResult:
        verdict, _ = self._final if self._final else (Verdict(), WorldDiff())
        task = self.task
        return EpisodeResult(
            task_id=task.id if task else "",
            instance_seed=task.instance_seed if task else None,
            success=verdict.success,
            score=verdict.score,
            steps=self.steps,
            action_errors=self.action_errors,
            elapsed_s=round(elapsed_s, 3),
            terminated=self.done and not self.truncated,
            truncated=self.truncated,
            answer=self.answer,
            infeasible=self.infeasible,
            blocked_requests=self.sandbox.blocked if self.session else 0,
            record_dir=str(self._recorder.directory) if self._recorder else None,
        )

    async def _grade(self, *, final: bool) -> tuple[Verdict, WorldDiff]:
        store = self.runtime.store
        diff = await asyncio.to_thread(store.diff, self.world_id)
        ctx = EpisodeContext(
            task=self.task,
            diff=diff,
            world=store.world_path(self.world_id),
            golden=self._golden,
            answer=self.answer,
            infeasible=self.infeasible,
            steps=self.steps,
            action_errors=self.action_errors,
            urls=tuple(self.session.visited) if self.session else (),
            blocked_requests=self.sandbox.blocked,
            final=final,
            today=self._world_now.date() if self._world_now else None,
        )
        if final:
            self.final_context = ctx
        verdict = await grade(ctx, origin=self.runtime.url, max_steps=self.max_steps)
        return verdict, diff

    # ---- observation -------------------------------------------------------------------

    async def _observe(self) -> PageObservation:
        """Observe the active page; a page that navigates mid-observation (a slow redirect
        after the step settled) is settled again and observed again, up to OBSERVE_TRIES."""
        screenshot = self.parts.screenshot or (
            self._recorder is not None and self.record_screenshots
        )
        for attempt in range(1, OBSERVE_TRIES + 1):
            try:
                page_obs = await observe(
                    self.session.page,
                    axtree=True,
                    dom=self.parts.dom or self._recorder is not None,
                    screenshot=screenshot,
                    som=self.parts.som,
                    objects=self.parts.objects,
                )
                break
            except ObservationError:
                if attempt == OBSERVE_TRIES or self.session.page.is_closed():
                    raise
                await self.session.settle()
        self.nodes = page_obs.nodes
        return page_obs

    async def _obs(self, page_obs: PageObservation) -> Observation:
        return await assemble(
            self.session,
            page_obs,
            self.parts,
            goal=self.task.goal,
            instructions=INSTRUCTIONS,
            last_action=self.last_action,
            last_action_error=self.last_error,
            started=None if self.steps == 0 else self._started,
            world_time=self._world_now.timestamp() if self._world_now else 0.0,
            answer=self.answer,
            infeasible=self.infeasible,
        )

    # ---- recording ---------------------------------------------------------------------

    def _record_step(
        self,
        action: str | None,
        obs: Observation,
        page_obs: PageObservation,
        reward: float,
        ends: tuple[bool, bool] | None,
        timings: Mapping[str, float],
    ) -> None:
        if self._recorder is None:
            return
        store = self.runtime.store
        step_diff = None
        if action is not None and self._snapshot is not None:
            changes = store.diff(self.world_id, since=self._snapshot)
            step_diff = changes.to_json() if changes else None
            self._snapshot = store.snapshot(self.world_id)
        terminated, truncated = ends or (False, False)
        self._recorder.record_step(
            self.steps,
            action,
            {**obs, "dom_txt": page_obs.dom_txt},
            reward=reward,
            terminated=terminated,
            truncated=truncated,
            timings_ms=timings,
            diff=step_diff,
            blocked_requests=self.sandbox.blocked,
            screenshot_png=page_obs.screenshot_png if self.record_screenshots else None,
        )

    def _finish_recording(self) -> None:
        verdict, diff = self._final
        self._recorder.finish(
            diff,
            verdict,
            {
                "terminated": not self.truncated,
                "truncated": self.truncated,
                "answer": self.answer,
                "infeasible": self.infeasible,
                "steps": self.steps,
                "reward": verdict.score,
                "elapsed_s": round(time.monotonic() - self._started, 3),
            },
        )

    # ---- teardown ----------------------------------------------------------------------

    async def _prepare(self) -> BrowserSession:
        return await BrowserSession.prepare(
            self.runtime.browser,
            origin=self.runtime.url,
            world_id=self.world_id,
            sandbox=Sandbox(self.runtime.url, self._scratch / "spare"),
            options=self.session_options,
        )

    async def ready(self) -> None:
        """Wait until the next episode's context (prepared in the background) is ready."""
        if self._spare is not None:
            await asyncio.wait({self._spare})

    async def _take_spare(self) -> BrowserSession:
        spare, self._spare = self._spare, None
        if spare is None:
            return await self._prepare()
        try:
            return await spare
        except Exception:  # noqa: BLE001 - a spare that failed is replaced by a fresh one
            return await self._prepare()

    async def _close_session(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            await session.close()

    async def _close_spare(self) -> None:
        spare, self._spare = self._spare, None
        if spare is not None:
            try:
                await (await spare).close()
            except Exception:  # noqa: BLE001 - closing anyway
                spare.cancel()

    async def close(self) -> None:
        """Close the contexts, drop the episode's world and scratch folder."""
        await self._close_session()
        await self._close_spare()
        if self._recorder is not None:
            self._recorder.close()
        store = self.runtime.store
        await asyncio.to_thread(store.drop, self.world_id)
        shutil.rmtree(self._scratch, ignore_errors=True)


class Env(gymnasium.Env):
    """A task in the officegym suite, played in a real Chromium against the real apps.

    Each episode gets its own world (a SQLite file reset to its golden in milliseconds), a new
    browser context that sends the world id on every request, signed in as the task's user,
    with the page clock frozen at the world clock and the page at the task's start URL.

    ## Observation space
    A `Dict` with BrowserGym's keys:

    | key | value |
    | `goal` | the task, as a colleague would ask it |
    | `instructions` | how an episode ends and how a final answer is read (`INSTRUCTIONS`) |
    | `url`, `open_pages_urls`, `open_pages_titles`, `active_page_index` | the tabs |
    | `axtree_txt` | accessibility tree, one node per line: `[bid] role 'name' value=..., states` |
    | `dom_txt` | pruned HTML of the page; every element carries its `bid` attribute |
    | `screenshot`, `som_screenshot` | H×W×3 uint8 (only when asked for) |
    | `focused_element_bid`, `last_action`, `last_action_error`, `elapsed_time` (seconds) | |
    | `goal_object`, `chat_messages` | the goal as BrowserGym's message list, and the chat so far |
    | `axtree_object`, `dom_object`, `extra_element_properties` | BrowserGym's CDP objects, with
      our bids (only when asked for: `objects`) |

    `active_page_index` and `elapsed_time` have shape (1,), as in BrowserGym. Choose the parts
    with `observation={"axtree": True, "dom": False, "screenshot": True, "objects": True}`;
    parts left out are not computed. Element ids are stable for an identical page. The type
    is `observation.Observation`; `codec.encode(obs)` makes it JSON (screenshots as base64
    PNG) and `codec.decode` gives it back.

    ## Action space
    A string in BrowserGym's high-level syntax, e.g. `click("12")`, `fill("7", "Q3 numbers")`,
    `select_option("9", "Closed Won")`, `press("7", "Enter")`, `goto("/chat/")`,
    `mouse_click(200, 310)`, `keyboard_type("hi")`, `send_msg_to_user("42")`,
    `report_infeasible("no such channel")`, `noop()` (see `action_space_description()`). It is
    parsed against a whitelist, never executed as code. A malformed action, an unknown, hidden or
    disabled element, a timeout or a URL outside the suite does not raise: it comes back as
    `last_action_error` and the episode goes on. The same actions exist as Python methods on
    `env.actions` (`env.actions.click("12")`). Each action is declared once, as an `ActionSpec`
    in `actionspec.SPECS` (signature, description, example, handler, whether it ends the
    episode); `spec.to_json()` gives its JSON schema.

    ## Reward
    `reward="sparse"` (default): 0 on every step, and on the last step the verifier's score in
    [0, 1] (1 only when every required check passed). `reward="dense"`: every step pays the
    change of the verifier's score since the previous step, so the rewards sum to the final
    score. `env.verify()` grades the current state at any time.

    ## Episode end
    An action whose spec ends the episode (`actionspec.ending_actions()`:
    `send_msg_to_user(...)`, the answer, or `report_infeasible(...)`) terminates; reaching
    `max_steps` truncates. On the last step `info` holds `verdict` (every check with its detail),
    `diff` (the WorldDiff from reset), `success`, `score` and `answer`.

    ## Example
        >>> import officegym
        >>> env = officegym.make("chat.post_update", observation={"dom": False})
        >>> obs, info = env.reset(seed=3)
        >>> obs, reward, terminated, truncated, info = env.step('click("12")')
        >>> env.close()
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1}

    def __init__(
        self,
        task: str | Task | registry.Template | type[registry.Template],
        *,
        render_mode: str | None = None,
        home: Path | str | None = None,
        server: str | None = None,
        headless: bool = True,
        observation: ObservationOptions | Mapping[str, bool] | None = None,
        session: SessionOptions | None = None,
        max_steps: int | None = None,
        reward: str = "sparse",
        record: Path | str | None = None,
        record_screenshots: bool = True,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        # The browser, driver and server start at the first reset, not here: vector envs build
        # one env in the parent process only to read its spaces, and a process that forks
        # workers must not have started Playwright (see `registration`).
        self._runtime_options = RuntimeOptions(home=home, server=server, headless=headless)
        self._shared: SharedRuntime | None = None
        self._core = AsyncEnv(
            task,
            Runtime(self._runtime_options),
            observation=observation,
            session=session,
            max_steps=max_steps,
            reward=reward,
            record=record,
            record_screenshots=record_screenshots,
        )
        self.observation_space = self._core.observation_space
        self.action_space = self._core.action_space
        self.actions = PageActions(self._step_for_actions, lambda: self._core.nodes)
        self._closed = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        if "instance_seed" not in options and not isinstance(self._core.source, Task):
            options["instance_seed"] = (
                seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
            )
        return self._run(self._core.reset(None, options))

    def step(self, action: str) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        return self._run(self._core.step(action))

    def _step_for_actions(self, action: str):
        return self.step(action)

    def verify(self) -> Verdict:
        """Grade the current state (mid-episode, for shaping) or return the final verdict."""
        return self._run(self._core.verify())

    def finish(self) -> tuple[float, dict[str, Any]]:
        """End the episode now and grade it (for scripts that stop without a message)."""
        return self._run(self._core.finish())

    def solve(self) -> tuple[float, dict[str, Any]]:
        """Play the task's reference solution, then grade: the oracle's (reward, info)."""
        self.task.solve(self.actions)
        return self.finish()

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array" or self._core.session is None:
            return None
        page_obs = self._run(
            observe(self._core.session.page, axtree=False, dom=False, screenshot=True)
        )
        return page_obs.screenshot

    @property
    def task(self) -> Task | None:
        """The task instance of the current episode."""
        return self._core.task

    @property
    def world_id(self) -> str:
        return self._core.world_id

    @property
    def server_url(self) -> str:
        return self._runtime().runtime.url

    @property
    def store(self):
        return self._core.runtime.store

    def _runtime(self) -> SharedRuntime:
        """The process's shared runtime, acquired (and started) on first use."""
        if self._shared is None:
            self._shared = acquire_runtime(self._runtime_options)
            self._core.runtime = self._shared.runtime
        return self._shared

    def _run(self, coro):
        if self._closed:
            coro.close()
            raise EpisodeOver("the environment is closed")
        return self._runtime().run(coro)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._shared is None:
            # Never reset: no world, context or browser exists, only the scratch folder.
            shutil.rmtree(self._core._scratch, ignore_errors=True)
            return
        try:
            self._shared.run(self._core.close())
        finally:
            release_runtime(self._shared)


def make(
    task: str | Task | registry.Template | type[registry.Template] | None = None,
    *,
    goal: str | None = None,
    user: str | None = None,
    start_url: str = "/",
    verify=None,
    solve=None,
    world: Any = None,
    apps: tuple[str, ...] = (),
    **options: Any,
) -> Env:
    """An `Env` for a registered template id (`"chat.post_update"`), a Task, or an ad-hoc task.

    Ad-hoc: `make(goal=..., user=..., start_url=..., verify=callable)` builds the Task here.
    Options go to `Env` (observation, max_steps, reward, record, server, home, headless...).
    """
    if task is None:
        if goal is None or user is None or verify is None:
            raise TaskError(
                "make() needs a task id, or goal=, user= and verify= for an ad-hoc task"
            )
        fields: dict[str, Any] = {"goal": goal, "user": user, "verify": verify}
        fields.update(start_url=start_url, solve=solve, apps=tuple(apps))
        if world is not None:
            fields["world"] = world
        if options.get("max_steps") is not None:
            fields["max_steps"] = options["max_steps"]
        task = Task(**fields)
    elif goal is not None or verify is not None:
        raise TaskError("give either a task or goal=/user=/verify=, not both")
    env = Env(task, **options)
    task_id = env._core.source.id if not isinstance(task, str) else task.removeprefix("officegym/")
    env.spec = EnvSpec(
        id=f"officegym/{task_id}",
        entry_point=Env,
        nondeterministic=True,
        max_episode_steps=None,
        kwargs={"task": task, **options},
    )
    return env


__all__ = [
    "AsyncEnv",
    "Env",
    "EpisodeOver",
    "EpisodeResult",
    "make",
]
