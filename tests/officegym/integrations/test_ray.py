"""The Ray pool on a local cluster: two actors of one environment each, on the tiny world.

One cluster and one pool serve the module (starting Ray, two workers, two servers and two
Chromiums is most of its time), and one oracle run serves the tests that read its results. The
last two tests end it: one kills an actor's process, the other closes the pool and checks that
no browser or actor of it is left.
"""

from __future__ import annotations

import importlib
import os
import select
import signal
import sys
import time
from pathlib import Path

import pytest

# A dev dependency of the main venv; the integrations venv (BrowserGym's) does not carry it.
ray = pytest.importorskip("ray")

from officegym.harness.agents import NullAgent  # noqa: E402
from officegym.harness.recording import load_episode  # noqa: E402
from officegym.harness.session import SessionOptions  # noqa: E402
from officegym.integrations import ray as ray_pool  # noqa: E402
from officegym.integrations.ray import RayEnvPool, RayPoolError  # noqa: E402
from officegym.seed_data.store import WorldStore  # noqa: E402
from officegym.tasks.chat.post_update import PostUpdate  # noqa: E402
from officegym.tasks.protocol import WorldSpec  # noqa: E402

pytestmark = [pytest.mark.xdist_group("ray"), pytest.mark.browser]

# Actions get 30 s, as beside a loaded suite (the default 3 s can fail an honest oracle there).
ROOMY = SessionOptions(action_timeout_ms=30_000)


class TinyPostUpdate(PostUpdate):
    """`chat.post_update` on the tiny world: a real template and oracle, the cheapest golden."""

    world = WorldSpec(0, "tiny")


def children(pid: int) -> set[int]:
    """Every live descendant of process `pid` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def still_running(pids: set[int], timeout: float) -> set[int]:
    """The processes among `pids` that have not exited within `timeout` seconds (each
    process's pidfd becomes readable when it exits)."""
    deadline = time.monotonic() + timeout
    running = set()
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        finally:
            os.close(fd)
        if not ready:
            running.add(pid)
    return running


def is_chromium(pid: int) -> bool:
    try:
        return b"chromium" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster of 2 CPUs that reports no usage statistics (no network)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(
            address="local",
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
        yield
        ray.shutdown()


@pytest.fixture(scope="module")
def pool(cluster, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("ray-pool")
    pool = RayEnvPool(
        TinyPostUpdate(),
        num_envs=2,
        envs_per_actor=1,
        home=root / "home",
        record=root / "records",
        record_screenshots=False,
        observation={"dom": False},
        session=ROOMY,
    )
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def oracle_results(pool):
    return pool.run("oracle", 2, seed=0)


def test_goldens_are_built_once_per_node(pool, oracle_results):
    (build,) = pool.goldens  # one node, one build
    assert build.built
    assert {actor.node_id for actor in pool.actors} == {build.node_id}
    golden = Path(build.path)
    # Both actors have played since: a second build would have replaced the file.
    assert (golden.stat().st_ino, golden.stat().st_mtime_ns) == (build.inode, build.mtime_ns)
    assert [p.name for p in golden.parent.iterdir() if p.suffix != ".lock"] == [golden.name]


def test_the_oracle_scores_one_in_every_episode(oracle_results):
    assert [(r.instance_seed, r.success, r.score) for r in oracle_results] == [
        (0, True, 1.0),
        (1, True, 1.0),
    ]


def test_records_hold_each_episodes_verdict(oracle_results):
    for result in oracle_results:
        episode = load_episode(result.record_dir)
        assert (episode.verdict.success, episode.verdict.score) == (True, 1.0)


def test_results_come_back_in_episode_order_from_both_actors(oracle_results):
    assert [r.instance_seed for r in oracle_results] == [0, 1]
    # Chunks are dealt round robin: episode 0 to actor 0, episode 1 to actor 1.
    assert [Path(r.record_dir).parent.name for r in oracle_results] == ["actor-00", "actor-01"]


def test_the_null_agent_from_a_factory_scores_zero(pool):
    results = pool.run(lambda instance_seed: NullAgent(), 2, seed=0)
    assert [(r.instance_seed, r.success, r.score) for r in results] == [
        (0, False, 0.0),
        (1, False, 0.0),
    ]


def test_an_unknown_agent_spec_is_refused_before_any_episode(pool):
    with pytest.raises(ValueError, match="unknown agent 'oracel'"):
        pool.run("oracel", 1)


def test_a_cluster_without_room_for_the_actors_is_an_error_not_a_hang(cluster):
    with pytest.raises(RayPoolError, match=r"1 of 1 actors asking CPU=3 each could not be placed"):
        RayEnvPool(TinyPostUpdate(), 1, num_cpus=3, ready_timeout=0.5)


@pytest.mark.parametrize(
    ("num_envs", "envs_per_actor", "message"),
    [
        (0, 1, "num_envs must be an int >= 1, got 0"),
        (2.5, 1, "num_envs must be an int >= 1, got 2.5"),
        (2, 0, "envs_per_actor must be an int >= 1, got 0"),
        (2, 3, r"envs_per_actor \(3\) cannot exceed num_envs \(2\)"),
    ],
)
def test_bad_pool_sizes_are_refused(num_envs, envs_per_actor, message):
    with pytest.raises(ValueError, match=message):
        RayEnvPool("chat.post_update", num_envs, envs_per_actor)


def test_without_ray_the_import_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.delitem(sys.modules, "officegym.integrations.ray")
    with pytest.raises(ImportError, match=r"pip install 'officegym\[ray\]'"):
        importlib.import_module("officegym.integrations.ray")


def test_a_node_home_reads_goldens_from_the_shared_folder(tmp_path):
    shared, home = tmp_path / "shared", tmp_path / "node"
    ray_pool._link_goldens(home, shared)
    ray_pool._link_goldens(home, shared)  # a second actor on the node finds the link
    assert WorldStore(home).golden_path(0, "tiny").parent.resolve() == shared.resolve()
    (tmp_path / "other" / "golden").mkdir(parents=True)
    with pytest.raises(RayPoolError, match="is not a link to"):
        ray_pool._link_goldens(tmp_path / "other", shared)


def test_episodes_of_an_actor_that_died_are_played_by_the_others(pool):
    os.kill(pool.actors[0].pid, signal.SIGKILL)  # the actor the first chunk goes to
    (result,) = pool.run("null", 1, seed=5)
    assert (result.instance_seed, Path(result.record_dir).parent.name) == (5, "actor-01")


def test_close_leaves_no_chromium_and_no_actor_of_the_pool_behind(pool):
    actors = still_running({actor.pid for actor in pool.actors}, timeout=0)  # one may be killed
    browsers = {pid: {p for p in children(pid) if is_chromium(p)} for pid in actors}
    assert browsers and all(browsers.values()), browsers  # each actor runs its own Chromium
    pool.close()
    assert still_running(set().union(*browsers.values()), timeout=10) == set()
    assert still_running(actors, timeout=30) == set()
