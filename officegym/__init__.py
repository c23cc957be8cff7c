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


def make(*args: Any, **kwargs: Any):
    """An officegym environment; same arguments as `officegym.harness.make`."""
    from officegym.harness import make as harness_make

    return harness_make(*args, **kwargs)
