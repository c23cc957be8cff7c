"""OpenEnv's own client (`EnvClient`, through `officegym.openenv_client`) against the server."""

from __future__ import annotations

import sys

import pytest

from .episodes import TINY, TOKEN

# One worker holds the env server of every module that uses it (`make test` groups by this).
pytestmark = [pytest.mark.xdist_group("envserver"), pytest.mark.browser]


def test_openenvs_client_plays_an_episode_and_reads_its_state(env_server):
    from officegym.openenv_client import OfficeGymAction, OfficeGymEnv

    client = OfficeGymEnv(
        env_server.url, task="chat.post_update", token=TOKEN, world=TINY, observation={"dom": False}
    )
    with client.sync() as env:
        first = env.reset(seed=0)
        assert not first.done and first.observation.goal.startswith("Could you let #sales")
        assert first.observation.dom_txt is None  # not asked for
        state = env.state()
        assert state.step_count == 0 and state.task_id == "chat.post_update"

        last = env.step(OfficeGymAction(action_str='send_msg_to_user("Posted.")'))
        assert last.done and last.observation.terminated
        assert last.reward == 0.0  # nothing was posted
        assert last.observation.info["verdict"]["success"] is False
        assert env.state().step_count == 1


def test_openenv_client_without_the_extra_names_it(monkeypatch):
    for name in list(sys.modules):
        if name == "openenv" or name.startswith(("openenv.", "officegym.openenv_client")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "openenv", None)
    with pytest.raises(ImportError, match=r"pip install 'officegym\[openenv\]'"):
        import officegym.openenv_client  # noqa: F401
