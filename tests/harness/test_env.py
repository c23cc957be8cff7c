"""The Gymnasium environment: API, spaces, reset, step, reward and episode end."""

from __future__ import annotations

from datetime import UTC

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import officegym
from officegym.harness import EpisodeOver
from officegym.harness.actions import format_action
from officegym.seed_data.clock import now_of
from officegym.seed_data.store import WorldStore
from officegym.tasks.protocol import TaskError
from tests.harness.envs import HELLO, TINY, hello_task

pytestmark = pytest.mark.browser


@pytest.fixture
def task(store: WorldStore):
    return hello_task(store.golden(0, "tiny"))


@pytest.fixture
def env(store: WorldStore, task):
    env = officegym.make(task, home=store.home)
    yield env
    env.close()


def post_hello(env) -> tuple:
    """Fill the composer and press Send through the action API; returns the last step."""
    box = env.actions.find("textbox", "Message")
    env.actions.fill(box, HELLO)
    return env.actions.click(env.actions.find("button", "Send", exact=True))


def test_reset_gives_browsergym_observation_at_the_start_page(env, task):
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space
    assert obs["goal"] == task.goal
    assert obs["url"].endswith(task.start_url)
    assert obs["open_pages_urls"] == (obs["url"],)
    assert obs["active_page_index"].shape == (1,) and obs["active_page_index"][0] == 0
    assert obs["elapsed_time"].shape == (1,) and obs["elapsed_time"][0] == 0.0
    assert obs["last_action"] == "" and obs["last_action_error"] == ""
    assert "textbox 'Message" in obs["axtree_txt"]
    assert "bid=" in obs["dom_txt"]
    assert "screenshot" not in obs
    assert info["world_id"] == env.world_id


def test_check_env_passes(env):
    check_env(env.unwrapped, skip_close_check=True)


def test_reset_with_the_same_seed_gives_the_same_observation(env):
    first, _ = env.reset(seed=5)
    post_hello(env)
    second, _ = env.reset(seed=5)
    for key in ("goal", "url", "axtree_txt", "dom_txt", "focused_element_bid"):
        assert first[key] == second[key], key


def test_a_malformed_action_is_an_error_in_the_observation_not_an_exception(env):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("__import__('os').system('true')")
    assert "not allowed" in obs["last_action_error"] or "only" in obs["last_action_error"]
    assert obs["last_action"] == "__import__('os').system('true')"
    assert (reward, terminated, truncated) == (0.0, False, False)
    obs, *_ = env.step(format_action("click", "999999"))
    assert "no element with bid '999999'" in obs["last_action_error"]


def test_posting_and_answering_terminates_with_full_reward(env):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = post_hello(env)
    assert obs["last_action_error"] == ""
    assert not terminated and reward == 0.0
    obs, reward, terminated, truncated, info = env.step('send_msg_to_user("done")')
    assert terminated and not truncated
    assert reward == 1.0
    assert info["verdict"].success and info["answer"] == "done"
    bodies = [r["body"] for r in info["diff"].table("chat_message").inserted.values()]
    assert bodies == [HELLO]


def test_step_after_the_episode_ended_raises(env):
    env.reset(seed=0)
    env.step('report_infeasible("cannot")')
    with pytest.raises(EpisodeOver, match="reset"):
        env.step("noop()")


def test_reaching_max_steps_truncates_and_grades(store, task):
    env = officegym.make(task, home=store.home, max_steps=2)
    try:
        env.reset(seed=0)
        *_, truncated, info = env.step("noop(0)")
        assert not truncated
        _, reward, terminated, truncated, info = env.step("noop(0)")
        assert truncated and not terminated
        assert reward == info["verdict"].score < 1
        assert not info["verdict"].success
    finally:
        env.close()


def test_reset_restores_the_world(env):
    env.reset(seed=0)
    post_hello(env)
    assert env.verify().success
    env.reset(seed=0)
    assert not env.verify().success
    assert "hello from the harness" not in env.step("noop(0)")[0]["axtree_txt"]


