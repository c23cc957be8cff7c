"""officegym templates as BrowserGym tasks, run through BrowserGym's own environment.

The agent's moves are BrowserGym actions sent through `env.step`; the reward is the task's
verdict on the episode's world once the agent messages the user.
"""

from __future__ import annotations

import re

import pytest

from tests.officegym.integrations.conftest import browsergym_module

browsergym_module()

import gymnasium as gym  # noqa: E402

from officegym.harness.runtime import CHROMIUM  # noqa: E402
from officegym.integrations import browsergym as officegym_browsergym  # noqa: E402
from officegym.tasks import registry  # noqa: E402

pytestmark = pytest.mark.browsergym

TASK = "browsergym/officegym.chat.post_update"
# An instance of chat.post_update whose channel is live (feasible), on the seed-0 world.
SEED = 0


def make():
    kwargs = {"executable_path": str(CHROMIUM)} if CHROMIUM.exists() else {}
    return gym.make(TASK, pw_chromium_kwargs=kwargs)


@pytest.fixture(scope="module")
def env():
    env = make()
    yield env
    env.close()


def task_of(env) -> officegym_browsergym.OfficeGymTask:
    return env.unwrapped.task


def bid(env, role: str, name: str | re.Pattern) -> str:
    """The BrowserGym bid of the element with this role and accessible name on the page."""
    found = env.unwrapped.page.get_by_role(role, name=name, exact=isinstance(name, str))
    return found.first.get_attribute("bid")


def test_every_template_is_a_registered_browsergym_task():
    ids = registry.template_ids()
    assert ids
    for template_id in ids:
        assert f"browsergym/officegym.{template_id}" in gym.registry
    assert officegym_browsergym.register() == [f"browsergym/officegym.{i}" for i in ids]


def test_reset_opens_the_start_page_signed_in_with_the_goal(env):
    obs, info = env.reset(seed=SEED)
    task = task_of(env).task
    assert obs["goal"] == task.goal and task.params["text"] in obs["goal"]
    # Signed out, the page would have been sent to /login.
    assert obs["url"].startswith(officegym_browsergym.backend().url + task.start_url)
    assert info["task_info"]["world_id"] == task_of(env).world_id


def test_posting_the_update_then_messaging_the_user_scores_one(env):
    env.reset(seed=SEED)
    params = task_of(env).task.params
    assert params["feasible"]
    origin = officegym_browsergym.backend().url
    obs, reward, done, _, _ = env.step(f'goto("{origin}/chat/c/{params["channel_id"]}")')
    assert obs["last_action_error"] == "" and not done and reward == 0
    box = bid(env, "textbox", re.compile(r"^Message "))
    obs, *_ = env.step(f"fill({box!r}, {params['text']!r})")
    assert obs["last_action_error"] == ""
    # BrowserGym gives a click 500 ms; on a loaded machine an agent may need to click again.
    send = bid(env, "button", "Send")
    for _ in range(3):
        obs, *_ = env.step(f"click({send!r})")
        if obs["last_action_error"] == "":
            break
    assert obs["last_action_error"] == ""
    _, reward, done, _, info = env.step('send_msg_to_user("Posted the update.")')
    assert done and reward == 1.0
    assert info["task_info"]["success"] is True
    assert info["task_info"]["verdict"]["success"] is True


def test_doing_nothing_then_messaging_the_user_scores_zero(env):
    env.reset(seed=SEED)
    _, reward, done, _, info = env.step('send_msg_to_user("Done.")')
    assert done and reward == 0
    assert info["task_info"]["success"] is False


def test_a_step_without_a_message_to_the_user_does_not_end_the_episode(env):
    env.reset(seed=SEED)
    _, reward, done, _, info = env.step("noop(10)")
    assert not done and reward == 0 and info["task_info"] == {}


def test_the_world_is_dropped_when_the_episode_closes():
    env = make()
    try:
        env.reset(seed=SEED)
        task = task_of(env)
        world_id, store = task.world_id, task._backend.store
        assert store.exists(world_id)
    finally:
        env.close()
    assert not store.exists(world_id)
