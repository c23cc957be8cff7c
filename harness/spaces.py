"""Gymnasium spaces of the environment: free text and the observation dictionary."""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from .observation import FIELDS, wanted

TEXT_MAX_LENGTH = 2**31 - 1
_SAMPLE_CHARS = string.ascii_letters + string.digits + " _-()\"',."


class Unicode(spaces.Text):
    """Any Python string (Gymnasium's Text space limits the charset; pages don't)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(max_length=TEXT_MAX_LENGTH, charset=_SAMPLE_CHARS, seed=seed)

    def contains(self, x: object) -> bool:
        return isinstance(x, str)

    def sample(self, mask=None, probability=None) -> str:  # noqa: ARG002 - Text's signature
        """A short random string (sampling up to max_length characters would not fit memory)."""
        length = int(self.np_random.integers(0, 33))
        chars = self.np_random.choice(list(_SAMPLE_CHARS), size=length)
        return "".join(chars.tolist())

    def __repr__(self) -> str:
        return "Unicode()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unicode)

    __hash__ = spaces.Text.__hash__


@dataclass(frozen=True)
class ObservationOptions:
    """Which observation parts are computed; parts left out cost nothing."""

    axtree: bool = True
    dom: bool = True
    screenshot: bool = False
    som: bool = False


def observation_space(parts: ObservationOptions, viewport: tuple[int, int]) -> spaces.Dict:
    """The `Dict` space of observations with these parts (keys and kinds from `FIELDS`)."""
    width, height = viewport
    kinds: dict[str, Callable[[], spaces.Space]] = {
        "text": Unicode,
        "texts": lambda: spaces.Sequence(Unicode()),
        "index": lambda: spaces.Box(0, 255, shape=(), dtype=np.int64),
        "seconds": lambda: spaces.Box(0, 1e9, shape=(), dtype=np.float64),
        "image": lambda: spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8),
    }
    return spaces.Dict({key: kinds[FIELDS[key].kind]() for key in wanted(parts)})


__all__ = ["ObservationOptions", "Unicode", "observation_space"]
