"""The world: schema, deterministic generator, world store, change log, clock and diff."""

from .changelog import Snapshot
from .diff import DiffError, RowUpdate, TableDiff, WorldDiff, diff
from .generate import build_world, generate_world
from .ids import DEFAULT_WORLD, InvalidWorldId, validate_world_id
from .store import WorldExists, WorldNotFound, WorldStore, WorldStoreError

__all__ = [
    "DEFAULT_WORLD",
    "DiffError",
    "InvalidWorldId",
    "RowUpdate",
    "Snapshot",
    "TableDiff",
    "WorldDiff",
    "WorldExists",
    "WorldNotFound",
    "WorldStore",
    "WorldStoreError",
    "build_world",
    "diff",
    "generate_world",
    "validate_world_id",
]
