"""The observation's declaration (one type, one field table, the space built from it), and the
BrowserGym goal and chat it carries through a live episode."""

from __future__ import annotations

import typing

import numpy as np
import pytest
from gymnasium import spaces

import officegym
from officegym.harness.observation import FIELDS, GREETING, Observation, chat_messages, wanted
from officegym.harness.spaces import AnyDict, Float, ObservationOptions, Unicode, observation_space
from officegym.seed_data.clock import now_of
from tests.harness.envs import hello_task


def test_the_field_table_declares_exactly_the_observation_type() -> None:
    assert list(FIELDS) == list(typing.get_type_hints(Observation))


def test_text_parts_are_computed_by_default_and_images_only_when_asked() -> None:
    keys = wanted(ObservationOptions())
    assert "axtree_txt" in keys and "dom_txt" in keys
    assert "screenshot" not in keys and "som_screenshot" not in keys


def test_parts_left_out_are_absent_from_the_space() -> None:
    space = observation_space(ObservationOptions(dom=False, screenshot=True), (1280, 720))
    assert "dom_txt" not in space.spaces
    assert space["screenshot"] == spaces.Box(0, 255, (720, 1280, 3), np.uint8)


def test_the_space_has_browsergyms_keys_and_kinds() -> None:
    space = observation_space(ObservationOptions(), (1280, 720))
    assert set(space.spaces) == set(wanted(ObservationOptions()))
    assert isinstance(space["goal"], Unicode)
    assert isinstance(space["open_pages_urls"], spaces.Sequence)
    assert space["active_page_index"].dtype == np.int64
    assert space["elapsed_time"].dtype == np.float64


def test_each_key_has_its_own_space() -> None:
    space = observation_space(ObservationOptions(), (1280, 720))
    assert space["goal"] is not space["url"]


def test_browsergym_page_objects_are_an_option_off_by_default() -> None:
    objects = {"axtree_object", "dom_object", "extra_element_properties"}
    assert not objects & set(wanted(ObservationOptions()))
    assert objects <= set(wanted(ObservationOptions(objects=True)))


def test_the_goal_object_and_the_chat_are_always_present() -> None:
    keys = wanted(ObservationOptions(axtree=False, dom=False))
    assert "goal_object" in keys and "chat_messages" in keys


def test_page_index_and_elapsed_time_have_browsergyms_shape() -> None:
    space = observation_space(ObservationOptions(), (1280, 720))
    assert space["active_page_index"].shape == (1,)
    assert space["elapsed_time"].shape == (1,)
    assert np.array([0], dtype=np.int64) in space["active_page_index"]
    assert np.array([2.5]) in space["elapsed_time"]


def test_the_chat_opens_with_browsergyms_greeting_then_the_goal() -> None:
    opening = chat_messages("Close the deal.", opened=100.0)
    assert opening == (
        {"role": "assistant", "timestamp": 100.0, "message": GREETING},
        {"role": "user", "timestamp": 100.0, "message": "Close the deal."},
    )


def test_the_agents_answer_and_infeasible_report_close_the_chat() -> None:
    answered = chat_messages("Q?", opened=100.0, answer="42", ended=103.5)
    assert answered[-1] == {"role": "assistant", "timestamp": 103.5, "message": "42"}
    refused = chat_messages("Q?", opened=100.0, infeasible="no such deal", ended=104.0)
    assert refused[-1] == {"role": "infeasible", "timestamp": 104.0, "message": "no such deal"}


def test_the_space_holds_the_goal_chat_and_page_objects() -> None:
    space = observation_space(ObservationOptions(objects=True), (1280, 720))
    chat = chat_messages("Q?", opened=100.0, answer="42", ended=101.0)
    assert chat in space["chat_messages"]
    assert ({"type": "text", "text": "Q?"},) in space["goal_object"]
    assert {"nodes": []} in space["axtree_object"]
    assert "text" not in space["axtree_object"]
    stamped_by_int = ({"role": "user", "timestamp": 100, "message": "Q?"},)
    assert stamped_by_int not in space["chat_messages"]
    assert isinstance(space["extra_element_properties"], AnyDict)
    assert isinstance(space["chat_messages"].feature_space["timestamp"], Float)


# -- in a live episode ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def env(store):
    env = officegym.make(hello_task(store.golden(0, "tiny")), home=store.home)
    yield env
    env.close()


@pytest.mark.browser
def test_a_reset_opens_browsergyms_chat_at_the_world_clock(env, store):
    obs, _ = env.reset(seed=0)
    opened = now_of(store.golden(0, "tiny")).timestamp()
    assert obs["goal_object"] == ({"type": "text", "text": obs["goal"]},)
    assert obs["chat_messages"] == chat_messages(obs["goal"], opened=opened)
    assert obs["active_page_index"].shape == obs["elapsed_time"].shape == (1,)
    assert obs in env.observation_space


@pytest.mark.browser
def test_the_agents_final_message_ends_the_chat(env):
    env.reset(seed=0)
    obs, _, terminated, _, _ = env.step('send_msg_to_user("All posted.")')
    assert terminated
    last = obs["chat_messages"][-1]
    assert (last["role"], last["message"]) == ("assistant", "All posted.")
    assert last["timestamp"] >= obs["chat_messages"][0]["timestamp"]
    assert obs in env.observation_space
