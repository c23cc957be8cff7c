"""Shared pieces of the env server tests: the token, the tiny world, bids, health, waiting."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import httpx

TOKEN = "envserver-test-token"
TINY = {"seed": 0, "scale": "tiny"}
"""Every session here plays on the tiny world (the template's instance is sampled from it)."""
MAX_SESSIONS = 10


def bid(axtree: str, role: str, name: str) -> str:
    """The bid of the first `role` node named exactly `name` in an `axtree_txt`."""
    match = re.search(rf"\[([^\]]+)\] {re.escape(role)} {re.escape(repr(name))}", axtree)
    assert match, f"no {role} {name!r} on the page"
    return match.group(1)


def health(url: str) -> dict:
    """The server's `/health` reply (no token needed)."""
    reply = httpx.get(f"{url}/health", timeout=30)
    assert reply.status_code == 200, reply.text
    return reply.json()


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Poll `condition` until it holds, or fail saying `what` did not happen."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout:g} s"
        time.sleep(0.05)


def quiet(url: str) -> dict:
    """The server's health once no session is left (the ones earlier tests closed may still
    be closing their contexts)."""
    wait_for(lambda: health(url)["active_sessions"] == 0, "every earlier session closed")
    return health(url)
