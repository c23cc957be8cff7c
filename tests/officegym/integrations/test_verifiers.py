"""The `verifiers` environment: rollouts driven through verifiers' own client path.

Two rollouts of `chat.post_update` (instance 0, a feasible one) run against a scripted model
behind a real local chat-completions server: one that opens the channel, posts the update and
says so, and one that only claims to be done. The Verdict decides both rewards.
"""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

# A dev dependency of the main venv; the integrations venv (BrowserGym's) does not carry it.
vf = pytest.importorskip("verifiers.v1")

from officegym.harness.observation import Observation  # noqa: E402
from officegym.integrations import verifiers as officegym_vf  # noqa: E402
from officegym.tasks import registry  # noqa: E402
from tests.officegym.integrations.scripted_model import (  # noqa: E402
    ScriptedModel,
    done_at_once_policy,
    post_update_policy,
    user_turns,
)

TEMPLATE = "chat.post_update"


def run_in_thread(main) -> dict:
    """Run coroutine function `main` on a fresh event loop in its own thread (pytest's main
    thread may host the sync Playwright of other suites)."""
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["value"] = asyncio.run(main())
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(300)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.fixture(scope="module")
def episodes(store):
    """Both scripted rollouts of the same task, in one `serving()` of one environment."""
    env = officegym_vf.load_environment(
        suite=TEMPLATE, split="train", home=str(store.home), observation={"dom": False}
    )
    (task,) = list(env.taskset)
    assert registry.get(TEMPLATE).instance(store.golden(0, "small"), 0).params["feasible"]

    async def main() -> dict:
        played = {}
        async with env.serving():
            for name, policy in (("right", post_update_policy), ("wrong", done_at_once_policy)):
                with ScriptedModel(policy) as model:
                    ctx = vf.ModelContext(
                        model=model.model,
                        client=vf.EvalClientConfig(
                            base_url=model.base_url, api_key_var="OFFICEGYM_SCRIPTED_KEY"
                        ),
                    )
                    episode = await env.run_episode(task, ctx)
                played[name] = (episode, model.requests)
        return played

    return run_in_thread(main)


def url(turn: str) -> str:
    return next(line for line in turn.splitlines() if line.startswith("URL: "))


def rewards(episode: vf.Episode) -> dict[str, float]:
    (trace,) = episode.traces
    return {name: reward.score for name, reward in trace.rewards.items()}


@pytest.mark.browser
def test_right_actions_score_one_and_succeed(episodes):
    episode, _ = episodes["right"]
    assert episode.ok, episode.errors or episode.traces[0].errors
    assert rewards(episode) == {"score": 1.0, "success": 1.0}
    assert episode.traces[0].reward == 1.0


@pytest.mark.browser
def test_claiming_done_without_acting_scores_zero(episodes):
    episode, requests = episodes["wrong"]
    assert episode.ok, episode.errors or episode.traces[0].errors
    assert rewards(episode) == {"score": 0.0, "success": 0.0}
    assert len(requests) == 1


@pytest.mark.browser
def test_success_is_reported_with_weight_zero_and_score_with_weight_one(episodes):
    episode, _ = episodes["right"]
    weights = {name: r.weight for name, r in episode.traces[0].rewards.items()}
    assert weights == {"score": 1.0, "success": 0.0}


@pytest.mark.browser
def test_every_model_turn_is_one_step_and_the_next_user_turn_is_the_new_page(episodes):
    episode, requests = episodes["right"]
    record = episode.traces[0].info["officegym"]
    assert (record["template"], record["instance_seed"], record["steps"]) == (TEMPLATE, 0, 3)
    assert record["action_errors"] == 0 and record["answer"] == "Posted the update."
    first, second = user_turns(requests[0]["messages"]), user_turns(requests[1]["messages"])
    assert first[0].startswith("Goal: ") and "Finish with send_msg_to_user" in first[0]
    assert "Accessibility tree:" in first[0]
    assert requests[0]["messages"][0]["role"] == "system"
    assert len(second) == 2 and url(second[1]) != url(first[0])
    assert "textbox 'Message #" in second[1]


@pytest.mark.browser
def test_each_rollout_drops_its_world(episodes, store):
    prefix = f"ep-{os.getpid()}-vf"
    assert [w for w in store.worlds() if w.startswith(prefix)] == []


def test_a_failed_action_is_shown_in_the_next_user_turn():
    obs: Observation = {
        "url": "http://127.0.0.1/chat/c/1",
        "axtree_txt": "RootWebArea 'general'",
        "last_action_error": "no element with bid '999'",
    }
    turn = officegym_vf.next_turn(obs)
    assert turn.startswith("Last action failed: no element with bid '999'")
    assert "RootWebArea 'general'" in turn


def test_verifiers_resolves_the_taskset_id_to_this_environment():
    config = vf.resolve_env_config(
        {"taskset": {"id": officegym_vf.TASKSET_ID, "suite": TEMPLATE, "split": "train"}}
    )
    env = vf.load_environment(config)
    assert isinstance(env, officegym_vf.OfficeGymEnv)
    assert isinstance(env.taskset, officegym_vf.OfficeGymTaskset)
    assert vf.default_harness_id(officegym_vf.TASKSET_ID) == officegym_vf.TASKSET_ID


def test_suite_by_app_keeps_only_templates_using_that_app_in_the_split():
    chosen = officegym_vf.select_templates("crm", "test")
    assert chosen
    for template_id in chosen:
        template = registry.get(template_id)
        assert "crm" in template.apps and template.split == "test"


def test_suite_all_with_both_splits_is_every_template():
    assert officegym_vf.select_templates("all", "all") == registry.template_ids()


def test_train_and_test_splits_partition_the_suite():
    train = set(officegym_vf.select_templates("chat", "train"))
    test = set(officegym_vf.select_templates("chat", "test"))
    assert train and test and not train & test
    assert train | test == set(officegym_vf.select_templates("chat", "all"))


def test_suite_of_ids_in_the_wrong_split_is_empty():
    assert officegym_vf.select_templates([TEMPLATE], "test") == []


def test_unknown_suite_names_are_refused():
    with pytest.raises(ValueError, match="no-such-app"):
        officegym_vf.select_templates("chat,no-such-app", "train")


def test_taskset_yields_each_instance_of_each_template(store):
    env = officegym_vf.load_environment(
        suite=[TEMPLATE, "chat.set_topic"], split="all", instances=2, seed=3, home=str(store.home)
    )
    keys = [task.key for task in env.taskset]
    assert keys == [
        "chat.post_update#3",
        "chat.post_update#4",
        "chat.set_topic#3",
        "chat.set_topic#4",
    ]
