"""Running the env server: its options, in the foreground (`serve`) or on a background thread
(`EnvServer`, for tests and for embedding in a trainer's process).

The server is uvicorn running the FastAPI app of `app`, on a socket bound here first so a
port in use is a clear error and port 0 gives a free one. Without a token it binds only to
a loopback address: anyone who can reach the port could otherwise drive its browser.
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import uvicorn

from officegym.bearer import is_loopback
from officegym.harness.runtime import Runtime

from .app import create_app

T = TypeVar("T")


class ServerConfigError(ValueError):
    """The server's options cannot work together (no token on a public address, ...)."""


class ServerStartError(RuntimeError):
    """The server did not start (port in use, no browser, ...)."""


@dataclass(frozen=True)
class ServerOptions:
    """How `serve-env` runs. Timeouts are seconds.

    `reset_concurrency` resets run at once; more wait their turn within `reset_timeout`
    (on a loaded 2-core machine, 16 resets at once all missed the 10 s page load; two at a
    time, 11 and 15 of the 16 made it in two runs).
    `step_timeout` bounds one step (or finish); a step that outlives it leaves its session
    needing a reset. `idle_timeout` reclaims HTTP sessions and WebSockets that send nothing
    for that long. `screenshots` lets clients ask for screenshot observations (each costs a
    PNG of the viewport on the wire). `retry_after` is what a refused client is told to wait.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    max_sessions: int = 16
    reset_concurrency: int = field(default_factory=lambda: max(2, os.cpu_count() or 2))
    step_timeout: float = 60.0
    reset_timeout: float = 120.0
    idle_timeout: float = 600.0
    navigation_timeout: float = 10.0
    action_timeout: float = 3.0
    screenshots: bool = False
    home: Path | None = None
    retry_after: int = 5
    log_level: str = "warning"

    def __post_init__(self) -> None:
        if self.token is not None and not self.token.strip():
            raise ServerConfigError("the token is empty: give a non-empty --token or none")
        if self.token is None and not is_loopback(self.host):
            raise ServerConfigError(
                f"refusing to serve on {self.host} without a token: anyone who reaches the port "
                "could drive the browser. Pass --token (or set OFFICEGYM_TOKEN), or bind to "
                "127.0.0.1"
            )
        if not 0 <= self.port <= 65535:
            raise ServerConfigError(f"port must be 0-65535, got {self.port}")
        if self.max_sessions < 1:
            raise ServerConfigError(f"max_sessions must be at least 1, got {self.max_sessions}")
        if self.reset_concurrency < 1:
            raise ServerConfigError(
                f"reset_concurrency must be at least 1, got {self.reset_concurrency}"
            )
        for name in ("step_timeout", "reset_timeout", "idle_timeout", "navigation_timeout"):
            if not getattr(self, name) > 0:
                raise ServerConfigError(f"{name} must be positive, got {getattr(self, name)!r}")
        if not self.action_timeout > 0:
            raise ServerConfigError(f"action_timeout must be positive, got {self.action_timeout!r}")
        if self.retry_after < 1:
            raise ServerConfigError(f"retry_after must be at least 1 s, got {self.retry_after}")
        if self.home is not None:
            object.__setattr__(self, "home", Path(self.home).expanduser().resolve())


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port), or `ServerStartError` saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except OSError as error:
        sock.close()
        reason = "is in use" if error.errno == errno.EADDRINUSE else f"cannot be used ({error})"
        raise ServerStartError(
            f"port {port} on {host} {reason}: stop what holds it or pass --port"
        ) from None
    sock.listen(2048)
    return sock


def _config(options: ServerOptions, ready: Callable[[], None] | None) -> uvicorn.Config:
    return uvicorn.Config(
        create_app(options, ready=ready),
        loop="asyncio",  # Playwright drives Chromium on this loop
        lifespan="on",
        log_level=options.log_level,
        access_log=options.log_level in ("debug", "info"),
        timeout_graceful_shutdown=10,
        ws_ping_interval=20.0,  # finds clients that vanished without closing
        ws_ping_timeout=20.0,
    )


def _url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(options: ServerOptions, ready: Callable[[str], None] | None = None) -> None:
    """Serve in the foreground until interrupted (Ctrl+C stops it cleanly)."""
    sock = bind(options.host, options.port)
    url = _url(sock)
    server = uvicorn.Server(_config(options, (lambda: ready(url)) if ready else None))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    if not server.started:
        raise ServerStartError("the env server did not start; see the log above")


class EnvServer:
    """The env server on a background thread: `start()` returns once it accepts requests.

    with EnvServer(ServerOptions(port=0, token="t")) as server:
        env = RemoteEnv(server.url, "chat.post_update", token="t")
    """

    def __init__(self, options: ServerOptions | None = None) -> None:
        self.options = options or ServerOptions(port=0)
        self.url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._failure: BaseException | None = None

    def start(self, timeout: float = 120.0) -> EnvServer:
        """Start the browser, the apps server and the protocol server; wait until ready."""
        if self._thread is not None:
            return self
        self._sock = bind(self.options.host, self.options.port)
        self.url = _url(self._sock)
        self._server = uvicorn.Server(_config(self.options, None))
        self._thread = threading.Thread(target=self._run, name="officegym-envserver", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                failure = self._failure or self.app.state.startup_error
                self.stop()
                reason = f": {failure}" if failure else ""
                raise ServerStartError(f"the env server did not start{reason}")
            time.sleep(0.02)
        return self

    def _run(self) -> None:
        try:
            self._server.run(sockets=[self._sock])
        except BaseException as error:  # noqa: BLE001 - reported by start()
            self._failure = error

    @property
    def app(self):
        """The FastAPI app (its `state.table` holds the live sessions)."""
        return self._server.config.app if self._server is not None else None

    @property
    def runtime(self) -> Runtime:
        """The runtime every session shares (it lives on the server's event loop)."""
        return self.app.state.table.runtime

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the server's event loop and return its result: how code in this
        process uses the shared runtime, e.g. an in-process `AsyncEnv` beside the sessions."""
        loop = self.app.state.loop
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        """Close every session, the browser and the apps server; join the thread."""
        server, thread, sock = self._server, self._thread, self._sock
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(timeout)
        if sock is not None:
            sock.close()
        self._server = self._thread = self._sock = None

    def __enter__(self) -> EnvServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


__all__ = [
    "EnvServer",
    "ServerConfigError",
    "ServerOptions",
    "ServerStartError",
    "bind",
    "serve",
]
