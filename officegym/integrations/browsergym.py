"""BrowserGym tasks: every officegym template as `browsergym/officegym.<template-id>`.

Importing this module registers them (`register()` is idempotent and registers templates
added later too):

    import gymnasium as gym
    import officegym.integrations.browsergym  # noqa: F401

    env = gym.make("browsergym/officegym.chat.post_update")
    obs, info = env.reset(seed=3)  # instance 3 of the template, on a fresh world

An episode is one world of the process's `WorldStore`, served by one background server per
store home (started on first use, stopped at exit). `setup` binds BrowserGym's context to the
world exactly as the harness does (world header, sandbox, frozen clock, the task's user
signed in) and opens the start page. The episode ends when the agent sends a message to the
user (`send_msg_to_user`, the answer) or reports the task infeasible: the world is graded by
the task's verifier, reward = the verdict's score, `info["task_info"]` = verdict and success.
Nothing ends it at the template's step budget; the caller sets `max_steps`.

BrowserGym launches Chromium (the page's and the chat's) without `executable_path`. When
Playwright's own Chromium is not installed and `/usr/bin/chromium` is, creating one of these
tasks makes the process's BrowserGym Playwright launch that one unless given another.
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium as gym
import playwright.sync_api
from browsergym.core import _get_global_playwright
from browsergym.core.registration import register_task
from browsergym.core.task import AbstractBrowserTask

from officegym.apps.web.server import BackgroundServer, start_background_server
from officegym.harness.grading import grade
from officegym.harness.runtime import CHROMIUM
from officegym.harness.sandbox import Sandbox
from officegym.harness.session import SIGN_IN_TIMEOUT_MS, VIEWPORT, bind_context_sync
from officegym.seed_data.clock import now_of
from officegym.seed_data.store import WorldStore
from officegym.tasks import registry
from officegym.tasks.protocol import EpisodeContext, Task

PREFIX = "officegym."
SERVER_THREADS = 8
_world_ids = itertools.count(1)


class Backend:
    """One store home's worlds and the server that serves them, shared by its episodes."""

    def __init__(self, home: Path | None) -> None:
        self.store = WorldStore(home)
        # Concurrent episodes queue requests by design; waitress would warn on each.
        logging.getLogger("waitress.queue").setLevel(logging.ERROR)
        self.server: BackgroundServer = start_background_server(self.store, threads=SERVER_THREADS)

    @property
    def url(self) -> str:
        return self.server.url

    def close(self) -> None:
        try:
            self.server.stop()
        finally:
            self.store.close()


_backends: dict[Path | None, Backend] = {}
_backends_lock = threading.Lock()


def backend(home: Path | str | None = None) -> Backend:
    """The process's store and server for `home` (default: the harness's default home)."""
    key = Path(home).expanduser().resolve() if home is not None else None
    with _backends_lock:
        found = _backends.get(key)
        if found is None:
            found = _backends[key] = Backend(key)
        return found


@atexit.register
def _close_backends() -> None:
    with _backends_lock:
        pending = list(_backends.values())
        _backends.clear()
    for each in pending:
        each.close()


