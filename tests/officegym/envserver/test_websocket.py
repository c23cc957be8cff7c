"""The protocol over one WebSocket per session: the token, clear errors, reclaiming."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from .episodes import TINY, TOKEN, health, quiet, wait_for

# One worker holds the env server of every module that uses it (`make test` groups by this).
pytestmark = [pytest.mark.xdist_group("envserver"), pytest.mark.browser]


def _ws(server, token: str | None = TOKEN):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return connect(server.url.replace("http://", "ws://") + "/ws", additional_headers=headers)


def _ask(socket, message) -> dict:
    socket.send(message if isinstance(message, str) else json.dumps(message))
    return json.loads(socket.recv(timeout=120))


@pytest.mark.parametrize("token", [None, "wrong-token"])
def test_a_websocket_without_the_right_token_is_closed_with_1008(env_server, token):
    with _ws(env_server, token) as socket, pytest.raises(ConnectionClosed) as closed:
        _ask(socket, {"type": "state"})
    assert closed.value.rcvd.code == 1008
    assert "token" in closed.value.rcvd.reason


def test_malformed_messages_get_clear_errors_and_the_session_goes_on(env_server):
    with _ws(env_server) as socket:
        cases = [
            ("{not json", "INVALID_JSON"),
            ('["state"]', "INVALID_JSON"),
            ({"type": "jump"}, "UNKNOWN_TYPE"),
            ({"type": "reset", "data": {"task": "chat.no_such_template"}}, "UNKNOWN_TASK"),
            ({"type": "reset", "data": {"task": "chat.post_update", "world": {"scale": "huge"}}},
             "VALIDATION_ERROR"),
            ({"type": "step", "data": {"action": "noop()"}}, "VALIDATION_ERROR"),
            ({"type": "step", "data": {"action_str": "noop()"}}, "NO_EPISODE"),
            ({"type": "finish"}, "NO_EPISODE"),
        ]  # fmt: skip
        for message, code in cases:
            reply = _ask(socket, message)
            assert reply["type"] == "error", message
            assert reply["data"]["code"] == code, reply
            assert reply["data"]["message"]
        state = _ask(socket, {"type": "state"})
        assert state["type"] == "state" and state["data"]["transport"] == "ws"


_KILLED_CLIENT = """
import json, sys
from websockets.sync.client import connect
with connect(sys.argv[1], additional_headers={"Authorization": "Bearer " + sys.argv[2]}) as ws:
    ws.send(json.dumps({"type": "reset", "data": json.loads(sys.argv[3])}))
    print(json.loads(ws.recv())["data"]["info"]["world_id"], flush=True)
    sys.stdin.read()
"""


def test_a_killed_clients_session_is_reclaimed(env_server, store):
    before = quiet(env_server.url)
    reset = {"task": "chat.post_update", "world": TINY, "seed": 0, "observation": {"dom": False}}
    client = subprocess.Popen(
        [sys.executable, "-c", _KILLED_CLIENT, env_server.url.replace("http", "ws") + "/ws",
         TOKEN, json.dumps(reset)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        world = store.world_path(client.stdout.readline().strip())
        assert world.exists()
        playing = health(env_server.url)
        assert playing["ws_sessions"] == 1 and playing["browser_contexts"] > 0
    finally:
        client.kill()
        client.wait()
    wait_for(
        lambda: not world.exists() and health(env_server.url) == before,
        "the killed client's world dropped and its contexts closed",
    )
