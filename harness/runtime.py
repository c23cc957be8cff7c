"""What episodes share in one process: the world store, the WSGI server and one Chromium.

`Runtime` lives on one event loop. The harness starts the server in-process on a free
loopback port unless given the URL of a running one (which must serve the same store home,
because the harness resets and diffs worlds through files). `shared_runtime()` hands the
sync `Env` and `EnvPool` a refcounted runtime on a background loop thread; the last
`release()` — or interpreter exit — closes the browser, the Playwright driver and the server.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import logging
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Browser, Playwright, async_playwright

from officegym.apps.web.server import BackgroundServer, start_background_server
from officegym.seed_data.store import WorldStore

from .loop import LoopThread

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


class HarnessStartError(RuntimeError):
    """The runtime could not start (no browser, bad server URL, ...)."""


@dataclass(frozen=True)
class RuntimeOptions:
    """Where worlds live, which server serves them and how Chromium runs."""

    home: Path | None = None
    server: str | None = None
    headless: bool = True
    chromium: Path | None = None
    server_threads: int = 8

    def __post_init__(self) -> None:
        if self.server is not None:
            parts = urlsplit(self.server)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise HarnessStartError(f"server must be an http(s) URL, got {self.server!r}")
            object.__setattr__(self, "server", f"{parts.scheme}://{parts.netloc}")
        if self.home is not None:
            object.__setattr__(self, "home", Path(self.home).expanduser().resolve())


class Runtime:
    """Store, server and browser for the episodes of one event loop."""

    def __init__(self, options: RuntimeOptions | None = None) -> None:
        self.options = options or RuntimeOptions()
        self.store = WorldStore(self.options.home)
        self._server: BackgroundServer | None = None
        self._playwright: Playwright | None = None
        self.browser: Browser | None = None
        self.url = ""
        self._lock = asyncio.Lock()

    async def start(self) -> Runtime:
        async with self._lock:
            if self.browser is not None:
                return self
            if self.options.server:
                self.url = self.options.server
            else:
                # Concurrent episodes queue requests by design; waitress would warn on each.
                logging.getLogger("waitress.queue").setLevel(logging.ERROR)
                self._server = start_background_server(
                    self.store, threads=self.options.server_threads
                )
                self.url = self._server.url
            self._playwright = await async_playwright().start()
            # Element ids live in the `bid` attribute, as in BrowserGym.
            self._playwright.selectors.set_test_id_attribute("bid")
            try:
                self.browser = await self._playwright.chromium.launch(**_launch_args(self.options))
            except Exception:
                await self._close_parts()
                raise
            # Observations allocate megabytes of short-lived JSON; keeping the long-lived
            # objects loaded so far out of the collector's scans shortens its pauses.
            gc.freeze()
        return self

    @property
    def origin(self) -> str:
        return self.url

    @property
    def browser_pid(self) -> int | None:
        process = getattr(self.browser, "_impl_obj", None)
        return getattr(process, "_pid", None)

    async def close(self) -> None:
        async with self._lock:
            await self._close_parts()

    async def _close_parts(self) -> None:
        browser, self.browser = self.browser, None
        playwright, self._playwright = self._playwright, None
        server, self._server = self._server, None
        try:
            if browser is not None:
                await browser.close()
        finally:
            try:
                if playwright is not None:
                    await playwright.stop()
            finally:
                if server is not None:
                    server.stop()
                self.store.close()

    async def __aenter__(self) -> Runtime:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


def _launch_args(options: RuntimeOptions) -> dict[str, Any]:
    args: dict[str, Any] = {"headless": options.headless, "args": list(CHROMIUM_ARGS)}
    executable = options.chromium or (CHROMIUM if CHROMIUM.exists() else None)
    if executable is not None:
        if not Path(executable).exists():
            raise HarnessStartError(f"no Chromium at {executable}")
        args["executable_path"] = str(executable)
    return args


class SharedRuntime:
    """A `Runtime` running on its own loop thread, shared by sync envs with the same options."""

    def __init__(self, options: RuntimeOptions) -> None:
        self.options = options
        self.loop = LoopThread()
        self.runtime = Runtime(options)
        self.users = 0
        try:
            self.loop.run(self.runtime.start())
        except BaseException:
            self.loop.stop()
            raise

    def run(self, coro):
        return self.loop.run(coro)

    def shutdown(self) -> None:
        try:
            if self.loop.alive:
                self.loop.run(self.runtime.close(), timeout=60)
        finally:
            self.loop.stop()


_shared: dict[RuntimeOptions, SharedRuntime] = {}
_shared_lock = threading.Lock()


def acquire_runtime(options: RuntimeOptions | None = None) -> SharedRuntime:
    """The process's shared runtime for `options`, started on first use (refcounted)."""
    options = options or RuntimeOptions()
    with _shared_lock:
        shared = _shared.get(options)
        if shared is None or not shared.loop.alive:
            shared = SharedRuntime(options)
            _shared[options] = shared
        shared.users += 1
        return shared


def release_runtime(shared: SharedRuntime) -> None:
    """Drop one user; the last one closes browser, driver and server."""
    with _shared_lock:
        shared.users -= 1
        if shared.users > 0:
            return
        if _shared.get(shared.options) is shared:
            del _shared[shared.options]
    shared.shutdown()


@atexit.register
def _close_all() -> None:
    with _shared_lock:
        pending = list(_shared.values())
        _shared.clear()
    for shared in pending:
        try:
            shared.shutdown()
        except Exception as error:  # noqa: BLE001 - exit must go on closing the rest
            print(f"officegym: closing the harness runtime failed: {error}", file=sys.stderr)


__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "HarnessStartError",
    "Runtime",
    "RuntimeOptions",
    "SharedRuntime",
    "acquire_runtime",
    "release_runtime",
]
