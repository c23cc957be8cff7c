"""The env server's wire format: OpenEnv's models mirrored, and what officegym adds to them.

`serve-env` speaks OpenEnv's protocol (openenv-core 0.3.0): `POST /reset`, `POST /step`,
`GET /state`, `GET /health`, `GET /schema`, `GET /metadata` over HTTP, and one session per
WebSocket at `/ws` with `reset` / `step` / `state` / `close` messages answered by
`observation` / `state` / `error` messages. The models in the first half of this module mirror
OpenEnv's own, field for field (`tests/officegym/envserver/test_protocol.py` compares their
JSON schemas with openenv's). They are mirrored rather than imported because importing
`openenv.core` costs about 5.8 s of CPU and 2,369 modules (gradio, pandas, fastmcp), against
0.58 s for fastapi, uvicorn and pydantic; the server imports no openenv code at all.

The second half is officegym's: every reply extends OpenEnv's (a client that knows only
OpenEnv's fields reads them unchanged), plus `finish` (grade now, return the verdict), `close`,
HTTP sessions named by `session_id`, and finer error codes.

An action is `{"action_str": "click(\\"12\\")"}` (the field name of OpenEnv's BrowserGym
environment); an observation is `officegym.harness.codec.encode` of the harness's
observation (screenshots as base64 PNG, only when asked for).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from enum import StrEnum
from pathlib import PurePath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# ---- OpenEnv's models, mirrored (same names, fields, defaults, constraints, descriptions) ----


class HealthStatus(StrEnum):
    """How the server is doing (OpenEnv's values)."""

    HEALTHY = "healthy"
    UNHEALTHY = "unhealthy"
    DEGRADED = "degraded"


class WSErrorCode(StrEnum):
    """OpenEnv's error codes; `ErrorCode` below holds these and officegym's own."""

    INVALID_JSON = "INVALID_JSON"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    CAPACITY_REACHED = "CAPACITY_REACHED"
    FACTORY_ERROR = "FACTORY_ERROR"
    SESSION_ERROR = "SESSION_ERROR"


class Action(BaseModel):
    """An action's base: OpenEnv's, with its free `metadata`."""

    model_config = ConfigDict(
        extra="forbid", validate_assignment=True, arbitrary_types_allowed=True
    )

    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Additional metadata for the action"
    )


class ResetRequest(BaseModel):
    """The body of `POST /reset` as OpenEnv defines it (extra fields allowed)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={"examples": [{"seed": 42, "episode_id": "episode-001"}, {}]},
    )

    seed: int | None = Field(
        default=None, ge=0, description="Random seed for reproducible episodes"
    )
    episode_id: str | None = Field(
        default=None, max_length=255, description="Custom episode identifier"
    )


class ResetResponse(BaseModel):
    """The reply to `POST /reset` as OpenEnv defines it."""

    model_config = ConfigDict(extra="forbid")

    observation: dict[str, Any] = Field(..., description="Initial observation from the environment")
    reward: float | None = Field(
        default=None, description="Initial reward (typically None at reset)"
    )
    done: bool = Field(
        default=False, description="Whether episode is already done (typically False)"
    )


class StepRequest(BaseModel):
    """The body of `POST /step` as OpenEnv defines it (extra fields allowed)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {"action": {"value": 1}, "timeout_s": 30.0},
                {"action": {"value": 1}, "render": True, "verbose": False},
            ]
        },
    )

    action: dict[str, Any] = Field(
        ..., description="Action to execute, must conform to environment's action schema"
    )
    timeout_s: float | None = Field(
        default=None, gt=0, description="Optional timeout in seconds for action execution"
    )
    request_id: str | None = Field(
        default=None, max_length=255, description="Optional request identifier for tracking"
    )


class StepResponse(BaseModel):
    """The reply to `POST /step` as OpenEnv defines it."""

    model_config = ConfigDict(extra="forbid")

    observation: dict[str, Any] = Field(..., description="Observation resulting from the action")
    reward: float | None = Field(default=None, description="Reward signal from the action")
    done: bool = Field(default=False, description="Whether the episode has terminated")


