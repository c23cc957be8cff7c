"""The observation's declaration: one type, one field table, the space built from it."""

from __future__ import annotations

import typing

import numpy as np
from gymnasium import spaces

from officegym.harness.observation import FIELDS, Observation, wanted
from officegym.harness.spaces import ObservationOptions, Unicode, observation_space


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
