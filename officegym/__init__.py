"""officegym: simulated enterprise software for training and evaluating computer-use agents.

`officegym.make(...)` builds a Gymnasium environment (see `officegym.harness.Env`). Importing
this package is cheap: the world store, the diff and the harness (Playwright, Gymnasium) are
imported the first time they are used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from officegym.seed_data.diff import WorldDiff, diff  # noqa: F401
    from officegym.seed_data.store import WorldStore  # noqa: F401

__all__ = ["WorldDiff", "WorldStore", "diff", "make"]
__version__ = "0.1.0"

_LAZY = {
    "WorldDiff": "officegym.seed_data.diff",
    "diff": "officegym.seed_data.diff",
    "WorldStore": "officegym.seed_data.store",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'officegym' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


MODES = ("browser", "mcp")


def make(*args: Any, mode: str = "browser", **kwargs: Any):
    """An officegym environment. `mode="browser"` (the default) is the Gymnasium env of
    `officegym.harness.make`, same arguments; `mode="mcp"` plays the same task through the
    apps' MCP tools instead of a browser and grades it with the same verifier
    (`officegym.mcp.env.make`, needs the `mcp` extra)."""
    if mode == "browser":
        from officegym.harness import make as harness_make

        return harness_make(*args, **kwargs)
    if mode == "mcp":
        from officegym.mcp.env import make as mcp_make

        return mcp_make(*args, **kwargs)
    raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
