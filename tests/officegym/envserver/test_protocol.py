"""The wire models mirror openenv-core's own: the same JSON schema, model by model."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import TypeAdapter

from officegym.envserver import protocol


@pytest.fixture(scope="module")
def openenv_types() -> ModuleType:
    """openenv-core's `openenv/core/env_server/types.py`, loaded from its file: importing it
    as `openenv.core.env_server.types` first runs `openenv.core`'s package init, which
    imports gradio, pandas and fastmcp (about 8 s of CPU) for models that need only pydantic."""
    package = importlib.util.find_spec("openenv")
    assert package is not None, "openenv-core is not installed"
    path = Path(package.submodule_search_locations[0]) / "core" / "env_server" / "types.py"
    spec = importlib.util.spec_from_file_location("openenv_env_server_types", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _wire(schema: dict[str, Any]) -> dict[str, Any]:
    """A model's JSON schema without the prose of the class docstrings (ours are our own):
    every field, type, default, constraint, example and field description stays."""
    schema = {key: value for key, value in schema.items() if key != "description"}
    if "$defs" in schema:
        schema["$defs"] = {
            name: {key: value for key, value in definition.items() if key != "description"}
            for name, definition in schema["$defs"].items()
        }
    return schema


@pytest.mark.parametrize("model", protocol.MIRRORED, ids=lambda model: model.__name__)
def test_each_mirrored_model_has_the_json_schema_of_openenvs_own(model, openenv_types):
    theirs = getattr(openenv_types, model.__name__)
    assert _wire(model.model_json_schema()) == _wire(theirs.model_json_schema())


def test_error_codes_hold_every_openenv_code_with_the_same_value(openenv_types):
    ours = {code.value for code in protocol.ErrorCode}
    assert {code.value for code in openenv_types.WSErrorCode} <= ours
    mirrored = TypeAdapter(protocol.WSErrorCode).json_schema()
    assert _wire(mirrored) == _wire(TypeAdapter(openenv_types.WSErrorCode).json_schema())


def test_officegym_replies_extend_openenvs():
    """A client that knows only OpenEnv's reply fields finds them all in ours."""
    assert issubclass(protocol.ObservationReply, protocol.StepResponse)
    assert issubclass(protocol.SessionState, protocol.State)
    assert issubclass(protocol.Health, protocol.HealthResponse)
    assert issubclass(protocol.Reset, protocol.ResetRequest)
