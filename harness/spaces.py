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


class AnyDict(spaces.Space):
    """Any dictionary (BrowserGym's space for its raw page objects and goal parts)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed=seed)

    def contains(self, x: object) -> bool:
        return isinstance(x, dict)

    def sample(self, mask=None, probability=None) -> dict:  # noqa: ARG002 - Space's signature
        """An empty dictionary (any dictionary is a member)."""
        return {}

    def __repr__(self) -> str:
        return "AnyDict()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyDict)

    __hash__ = spaces.Space.__hash__


class Float(spaces.Space):
    """Any Python float (BrowserGym's space for chat message timestamps)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed=seed)

    def contains(self, x: object) -> bool:
        return isinstance(x, float)

    def sample(self, mask=None, probability=None) -> float:  # noqa: ARG002 - Space's signature
        """A random float in [0, 1)."""
        return float(self.np_random.random())

    def __repr__(self) -> str:
        return "Float()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Float)

    __hash__ = spaces.Space.__hash__


@dataclass(frozen=True)
class ObservationOptions:
    """Which observation parts are computed; parts left out cost nothing.

    `objects` adds BrowserGym's raw page objects (`axtree_object`, `dom_object`,
    `extra_element_properties`, what AgentLab's agents read). They are off by default: the
    layout snapshot and visibility pass they need made an observation about three times as
    slow on a 2-core machine (a CRM list 0.18 -> 0.56 s, a long chat channel 0.50 -> 1.48 s),
    and they weigh 0.7-1.5 MB of JSON per observation.
    """

    axtree: bool = True
    dom: bool = True
    objects: bool = False
    screenshot: bool = False
    som: bool = False


def observation_space(parts: ObservationOptions, viewport: tuple[int, int]) -> spaces.Dict:
    """The `Dict` space of observations with these parts (keys and kinds from `FIELDS`)."""
    width, height = viewport
    kinds: dict[str, Callable[[], spaces.Space]] = {
        "text": Unicode,
        "texts": lambda: spaces.Sequence(Unicode()),
        "goal": lambda: spaces.Sequence(AnyDict()),
        "chat": lambda: spaces.Sequence(
            spaces.Dict({"role": Unicode(), "timestamp": Float(), "message": Unicode()})
        ),
        "index": lambda: spaces.Box(0, 255, shape=(1,), dtype=np.int64),
        "seconds": lambda: spaces.Box(0, 1e9, shape=(1,), dtype=np.float64),
        "object": AnyDict,
        "image": lambda: spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8),
    }
    return spaces.Dict({key: kinds[FIELDS[key].kind]() for key in wanted(parts)})


__all__ = ["AnyDict", "Float", "ObservationOptions", "Unicode", "observation_space"]
