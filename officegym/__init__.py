"""officegym: simulated enterprise software for training and evaluating computer-use agents.

`officegym.make(...)` builds a Gymnasium environment (see `officegym.harness.Env`); the
harness, which needs Playwright and Gymnasium, is imported on first use.
"""

from typing import Any

from officegym.seed_data.diff import WorldDiff, diff
from officegym.seed_data.store import WorldStore

__all__ = ["WorldDiff", "WorldStore", "diff", "make"]
__version__ = "0.1.0"


def make(*args: Any, **kwargs: Any):
    """An officegym environment; same arguments as `officegym.harness.make`."""
    from officegym.harness import make as harness_make

    return harness_make(*args, **kwargs)
