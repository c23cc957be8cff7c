"""OpenEnv's own client, bound to `officegym serve-env`: `OfficeGymEnv`.

A subclass of openenv-core's `EnvClient` (async, one WebSocket per client; `.sync()` gives
OpenEnv's synchronous wrapper) that sends the server's bearer token, names the task at
reset, and reads our observations into `OfficeGymObservation`. Needs the `openenv` extra
(`pip install 'officegym[openenv]'`); `import officegym` never imports openenv.

    from officegym.openenv_client import OfficeGymEnv

    with OfficeGymEnv("http://gpu-node-7:8000", task="chat.post_update", token="...").sync() as env:
        result = env.reset(seed=3)
        result = env.step('click("42")')        # or OfficeGymAction(action_str=...)
        print(result.observation.axtree_txt, result.reward, result.done)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

try:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server.types import Action, Observation, State
    from websockets.asyncio.client import connect as ws_connect
except ImportError as error:  # pragma: no cover - depends on the install
    raise ImportError(
        "officegym.openenv_client needs openenv-core, which the 'openenv' extra installs: "
        f"pip install 'officegym[openenv]' ({error.name or error} is missing)"
    ) from error

from pydantic import create_model

from officegym.harness.codec import decode
from officegym.harness.observation import FIELDS


class OfficeGymAction(Action):
    """One step's action text in BrowserGym's syntax, e.g. `click("12")`."""

    action_str: str


OfficeGymObservation = create_model(
    "OfficeGymObservation",
    __base__=Observation,
    __doc__=(
        "One observation: the harness's keys (decoded by `officegym.harness.codec`; parts not "
        "asked for are None), OpenEnv's `done` and `reward`, Gymnasium's `terminated` and "
        "`truncated`, and the step's `info`."
    ),
    **{key: (Any, None) for key in FIELDS},
    terminated=(bool, False),
    truncated=(bool, False),
    info=(dict[str, Any], {}),
    session_id=(str | None, None),
    episode_id=(str | None, None),
)


class OfficeGymEnv(EnvClient[OfficeGymAction, Any, State]):
    """OpenEnv's client for an officegym env server (one session per client).

    `task`, `observation` (e.g. `{"dom": False}`) and `world` (`{"seed": 0, "scale":
    "tiny"}`) are sent with every reset unless the reset names its own; `token` is the
    server's bearer token (default `$OFFICEGYM_TOKEN`). `finish()` grades the episode now
    and returns (reward, info).
    """

    def __init__(
        self,
        base_url: str,
        *,
        task: str | None = None,
        token: str | None = None,
        observation: Mapping[str, bool] | None = None,
        world: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(base_url, **options)
        self._token = token if token is not None else os.environ.get("OFFICEGYM_TOKEN")
        defaults = {"task": task, "observation": observation, "world": world}
        self._defaults = {
            key: dict(value) if isinstance(value, Mapping) else value
            for key, value in defaults.items()
            if value is not None
        }

    async def connect(self) -> OfficeGymEnv:
        """Open the WebSocket, sending the bearer token."""
        if self._ws is not None:
            return self
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        try:
            self._ws = await ws_connect(
                self._ws_url,
                open_timeout=self._connect_timeout,
                max_size=self._max_message_size,
                additional_headers=headers,
            )
        except Exception as error:
            raise ConnectionError(f"Failed to connect to {self._ws_url}: {error}") from error
        return self

    async def reset(self, **kwargs: Any) -> StepResult:
        return await super().reset(**{**self._defaults, **kwargs})

    async def finish(self) -> tuple[float, dict[str, Any]]:
        """End the episode now and grade it: (reward, info with the verdict and the diff)."""
        response = await self._send_and_receive({"type": "finish"})
        data = response.get("data", {})
        return float(data.get("reward", 0.0)), dict(data.get("info", {}))

    def _step_payload(self, action: OfficeGymAction | str | Mapping[str, Any]) -> dict[str, Any]:
        if isinstance(action, str):
            return {"action_str": action}
        if isinstance(action, Action):
            return action.model_dump()
        return dict(action)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult:
        observation = OfficeGymObservation(
            **decode(payload.get("observation", {})),
            done=bool(payload.get("done", False)),
            reward=payload.get("reward"),
            terminated=bool(payload.get("terminated", False)),
            truncated=bool(payload.get("truncated", False)),
            info=dict(payload.get("info") or {}),
            session_id=payload.get("session_id"),
            episode_id=payload.get("episode_id"),
        )
        return StepResult(
            observation=observation,
            reward=payload.get("reward"),
            done=bool(payload.get("done", False)),
        )

    def _parse_state(self, payload: dict[str, Any]) -> State:
        return State(**payload)


__all__ = ["OfficeGymAction", "OfficeGymEnv", "OfficeGymObservation"]