class BaseMessage(BaseModel):
    """OpenEnv's base of WebSocket messages: strict fields."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class State(BaseModel):
    """An environment's state as OpenEnv defines it (extra fields allowed)."""

    model_config = ConfigDict(extra="allow", validate_assignment=True, arbitrary_types_allowed=True)

    episode_id: str | None = Field(
        default=None, description="Unique identifier for the current episode"
    )
    step_count: int = Field(
        default=0, ge=0, description="Number of steps taken in the current episode"
    )


class EnvironmentMetadata(BaseMessage):
    """What `GET /metadata` says about the environment."""

    name: str = Field(description="Name of the environment")
    description: str = Field(description="Description of what the environment does")
    readme_content: str | None = Field(
        default=None, description="Content of the README file for the environment"
    )
    version: str | None = Field(default=None, description="Version of the environment")
    author: str | None = Field(default=None, description="Author of the environment")
    documentation_url: str | None = Field(
        default=None, description="URL to the environment's documentation"
    )


class SchemaResponse(BaseMessage):
    """What `GET /schema` returns: the JSON schemas of actions, observations and state."""

    action: dict[str, Any] = Field(
        description="JSON schema for actions accepted by this environment"
    )
    observation: dict[str, Any] = Field(
        description="JSON schema for observations returned by this environment"
    )
    state: dict[str, Any] = Field(description="JSON schema for environment state objects")


class HealthResponse(BaseMessage):
    """The reply to `GET /health` as OpenEnv defines it."""

    status: HealthStatus = Field(
        default=HealthStatus.HEALTHY, description="Health status of the environment server"
    )


class WSResetMessage(BaseMessage):
    """Start a new episode in this WebSocket's session (`data`: the reset's fields)."""

    type: Literal["reset"] = Field(default="reset", description="Message type")
    data: dict[str, Any] = Field(
        default_factory=dict, description="Optional reset parameters (seed, episode_id, etc.)"
    )


class WSStepMessage(BaseMessage):
    """Run one action (`data`: the action's fields)."""

    type: Literal["step"] = Field(default="step", description="Message type")
    data: dict[str, Any] = Field(
        ..., description="Action data conforming to environment's action schema"
    )


class WSStateMessage(BaseMessage):
    """Ask for the session's state."""

    type: Literal["state"] = Field(default="state", description="Message type")


class WSCloseMessage(BaseMessage):
    """End the session: its world is dropped and the WebSocket closed."""

    type: Literal["close"] = Field(default="close", description="Message type")


class WSObservationResponse(BaseModel):
    """The reply to `reset` and `step`: `data` holds observation, reward and done."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["observation"] = Field(default="observation", description="Response type")
    data: dict[str, Any] = Field(description="Observation data")


class WSStateResponse(BaseModel):
    """The reply to `state`."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["state"] = Field(default="state", description="Response type")
    data: dict[str, Any] = Field(description="State data")


class WSErrorResponse(BaseModel):
    """What went wrong: `data` holds `message` and `code`."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["error"] = Field(default="error", description="Response type")
    data: dict[str, Any] = Field(description="Error details including message and code")


MIRRORED = (
    Action,
    ResetRequest,
    ResetResponse,
    StepRequest,
    StepResponse,
    State,
    EnvironmentMetadata,
    SchemaResponse,
    HealthResponse,
    WSResetMessage,
    WSStepMessage,
    WSStateMessage,
    WSCloseMessage,
    WSObservationResponse,
    WSStateResponse,
    WSErrorResponse,
)
"""The models that mirror openenv-core's `openenv.core.env_server.types` of the same name."""


# ---- officegym's additions --------------------------------------------------------------


class ErrorCode(StrEnum):
    """Every error code the server sends: OpenEnv's (same values) and officegym's own."""

    INVALID_JSON = "INVALID_JSON"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    CAPACITY_REACHED = "CAPACITY_REACHED"
    FACTORY_ERROR = "FACTORY_ERROR"
    SESSION_ERROR = "SESSION_ERROR"
    UNAUTHORIZED = "UNAUTHORIZED"
    UNKNOWN_TASK = "UNKNOWN_TASK"
    UNKNOWN_SESSION = "UNKNOWN_SESSION"
    SESSION_BUSY = "SESSION_BUSY"
    SESSION_BROKEN = "SESSION_BROKEN"
    STEP_TIMEOUT = "STEP_TIMEOUT"
    NO_EPISODE = "NO_EPISODE"
    EPISODE_OVER = "EPISODE_OVER"