class OfficeGymTask(AbstractBrowserTask):
    """An officegym task template as a BrowserGym task; one subclass per template id.

    Task kwargs: `home`, the world store's folder (default: the harness default).
    """

    template_id = ""

    @classmethod
    def get_task_id(cls) -> str:
        return PREFIX + cls.template_id

    def __init__(self, seed: int | None, home: Path | str | None = None) -> None:
        super().__init__(seed)
        self.seed = seed
        self.home = home
        self.viewport = dict(VIEWPORT)
        self.slow_mo = 0
        self.locale = "en-US"
        self.timezone_id = "UTC"
        self.task: Task | None = None
        self.world_id: str | None = None
        self.steps = 0
        self.visited: list[str] = []
        self._backend: Backend | None = None
        self._golden: Path | None = None
        self._sandbox: Sandbox | None = None
        self._folder: Path | None = None
        use_system_chromium()

    def setup(self, page: playwright.sync_api.Page) -> tuple[str, dict]:
        """Create the episode's world and open its start page signed in as the task's user."""
        self._backend = found = backend(self.home)
        store = found.store
        template = registry.get(self.template_id)
        spec = template.world
        self._golden = store.golden(spec.seed, spec.scale)
        instance_seed = self.seed if self.seed is not None else int(self.random.randint(2**31 - 1))
        self.task = task = template.instance(self._golden, int(instance_seed))
        self.world_id = f"bg-{os.getpid()}-{next(_world_ids)}"
        store.create(self.world_id, spec.seed, spec.scale, replace=True)
        self._folder = Path(tempfile.mkdtemp(prefix="officegym-browsergym-"))
        for name, data in task.files.items():
            (self._folder / name).write_bytes(data)
        self._sandbox = Sandbox(found.url, self._folder)
        context = page.context
        bind_context_sync(
            context,
            origin=found.url,
            world_id=self.world_id,
            world_now=now_of(self._golden),
            user=task.user,
            sandbox=self._sandbox,
        )
        for each in context.pages:
            self._watch(each)
        context.on("page", self._watch)
        # Setup's own timeout, as the harness's sign-in: a loaded server may answer slowly.
        page.goto(found.url + task.start_url, wait_until="load", timeout=SIGN_IN_TIMEOUT_MS)
        info = {"task": task.describe(), "world_id": self.world_id, "files": str(self._folder)}
        return task.goal, info

    def _watch(self, page: playwright.sync_api.Page) -> None:
        page.on("framenavigated", lambda frame: self._visit(page, frame))

    def _visit(self, page: playwright.sync_api.Page, frame: Any) -> None:
        if frame == page.main_frame:
            self.visited.append(frame.url)

    def validate(
        self, page: playwright.sync_api.Page, chat_messages: list[dict]
    ) -> tuple[float, bool, str, dict]:
        """Grade the world once the agent's last message is an answer or an infeasibility
        report; until then (0, False, "", {})."""
        self.steps += 1
        last = chat_messages[-1] if chat_messages else {}
        role = last.get("role")
        if role not in ("assistant", "infeasible"):
            return 0.0, False, "", {}
        text = str(last.get("message", ""))
        answer, infeasible = (text, None) if role == "assistant" else (None, text)
        verdict = self.grade(answer=answer, infeasible=infeasible)
        info = {
            "verdict": verdict.to_json(),
            "success": verdict.success,
            "score": verdict.score,
            "answer": answer,
            "infeasible": infeasible,
        }
        return verdict.score, True, "", info

    def grade(self, *, answer: str | None = None, infeasible: str | None = None) -> Any:
        """The verdict on the world as it is now, as the harness grades a finished episode."""
        if self.task is None or self._backend is None or self.world_id is None:
            raise RuntimeError("grade() needs a task that was set up")
        store = self._backend.store
        ctx = EpisodeContext(
            task=self.task,
            diff=store.diff(self.world_id),
            world=store.world_path(self.world_id),
            golden=self._golden,
            answer=answer,
            infeasible=infeasible,
            steps=self.steps,
            urls=tuple(self.visited),
            blocked_requests=self._sandbox.blocked if self._sandbox else 0,
            final=True,
            today=now_of(self._golden).date(),
        )
        coro = grade(ctx, origin=self._backend.url, max_steps=self.task.max_steps)
        # BrowserGym's sync Playwright owns this thread's event loop.
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, coro).result()

    def cheat(self, page: playwright.sync_api.Page, chat_messages: list[dict]) -> None:
        """Not available: the oracles drive the harness's own action layer, element ids and
        observations (async Playwright), not a BrowserGym page."""
        raise NotImplementedError(
            f"{self.get_task_id()}: the officegym oracle runs in the officegym harness "
            f"(officegym.make({self.template_id!r}).run_oracle()), not on a BrowserGym page"
        )

    def teardown(self) -> None:
        """Drop the episode's world and its file folder."""
        world_id, self.world_id = self.world_id, None
        if world_id is not None and self._backend is not None:
            self._backend.store.drop(world_id)
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


_task_classes: dict[str, type[OfficeGymTask]] = {}


def task_class(template_id: str) -> type[OfficeGymTask]:
    """The BrowserGym task class of one template (made once per id)."""
    found = _task_classes.get(template_id)
    if found is None:
        name = "OfficeGym_" + template_id.replace(".", "_")
        found = type(name, (OfficeGymTask,), {"template_id": template_id})
        _task_classes[template_id] = found
    return found


def register(template_ids: Iterable[str] | None = None) -> list[str]:
    """Register templates (default: every one) as `browsergym/officegym.<id>`; returns the
    env ids. Ids already registered are left as they are."""
    env_ids = []
    for template_id in registry.template_ids() if template_ids is None else template_ids:
        task_id = PREFIX + template_id
        env_id = f"browsergym/{task_id}"
        if env_id not in gym.registry:
            register_task(task_id, task_class(template_id), default_task_kwargs={"home": None})
        env_ids.append(env_id)
    return env_ids


_patch_lock = threading.Lock()


def use_system_chromium() -> bool:
    """Make BrowserGym's Playwright launch `/usr/bin/chromium` by default when Playwright's own
    Chromium is missing; True when it does. An explicit `executable_path` still wins."""
    if not CHROMIUM.exists():
        return False
    with _patch_lock:
        chromium = _get_global_playwright().chromium
        launch = chromium.launch
        if getattr(launch, "officegym_default", False):
            return True
        if Path(chromium.executable_path).exists():
            return False

        def launch_system_chromium(**kwargs: Any) -> Any:
            kwargs.setdefault("executable_path", str(CHROMIUM))
            return launch(**kwargs)

        launch_system_chromium.officegym_default = True  # type: ignore[attr-defined]
        chromium.launch = launch_system_chromium
        return True


register()

__all__ = [
    "PREFIX",
    "Backend",
    "OfficeGymTask",
    "backend",
    "register",
    "task_class",
    "use_system_chromium",
]
