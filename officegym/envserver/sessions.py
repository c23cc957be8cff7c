"""The env server's sessions: one `AsyncEnv` each, all on the server's one shared `Runtime`.

A session plays one episode at a time in its own world (one SQLite file, dropped when the
session ends) and its own browser context; every session shares the server's Chromium and
its in-process apps server on loopback. Sessions are opened by a WebSocket (for its
lifetime) or by an HTTP reset without `session_id`, and counted against `max_sessions`:
at the limit a new one is refused at once with `CAPACITY_REACHED` and a retry-after, never
queued.

Failures leave a session in a state the client can read: a step that outlives its timeout is
cancelled and the session **needs a reset** (the page may be half-way through the action,
so the episode cannot go on); so does a reset or a step that failed. Until a reset succeeds,
step and finish are refused with `SESSION_BROKEN` and the reason. A request that arrives
while the session is busy with another gets `SESSION_BUSY` (one request at a time per session).
HTTP sessions unused for `idle_timeout` seconds are reclaimed by `SessionTable.reap`; a
WebSocket session ends with its connection, or when it sends nothing for `idle_timeout`
(`app`). Reclaiming a session closes its contexts and drops its world file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import uuid
from collections.abc import AsyncIterator, Coroutine, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

from officegym.harness.codec import encode
from officegym.harness.env import AsyncEnv
from officegym.harness.observation import Observation
from officegym.harness.runtime import Runtime
from officegym.harness.session import SessionOptions
from officegym.tasks import registry
from officegym.tasks.protocol import TaskError, WorldSpec

from .protocol import (
    BrowserAction,
    ErrorCode,
    ObservationChoice,
    ObservationReply,
    Reset,
    SessionState,
    VerdictReply,
    WorldChoice,
    error_body,
    jsonable,
)

log = logging.getLogger("officegym.envserver")

Transport = Literal["http", "ws"]
T = TypeVar("T")


def _traced() -> bool:
    """Tracebacks of failed operations in the log only at debug level: under load a page
    that times out is expected, and the client gets the message anyway."""
    return log.isEnabledFor(logging.DEBUG)


class SessionError(Exception):
    """A request the server refuses or could not carry out: an `ErrorCode`, a message the
    client can act on, the HTTP status, and details (such as `retry_after`)."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        status: int,
        retry_after: int | None = None,
        **details: Any,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.details = details

    def body(self) -> dict[str, Any]:
        """The error as both transports send it."""
        extra = dict(self.details)
        if self.retry_after is not None:
            extra["retry_after"] = self.retry_after
        return error_body(self.code, self.message, **extra)


@dataclass(frozen=True)
class Limits:
    """What every session of one server may use."""

    max_sessions: int
    reset_concurrency: int
    step_timeout: float
    reset_timeout: float
    idle_timeout: float
    screenshots: bool
    retry_after: int
    session: SessionOptions


