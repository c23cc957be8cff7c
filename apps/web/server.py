"""Running the app on a real multi-threaded WSGI server (waitress).

`serve()` blocks (for `officegym serve`); `start_background_server()` runs the same server in a
daemon thread and returns a handle, for tests and the harness:

    with start_background_server(store) as server:
        page.goto(server.url + "/login")
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask
from waitress import wasyncore
from waitress.server import create_server

from officegym.seed_data.ids import DEFAULT_WORLD
from officegym.seed_data.store import WorldStore

from .factory import create_app
from .world import engines

SERVER_IDENT = "officegym"


def _app(store: WorldStore, default_world: str, config: Mapping[str, Any] | None) -> Flask:
    return create_app({**(config or {}), "WORLD_STORE": store, "DEFAULT_WORLD": default_world})


def serve(
    store: WorldStore,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    default_world: str = DEFAULT_WORLD,
    threads: int = 8,
    config: Mapping[str, Any] | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve every world of `store` on http://host:port until interrupted (Ctrl-C).

    The port is bound first (OSError if it is taken); then `ready` is called with the URL."""
    app = _app(store, default_world, config)
    server = create_server(app, host=host, port=port, threads=threads, ident=SERVER_IDENT)
    if ready is not None:
        ready(f"http://{host}:{server.effective_port}/")
    try:
        server.run()
    finally:
        engines(app).dispose_all()


class BackgroundServer:
    """A waitress server running in a daemon thread; stop it with `stop()` or `with`."""

    def __init__(self, app: Flask, host: str, port: int, threads: int) -> None:
        self.app = app
        self._map: dict = {}
        self._server = create_server(
            app, map=self._map, host=host, port=port, threads=threads, ident=SERVER_IDENT
        )
        self.host: str = str(self._server.effective_host)
        self.port: int = int(self._server.effective_port)
        self._thread = threading.Thread(
            target=self._server.run, name=f"officegym-server-{self.port}", daemon=True
        )
        self._stopped = False
        self._thread.start()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def stop(self, timeout: float = 5.0) -> None:
        """Close the listening socket and open connections, then wait for the workers."""
        if self._stopped:
            return
        self._stopped = True
        # Closing the sockets from inside the server's own loop thread avoids racing it.
        try:
            self._server.trigger.pull_trigger(lambda: wasyncore.close_all(self._map))
        except OSError:
            # The trigger's pipe is gone (its fd closed under it), so the loop cannot be woken:
            # empty its map so that it ends after its current poll (at most a second), then
            # close the sockets once it no longer selects on them.
            channels = list(self._map.values())
            self._map.clear()
            self._thread.join(timeout)
            for channel in channels:
                channel.close()
        self._thread.join(timeout)
        self._server.task_dispatcher.shutdown(timeout=timeout)
        engines(self.app).dispose_all()

    def __enter__(self) -> BackgroundServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else "running"
        return f"<BackgroundServer {self.url} {state}>"


def start_background_server(
    store: WorldStore,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    default_world: str = DEFAULT_WORLD,
    threads: int = 8,
    config: Mapping[str, Any] | None = None,
) -> BackgroundServer:
    """Start serving `store` in the background (port 0: any free port; see `.url`)."""
    return BackgroundServer(_app(store, default_world, config), host, port, threads)


__all__ = ["BackgroundServer", "serve", "start_background_server"]
