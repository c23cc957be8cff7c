"""Recording and replay: the same actions in a fresh world give the same diff and verdict."""

from __future__ import annotations

import json

import pytest

import officegym
from officegym.harness import load_episode, replay
from officegym.harness.recording import STEPS_FILE
from officegym.harness.session import SessionOptions
from tests.harness.envs import HELLO, hello_task

pytestmark = pytest.mark.browser

# Beside a loaded suite a 3 s action timeout can fire in the recording and not in the replay
# (a real divergence); both get room to act.
ROOMY = SessionOptions(action_timeout_ms=30_000)


@pytest.fixture(scope="module")
def recorded(store, tmp_path_factory):
    """One recorded episode: a failing action, the post, and the final message."""
    task = hello_task(store.golden(0, "tiny"))
    root = tmp_path_factory.mktemp("episodes")
    env = officegym.make(task, home=store.home, record=root, session=ROOMY)
    try:
        env.reset(seed=0)
        env.step('click("no-such-bid")')
        env.actions.fill(env.actions.find("textbox", "Message"), HELLO)
        env.actions.click(env.actions.find("button", "Send", exact=True))
        env.step('send_msg_to_user("posted")')
    finally:
        env.close()
    (folder,) = [p for p in root.iterdir() if p.is_dir()]
    return task, folder


def test_recording_holds_steps_screens_diff_and_verdict(recorded):
    _, folder = recorded
    episode = load_episode(folder)
    assert len(episode.steps) == 5 and episode.steps[0]["action"] is None
    assert episode.actions[0] == 'click("no-such-bid")'
    assert "no element" in episode.steps[1]["error"]
    assert episode.steps[3]["diff"]["chat_message"]["inserted"]
    assert episode.steps[1]["diff"] is None
    assert all(episode.screenshot(s).is_file() for s in episode.steps)
    assert episode.verdict.success and episode.outcome["answer"] == "posted"
    assert episode.diff.table("chat_message").inserted


def test_replay_reproduces_the_final_diff_and_verdict(store, recorded):
    task, folder = recorded
    result = replay(folder, task=task, home=store.home, session=ROOMY)
    assert result.reproduced, (result.divergence, str(result.replayed_verdict))
    assert result.first_divergence is None


def test_replay_reports_where_a_changed_recording_diverges(store, recorded, tmp_path):
    task, folder = recorded
    copy = tmp_path / "episode"
    copy.mkdir()
    for item in folder.iterdir():
        if item.is_file():
            (copy / item.name).write_bytes(item.read_bytes())
    lines = (copy / STEPS_FILE).read_text().splitlines()
    step = json.loads(lines[2])
    step["action"] = step["action"].replace(HELLO, "something else")
    lines[2] = json.dumps(step)
    (copy / STEPS_FILE).write_text("\n".join(lines) + "\n")
    result = replay(copy, task=task, home=store.home, session=ROOMY)
    assert not result.reproduced
    assert result.first_divergence == 3
    assert not result.replayed_verdict.success


def test_an_ad_hoc_recording_needs_its_task_to_replay(store, recorded):
    _, folder = recorded
    with pytest.raises(ValueError, match="ad-hoc task"):
        replay(folder, home=store.home)
