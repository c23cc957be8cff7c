"""Gymnasium spaces of the environment: free text and the observation dictionary."""

from __future__ import annotations

import string
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

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
    width, height = viewport
    image = spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8)
    fields: dict[str, spaces.Space] = {
        "goal": Unicode(),
        "instructions": Unicode(),
        "url": Unicode(),
        "open_pages_urls": spaces.Sequence(Unicode()),
        "open_pages_titles": spaces.Sequence(Unicode()),
        "active_page_index": spaces.Box(0, 255, shape=(), dtype=np.int64),
        "focused_element_bid": Unicode(),
        "last_action": Unicode(),
        "last_action_error": Unicode(),
        "elapsed_time": spaces.Box(0, 1e9, shape=(), dtype=np.float64),
    }
    if parts.axtree:
        fields["axtree_txt"] = Unicode()
    if parts.dom:
        fields["dom_txt"] = Unicode()
    if parts.screenshot:
        fields["screenshot"] = image
    if parts.som:
        fields["som_screenshot"] = image
    return spaces.Dict(fields)


__all__ = ["ObservationOptions", "Unicode", "observation_space"]
