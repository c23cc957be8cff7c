"""officegym: simulated enterprise software for training and evaluating computer-use agents."""

from officegym.seed_data.diff import WorldDiff, diff
from officegym.seed_data.store import WorldStore

__all__ = ["WorldDiff", "WorldStore", "diff"]
__version__ = "0.1.0"
