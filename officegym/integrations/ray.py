"""Env pools as Ray actors: many browsers' worth of episodes across the nodes of a cluster.

`RayEnvPool(task, num_envs, envs_per_actor)` starts `ceil(num_envs / envs_per_actor)` actors.
Each owns a harness runtime (the WSGI server, one Chromium) and an `EnvPool` of
`envs_per_actor` environments, each environment with its own world. `run(agent, episodes)`
deals the episodes out in chunks to whichever actor is free and returns one `EpisodeResult`
per episode, in episode order (instance seeds `seed`, `seed + 1`, ...).

    from officegym.integrations.ray import RayEnvPool

    with RayEnvPool("chat.post_update", num_envs=8, envs_per_actor=4) as pool:
        results = pool.run("oracle", episodes=32)
        print(sum(r.success for r in results) / len(results))

## Agents
An agent crosses the wire, so it must pickle: a spec string of `officegym run --agent`
(`"oracle"`, `"null"`, `"random"`, `"replay:DIR"`; one agent per episode), a factory
`factory(instance_seed) -> Agent` (one agent per episode), or an `Agent` instance (copied to
each actor and shared by its environments). Ray pickles lambdas and the driver script's own
functions by value, and named functions and classes of other modules by reference: such a
module must be importable on every node (installed, or shipped with
`runtime_env={"py_modules": [...]}`). Each result is an
`EpisodeResult` (success, score, steps, answer...); the full verdict, every check with its
detail, is in the episode's recording when `record=` is given.

## Goldens and the world home
Before any episode, one actor per node builds the task's golden world into that node's world
home (`pool.goldens` says which node built what, and how long it took); the others on the node
start their browsers meanwhile and find it built. Live worlds are SQLite files in WAL mode,
used by one node only, so the home belongs on a node's local disk:

- `home=None` (default): each node's default home (`OFFICEGYM_HOME` in the environment of
  `ray start` on that node, else the user cache folder); goldens are built once per node.
- `home="/local/officegym"`: that folder on every node (a path that exists on each).
- `shared_goldens="/shared/officegym-golden"`: a folder every node mounts (NFS v4, CephFS, ...);
  each node's `home/golden` becomes a link to it, so a golden is built once for the whole
  cluster (the store builds under a file lock, which the shared file system must honour) and
  live worlds stay local.

`record=DIR` (an `Env` option) records every episode under `DIR/actor-<k>/` on the node that
played it; `EpisodeResult.record_dir` names the folder. Use a shared `DIR` to read them all
from one place (`officegym report DIR`).

## Multi-node cluster
Every node, the driver's included, needs the same Python, Ray and officegym
(`pip install 'officegym[ray]'`); every node that runs actors also needs Chromium
(`apt-get install chromium`, found at `/usr/bin/chromium`, or
`python -m playwright install chromium`), a local disk for the world home, and a `/dev/shm`
large enough for Chromium (containers default to 64 MB: raise it with `--shm-size`). Then:

    # head node
    ray start --head --port=6379 --num-cpus=8 --resources='{"officegym": 4}'
    # each worker node
    ray start --address=HEAD_IP:6379 --num-cpus=8 --resources='{"officegym": 4}'
    # driver, on the head node (or anywhere with address="ray://HEAD_IP:10001")
    RayEnvPool("crm.move_deal_stage", num_envs=64, envs_per_actor=4,
               address="auto", num_cpus=2, resources={"officegym": 1})

`address` is what `ray.init` takes ("auto": the cluster `ray start` made on this machine;
"ray://HEAD_IP:10001": Ray Client), used only when Ray is not initialised yet. `num_cpus` is
what Ray reserves per actor, which runs one Chromium, one server and `envs_per_actor`
episodes at once; the custom resource caps the actors per node. Ray reports usage statistics
to usage-stats.ray.io unless `RAY_USAGE_STATS_ENABLED=0` is set where `ray start` runs (a
local cluster the pool starts itself sets it, unless the variable is already set). `runtime_env` and `actor_options` (e.g. `{"memory": 4e9}`) go to every actor.
Actors are spread over the nodes (`scheduling_strategy="SPREAD"`). An actor that dies
mid-run has its episodes played by the others; the run fails only when none is left.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import ray
    from ray.exceptions import GetTimeoutError, RayActorError, RayError
except ImportError as error:
    raise ImportError(
        "officegym.integrations.ray needs Ray: pip install 'officegym[ray]'"
    ) from error

from officegym.harness.agents import agent_from_spec
from officegym.harness.env import EpisodeResult
from officegym.seed_data.store import WorldStore
from officegym.tasks import registry
from officegym.tasks.protocol import Task, TaskError, WorldSpec

log = logging.getLogger(__name__)

# Chunks queued per actor: the next one is already there when the current one ends.
IN_FLIGHT = 2


class RayPoolError(RuntimeError):
    """The pool could not start its actors, or lost all of them during a run."""


@dataclass(frozen=True)
class ActorInfo:
    """Where one actor of the pool runs and how many environments it holds."""

    index: int
    node_id: str
    host: str
    pid: int
    envs: int


@dataclass(frozen=True)
class GoldenBuild:
    """A golden world made ready on one node before its actors played."""

    node_id: str
    host: str
    path: str
    built: bool
    seconds: float
    inode: int
    mtime_ns: int


def _world_of(task: Any) -> WorldSpec:
    """The golden world a task's episodes start from (unknown template ids fail here)."""
    if isinstance(task, str):
        return registry.get(task.removeprefix("officegym/")).world
    if isinstance(task, Task | registry.Template):
        return task.world
    if isinstance(task, type) and issubclass(task, registry.Template):
        return task.world
    raise TaskError(f"task must be a template id, a Template or a Task, got {task!r}")


