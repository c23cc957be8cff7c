"""An app's service operations, read from its OpenAPI document: one `Operation` per route.

The document an app serves at `/<app>/api/openapi.json` is the one description of its JSON
API; the MCP tools are derived from it, never listed a second time. Each operation becomes a
tool whose input schema is one JSON object: the path and query parameters by name, and the
request body (with its `$ref`s inlined) under `body`. A file field of a multipart body
(`format: binary`) takes `{"filename", "content", "encoding"}`, since a tool call carries JSON.

Tool names follow the route: `<app>_<method>_<literal path segments>`, with `_item` when the
path ends in a parameter (`GET /chat/api/channels/{channel_id}` is `chat_get_channels_item`,
`POST /chat/api/channels/{channel_id}/messages` is `chat_post_channels_messages`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

# Methods that change nothing (the API lets them through without the CSRF header).
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_METHODS = ("get", "post", "put", "patch", "delete")
# The route that serves the document itself is not a service operation.
_DOCUMENT_PATH = "/openapi.json"
_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
_REF = "#/components/schemas/"

FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A file: its name (the extension decides how it is read) and its content.",
    "properties": {
        "filename": {"type": "string", "minLength": 1},
        "content": {"type": "string"},
        "encoding": {
            "enum": ["text", "base64"],
            "default": "text",
            "description": "`text` (UTF-8, e.g. CSV) or `base64` (e.g. .xlsx)",
        },
    },
    "required": ["filename", "content"],
    "additionalProperties": False,
}


class OperationError(ValueError):
    """An OpenAPI document cannot be read as tools (a dangling `$ref`, two routes with one
    tool name, a body of an unknown kind)."""


@dataclass(frozen=True)
class Operation:
    """One route of an app's JSON API as a tool.

    `path` is the full path with its `{parameters}` (`/chat/api/channels/{channel_id}`);
    `input_schema` is the tool's JSON schema; `body` says how the `body` argument is sent.
    """

    name: str
    app: str
    method: str
    path: str
    summary: str
    description: str
    input_schema: Mapping[str, Any]
    path_params: tuple[str, ...] = ()
    query_params: tuple[str, ...] = ()
    body: Literal["json", "multipart"] | None = None
    file_fields: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        return self.method in READ_METHODS


def operations(document: Mapping[str, Any], app: str) -> tuple[Operation, ...]:
    """Every service operation of `app`'s OpenAPI 3.1 `document`, in document order."""
    components = document.get("components", {}).get("schemas", {})
    servers = document.get("servers") or [{"url": ""}]
    prefix = str(servers[0]["url"]).rstrip("/")
    found: dict[str, Operation] = {}
    for path, methods in document.get("paths", {}).items():
        if path == _DOCUMENT_PATH:
            continue
        for method in _METHODS:
            spec = methods.get(method)
            if spec is None:
                continue
            operation = _operation(app, method.upper(), prefix, path, spec, components)
            if operation.name in found:
                other = found[operation.name]
                raise OperationError(
                    f"{app}: {other.method} {other.path} and {operation.method} {operation.path}"
                    f" would both be the tool {operation.name!r}"
                )
            found[operation.name] = operation
    return tuple(found.values())


def tool_name(app: str, method: str, path: str) -> str:
    """The tool name of `method path` (path relative to the API prefix) in `app`."""
    segments = [s for s in path.strip("/").split("/") if s]
    words = [re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_") for s in segments if s[0] != "{"]
    if segments and segments[-1].startswith("{"):
        words.append("item")
    name = "_".join([app.replace("-", "_"), method.lower(), *filter(None, words)])
    if not _NAME.fullmatch(name):
        raise OperationError(f"{method} {path}: {name!r} is not a usable tool name")
    return name


def _operation(
    app: str,
    method: str,
    prefix: str,
    path: str,
    spec: Mapping[str, Any],
    components: Mapping[str, Any],
) -> Operation:
    properties: dict[str, Any] = {}
    required: list[str] = []
    path_params: list[str] = []
    query_params: list[str] = []
    for param in spec.get("parameters", ()):
        where = param.get("in")
        if where not in ("path", "query"):
            continue  # headers (the CSRF guard) are the session's business
        name = param["name"]
        properties[name] = _inline(param.get("schema", {"type": "string"}), components, ())
        if where == "path" or param.get("required"):
            required.append(name)
        (path_params if where == "path" else query_params).append(name)
    body_kind, file_fields = None, ()
    request_body = spec.get("requestBody")
    if request_body is not None:
        body_kind, schema, file_fields = _body(request_body, components, f"{method} {path}")
        properties["body"] = schema
        if request_body.get("required"):
            required.append("body")
    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    input_schema["additionalProperties"] = False
    summary = str(spec.get("summary") or f"{method} {path}")
    description = f"{summary}. ({method} {prefix}{path})"
    if body_kind is not None:
        description += " The request body goes in `body`."
    return Operation(
        name=tool_name(app, method, path),
        app=app,
        method=method,
        path=prefix + path,
        summary=summary,
        description=description,
        input_schema=input_schema,
        path_params=tuple(path_params),
        query_params=tuple(query_params),
        body=body_kind,
        file_fields=file_fields,
    )


def _body(
    request_body: Mapping[str, Any], components: Mapping[str, Any], where: str
) -> tuple[Literal["json", "multipart"], dict[str, Any], tuple[str, ...]]:
    content = request_body.get("content", {})
    if "application/json" in content:
        return "json", _inline(content["application/json"]["schema"], components, ()), ()
    if "multipart/form-data" in content:
        schema = _inline(content["multipart/form-data"]["schema"], components, ())
        files = []
        for name, field in schema.get("properties", {}).items():
            if field.get("format") == "binary":
                schema["properties"][name] = copy.deepcopy(FILE_SCHEMA)
                files.append(name)
        return "multipart", schema, tuple(files)
    raise OperationError(f"{where}: no JSON or multipart body in {sorted(content)}")


def _inline(schema: Any, components: Mapping[str, Any], seen: tuple[str, ...]) -> Any:
    """`schema` with every `#/components/schemas/...` reference replaced by its target."""
    if isinstance(schema, list):
        return [_inline(item, components, seen) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    ref = schema.get("$ref")
    if ref is None:
        return {key: _inline(value, components, seen) for key, value in schema.items()}
    if not isinstance(ref, str) or not ref.startswith(_REF) or ref[len(_REF) :] not in components:
        raise OperationError(f"the reference {ref!r} names no schema of the document")
    name = ref[len(_REF) :]
    if name in seen:
        raise OperationError(f"the schema {name!r} refers to itself; it cannot be inlined")
    target = dict(_inline(components[name], components, (*seen, name)))
    target.update({k: _inline(v, components, seen) for k, v in schema.items() if k != "$ref"})
    return target


__all__ = ["FILE_SCHEMA", "READ_METHODS", "Operation", "OperationError", "operations", "tool_name"]
