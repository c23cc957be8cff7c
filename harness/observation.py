"""The observation an agent gets after every reset and step, declared once.

`Observation` is its type (keys follow BrowserGym where they mean the same thing); `FIELDS`
says, per key, what kind of value it holds and which `ObservationOptions` part asks for it.
The Gymnasium space (`spaces.observation_space`) and the JSON codec (`codec`) are built from
`FIELDS`; `assemble` makes one from a live session.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypedDict

import numpy as np

if TYPE_CHECKING:
    from .observe import PageObservation
    from .session import BrowserSession
    from .spaces import ObservationOptions


class Observation(TypedDict, total=False):
    """One observation. Parts not asked for (see `ObservationOptions`) are absent."""

    goal: str
    instructions: str
    url: str
    open_pages_urls: tuple[str, ...]
    open_pages_titles: tuple[str, ...]
    active_page_index: np.ndarray  # 0-d int64
    focused_element_bid: str
    last_action: str
    last_action_error: str
    elapsed_time: np.ndarray  # 0-d float64, seconds since reset
    axtree_txt: str
    dom_txt: str
    screenshot: np.ndarray  # H×W×3 uint8
    som_screenshot: np.ndarray  # H×W×3 uint8, numbered boxes drawn on each element


Kind = Literal["text", "texts", "index", "seconds", "image"]
Part = Literal["axtree", "dom", "screenshot", "som"]


@dataclass(frozen=True)
class Field:
    """What one observation key holds, and the `ObservationOptions` part that turns it on
    (None: always present)."""

    kind: Kind
    part: Part | None = None


FIELDS: Mapping[str, Field] = {
    "goal": Field("text"),
    "instructions": Field("text"),
    "url": Field("text"),
    "open_pages_urls": Field("texts"),
    "open_pages_titles": Field("texts"),
    "active_page_index": Field("index"),
    "focused_element_bid": Field("text"),
    "last_action": Field("text"),
    "last_action_error": Field("text"),
    "elapsed_time": Field("seconds"),
    "axtree_txt": Field("text", "axtree"),
    "dom_txt": Field("text", "dom"),
    "screenshot": Field("image", "screenshot"),
    "som_screenshot": Field("image", "som"),
}
"""Every observation key in `Observation`'s order."""


def wanted(parts: ObservationOptions) -> tuple[str, ...]:
    """The keys an observation with these parts holds."""
    return tuple(
        key for key, field in FIELDS.items() if field.part is None or getattr(parts, field.part)
    )


async def assemble(
    session: BrowserSession,
    page_obs: PageObservation,
    parts: ObservationOptions,
    *,
    goal: str,
    instructions: str,
    last_action: str,
    last_action_error: str,
    started: float | None,
) -> Observation:
    """The observation of `session`'s tabs with `page_obs` of the active one; `started` is the
    `time.monotonic()` of the episode's start (None: no time has passed yet)."""
    titles = []
    root = page_obs.nodes[0] if page_obs.nodes else None
    for index, page in enumerate(session.pages):
        if index == session.active and root is not None and root.role == "RootWebArea":
            titles.append(root.name)  # the tree's root is named after the title
            continue
        try:
            titles.append(await page.title())
        except Exception:  # noqa: BLE001 - a tab closing right now has no title
            titles.append("")
    obs: Observation = {
        "goal": goal,
        "instructions": instructions,
        "url": session.page.url,
        "open_pages_urls": tuple(p.url for p in session.pages),
        "open_pages_titles": tuple(titles),
        "active_page_index": np.array(session.active, dtype=np.int64),
        "focused_element_bid": page_obs.focused_element_bid,
        "last_action": last_action,
        "last_action_error": last_action_error,
        "elapsed_time": np.array(
            0.0 if started is None else time.monotonic() - started, dtype=np.float64
        ),
    }
    computed = {
        "axtree_txt": page_obs.axtree_txt,
        "dom_txt": page_obs.dom_txt,
        "screenshot": page_obs.screenshot,
        "som_screenshot": page_obs.som_screenshot,
    }
    for key in wanted(parts):
        if key in computed:
            obs[key] = computed[key]
    return obs


__all__ = ["FIELDS", "Field", "Observation", "assemble", "wanted"]
