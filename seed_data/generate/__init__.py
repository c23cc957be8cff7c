"""The deterministic world generator.

`build_world(seed, scale, path)` writes one world file; `generate_world(seed, scale)` returns the
cached golden world for (seed, scale), building it through the world store on first use.
"""

from __future__ import annotations

from pathlib import Path

from .build import build_world
from .scales import SCALES, Scale


def generate_world(seed: int = 0, scale: str = "small", home: Path | str | None = None) -> Path:
    """The golden world file for (seed, scale) in the store at `home` (default store home)."""
    from ..store import WorldStore

    return WorldStore(home).golden(seed, scale)


__all__ = ["SCALES", "Scale", "build_world", "generate_world"]
