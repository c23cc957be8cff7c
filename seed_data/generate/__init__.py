"""The deterministic world generator: `build_world(seed, scale, path)` writes one world file."""

from .build import build_world
from .scales import SCALES, Scale

__all__ = ["SCALES", "Scale", "build_world"]
