"""Running coroutines from tests that share a process with sync Playwright.

The session `browser` fixture (tests/conftest.py) keeps Playwright's sync API open in the main
thread, which marks that thread's event loop as running: `asyncio.run` there then fails with
"cannot be called from a running event loop". A coroutine run by `run_async` gets a loop in a
thread of its own, whatever ran before it in the same worker.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


def run_async(fn: Callable[..., Awaitable[T]], *args: Any, anyio: bool = False) -> T:
    """`fn(*args)` to completion on a new event loop in a new thread (with `anyio.run` when
    `anyio` is set); its exception, if any, is raised here."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            if anyio:
                import anyio as anyio_module

                outcome["value"] = anyio_module.run(fn, *args)
            else:
                outcome["value"] = asyncio.run(fn(*args))
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, name="test-loop")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
