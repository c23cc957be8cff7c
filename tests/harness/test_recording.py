"""The episode folder: step lines carry the observation in the codec's JSON."""

from __future__ import annotations

import json

import numpy as np

from officegym.harness.codec import decode
from officegym.harness.recording import SCREENS_DIR, STEPS_FILE, Recorder, load_episode


def observation() -> dict:
    return {
        "goal": "Post the update.",
        "url": "http://127.0.0.1:8000/chat/",
        "open_pages_urls": ("http://127.0.0.1:8000/chat/", "about:blank"),
        "open_pages_titles": ("Chat", ""),
        "active_page_index": np.array([0], dtype=np.int64),
        "last_action": 'click("3")',
        "last_action_error": "",
        "elapsed_time": np.array([0.5], dtype=np.float64),
        "axtree_txt": "[1] RootWebArea 'Chat'",
        "dom_txt": '<main bid="1"></main>',
        "screenshot": np.zeros((2, 2, 3), dtype=np.uint8),
    }


def record_one(tmp_path, **extra) -> dict:
    recorder = Recorder(tmp_path / "ep")
    recorder.begin({"id": "chat.post_update", "goal": "Post the update."}, {"max_steps": 5})
    recorder.record_step(
        1,
        'click("3")',
        observation(),
        reward=0.0,
        terminated=False,
        truncated=False,
        timings_ms={"total": 12.5},
        diff=None,
        blocked_requests=0,
        **extra,
    )
    recorder.close()
    lines = (tmp_path / "ep" / STEPS_FILE).read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0])


def test_a_step_line_holds_the_observation_without_images(tmp_path) -> None:
    line = record_one(tmp_path)
    assert "screenshot" not in line["obs"]
    back = decode(line["obs"])
    expected = {k: v for k, v in observation().items() if k != "screenshot"}
    assert set(back) == set(expected)
    assert back["open_pages_urls"] == expected["open_pages_urls"]
    assert back["active_page_index"].tolist() == [0] and back["elapsed_time"].tolist() == [0.5]


def test_a_step_line_names_the_active_tab_and_the_error(tmp_path) -> None:
    line = record_one(tmp_path)
    assert (line["step"], line["action"], line["title"], line["error"]) == (
        1,
        'click("3")',
        "Chat",
        None,
    )


def test_the_screenshot_is_written_as_its_png_file(tmp_path) -> None:
    line = record_one(tmp_path, screenshot_png=b"\x89PNG fake")
    assert line["screenshot"] == f"{SCREENS_DIR}/0001.png"
    assert (tmp_path / "ep" / line["screenshot"]).read_bytes() == b"\x89PNG fake"


def test_begin_writes_the_episode_file_without_an_agent(tmp_path) -> None:
    record_one(tmp_path)
    episode = load_episode(tmp_path / "ep")
    assert episode.task_id == "chat.post_update"
    assert episode.meta["agent"] is None and episode.meta["options"] == {"max_steps": 5}
    assert episode.meta["harness_version"] and episode.meta["started_at"]


def test_set_agent_notes_the_agent(tmp_path) -> None:
    recorder = Recorder(tmp_path / "ep")
    recorder.begin({"id": "chat.post_update"}, {})
    recorder.set_agent("oracle")
    recorder.close()
    assert load_episode(tmp_path / "ep").meta["agent"] == "oracle"