class BrowserAction(Action):
    """One step's action text in BrowserGym's syntax, e.g. `click("12")` (see
    `officegym.harness.action_space_description()`); a bad action is an observation with
    `last_action_error`, not an error reply."""

    action_str: str = Field(description='The action text, e.g. click("12") or fill("7", "hi")')


class WorldChoice(BaseModel):
    """The golden world an episode's instance is sampled from and played on."""

    model_config = ConfigDict(extra="forbid")

    seed: int = Field(default=0, ge=0, description="Seed of the golden world")
    scale: str = Field(default="small", description="Scale of the golden world")

    @field_validator("scale")
    @classmethod
    def _known_scale(cls, scale: str) -> str:
        from officegym.seed_data.store import SCALES

        if scale not in SCALES:
            raise ValueError(f"unknown scale {scale!r}; choose one of {', '.join(SCALES)}")
        return scale


class ObservationChoice(BaseModel):
    """Which observation parts are computed and sent (`officegym.harness.ObservationOptions`)."""

    model_config = ConfigDict(extra="forbid")

    axtree: bool = True
    dom: bool = True
    objects: bool = False
    screenshot: bool = False
    som: bool = False


class Reset(ResetRequest):
    """`POST /reset` and the `data` of a WebSocket `reset`: which task instance to play.

    The first reset of a session names `task`; a field left out keeps the session's previous
    choice (task, world, observation parts, reward mode, step limit), and `world: null` or
    `max_steps: null` given explicitly return to the template's own. `seed` is the instance
    seed unless `instance_seed` is given (neither: a random instance). Over HTTP, a reset
    without `session_id` opens a new session and the reply names it.
    """

    model_config = ConfigDict(extra="forbid")

    session_id: str | None = Field(
        default=None, max_length=64, description="HTTP only: the session to reset"
    )
    task: str | None = Field(
        default=None, max_length=200, description="A registered template id (chat.post_update)"
    )
    instance_seed: int | None = Field(
        default=None, ge=0, description="Which instance of the template (default: seed)"
    )
    world: WorldChoice | None = Field(
        default=None, description="The golden world (default: the template's own)"
    )
    observation: ObservationChoice | None = Field(
        default=None, description="Observation parts (default: the session's, else axtree+dom)"
    )
    reward: Literal["sparse", "dense"] | None = Field(
        default=None, description="sparse: the score at the end; dense: its change every step"
    )
    max_steps: int | None = Field(
        default=None, ge=1, le=10_000, description="Steps before truncation (default: the task's)"
    )


class Step(StepRequest):
    """`POST /step`: `action` is a `BrowserAction` as a dict; HTTP names its `session_id`."""

    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(max_length=64, description="The session to step")


class SessionRequest(BaseModel):
    """`POST /finish` and `POST /close`: the HTTP session they act on."""

    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(max_length=64, description="The session")


class ObservationReply(StepResponse):
    """The reply to a reset or a step: OpenEnv's fields, plus Gymnasium's split of `done`
    into `terminated` and `truncated`, the step's `info` (JSON) and the session's ids."""

    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] = Field(default_factory=dict)
    session_id: str
    episode_id: str | None = None


class VerdictReply(BaseModel):
    """The reply to `finish`: the episode is over and graded (`info` holds `verdict`, `diff`,
    `success`, `score`, `answer`, `infeasible`)."""

    model_config = ConfigDict(extra="forbid")

    reward: float
    done: bool = True
    info: dict[str, Any]
    session_id: str
    episode_id: str | None = None


class SessionState(State):
    """`GET /state` and the WebSocket `state` reply: the session and its current episode."""

    session_id: str
    transport: Literal["http", "ws"]
    task_id: str | None = None
    instance_seed: int | None = None
    goal: str | None = None
    done: bool = False
    graded: bool = False
    needs_reset: str | None = Field(
        default=None, description="Why step and finish are refused until the next reset"
    )
    observation: ObservationChoice | None = None


