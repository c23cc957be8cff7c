"""The agent side: a Gymnasium environment over a real browser bound to one world.

Importing this package registers every task template with Gymnasium as
`officegym/<template-id>`, so `gymnasium.make("officegym.harness:officegym/chat.post_update")`
works from a fresh interpreter. Registration reads template ids from module names and loads
nothing else: the env, the browser runtime and the templates are imported on first use of the
names below.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .registration import register_templates

if TYPE_CHECKING:
    from .actions import ActionParseError, action_space_description, format_action, parse_action  # noqa: F401
    from .actionspec import SPECS, ActionSpec  # noqa: F401
    from .agents import NullAgent, OracleAgent, PolicyAgent, RandomAgent, ReplayAgent  # noqa: F401
    from .codec import decode, encode  # noqa: F401
    from .env import AsyncEnv, Env, EpisodeOver, EpisodeResult, make  # noqa: F401
    from .observation import Observation  # noqa: F401
    from .page_actions import ElementNotFound, PageActions  # noqa: F401
    from .pool import EnvPool  # noqa: F401
    from .recording import Episode, Recorder, load_episode  # noqa: F401
    from .replay import ReplayResult, replay  # noqa: F401
    from .report import write_report  # noqa: F401
    from .runtime import Runtime, RuntimeOptions  # noqa: F401
    from .session import SessionOptions  # noqa: F401
    from .sft import ExportStats, export_sft  # noqa: F401
    from .spaces import ObservationOptions  # noqa: F401

_LAZY = {
    "ActionParseError": "actions",
    "action_space_description": "actions",
    "format_action": "actions",
    "parse_action": "actions",
    "SPECS": "actionspec",
    "ActionSpec": "actionspec",
    "NullAgent": "agents",
    "OracleAgent": "agents",
    "PolicyAgent": "agents",
    "RandomAgent": "agents",
    "ReplayAgent": "agents",
    "decode": "codec",
    "encode": "codec",
    "AsyncEnv": "env",
    "Env": "env",
    "EpisodeOver": "env",
    "EpisodeResult": "env",
    "make": "env",
    "Observation": "observation",
    "ElementNotFound": "page_actions",
    "PageActions": "page_actions",
    "EnvPool": "pool",
    "Episode": "recording",
    "Recorder": "recording",
    "load_episode": "recording",
    "ReplayResult": "replay",
    "replay": "replay",
    "write_report": "report",
    "Runtime": "runtime",
    "RuntimeOptions": "runtime",
    "SessionOptions": "session",
    "ExportStats": "sft",
    "export_sft": "sft",
    "ObservationOptions": "spaces",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


register_templates()

__all__ = [
    "ActionParseError",
    "ActionSpec",
    "AsyncEnv",
    "ElementNotFound",
    "Env",
    "EnvPool",
    "Episode",
    "EpisodeOver",
    "EpisodeResult",
    "ExportStats",
    "NullAgent",
    "Observation",
    "ObservationOptions",
    "OracleAgent",
    "PageActions",
    "PolicyAgent",
    "RandomAgent",
    "Recorder",
    "ReplayAgent",
    "ReplayResult",
    "Runtime",
    "RuntimeOptions",
    "SPECS",
    "SessionOptions",
    "action_space_description",
    "decode",
    "encode",
    "export_sft",
    "format_action",
    "load_episode",
    "make",
    "parse_action",
    "register_templates",
    "replay",
    "write_report",
]
