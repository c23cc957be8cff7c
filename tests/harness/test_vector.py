"""`gymnasium.make_vec` on a registered id, in both modes: one world per sub-env.

Each sub-env plays in its own world; a registered template needs the small seed-0 golden, which
is copied from the default store's cache when it is there and built otherwise.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import pytest

import officegym.harness  # noqa: F401 - registers the `officegym/<template-id>` ids
from officegym.harness.actions import format_action
from officegym.seed_data.store import WorldStore

pytestmark = pytest.mark.browser

ENV_ID = "officegym/chat.post_update"
ASYNC = {"shared_memory": False, "context": "spawn"}
_COMPOSER = re.compile(r"^\s*\[(\w+)\] textbox 'Message ", re.MULTILINE)
_SEND = re.compile(r"^\s*\[(\w+)\] button 'Send'", re.MULTILINE)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store home holding the golden the registered templates play in."""
    home = tmp_path_factory.mktemp("officegym-vector")
    store = WorldStore(home)
    cached = WorldStore().golden_path(0, "small")
    if cached.is_file():
        store.golden_dir.mkdir(parents=True)
        shutil.copyfile(cached, store.golden_path(0, "small"))
    store.golden(0, "small")
    return home


@pytest.fixture(scope="module")
def envs(home: Path) -> Iterator[gymnasium.vector.VectorEnv]:
    """Two sub-envs in spawned worker processes, from the ids' vector entry point."""
    envs = gymnasium.make_vec(ENV_ID, num_envs=2, home=home)
    yield envs
    envs.close()


def worlds(home: Path) -> list[str]:
    return WorldStore(home).worlds()


def changes(home: Path, world_id: str) -> int:
    """How many rows world `world_id` has inserted, deleted or updated since its reset."""
    store = WorldStore(home)
    try:
        return sum(
            len(t.inserted) + len(t.deleted) + len(t.updated)
            for t in store.diff(world_id).tables.values()
        )
    finally:
        store.close()


def descendants(pids: list[int]) -> set[int]:
    """Every live process below `pids` (drivers, browsers and their helpers)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), set(pids)
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def post_message(obs: dict, index: int, text: str) -> str:
    """The action that posts `text` from the composer of sub-env `index`'s page."""
    tree = obs["axtree_txt"][index]
    box, send = _COMPOSER.search(tree).group(1), _SEND.search(tree).group(1)
    return f"{format_action('fill', box, text)}\n{format_action('click', send)}"


def assert_batch_fits_the_space(envs: gymnasium.vector.VectorEnv, obs: dict) -> None:
    single = envs.single_observation_space
    assert set(obs) == set(single.spaces)
    for key, space in single.spaces.items():
        for index in range(envs.num_envs):
            assert space.contains(obs[key][index]), (key, index, obs[key][index])
    assert envs.observation_space.contains(obs)


def test_make_vec_defaults_to_spawned_workers_without_shared_memory(envs):
    assert isinstance(envs, gymnasium.vector.AsyncVectorEnv)
    assert envs.shared_memory is False
    assert envs.context == "spawn"


def test_async_reset_gives_each_sub_env_its_own_world(envs, home):
    obs, info = envs.reset(seed=0)
    assert_batch_fits_the_space(envs, obs)
    first, second = info["world_id"]
    assert first != second
    assert {first, second} <= set(worlds(home))
    assert obs["url"][0] != obs["url"][1]  # each worker runs its own server


def test_an_action_in_one_sub_env_leaves_the_other_world_unchanged(envs, home):
    obs, info = envs.reset(seed=0)
    world_ids = info["world_id"]
    obs, _, terminated, truncated, _ = envs.step([post_message(obs, 0, "ship it"), "noop()"])
    assert obs["last_action_error"][0] == ""
    assert not terminated.any() and not truncated.any()
    assert changes(home, world_ids[0]) > 0
    assert changes(home, world_ids[1]) == 0


def test_a_finished_sub_env_starts_a_fresh_world_on_the_next_step(envs, home):
    obs, info = envs.reset(seed=0)
    world_id = info["world_id"][0]
    envs.step([post_message(obs, 0, "ship it"), "noop()"])
    _, _, terminated, _, info = envs.step(['send_msg_to_user("Posted.")', "noop()"])
    assert terminated.tolist() == [True, False]
    assert info["_verdict"].tolist() == [True, False]
    assert changes(home, world_id) > 0
    obs, reward, terminated, truncated, info = envs.step(["noop()", "noop()"])
    assert_batch_fits_the_space(envs, obs)
    assert reward[0] == 0.0 and not terminated[0] and not truncated[0]
    assert obs["last_action"][0] == "" and obs["last_action"][1] == "noop()"
    assert info["_world_id"].tolist() == [True, False] and info["world_id"][0] == world_id
    assert changes(home, world_id) == 0


def test_closing_leaves_no_world_and_no_browser_process(envs, home):
    envs.reset(seed=0)
    workers = [process.pid for process in envs.processes]
    below = descendants(workers)
    assert below, "the workers run no browser"
    envs.close()
    assert worlds(home) == []
    assert [pid for pid in [*workers, *below] if alive(pid)] == []


def test_sync_sub_envs_share_this_process_but_not_a_world(home):
    envs = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", home=home)
    try:
        obs, info = envs.reset(seed=0)
        assert_batch_fits_the_space(envs, obs)
        assert info["world_id"][0] != info["world_id"][1]
        obs, *_ = envs.step([post_message(obs, 0, "ship it"), "noop()"])
        assert changes(home, info["world_id"][0]) > 0
        assert changes(home, info["world_id"][1]) == 0
    finally:
        envs.close()
    # Its own worlds only: the home is shared with the async tests' worker processes.
    assert not set(info["world_id"]) & set(worlds(home))
