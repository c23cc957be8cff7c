"""`officegym serve-env`: episodes served over HTTP and WebSocket in OpenEnv's protocol.

`protocol` holds the wire models, `sessions` the sessions (one `AsyncEnv` each on one shared
`Runtime`), `app` the FastAPI app, `server` the options and the uvicorn server (foreground or
`EnvServer` on a background thread) and `cli` the command. The client side is
`officegym.client.RemoteEnv` (and `officegym.openenv_client` for OpenEnv's own client).
Names below are imported on first use, so the wire models load without FastAPI or a browser.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app  # noqa: F401
    from .server import (  # noqa: F401
        EnvServer,
        ServerConfigError,
        ServerOptions,
        ServerStartError,
        serve,
    )
    from .sessions import SessionError  # noqa: F401

_LAZY = {
    "create_app": "app",
    "EnvServer": "server",
    "ServerConfigError": "server",
    "ServerOptions": "server",
    "ServerStartError": "server",
    "serve": "server",
    "SessionError": "sessions",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "EnvServer",
    "ServerConfigError",
    "ServerOptions",
    "ServerStartError",
    "SessionError",
    "create_app",
    "serve",
]