class Session:
    """One client's episodes: an `AsyncEnv` created at the first reset, kept across resets
    while the observation parts, reward mode and step limit stay the same."""

    def __init__(self, table: SessionTable, transport: Transport) -> None:
        self.id = uuid.uuid4().hex[:16]
        self.transport = transport
        self.runtime = table.runtime
        self.limits = table.limits
        self._reset_slots = table.reset_slots
        self.env: AsyncEnv | None = None
        self.template_id: str | None = None
        self.world: WorldChoice | None = None
        self.observation = ObservationChoice()
        self.reward: Literal["sparse", "dense"] = "sparse"
        self.max_steps: int | None = None
        self.episode_id: str | None = None
        self.needs_reset: str | None = None
        self.closed = False
        self.last_used = time.monotonic()
        self._config: tuple | None = None
        self._busy = False
        self._rng = random.Random()

    # ---- bookkeeping -------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _operation(self) -> AsyncIterator[None]:
        """One request at a time; the idle clock restarts when it ends."""
        if self.closed:
            raise SessionError(
                ErrorCode.UNKNOWN_SESSION, f"session {self.id} is closed", status=404
            )
        if self._busy:
            raise SessionError(
                ErrorCode.SESSION_BUSY,
                f"session {self.id} is still busy with another request: send one at a time",
                status=409,
            )
        self._busy = True
        try:
            yield
        finally:
            self._busy = False
            self.last_used = time.monotonic()

    def idle_for(self, now: float) -> float:
        """Seconds since the last request ended (0 while one runs)."""
        return 0.0 if self._busy else now - self.last_used

    @property
    def busy(self) -> bool:
        return self._busy

    # ---- operations --------------------------------------------------------------------

    async def reset(self, request: Reset) -> ObservationReply:
        """Start a new episode of the requested task instance in a fresh world."""
        async with self._operation():
            template = self._template(request.task)
            # Fields left out keep the session's previous choice; `world: null` and
            # `max_steps: null` given explicitly return to the template's own.
            given = request.model_fields_set
            observation = request.observation or self.observation
            if (observation.screenshot or observation.som) and not self.limits.screenshots:
                raise SessionError(
                    ErrorCode.VALIDATION_ERROR,
                    "this server sends no screenshots: start it with --screenshots, "
                    "or ask for text observations only",
                    status=422,
                )
            reward = request.reward or self.reward
            max_steps = request.max_steps if "max_steps" in given else self.max_steps
            world = request.world if "world" in given else self.world
            seed = request.instance_seed if request.instance_seed is not None else request.seed
            instance_seed = seed if seed is not None else self._rng.randrange(2**31 - 1)
            try:
                obs, info = await asyncio.wait_for(
                    self._admitted(
                        self._start(template, world, instance_seed, observation, reward, max_steps)
                    ),
                    self.limits.reset_timeout,
                )
            except TimeoutError:
                raise self._broken(
                    ErrorCode.STEP_TIMEOUT,
                    f"the reset took longer than {self.limits.reset_timeout:g} s",
                    status=504,
                ) from None
            except TaskError as error:
                raise self._broken(ErrorCode.VALIDATION_ERROR, str(error), status=422) from None
            except Exception as error:
                log.warning("session %s: reset failed: %s", self.id, error, exc_info=_traced())
                raise self._broken(
                    ErrorCode.EXECUTION_ERROR, f"the reset failed: {error}", status=500
                ) from None
            self.template_id, self.world, self.observation = template.id, world, observation
            self.reward, self.max_steps = reward, max_steps
            self.needs_reset = None
            self.episode_id = request.episode_id or uuid.uuid4().hex
            data = await self._encode(obs)
            info = jsonable({**info, "session_id": self.id, "episode_id": self.episode_id})
            return ObservationReply(
                observation=data,
                reward=None,
                done=False,
                info=info,
                session_id=self.id,
                episode_id=self.episode_id,
            )

    async def step(self, action: BrowserAction, timeout_s: float | None = None) -> ObservationReply:
        """Run one action; bounded by the server's step timeout (or a shorter `timeout_s`)."""
        async with self._operation():
            env = self._playable()
            if env.done:
                raise SessionError(
                    ErrorCode.EPISODE_OVER,
                    "the episode has ended: finish reads its verdict, reset starts another",
                    status=409,
                )
            limit = self.limits.step_timeout
            if timeout_s is not None:
                limit = min(limit, timeout_s)
            try:
                obs, reward, terminated, truncated, info = await asyncio.wait_for(
                    env.step(action.action_str), limit
                )
            except TimeoutError:
                raise self._broken(
                    ErrorCode.STEP_TIMEOUT, f"the step took longer than {limit:g} s", status=504
                ) from None
            except Exception as error:
                log.warning("session %s: step failed: %s", self.id, error, exc_info=_traced())
                raise self._broken(
                    ErrorCode.EXECUTION_ERROR, f"the step failed: {error}", status=500
                ) from None
            data = await self._encode(obs)
            return ObservationReply(
                observation=data,
                reward=float(reward),
                done=terminated or truncated,
                terminated=terminated,
                truncated=truncated,
                info=jsonable(info),
                session_id=self.id,
                episode_id=self.episode_id,
            )

    async def finish(self) -> VerdictReply:
        """End the episode now (if it has not ended) and return its verdict."""
        async with self._operation():
            env = self._playable()
            try:
                reward, info = await asyncio.wait_for(env.finish(), self.limits.step_timeout)
            except TimeoutError:
                raise self._broken(
                    ErrorCode.STEP_TIMEOUT,
                    f"grading took longer than {self.limits.step_timeout:g} s",
                    status=504,
                ) from None
            except Exception as error:
                log.warning("session %s: finish failed: %s", self.id, error, exc_info=_traced())
                raise self._broken(
                    ErrorCode.EXECUTION_ERROR, f"grading failed: {error}", status=500
                ) from None
            return VerdictReply(
                reward=float(reward),
                info=jsonable(info),
                session_id=self.id,
                episode_id=self.episode_id,
            )

    def state(self) -> SessionState:
        """The session and its episode as they are now (never waits for a running request)."""
        env = self.env
        task = env.task if env is not None else None
        return SessionState(
            episode_id=self.episode_id,
            step_count=env.steps if env is not None and task is not None else 0,
            session_id=self.id,
            transport=self.transport,
            task_id=task.id if task is not None else None,
            instance_seed=task.instance_seed if task is not None else None,
            goal=task.goal if task is not None else None,
            done=bool(env is not None and env.done),
            graded=bool(env is not None and env.graded),
            needs_reset=self.needs_reset,
            observation=self.observation,
        )

    async def close(self) -> None:
        """Drop the world and close the contexts (idempotent)."""
        if self.closed:
            return
        self.closed = True
        env, self.env = self.env, None
        if env is not None:
            try:
                await env.close()
            except Exception:  # noqa: BLE001 - the rest of the server goes on
                log.exception("session %s: closing its environment failed", self.id)

    # ---- parts -------------------------------------------------------------------------

    def _template(self, task_id: str | None) -> registry.Template:
        name = task_id or self.template_id
        if name is None:
            raise SessionError(
                ErrorCode.VALIDATION_ERROR,
                "the first reset of a session names its task: a template id such as "
                "'chat.post_update' (officegym tasks lists them)",
                status=422,
            )
        try:
            return registry.get(name.removeprefix("officegym/"))
        except registry.UnknownTask:
            raise SessionError(
                ErrorCode.UNKNOWN_TASK,
                f"no task template {name!r}; `officegym tasks` lists the registered ids",
                status=422,
            ) from None

    def _playable(self) -> AsyncEnv:
        if self.needs_reset is not None:
            raise SessionError(
                ErrorCode.SESSION_BROKEN,
                f"this session needs a reset: {self.needs_reset}",
                status=409,
            )
        if self.env is None or self.env.task is None:
            raise SessionError(
                ErrorCode.NO_EPISODE, "no episode yet: reset first, naming a task", status=409
            )
        return self.env

    async def _admitted(self, start: Coroutine[Any, Any, T]) -> T:
        """Run a reset once one of the server's reset slots is free: a burst of resets (a
        trainer starting every worker at once) then queues instead of loading pages
        together until every one of them times out."""
        async with self._reset_slots:
            return await start

    def _broken(self, code: ErrorCode, reason: str, *, status: int) -> SessionError:
        """Mark the session as needing a reset and say so."""
        self.needs_reset = reason
        return SessionError(
            code,
            f"{reason}; the session needs a reset before it can step or finish",
            status=status,
        )

    async def _start(
        self,
        template: registry.Template,
        world: WorldChoice | None,
        instance_seed: int,
        observation: ObservationChoice,
        reward: Literal["sparse", "dense"],
        max_steps: int | None,
    ) -> tuple[Observation, dict[str, Any]]:
        spec = WorldSpec(world.seed, world.scale) if world is not None else template.world
        golden = await asyncio.to_thread(self.runtime.store.golden, spec.seed, spec.scale)
        task = await asyncio.to_thread(template.instance, golden, instance_seed)
        if world is not None:
            task = replace(task, world=spec)
        parts = observation.model_dump()
        config = (tuple(sorted(parts.items())), reward, max_steps)
        if self.env is None or self._config != config:
            old, self.env = self.env, None
            if old is not None:
                await old.close()
            self.env = AsyncEnv(
                task,
                self.runtime,
                observation=parts,
                session=self.limits.session,
                max_steps=max_steps,
                reward=reward,
                name=f"srv-{self.id}",
            )
            self._config = config
        else:
            self.env.source = task
        return await self.env.reset(None, {})

    @staticmethod
    async def _encode(obs: Observation) -> dict[str, Any]:
        if "screenshot" in obs or "som_screenshot" in obs:
            return await asyncio.to_thread(encode, obs)  # PNG compression: off the loop
        return encode(obs)


