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
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import numpy as np

if TYPE_CHECKING:
    from .observe import PageObservation
    from .session import BrowserSession
    from .spaces import ObservationOptions


class ChatMessage(TypedDict):
    """One message of BrowserGym's chat: `role` is "assistant" (the greeting, then the agent's
    `send_msg_to_user`), "user" (the goal) or "infeasible" (`report_infeasible`); `timestamp`
    is POSIX seconds on the world clock."""

    role: str
    timestamp: float
    message: str


class Observation(TypedDict, total=False):
    """One observation. Parts not asked for (see `ObservationOptions`) are absent."""

    goal: str
    goal_object: tuple[dict[str, str], ...]  # BrowserGym's: ({"type": "text", "text": goal},)
    chat_messages: tuple[ChatMessage, ...]
    instructions: str
    url: str
    open_pages_urls: tuple[str, ...]
    open_pages_titles: tuple[str, ...]
    active_page_index: np.ndarray  # int64, shape (1,) as in BrowserGym
    focused_element_bid: str
    last_action: str
    last_action_error: str
    elapsed_time: np.ndarray  # float64, shape (1,): seconds since reset
    axtree_txt: str
    dom_txt: str
    axtree_object: dict[str, Any]  # CDP Accessibility.getFullAXTree, nodes with browsergym_id
    dom_object: dict[str, Any]  # CDP DOMSnapshot.captureSnapshot with layout
    extra_element_properties: dict[str, dict[str, Any]]  # bid -> visibility, bbox, ...
    screenshot: np.ndarray  # H×W×3 uint8
    som_screenshot: np.ndarray  # H×W×3 uint8, numbered boxes drawn on each element


Kind = Literal["text", "texts", "goal", "chat", "index", "seconds", "object", "image"]
Part = Literal["axtree", "dom", "objects", "screenshot", "som"]


@dataclass(frozen=True)
class Field:
    """What one observation key holds, and the `ObservationOptions` part that turns it on
    (None: always present)."""

    kind: Kind
    part: Part | None = None


FIELDS: Mapping[str, Field] = {
    "goal": Field("text"),
    "goal_object": Field("goal"),
    "chat_messages": Field("chat"),
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
    "axtree_object": Field("object", "objects"),
    "dom_object": Field("object", "objects"),
    "extra_element_properties": Field("object", "objects"),
    "screenshot": Field("image", "screenshot"),
    "som_screenshot": Field("image", "som"),
}
"""Every observation key in `Observation`'s order."""

GREETING = "Hi! I am your UI assistant, I can perform web tasks for you. What can I help you with?"
"""The chat's first message, BrowserGym's greeting word for word."""


def chat_messages(
    goal: str,
    *,
    opened: float,
    answer: str | None = None,
    infeasible: str | None = None,
    ended: float | None = None,
) -> tuple[ChatMessage, ...]:
    """BrowserGym's chat of an episode: the greeting and the goal at `opened`, then the
    agent's final message (its answer, or why the goal is infeasible) at `ended` once sent.
    Times are POSIX seconds on the world clock, so an episode's chat is reproducible."""
    messages: list[ChatMessage] = [
        {"role": "assistant", "timestamp": opened, "message": GREETING},
        {"role": "user", "timestamp": opened, "message": goal},
    ]
    at = opened if ended is None else ended
    if answer is not None:
        messages.append({"role": "assistant", "timestamp": at, "message": answer})
    elif infeasible is not None:
        messages.append({"role": "infeasible", "timestamp": at, "message": infeasible})
    return tuple(messages)


def active_index(obs: Mapping[str, object]) -> int | None:
    """The active tab's index of `obs` (shape (1,) as BrowserGym's, or a plain number from an
    older recording); None when the observation has none."""
    value = obs.get("active_page_index")
    return None if value is None else int(np.asarray(value).reshape(-1)[0])


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
    world_time: float = 0.0,
    answer: str | None = None,
    infeasible: str | None = None,
) -> Observation:
    """The observation of `session`'s tabs with `page_obs` of the active one; `started` is the
    `time.monotonic()` of the episode's start (None: no time has passed yet), `world_time` the
    world clock at the start (POSIX seconds), `answer`/`infeasible` the agent's final message."""
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
    elapsed = 0.0 if started is None else time.monotonic() - started
    obs: Observation = {
        "goal": goal,
        "goal_object": ({"type": "text", "text": goal},),
        "chat_messages": chat_messages(
            goal,
            opened=world_time,
            answer=answer,
            infeasible=infeasible,
            ended=world_time + elapsed,
        ),
        "instructions": instructions,
        "url": session.page.url,
        "open_pages_urls": tuple(p.url for p in session.pages),
        "open_pages_titles": tuple(titles),
        "active_page_index": np.array([session.active], dtype=np.int64),
        "focused_element_bid": page_obs.focused_element_bid,
        "last_action": last_action,
        "last_action_error": last_action_error,
        "elapsed_time": np.array([elapsed], dtype=np.float64),
    }
    computed = {
        "axtree_txt": page_obs.axtree_txt,
        "dom_txt": page_obs.dom_txt,
        "axtree_object": page_obs.axtree_object,
        "dom_object": page_obs.dom_object,
        "extra_element_properties": page_obs.extra_element_properties,
        "screenshot": page_obs.screenshot,
        "som_screenshot": page_obs.som_screenshot,
    }
    for key in wanted(parts):
        if key in computed:
            obs[key] = computed[key]
    return obs


__all__ = [
    "FIELDS",
    "GREETING",
    "ChatMessage",
    "Field",
    "Observation",
    "active_index",
    "assemble",
    "chat_messages",
    "wanted",
]
