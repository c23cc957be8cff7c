"""Back-pressure and reclaiming: a full server refuses at once; idle sessions are reclaimed."""

from __future__ import annotations

import contextlib
import json

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from officegym.client import RemoteEnv, ServerFull
from officegym.envserver import EnvServer, ServerOptions

from .episodes import TINY, TOKEN, health, quiet, wait_for

# One worker holds the env server of every module that uses it (`make test` groups by this).
pytestmark = [pytest.mark.xdist_group("envserver"), pytest.mark.browser]


def _ws_url(server) -> str:
    return server.url.replace("http://", "ws://") + "/ws"


def test_at_max_sessions_a_new_session_gets_503_with_retry_after_and_never_waits(env_server):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    before = quiet(env_server.url)
    free = before["max_sessions"]
    with contextlib.ExitStack() as holders:
        for _ in range(free):
            holders.enter_context(connect(_ws_url(env_server), additional_headers=auth))
        wait_for(
            lambda: health(env_server.url)["active_sessions"] == before["max_sessions"],
            "every slot taken",
        )
        refused = httpx.post(
            f"{env_server.url}/reset", json={"task": "chat.post_update"}, headers=auth, timeout=30
        )
        assert refused.status_code == 503
        assert refused.headers["Retry-After"] == "5"
        assert refused.json()["error"]["code"] == "CAPACITY_REACHED"

        with connect(_ws_url(env_server), additional_headers=auth) as extra:
            error = json.loads(extra.recv(timeout=30))
            assert error["data"]["code"] == "CAPACITY_REACHED"
            assert error["data"]["retry_after"] == 5
            with pytest.raises(ConnectionClosed) as closed:
                extra.recv(timeout=30)
            assert closed.value.rcvd.code == 1013 and "retry in 5 s" in closed.value.rcvd.reason

        with pytest.raises(ServerFull) as full:
            RemoteEnv(env_server.url, "chat.post_update", token=TOKEN).reset()
        assert full.value.retry_after == 5
    wait_for(lambda: health(env_server.url) == before, "the held slots freed")


@pytest.fixture(scope="module")
def quick_server(store):
    """A second server whose sessions are reclaimed after 1 s idle (no token: loopback)."""
    options = ServerOptions(port=0, idle_timeout=1.0, action_timeout=30.0, home=store.home)
    with EnvServer(options) as server:
        yield server


def test_an_idle_http_session_is_reclaimed_world_and_context_included(quick_server, store):
    reply = httpx.post(
        f"{quick_server.url}/reset",
        json={"task": "chat.post_update", "world": TINY, "observation": {"dom": False}},
        timeout=180,
    )
    assert reply.status_code == 200, reply.text
    world = store.world_path(reply.json()["info"]["world_id"])
    assert world.exists() and health(quick_server.url)["browser_contexts"] > 0
    wait_for(
        lambda: not world.exists() and health(quick_server.url)["browser_contexts"] == 0,
        "the idle session reclaimed",
    )
    assert health(quick_server.url)["active_sessions"] == 0
    lost = httpx.post(
        f"{quick_server.url}/step",
        json={"session_id": reply.json()["session_id"], "action": {"action_str": "noop()"}},
    )
    assert lost.status_code == 404 and "idle" in lost.json()["error"]["message"]


def test_an_idle_websocket_is_closed_and_its_session_reclaimed(quick_server):
    with connect(_ws_url(quick_server)) as socket, pytest.raises(ConnectionClosed) as closed:
        socket.recv(timeout=60)
    assert closed.value.rcvd.code == 1001 and "idle" in closed.value.rcvd.reason
    wait_for(lambda: health(quick_server.url)["active_sessions"] == 0, "the session dropped")