class SessionTable:
    """Every live session of one server, counted against `max_sessions`."""

    def __init__(self, runtime: Runtime, limits: Limits) -> None:
        self.runtime = runtime
        self.limits = limits
        self.sessions: dict[str, Session] = {}
        self.reset_slots = asyncio.Semaphore(limits.reset_concurrency)

    def open(self, transport: Transport) -> Session:
        """A new session, or `CAPACITY_REACHED` (HTTP 503) at the limit."""
        limit = self.limits.max_sessions
        if len(self.sessions) >= limit:
            raise SessionError(
                ErrorCode.CAPACITY_REACHED,
                f"the server is at its limit of {limit} sessions; "
                f"retry in {self.limits.retry_after} s",
                status=503,
                retry_after=self.limits.retry_after,
                active_sessions=len(self.sessions),
                max_sessions=limit,
            )
        session = Session(self, transport)
        self.sessions[session.id] = session
        return session

    def get(self, session_id: str) -> Session:
        """The HTTP session `session_id`, or `UNKNOWN_SESSION` (HTTP 404)."""
        session = self.sessions.get(session_id)
        if session is None or session.transport != "http":
            raise SessionError(
                ErrorCode.UNKNOWN_SESSION,
                f"no HTTP session {session_id!r}: it was closed, reclaimed after "
                f"{self.limits.idle_timeout:g} s idle, or never opened; "
                "a reset without session_id opens one",
                status=404,
            )
        return session

    async def drop(self, session: Session) -> None:
        """End `session`: its world is dropped and its contexts closed. It counts against
        the limit until both are done (it still holds them)."""
        try:
            await session.close()
        finally:
            self.sessions.pop(session.id, None)

    async def reap(self) -> None:
        """Forever: reclaim HTTP sessions idle for longer than `idle_timeout`."""
        idle = self.limits.idle_timeout
        interval = max(0.05, min(idle / 4, 5.0))
        while True:
            await asyncio.sleep(interval)
            now = time.monotonic()
            for session in list(self.sessions.values()):
                if session.transport == "http" and session.idle_for(now) > idle:
                    log.info("session %s: idle for %.0f s, reclaimed", session.id, idle)
                    await self.drop(session)

    async def close_all(self) -> None:
        """Drop every session (the server is stopping)."""
        for session in list(self.sessions.values()):
            await self.drop(session)

    def counts(self) -> Mapping[str, int]:
        """Live sessions by transport."""
        kinds = [session.transport for session in self.sessions.values()]
        return {
            "active": len(kinds),
            "http": kinds.count("http"),
            "ws": kinds.count("ws"),
        }


__all__ = ["Limits", "Session", "SessionError", "SessionTable", "Transport"]
