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
from officegym.harness.observation import FIELDS
from officegym.harness.spaces import ObservationOptions, observation_space

SIZE = (24, 32)  # height, width


def screenshot(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (*SIZE, 3), dtype=np.uint8)


def full_observation() -> dict:
    return {
        "goal": "Post 'hello' in #sales.",
        "instructions": "Finish with send_msg_to_user(text).",
        "url": "http://127.0.0.1:8000/chat/c/3",
        "open_pages_urls": ("http://127.0.0.1:8000/chat/c/3", "about:blank"),
        "open_pages_titles": ("#sales · Chat", ""),
        "active_page_index": np.array(1, dtype=np.int64),
        "focused_element_bid": "12",
        "last_action": 'fill("12", "héllo ✓")',
        "last_action_error": "",
        "elapsed_time": np.array(1.25, dtype=np.float64),
        "axtree_txt": "[1] RootWebArea '#sales · Chat'",
        "dom_txt": '<main bid="1"></main>',
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


def test_images_can_be_left_out() -> None:
    data = encode(full_observation(), images=False)
    assert "screenshot" not in data and "som_screenshot" not in data
    assert data["axtree_txt"] == "[1] RootWebArea '#sales · Chat'"


def test_a_partial_observation_decodes_to_the_keys_it_has() -> None:
    assert decode({"url": "/crm", "active_page_index": 0}) == {
        "url": "/crm",
        "active_page_index": np.array(0),
    }


def test_a_decoded_observation_is_in_the_observation_space() -> None:
    parts = ObservationOptions(axtree=True, dom=True, screenshot=True, som=True)
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