class Health(HealthResponse):
    """`GET /health` (no token needed: the container's health check calls it)."""

    active_sessions: int
    max_sessions: int
    http_sessions: int
    ws_sessions: int
    browser_contexts: int


class WSFinishMessage(BaseMessage):
    """End the episode now and grade it; the reply is a `verdict` message."""

    type: Literal["finish"] = Field(default="finish", description="Message type")


class WSVerdictResponse(BaseModel):
    """The reply to `finish`: `data` is a `VerdictReply`."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["verdict"] = Field(default="verdict", description="Response type")
    data: dict[str, Any] = Field(description="Reward, verdict and diff")


WS_MESSAGES: Mapping[str, type[BaseMessage]] = {
    "reset": WSResetMessage,
    "step": WSStepMessage,
    "state": WSStateMessage,
    "finish": WSFinishMessage,
    "close": WSCloseMessage,
}
"""Client message types on `/ws` and their models."""

WS_POLICY_VIOLATION = 1008
"""The WebSocket close code for a missing or wrong token."""
WS_TRY_AGAIN_LATER = 1013
"""The WebSocket close code when the server is at `--max-sessions`."""
WS_GOING_AWAY = 1001
"""The WebSocket close code when an idle session is reclaimed or the server stops."""


def error_body(code: ErrorCode, message: str, **details: Any) -> dict[str, Any]:
    """An error's details as both transports send them (`{"code", "message", ...}`)."""
    return {"code": code.value, "message": message, **details}


def jsonable(value: Any) -> Any:
    """`value` (an `info` dict of the harness) as JSON: verdicts and diffs through their own
    `to_json`, paths as strings, tuples as lists, NumPy scalars as numbers."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(item) for item in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, PurePath):
        return str(value)
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(asdict(value))
    item = getattr(value, "item", None)
    if callable(item):
        return jsonable(item())
    return str(value)


_KIND_SCHEMAS: Mapping[str, dict[str, Any]] = {
    "text": {"type": "string"},
    "texts": {"type": "array", "items": {"type": "string"}},
    "goal": {"type": "array", "items": {"type": "object"}},
    "chat": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "role": {"type": "string"},
                "timestamp": {"type": "number"},
                "message": {"type": "string"},
            },
        },
    },
    "index": {"type": "integer", "minimum": 0},
    "seconds": {"type": "number", "minimum": 0},
    "object": {"type": "object"},
    "image": {"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"},
}


def observation_schema() -> dict[str, Any]:
    """The JSON schema of an encoded observation, from the harness's one declaration of its
    keys (`officegym.harness.observation.FIELDS`)."""
    from officegym.harness.observation import FIELDS

    properties = {}
    for key, field in FIELDS.items():
        schema = dict(_KIND_SCHEMAS[field.kind])
        if field.part is not None:
            schema["description"] = f"only when the {field.part!r} part is asked for"
        properties[key] = schema
    return {"title": "Observation", "type": "object", "properties": properties}


__all__ = [
    "MIRRORED",
    "WS_GOING_AWAY",
    "WS_MESSAGES",
    "WS_POLICY_VIOLATION",
    "WS_TRY_AGAIN_LATER",
    "Action",
    "BaseMessage",
    "BrowserAction",
    "EnvironmentMetadata",
    "ErrorCode",
    "Health",
    "HealthResponse",
    "HealthStatus",
    "ObservationChoice",
    "ObservationReply",
    "Reset",
    "ResetRequest",
    "ResetResponse",
    "SchemaResponse",
    "SessionRequest",
    "SessionState",
    "State",
    "Step",
    "StepRequest",
    "StepResponse",
    "VerdictReply",
    "WSCloseMessage",
    "WSErrorCode",
    "WSErrorResponse",
    "WSFinishMessage",
    "WSObservationResponse",
    "WSResetMessage",
    "WSStateMessage",
    "WSStateResponse",
    "WSStepMessage",
    "WSVerdictResponse",
    "WorldChoice",
    "error_body",
    "jsonable",
    "observation_schema",
]
