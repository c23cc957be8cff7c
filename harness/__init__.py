"""The agent side: a Gymnasium environment over a real browser bound to one world.

Importing this package registers every task template with Gymnasium as
`officegym/<template-id>`, so `gymnasium.make("officegym.harness:officegym/chat.post_update")`
works from a fresh interpreter.
"""

from .actions import (
    ActionParseError,
    ElementNotFound,
    PageActions,
    action_space_description,
    format_action,
    parse_action,
)
from .agents import NullAgent, OracleAgent, PolicyAgent, RandomAgent, ReplayAgent
from .env import AsyncEnv, Env, EpisodeOver, EpisodeResult, make, register_templates
from .pool import EnvPool
from .recording import Episode, Recorder, load_episode
from .replay import ReplayResult, replay
from .report import write_report
from .runtime import Runtime, RuntimeOptions
from .session import SessionOptions
from .sft import ExportStats, export_sft
from .spaces import ObservationOptions

register_templates()

__all__ = [
    "ActionParseError",
    "AsyncEnv",
    "ElementNotFound",
    "Env",
    "EnvPool",
    "Episode",
    "EpisodeOver",
    "EpisodeResult",
    "ExportStats",
    "NullAgent",
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
    "SessionOptions",
    "action_space_description",
    "export_sft",
    "format_action",
    "load_episode",
    "make",
    "parse_action",
    "replay",
    "write_report",
]
