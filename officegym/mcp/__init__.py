"""The apps' operations as MCP tools, and tasks played through them (needs the `mcp` extra).

- `operations`: an app's OpenAPI document read as tools (`Operation`);
- `api_session`: one signed-in user's calls to the apps' JSON APIs (`ApiSession`);
- `toolset` and `server`: the tools of one or more apps on the official SDK's MCP server
  (`officegym mcp`, in `cli`);
- `env`: `McpEnv`, any task of the suite played through the tools and graded by its verifier
  (`officegym.make(task, mode="mcp")`).

Submodules are imported on first use, so `import officegym.mcp` is cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api_session import ApiSession  # noqa: F401
    from .env import McpEnv, make  # noqa: F401
    from .operations import Operation, operations  # noqa: F401
    from .server import build_server  # noqa: F401
    from .toolset import Toolset  # noqa: F401

__all__ = ["ApiSession", "McpEnv", "Operation", "Toolset", "build_server", "make", "operations"]

_LAZY = {
    "ApiSession": "api_session",
    "McpEnv": "env",
    "make": "env",
    "Operation": "operations",
    "operations": "operations",
    "build_server": "server",
    "Toolset": "toolset",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'officegym.mcp' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
