"""World ids: the only names a world file may have. Validated before any path is built."""

from __future__ import annotations

import re

DEFAULT_WORLD = "default"
_WORLD_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


class InvalidWorldId(ValueError):
    """The string cannot name a world: 1-64 of a-z, 0-9, '_' and '-', starting alphanumeric."""


def validate_world_id(world_id: object) -> str:
    """Return `world_id` unchanged if it is a well-formed world id, else raise InvalidWorldId."""
    if not isinstance(world_id, str) or not _WORLD_ID.fullmatch(world_id):
        shown = repr(world_id)
        if len(shown) > 40:
            shown = shown[:37] + "..."
        raise InvalidWorldId(
            f"invalid world id {shown}: use 1-64 characters of a-z, 0-9, '_' and '-', "
            "starting with a letter or digit"
        )
    return world_id