def test_page_clock_is_frozen_at_the_world_clock(env):
    env.reset(seed=0)
    page_ms = env._shared.run(env._core.session.page.evaluate("Date.now()"))
    world = now_of(env.store.world_path(env.world_id))
    assert page_ms == world.replace(tzinfo=UTC).timestamp() * 1000


def test_dense_reward_pays_the_change_of_score(store, task):
    env = officegym.make(task, home=store.home, reward="dense")
    try:
        env.reset(seed=0)
        _, reward, *_ = env.step("noop(0)")
        assert reward == 0.0
        box = env.actions.find("textbox", "Message")
        env.actions.fill(box, HELLO)
        _, reward, *_ = env.actions.click(env.actions.find("button", "Send", exact=True))
        assert reward == 1.0
        _, reward, terminated, *_ = env.step('send_msg_to_user("ok")')
        assert terminated and reward == 0.0
    finally:
        env.close()


def test_screenshots_are_computed_only_when_asked_for(store, task):
    env = officegym.make(task, home=store.home, observation={"dom": False, "screenshot": True})
    try:
        obs, _ = env.reset(seed=0)
        assert obs["screenshot"].shape == (720, 1280, 3)
        assert obs["screenshot"].dtype == np.uint8
        assert "dom_txt" not in obs
        assert obs in env.observation_space
    finally:
        env.close()


def test_ad_hoc_task_needs_goal_user_and_verify():
    with pytest.raises(TaskError, match="goal=, user= and verify="):
        officegym.make(goal="do something")


def test_ad_hoc_task_from_keywords(store):
    golden = store.golden(0, "tiny")
    task = hello_task(golden)
    env = officegym.make(
        goal=task.goal,
        user=task.user,
        start_url=task.start_url,
        verify=task.verify,
        world=TINY,
        home=store.home,
    )
    try:
        obs, _ = env.reset()
        assert obs["goal"] == task.goal
        assert env.spec.id == "officegym/adhoc"
    finally:
        env.close()


def test_registered_template_through_gymnasium_make(store):
    import gymnasium

    env = gymnasium.make(
        "officegym.harness:officegym/chat.post_update", home=store.home, observation={"dom": False}
    )
    try:
        obs, _ = env.reset(seed=4)
        assert "#" in obs["goal"]
        reward, info = env.unwrapped.solve()
        assert reward == 1.0 and info["verdict"].success
    finally:
        env.close()


def test_an_external_server_sharing_the_store_is_used(store, task):
    from officegym.apps.web import start_background_server

    with start_background_server(store) as server:
        env = officegym.make(task, home=store.home, server=server.url)
        try:
            obs, _ = env.reset(seed=0)
            assert obs["url"].startswith(server.url)
            assert env.server_url == server.url
            post_hello(env)
            assert env.verify().success
        finally:
            env.close()


def test_a_page_that_navigates_while_observed_is_settled_and_observed_again(env, monkeypatch):
    from officegym.harness import env as env_module

    real = env_module.observe
    calls = []

    async def navigating_once(page, **kwargs):
        calls.append(page.url)
        if len(calls) == 1:
            raise env_module.ObservationError(f"cannot observe {page.url!r}; it is navigating")
        return await real(page, **kwargs)

    env.reset(seed=0)
    monkeypatch.setattr(env_module, "observe", navigating_once)
    obs, _, _, _, _ = env.step("noop(0)")
    assert len(calls) == 2 and obs["axtree_txt"]


def test_a_page_that_never_stops_navigating_is_an_error_after_a_few_tries(env, monkeypatch):
    from officegym.harness import env as env_module

    calls = []

    async def always_navigating(page, **kwargs):
        calls.append(page.url)
        raise env_module.ObservationError(f"cannot observe {page.url!r}; it is navigating")

    env.reset(seed=0)
    monkeypatch.setattr(env_module, "observe", always_navigating)
    with pytest.raises(env_module.ObservationError):
        env.step("noop(0)")
    assert len(calls) == env_module.OBSERVE_TRIES


def test_only_the_current_episodes_scratch_folder_is_kept(env):
    for seed in range(3):
        env.reset(seed=seed)
    scratch = env._core._scratch
    assert sorted(p.name for p in scratch.iterdir() if p.name != "spare") == ["00003"]
