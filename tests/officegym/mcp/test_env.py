"""API-mode tasks: templates played through the MCP tools, graded by their own verifiers."""

from __future__ import annotations

import pytest
from gymnasium.utils.env_checker import check_env

import officegym
from officegym.mcp.env import McpEnv
from tests.officegym.mcp.scripts import SCRIPTS, Play

# (template, instance seed): every app, three tasks across two apps, state changes, answers
# and one instance that asks for the impossible (contact_email_lookup seed 0: no email).
PROVEN = [
    ("chat.set_topic", 0),
    ("chat.post_update", 0),
    ("chat.reply_in_thread", 0),
    ("chat.channel_member_count", 0),
    ("crm.move_deal_stage", 0),
    ("crm.add_account_note", 0),
    ("crm.contact_email_lookup", 0),
    ("sheets.rename_sheet", 0),
    ("sheets.comment_on_cell", 0),
    ("booking.approve_request", 0),
    ("booking.trip_total_answer", 0),
    ("booking.cancel_trip_refund", 0),
    ("crm.post_deal_summary", 0),
    ("crm.update_phone_from_chat", 0),
    ("sheets.copy_won_deals", 0),
]


@pytest.fixture
def env_for(store):
    """Makes `McpEnv`s on the session store and closes them afterwards."""
    made: list[McpEnv] = []

    def make(template_id: str, **options) -> McpEnv:
        made.append(McpEnv(template_id, store=store, **options))
        return made[-1]

    yield make
    for env in made:
        env.close()


@pytest.mark.parametrize(("template_id", "seed"), PROVEN, ids=[t for t, _ in PROVEN])
def test_the_oracle_effects_through_tools_score_one(env_for, template_id, seed):
    env = env_for(template_id)
    env.reset(seed=seed)
    SCRIPTS[template_id](Play(env), env.task.params)
    assert env.done and not env.truncated
    score, info = env.finish()
    assert score == 1.0 and info["success"], str(info["verdict"])
    assert env.action_errors == 0


@pytest.mark.parametrize(("template_id", "seed"), PROVEN, ids=[t for t, _ in PROVEN])
def test_the_null_agent_scores_zero(env_for, template_id, seed):
    env = env_for(template_id)
    env.reset(seed=seed)
    score, info = env.finish()
    assert score == 0.0 and not info["success"]
    assert not info["diff"]


def test_make_in_mcp_mode_observes_goal_user_apps_and_the_tools_of_each_app(store):
    env = officegym.make("crm.post_deal_summary", mode="mcp", store=store)
    try:
        assert isinstance(env, McpEnv) and env.spec.id == "officegym/crm.post_deal_summary"
        obs, info = env.reset(seed=0)
        assert obs["goal"] == env.task.goal and obs["user"] == env.task.user
        assert obs["apps"] == ("chat", "crm") and info["world_id"] == env.world_id
        names = [tool["name"] for tool in obs["tools"]]
        assert {name.split("_")[0] for name in names[:-2]} == {"chat", "crm"}
        assert names[-2:] == ["send_msg_to_user", "report_infeasible"]
        assert all(tool["input_schema"]["type"] == "object" for tool in obs["tools"])
        assert env.observation_space.contains(obs)
    finally:
        env.close()
    assert not store.exists(env.world_id)


def test_a_bad_step_is_an_observation_error_and_the_episode_goes_on(env_for):
    env = env_for("chat.set_topic")
    env.reset(seed=0)
    bad = [
        "not json",
        {"tool": "chat_fly_away"},
        {"tool": "chat_get_channels_item", "arguments": {"channel_id": "x"}},
        {"tool": "chat_get_channels_item", "arguments": {"channel_id": 999999}},
        {"tool": "send_msg_to_user", "arguments": {}},
    ]
    errors = []
    for action in bad:
        obs, reward, terminated, truncated, _ = env.step(action)
        errors.append(obs["last_action_error"])
        assert (reward, terminated, truncated) == (0.0, False, False)
    assert "not JSON" in errors[0]
    assert "no tool 'chat_fly_away'" in errors[1]
    assert "'x' is not of type 'integer'" in errors[2]
    assert errors[3].startswith("HTTP 404")
    assert "'text' is a required property" in errors[4]
    assert env.action_errors == len(bad)


def test_max_steps_truncates_and_grades(env_for):
    env = env_for("chat.set_topic", max_steps=1)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step({"tool": "chat_get_sidebar", "arguments": {}})
    assert (terminated, truncated, reward) == (False, True, 0.0)
    assert info["verdict"].score == 0.0 and env.graded


def test_gymnasium_check_env_passes(env_for):
    check_env(env_for("chat.set_topic"), skip_render_check=True)
