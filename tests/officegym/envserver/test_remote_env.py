"""`officegym.client.RemoteEnv`: a Gymnasium env whose episodes run on the env server."""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest
from gymnasium.wrappers import PassiveEnvChecker

from officegym.client import AuthenticationFailed, EpisodeNotRunning, ProtocolError, RemoteEnv
from officegym.seed_data.diff import WorldDiff
from tests.officegym.loops import run_async

from .episodes import TINY, TOKEN, bid

# One worker holds the env server of every module that uses it (`make test` groups by this).
pytestmark = [pytest.mark.xdist_group("envserver"), pytest.mark.browser]


def _remote(server, **options) -> RemoteEnv:
    return RemoteEnv(
        server.url,
        "chat.post_update",
        token=TOKEN,
        world=TINY,
        observation={"dom": False},
        **options,
    )


def test_remote_env_plays_post_update_to_reward_one_inside_a_running_event_loop(env_server):
    """Played through Gymnasium's passive checker, with its warnings as errors: the spaces
    are checked, and the first reset's and step's values against them."""

    async def play():
        env = PassiveEnvChecker(_remote(env_server))
        try:
            obs, info = env.reset(seed=0)
            params = info["task"]["params"]
            obs, *_ = env.step(f'click("{bid(obs["axtree_txt"], "link", params["channel"])}")')
            box = bid(obs["axtree_txt"], "textbox", f"Message #{params['channel']}")
            send = bid(obs["axtree_txt"], "button", "Send")
            env.step(f"fill({box!r}, {params['text']!r})\nclick({send!r})")
            return env.step('send_msg_to_user("Posted.")')
        finally:
            env.close()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        obs, reward, terminated, truncated, info = run_async(play)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["verdict"].success
    assert isinstance(info["diff"], WorldDiff) and info["diff"].table("chat_message").inserted


def test_eight_concurrent_remote_sessions_each_see_only_their_own_world(env_server):
    def post(index: int) -> list[str]:
        env = _remote(env_server)
        try:
            obs, _ = env.reset(seed=0)
            box = bid(obs["axtree_txt"], "textbox", "Message #general")
            send = bid(obs["axtree_txt"], "button", "Send")
            env.step(f'fill({box!r}, "marker {index} of eight")\nclick({send!r})')
            _, info = env.finish()
            return [row["body"] for row in info["diff"].table("chat_message").inserted.values()]
        finally:
            env.close()

    with ThreadPoolExecutor(8) as pool:
        seen = list(pool.map(post, range(8)))
    for index, bodies in enumerate(seen):
        assert bodies == [f"marker {index} of eight"], (index, bodies)


def test_remote_env_errors_name_what_went_wrong(env_server):
    with pytest.raises(AuthenticationFailed, match="token"):
        RemoteEnv(env_server.url, "chat.post_update", token="wrong").reset()
    env = RemoteEnv(env_server.url, "chat.no_such_template", token=TOKEN)
    try:
        with pytest.raises(ProtocolError, match="no task template 'chat.no_such_template'"):
            env.reset()
        with pytest.raises(EpisodeNotRunning, match="reset first"):
            env.step("noop()")
    finally:
        env.close()
