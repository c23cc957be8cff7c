"""The protocol over HTTP: sessions named by `session_id`, the token, clear errors, timeouts."""

from __future__ import annotations

import httpx
import pytest

from officegym.tasks import registry
from officegym.tasks.verdict import Verdict

from .episodes import TINY, TOKEN, health

# One worker holds the env server of every module that uses it (`make test` groups by this).
pytestmark = [pytest.mark.xdist_group("envserver"), pytest.mark.browser]

TEXT = {"seed": 0, "observation": {"dom": False}}
"""Instance 0, with the accessibility tree alone (the DOM text costs time and proves nothing
here)."""


@pytest.fixture(scope="module")
def session_id(env_server):
    """One HTTP session on chat.post_update (tiny world), closed after the module."""
    with httpx.Client(
        base_url=env_server.url,
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=180,
    ) as client:
        reply = client.post("/reset", json={"task": "chat.post_update", "world": TINY, **TEXT})
        assert reply.status_code == 200, reply.text
        session = reply.json()["session_id"]
        yield session
        client.post("/close", json={"session_id": session})


def _reset(http, session_id, **fields):
    return http.post("/reset", json={"session_id": session_id, **fields})


def _step(http, session_id, action: str, **fields):
    return http.post(
        "/step", json={"session_id": session_id, "action": {"action_str": action}, **fields}
    )


def test_health_answers_without_a_token(env_server):
    reply = health(env_server.url)
    assert reply["status"] == "healthy"
    assert reply["max_sessions"] == 10


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", "Basic envserver-test-token"])
def test_a_request_without_the_right_token_gets_401(env_server, header):
    headers = {"Authorization": header} if header else {}
    reply = httpx.post(
        f"{env_server.url}/reset", json={"task": "chat.post_update"}, headers=headers
    )
    assert reply.status_code == 401
    assert reply.headers["WWW-Authenticate"] == "Bearer"
    assert reply.json()["error"]["code"] == "UNAUTHORIZED"


def test_malformed_requests_get_clear_errors_and_the_server_keeps_serving(http, env_server):
    before = health(env_server.url)["active_sessions"]
    bad_json = http.post("/reset", content=b"{task:", headers={"Content-Type": "application/json"})
    assert bad_json.status_code == 400
    assert bad_json.json()["error"]["code"] == "INVALID_JSON"

    unknown = http.post("/reset", json={"task": "chat.no_such_template"})
    assert unknown.status_code == 422
    assert unknown.json()["error"]["code"] == "UNKNOWN_TASK"
    assert "chat.no_such_template" in unknown.json()["error"]["message"]

    typo = http.post("/reset", json={"task": "chat.post_update", "instance-seed": 3})
    assert typo.status_code == 422
    assert "instance-seed" in typo.json()["error"]["message"]

    no_task = http.post("/reset", json={})
    assert no_task.status_code == 422 and "names its task" in no_task.json()["error"]["message"]

    lost = _step(http, "0123456789abcdef", "noop()")
    assert lost.status_code == 404
    assert lost.json()["error"]["code"] == "UNKNOWN_SESSION"

    assert health(env_server.url)["active_sessions"] == before  # none opened a session


def test_a_malformed_action_gets_422_and_a_bad_action_text_is_an_observation(http, session_id):
    shape = http.post("/step", json={"session_id": session_id, "action": {"text": "noop()"}})
    assert shape.status_code == 422
    assert "action_str" in shape.json()["error"]["message"]

    text = _step(http, session_id, "clik('12')")
    assert text.status_code == 200
    assert "clik" in text.json()["observation"]["last_action_error"]


def test_a_step_past_its_timeout_gets_504_and_the_session_needs_a_reset(http, session_id):
    late = _step(http, session_id, "noop()", timeout_s=0.001)
    assert late.status_code == 504
    assert late.json()["error"]["code"] == "STEP_TIMEOUT"

    refused = _step(http, session_id, "noop()")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "SESSION_BROKEN"
    state = http.get("/state", params={"session_id": session_id}).json()
    assert "took longer than" in state["needs_reset"]

    assert _reset(http, session_id).status_code == 200
    assert _step(http, session_id, "noop()").status_code == 200


@pytest.fixture
def unplayable_template():
    """A registered template whose user cannot sign in, removed afterwards."""

    class CannotSignIn(registry.Template):
        id = "chat.cannot_sign_in"
        apps = ("chat",)

        def sample(self, world, rng):
            return {}

        def goal(self, params, rng):
            return "Say hello."

        def user(self, params):
            return "nobody@nowhere.invalid"

        def solve(self, actions, params):
            actions.send_msg_to_user("hello")

        def verify(self, ctx, params):
            return Verdict()

    registry.register(CannotSignIn)
    yield CannotSignIn.id
    registry._REGISTRY.pop(CannotSignIn.id, None)


def test_a_failed_reset_refuses_step_and_finish_until_a_reset_succeeds(
    http, session_id, unplayable_template
):
    failed = _reset(http, session_id, task=unplayable_template, world=TINY)
    assert failed.status_code == 500
    assert "reset failed" in failed.json()["error"]["message"]

    for refused in (
        _step(http, session_id, "noop()"),
        http.post("/finish", json={"session_id": session_id}),
    ):
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "SESSION_BROKEN"

    assert _reset(http, session_id, task="chat.post_update").status_code == 200
    assert _step(http, session_id, "noop()").status_code == 200


def test_an_http_episode_finishes_with_its_verdict_and_close_drops_its_world(
    http, env_server, store
):
    reset = http.post("/reset", json={"task": "chat.post_update", "world": TINY, **TEXT}).json()
    session = reset["session_id"]
    world = store.world_path(reset["info"]["world_id"])
    assert world.exists()

    finished = http.post("/finish", json={"session_id": session})
    assert finished.status_code == 200
    verdict = Verdict.from_json(finished.json()["info"]["verdict"])
    assert finished.json()["done"] and not verdict.success  # nothing was posted

    assert http.post("/close", json={"session_id": session}).json() == {"closed": session}
    assert not world.exists()
    assert _step(http, session, "noop()").status_code == 404


def test_the_protocol_and_the_apps_are_served_on_separate_origins(http, env_server):
    for path in ("/chat/", "/login", "/"):
        assert http.get(path).status_code == 404
    apps = httpx.URL(env_server.runtime.url)
    assert apps.host == "127.0.0.1" and apps.port != httpx.URL(env_server.url).port
    for path in ("/reset", "/step", "/finish", "/close"):
        assert httpx.post(f"{apps}{path}", json={}).status_code == 404
