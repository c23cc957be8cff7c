"""The observation codec: JSON out, the same observation back, screenshots byte for byte."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from officegym.harness.codec import (
    CodecError,
    decode,
    encode,
    png_array,
    png_bytes,
    png_data_uri,
)
from officegym.harness.observation import FIELDS, chat_messages
from officegym.harness.spaces import ObservationOptions, observation_space

SIZE = (24, 32)  # height, width


def screenshot(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (*SIZE, 3), dtype=np.uint8)


GOAL = "Post 'hello' in #sales."


def full_observation() -> dict:
    return {
        "goal": GOAL,
        "goal_object": ({"type": "text", "text": GOAL},),
        "chat_messages": chat_messages(GOAL, opened=1.7e9, answer="done", ended=1.7e9 + 2.5),
        "instructions": "Finish with send_msg_to_user(text).",
        "url": "http://127.0.0.1:8000/chat/c/3",
        "open_pages_urls": ("http://127.0.0.1:8000/chat/c/3", "about:blank"),
        "open_pages_titles": ("#sales · Chat", ""),
        "active_page_index": np.array([1], dtype=np.int64),
        "focused_element_bid": "12",
        "last_action": 'fill("12", "héllo ✓")',
        "last_action_error": "",
        "elapsed_time": np.array([1.25], dtype=np.float64),
        "axtree_txt": "[1] RootWebArea '#sales · Chat'",
        "dom_txt": '<main bid="1"></main>',
        "axtree_object": {"nodes": [{"nodeId": "1", "browsergym_id": "1", "childIds": []}]},
        "dom_object": {"documents": [], "strings": ["bid", "1"]},
        "extra_element_properties": {
            "1": {
                "visibility": 1.0,
                "bbox": [0.0, 0.0, 8.0, 8.0],
                "clickable": False,
                "set_of_marks": False,
            },
        },
        "screenshot": screenshot(0),
        "som_screenshot": screenshot(1),
    }


def assert_same(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, key
            assert np.array_equal(a[key], b[key]), key
        else:
            assert a[key] == b[key], key


def test_an_encoded_observation_is_json() -> None:
    data = encode(full_observation())
    assert json.loads(json.dumps(data)) == data


def test_an_observation_round_trips_through_json() -> None:
    obs = full_observation()
    assert_same(decode(json.loads(json.dumps(encode(obs)))), obs)


def test_screenshots_round_trip_byte_for_byte() -> None:
    obs = full_observation()
    back = decode(encode(obs))
    assert back["screenshot"].tobytes() == obs["screenshot"].tobytes()
    assert back["screenshot"].shape == (*SIZE, 3) and back["screenshot"].dtype == np.uint8


def test_a_screenshot_is_encoded_as_base64_png() -> None:
    data = encode(full_observation())
    assert base64.b64decode(data["screenshot"]).startswith(b"\x89PNG\r\n\x1a\n")


def test_tabs_and_numbers_become_json_lists_and_numbers() -> None:
    data = encode(full_observation())
    assert data["open_pages_urls"] == ["http://127.0.0.1:8000/chat/c/3", "about:blank"]
    assert data["active_page_index"] == 1 and isinstance(data["active_page_index"], int)
    assert data["elapsed_time"] == 1.25


def test_the_goal_and_the_chat_become_lists_of_json_objects() -> None:
    data = encode(full_observation())
    assert data["goal_object"] == [{"type": "text", "text": GOAL}]
    assert [m["role"] for m in data["chat_messages"]] == ["assistant", "user", "assistant"]
    assert data["chat_messages"][2] == {
        "role": "assistant",
        "timestamp": 1.7e9 + 2.5,
        "message": "done",
    }


def test_page_objects_stay_json_and_can_be_left_out() -> None:
    obs = full_observation()
    assert encode(obs)["axtree_object"] is obs["axtree_object"]
    data = encode(obs, objects=False)
    assert not {"axtree_object", "dom_object", "extra_element_properties"} & set(data)
    assert data["axtree_txt"] == obs["axtree_txt"]


def test_numbers_of_older_recordings_decode_to_one_element_arrays() -> None:
    back = decode({"active_page_index": 2, "elapsed_time": 0.5})
    assert back["active_page_index"].shape == (1,) and back["active_page_index"].dtype == np.int64
    assert back["elapsed_time"].shape == (1,) and float(back["elapsed_time"][0]) == 0.5


def test_zero_dimensional_numbers_still_encode() -> None:
    assert encode({"active_page_index": np.array(3), "elapsed_time": np.float64(1.5)}) == {
        "active_page_index": 3,
        "elapsed_time": 1.5,
    }


def test_a_number_key_with_several_values_is_refused() -> None:
    with pytest.raises(CodecError, match="'active_page_index' must hold one number"):
        encode({"active_page_index": np.array([0, 1])})


def test_images_can_be_left_out() -> None:
    data = encode(full_observation(), images=False)
    assert "screenshot" not in data and "som_screenshot" not in data
    assert data["axtree_txt"] == "[1] RootWebArea '#sales · Chat'"


def test_a_partial_observation_decodes_to_the_keys_it_has() -> None:
    back = decode({"url": "/crm", "active_page_index": 0})
    assert list(back) == ["url", "active_page_index"]
    assert back["url"] == "/crm" and np.array_equal(back["active_page_index"], [0])


def test_a_decoded_observation_is_in_the_observation_space() -> None:
    parts = ObservationOptions(axtree=True, dom=True, objects=True, screenshot=True, som=True)
    space = observation_space(parts, (SIZE[1], SIZE[0]))
    assert decode(encode(full_observation())) in space


def test_an_unknown_key_is_refused_by_name() -> None:
    with pytest.raises(CodecError, match="'colour' is not an observation key"):
        encode({"colour": "red"})
    with pytest.raises(CodecError, match="'colour' is not an observation key"):
        decode({"colour": "red"})


def test_an_image_must_be_rgb_bytes() -> None:
    with pytest.raises(CodecError, match="H×W×3 uint8"):
        png_bytes(np.zeros((4, 4), dtype=np.uint8))


def test_broken_image_data_is_refused() -> None:
    with pytest.raises(CodecError, match="base64 PNG"):
        decode({"screenshot": "not base64!"})
    with pytest.raises(CodecError, match="not a readable PNG"):
        decode({"screenshot": base64.b64encode(b"not a png").decode()})


def test_png_helpers_round_trip() -> None:
    image = screenshot(3)
    png = png_bytes(image)
    assert np.array_equal(png_array(png), image)
    assert png_data_uri(png) == "data:image/png;base64," + base64.b64encode(png).decode()


def test_the_codec_knows_every_observation_key() -> None:
    assert set(full_observation()) == set(FIELDS)