def _positive_int(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return value


def _link_goldens(home: Path, shared: Path) -> Path:
    """Make `home/golden` a link to the shared golden folder `shared` (idempotent)."""
    shared.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    link = home / "golden"
    try:
        link.symlink_to(shared, target_is_directory=True)
    except FileExistsError:
        if not (link.is_symlink() and link.resolve() == shared.resolve()):
            raise RayPoolError(
                f"{link} exists and is not a link to {shared}; use another home or remove it"
            ) from None
    return link


def _node_path(path: Path | str | None) -> str | None:
    """A path for every node: `~` is expanded on the node, a relative path against this
    process's working directory."""
    if path is None:
        return None
    text = str(path)
    return text if text.startswith("~") or Path(text).is_absolute() else str(Path(text).resolve())


def _amounts(resources: Mapping[str, float]) -> str:
    return ", ".join(f"{name}={value:g}" for name, value in sorted(resources.items()))


def _agent_source(agent: Any) -> Any:
    """What `EnvPool.run` takes: a factory per instance seed, or the agent itself."""
    if isinstance(agent, str):
        return lambda instance_seed: agent_from_spec(agent, seed=instance_seed)
    return agent


class _EnvActor:
    """One Ray actor: a harness runtime and an `EnvPool` of `size` environments."""

    def __init__(
        self,
        task: Any,
        size: int,
        home: str | None,
        shared_goldens: str | None,
        env_options: Mapping[str, Any],
    ) -> None:
        self._task = task
        self._size = size
        self._home = Path(home).expanduser() if home is not None else None
        self._shared_goldens = Path(shared_goldens).expanduser() if shared_goldens else None
        self._env_options = dict(env_options)
        if self._env_options.get("record") is not None:
            self._env_options["record"] = Path(self._env_options["record"]).expanduser()
        self._store: WorldStore | None = None
        self._pool = None

    def place(self) -> tuple[str, str, int]:
        return ray.get_runtime_context().get_node_id(), socket.gethostname(), os.getpid()

    def _world_store(self) -> WorldStore:
        if self._store is None:
            store = WorldStore(self._home)
            if self._shared_goldens is not None:
                _link_goldens(store.home, self._shared_goldens)
            self._store = store
        return self._store

    def build_golden(self, seed: int, scale: str) -> GoldenBuild:
        store = self._world_store()
        path = store.golden_path(seed, scale)
        existed = path.is_file()
        clock = time.monotonic()
        store.golden(seed, scale)
        seconds = time.monotonic() - clock
        stat = path.stat()
        node_id, host, _ = self.place()
        return GoldenBuild(
            node_id, host, str(path), not existed, round(seconds, 3), stat.st_ino, stat.st_mtime_ns
        )

    def open(self) -> None:
        from officegym.harness.pool import EnvPool

        if self._pool is None:
            home = self._world_store().home
            self._pool = EnvPool(self._task, self._size, home=home, **self._env_options)

    def play(self, agent: Any, seed: int, count: int) -> list[EpisodeResult]:
        self.open()
        return self._pool.run(_agent_source(agent), count, seed=seed)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()


_RemoteEnvActor = ray.remote(_EnvActor)


class RayEnvPool:
    """`num_envs` environments of one task in Ray actors of `envs_per_actor` each.

    Each actor owns a harness runtime (server and Chromium) and an `EnvPool`; goldens are
    built once per node before any episode (see the module docstring for the world home and
    the multi-node setup). `run(agent, episodes, seed=0)` returns the `EpisodeResult`s in
    episode order; `close()` closes every environment and browser and kills the actors.

    Cluster options: `address` for `ray.init` when Ray is not initialised yet (the pool then
    shuts Ray down on close), `num_cpus` and `resources` reserved per actor, `runtime_env`,
    `actor_options` (anything else `ActorClass.options` takes), `scheduling_strategy`.
    `ready_timeout` bounds the wait for actors to be placed and started (a cluster without
    room for them is an error, not a hang). Other keyword arguments are `Env` options
    (`observation`, `max_steps`, `reward`, `record`, `session`, ...).
    """

    def __init__(
        self,
        task: str | Task | registry.Template | type[registry.Template],
        num_envs: int,
        envs_per_actor: int = 1,
        *,
        home: Path | str | None = None,
        shared_goldens: Path | str | None = None,
        address: str | None = None,
        num_cpus: float = 1.0,
        resources: Mapping[str, float] | None = None,
        runtime_env: Mapping[str, Any] | None = None,
        actor_options: Mapping[str, Any] | None = None,
        scheduling_strategy: str = "SPREAD",
        ready_timeout: float = 600.0,
        **env_options: Any,
    ) -> None:
        num_envs = _positive_int("num_envs", num_envs)
        envs_per_actor = _positive_int("envs_per_actor", envs_per_actor)
        if envs_per_actor > num_envs:
            raise ValueError(
                f"envs_per_actor ({envs_per_actor}) cannot exceed num_envs ({num_envs})"
            )
        if not isinstance(num_cpus, int | float) or num_cpus < 0:
            raise ValueError(f"num_cpus must be a number >= 0, got {num_cpus!r}")
        self.world = _world_of(task)
        self.num_envs = num_envs
        self.envs_per_actor = envs_per_actor
        self._closed = False
        self._actors: list[Any] = []
        self._placed: set[int] = set()
        self._dead: set[int] = set()
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            # No network at run time: a cluster this pool starts reports no usage statistics
            # unless the user asked for them.
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            ray.init(address=address)
        sizes = [envs_per_actor] * (num_envs // envs_per_actor)
        if num_envs % envs_per_actor:
            sizes.append(num_envs % envs_per_actor)
        options: dict[str, Any] = {"num_cpus": num_cpus, "scheduling_strategy": scheduling_strategy}
        if resources:
            options["resources"] = dict(resources)
        if runtime_env:
            options["runtime_env"] = dict(runtime_env)
        options.update(actor_options or {})
        record = _node_path(env_options.pop("record", None))
        home_arg, shared_arg = _node_path(home), _node_path(shared_goldens)
        try:
            for index, size in enumerate(sizes):
                per_actor = dict(env_options)
                if record is not None:
                    per_actor["record"] = f"{record}/actor-{index:02d}"
                self._actors.append(
                    _RemoteEnvActor.options(**options).remote(
                        task, size, home_arg, shared_arg, per_actor
                    )
                )
            self.actors = self._start(sizes, options, ready_timeout)
        except RayError as error:
            self.close()
            raise RayPoolError(f"the pool's actors could not start: {error}") from error
        except BaseException:
            self.close()
            raise

    def _start(
        self, sizes: list[int], options: Mapping[str, Any], timeout: float
    ) -> tuple[ActorInfo, ...]:
        """Place the actors, build goldens once per node, then open every actor's pool."""
        deadline = time.monotonic() + timeout
        asked = {"CPU": options.get("num_cpus", 1), **options.get("resources", {})}
        refs = [actor.place.remote() for actor in self._actors]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
        self._placed = {refs.index(ref) for ref in ready}
        if len(ready) < len(refs):
            has = {k: v for k, v in ray.cluster_resources().items() if k in asked}
            raise RayPoolError(
                f"{len(refs) - len(ready)} of {len(refs)} actors asking {_amounts(asked)} each "
                f"could not be placed within {timeout:g} s; the cluster has {_amounts(has)} "
                "in all"
            )
        places = ray.get(refs)
        builders: dict[str, int] = {}
        for index, (node_id, _, _) in enumerate(places):
            builders.setdefault(node_id, index)
        builds = [
            self._actors[i].build_golden.remote(self.world.seed, self.world.scale)
            for i in builders.values()
        ]
        opens = [actor.open.remote() for actor in self._actors]
        self.goldens: tuple[GoldenBuild, ...] = tuple(
            self._get(builds, deadline, f"golden worlds were not built within {timeout:g} s")
        )
        self._get(opens, deadline, f"the actors' browsers did not start within {timeout:g} s")
        return tuple(
            ActorInfo(index, node_id, host, pid, size)
            for index, ((node_id, host, pid), size) in enumerate(zip(places, sizes, strict=True))
        )

    @staticmethod
    def _get(refs: list[Any], deadline: float, message: str) -> list[Any]:
        try:
            return ray.get(refs, timeout=max(0.0, deadline - time.monotonic()))
        except GetTimeoutError:
            raise RayPoolError(message) from None

    def __len__(self) -> int:
        return self.num_envs

    def run(
        self,
        agent: str | Callable[[int], Any] | Any,
        episodes: int,
        *,
        seed: int = 0,
        chunk: int | None = None,
        on_result: Callable[[EpisodeResult], None] | None = None,
    ) -> list[EpisodeResult]:
        """Play `episodes` episodes (instance seeds seed..seed+episodes-1) over the actors.

        Episodes go out in chunks of `chunk` (default `envs_per_actor`) to whichever actor is
        free; `on_result` is called in this process as results arrive."""
        if self._closed:
            raise RayPoolError("the pool is closed")
        episodes = _positive_int("episodes", episodes)
        chunk = _positive_int("chunk", chunk if chunk is not None else self.envs_per_actor)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, got {seed!r}")
        if isinstance(agent, str):
            agent_from_spec(agent)  # an unknown spec fails here, not in every actor
        elif not (callable(agent) or hasattr(agent, "play")):
            raise TypeError(
                "agent must be a spec string ('oracle', 'null', 'random', 'replay:DIR'), "
                f"a factory instance_seed -> Agent, or an Agent; got {agent!r}"
            )
        try:
            shipped = ray.put(agent)
        except Exception as error:  # noqa: BLE001 - any pickling failure says the same
            raise TypeError(
                f"agent {agent!r} cannot be sent to the actors (it must pickle: use a spec "
                f"string, or a factory whose module every node can import): {error}"
            ) from error
        todo = deque((start, min(chunk, episodes - start)) for start in range(0, episodes, chunk))
        results: list[EpisodeResult | None] = [None] * episodes
        pending: dict[Any, tuple[int, int, int]] = {}
        live = set(range(len(self._actors))) - self._dead
        if not live:
            raise RayPoolError("every actor of the pool has died; start a new pool")

        def feed(index: int) -> None:
            """Give actor `index` one more chunk, unless it already has IN_FLIGHT."""
            if todo and sum(1 for p in pending.values() if p[0] == index) < IN_FLIGHT:
                start, count = todo.popleft()
                ref = self._actors[index].play.remote(shipped, seed + start, count)
                pending[ref] = (index, start, count)

        for _ in range(IN_FLIGHT):  # round robin, so a short run still uses every actor
            for index in sorted(live):
                feed(index)
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            index, start, count = pending.pop(ref)
            try:
                played = ray.get(ref)
            except RayActorError as error:
                todo.appendleft((start, count))
                if index in live:
                    live.discard(index)
                    self._dead.add(index)
                    info = self.actors[index]
                    log.warning(
                        "actor %d (%s, pid %d) died; its episodes go to the others: %s",
                        index,
                        info.host,
                        info.pid,
                        error,
                    )
                if not live:
                    raise RayPoolError(
                        f"every actor of the pool died; {len(todo)} chunks of episodes "
                        f"were left unplayed (last error: {error})"
                    ) from error
                for _ in range(IN_FLIGHT):
                    for other in sorted(live):
                        feed(other)
                continue
            for offset, result in enumerate(played):
                results[start + offset] = result
                if on_result is not None:
                    on_result(result)
            if index in live:
                feed(index)
        return results  # every slot is filled: the loop ends only when no chunk is left

    def close(self, timeout: float = 60.0) -> None:
        """Close every environment and browser, then kill the actors (idempotent)."""
        if self._closed:
            return
        self._closed = True
        actors, self._actors = self._actors, []
        try:
            # An actor never placed, or dead, would never answer.
            closing = [
                actor.close.remote()
                for i, actor in enumerate(actors)
                if i in self._placed and i not in self._dead
            ]
            if closing:
                done, _ = ray.wait(closing, num_returns=len(closing), timeout=timeout)
                for ref in done:
                    try:
                        ray.get(ref)
                    except Exception as error:  # noqa: BLE001 - the actor is killed next
                        log.warning("closing a pool actor failed: %s", error)
        finally:
            for actor in actors:
                ray.kill(actor, no_restart=True)
            if self._owns_ray:
                ray.shutdown()

    def __enter__(self) -> RayEnvPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


__all__ = ["ActorInfo", "GoldenBuild", "RayEnvPool", "RayPoolError"]
