"""One env server per test process, on loopback, over the session's world store; actions get
room for a loaded machine."""

from __future__ import annotations

import httpx
import pytest

from officegym.envserver import EnvServer, ServerOptions

from .episodes import MAX_SESSIONS, TOKEN


@pytest.fixture(scope="session")
def env_server(store):
    """The env server of this test process (Chromium and the apps server start once)."""
    options = ServerOptions(
        port=0,
        token=TOKEN,
        max_sessions=MAX_SESSIONS,
        action_timeout=30.0,
        step_timeout=120.0,
        home=store.home,
    )
    with EnvServer(options) as server:
        yield server


@pytest.fixture
def http(env_server):
    """An HTTP client of the server that sends its token."""
    with httpx.Client(
        base_url=env_server.url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=180
    ) as client:
        yield client
