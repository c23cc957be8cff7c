"""The tools of one or more apps for one signed-in user: what an MCP server lists and calls.

A tool call is checked against the tool's input schema, turned into the API request its
`Operation` describes (path parameters into the path, query parameters into the query, `body`
as JSON or multipart) and sent through the user's `ApiSession`. A refusal comes back as a tool
error carrying the API's message (`HTTP 403 Forbidden: ...`), never as an exception, so an
agent sees it and can correct course.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

import httpx
import mcp_types as types
from jsonschema import Draft202012Validator

from .api_session import ApiReply, ApiSession, LoginFailed
from .operations import Operation, operations

# A text reply longer than this is cut (an agent's context is finite; pages exist for more).
MAX_TEXT_CHARS = 100_000

_documents: dict[str, tuple[Operation, ...]] = {}
_documents_lock = threading.Lock()


class UnknownTool(LookupError):
    """No tool of this toolset has that name."""


def app_operations(session: ApiSession, app: str) -> tuple[Operation, ...]:
    """`app`'s operations from the OpenAPI document it serves (read once per process: the
    document describes the code, not a world)."""
    with _documents_lock:
        found = _documents.get(app)
    if found is None:
        found = operations(session.document(app), app)
        with _documents_lock:
            _documents[app] = found
    return found


class Toolset:
    """The operations of `apps` as tools, called as `session`'s user."""

    def __init__(self, session: ApiSession, apps: Iterable[str]) -> None:
        self.session = session
        self.apps = tuple(apps)
        if not self.apps:
            raise ValueError("a toolset needs at least one app")
        self.operations: dict[str, Operation] = {
            op.name: op for app in self.apps for op in app_operations(session, app)
        }
        self._validators = {
            name: Draft202012Validator(op.input_schema) for name, op in self.operations.items()
        }

    def tools(self) -> list[types.Tool]:
        """Every tool, in document order (apps in the order given)."""
        return [tool_of(op) for op in self.operations.values()]

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> types.CallToolResult:
        """Call tool `name`; UnknownTool if there is none (a protocol error, not a tool's)."""
        operation = self.operations.get(name)
        if operation is None:
            raise UnknownTool(f"no tool {name!r}; this server has {len(self.operations)} tools")
        arguments = dict(arguments or {})
        problems = sorted(
            self._validators[name].iter_errors(arguments),
            key=lambda e: [str(p) for p in e.absolute_path],
        )
        if problems:
            text = "; ".join(_problem(p) for p in problems[:5])
            return _error(f"Invalid arguments for {name}: {text}")
        try:
            request = _request(operation, arguments)
        except ValueError as error:
            return _error(f"Invalid arguments for {name}: {error}")
        try:
            reply = self.session.request(operation.method, **request)
        except httpx.TransportError as error:
            return _error(f"The apps at {self.session.origin} did not answer: {error}")
        except LoginFailed as error:
            return _error(f"Signed out, and signing in again failed: {error}")
        return result_of(reply)


def tool_of(operation: Operation) -> types.Tool:
    """The MCP tool of `operation` (its schema as read from the OpenAPI document)."""
    return types.Tool(
        name=operation.name,
        title=operation.summary,
        description=operation.description,
        input_schema=dict(operation.input_schema),
        annotations=types.ToolAnnotations(
            title=operation.summary,
            read_only_hint=operation.read_only,
            destructive_hint=operation.method == "DELETE",
            idempotent_hint=operation.method in ("GET", "PUT", "DELETE"),
            open_world_hint=False,
        ),
    )


def result_of(reply: ApiReply) -> types.CallToolResult:
    """A tool result from an API reply: the JSON (or text) it sent, or its refusal."""
    if not reply.ok:
        envelope = reply.json() if reply.is_json and _parses(reply) else None
        return _error(reply.error_message(), envelope if isinstance(envelope, dict) else None)
    if reply.status == 204 or not reply.content:
        return types.CallToolResult(
            content=[types.TextContent(text=f"Done (HTTP {reply.status}).")]
        )
    if reply.is_json:
        value = reply.json()
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return types.CallToolResult(
            content=[types.TextContent(text=_cut(text))],
            structured_content=value if isinstance(value, dict) else None,
        )
    kind = reply.content_type.split(";")[0].strip() or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/csv",):
        return types.CallToolResult(
            content=[types.TextContent(text=_cut(reply.content.decode("utf-8", "replace")))]
        )
    blob = types.BlobResourceContents(
        uri="officegym://download", mime_type=kind, blob=base64.b64encode(reply.content).decode()
    )
    return types.CallToolResult(
        content=[
            types.TextContent(text=f"A {kind} file of {len(reply.content)} bytes (attached)."),
            types.EmbeddedResource(resource=blob),
        ]
    )


def _request(operation: Operation, arguments: Mapping[str, Any]) -> dict[str, Any]:
    path = operation.path
    for name in operation.path_params:
        path = path.replace("{" + name + "}", quote(str(arguments[name]), safe=""))
    params = {
        name: arguments[name]
        for name in operation.query_params
        if name in arguments and arguments[name] is not None
    }
    request: dict[str, Any] = {"path": path, "params": params}
    body = arguments.get("body")
    if body is None:
        return request
    if operation.body == "multipart":
        files = {name: _file(body[name]) for name in operation.file_fields if name in body}
        request["files"] = files
        request["data"] = {k: v for k, v in body.items() if k not in files}
    else:
        request["json_body"] = body
    return request


def _file(value: Mapping[str, Any]) -> tuple[str, bytes]:
    content = value["content"]
    if value.get("encoding", "text") == "base64":
        try:
            return value["filename"], base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError) as error:
            raise ValueError(f"the file {value['filename']!r} is not valid base64") from error
    return value["filename"], content.encode("utf-8")


def _problem(error: Any) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where or 'arguments'}: {error.message}"


def _error(message: str, envelope: dict | None = None) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=message)], structured_content=envelope, is_error=True
    )


def _parses(reply: ApiReply) -> bool:
    try:
        reply.json()
    except ValueError:
        return False
    return True


def _cut(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[:MAX_TEXT_CHARS] + f"... [cut: {len(text) - MAX_TEXT_CHARS} more characters]"


__all__ = ["MAX_TEXT_CHARS", "Toolset", "UnknownTool", "app_operations", "result_of", "tool_of"]
