"""The scaffold every app's OpenAPI 3.1 document is written on.

An app describes its own schemas and paths with these builders and hands them to `document`,
which adds what every API shares: the error envelope, the session-cookie security scheme, the
CSRF header on writes and the document's own route.

    paths = {"/accounts": {"get": operation("List accounts", list_of(ref("Account")))}}
    return document("CRM", "/crm/api", "JSON over the CRM's service layer.", schemas, paths)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .jsonapi import CSRF_HEADER, CSRF_HEADER_VALUE

STR: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
BOOL: dict[str, Any] = {"type": "boolean"}
DATE: dict[str, Any] = {"type": "string", "format": "date"}
TIME: dict[str, Any] = {"type": "string", "format": "date-time"}
NULL_TIME: dict[str, Any] = {"type": ["string", "null"], "format": "date-time"}
NULL_INT: dict[str, Any] = {"type": ["integer", "null"]}
IDS: dict[str, Any] = {"type": "array", "items": INT}

# The statuses every API answers with, and what each means; apps may word them for their
# records (`errors=` of `operation`).
ERRORS: Mapping[str, str] = {
    "400": "Malformed request",
    "401": "Not signed in",
    "403": f"Not allowed (or the {CSRF_HEADER} header is missing on a write)",
    "404": "No such thing, or you may not see it",
    "409": "Conflicts with the current state",
    "422": "Invalid input; `fields` says what is wrong with each field",
}


def ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def list_of(schema: dict[str, Any] | str) -> dict[str, Any]:
    """An array of `schema` (a schema name means a reference to it)."""
    return {"type": "array", "items": ref(schema) if isinstance(schema, str) else schema}


def obj(props: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": dict(props)}
    if required:
        schema["required"] = list(required)
    return schema


def param(
    name: str, where: str = "path", schema: dict | None = None, required: bool | None = None
) -> dict[str, Any]:
    """A path (integer, required by default) or query (string) parameter."""
    return {
        "name": name,
        "in": where,
        "required": where == "path" if required is None else required,
        "schema": schema or (INT if where == "path" else STR),
    }


def operation(
    summary: str,
    response: dict | None,
    *,
    status: str = "200",
    params: tuple[dict, ...] = (),
    body: dict | None = None,
    write: bool = False,
    errors: Mapping[str, str] = ERRORS,
) -> dict[str, Any]:
    """One operation: its reply (`None` for an empty one), the error replies it can give (409
    only on writes), its parameters (plus the CSRF header on writes) and its JSON body."""
    responses: dict[str, Any] = {}
    if response is None:
        responses[status] = {"description": "Done"}
    else:
        responses[status] = {
            "description": "OK",
            "content": {"application/json": {"schema": response}},
        }
    for code, text in errors.items():
        if code == "409" and not write:
            continue
        responses[code] = {
            "description": text,
            "content": {"application/json": {"schema": ref("Error")}},
        }
    op: dict[str, Any] = {"summary": summary, "responses": responses}
    all_params = list(params)
    if write:
        all_params.append(
            {
                "name": CSRF_HEADER,
                "in": "header",
                "required": True,
                "schema": {"const": CSRF_HEADER_VALUE},
            }
        )
    if all_params:
        op["parameters"] = all_params
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return op


def error_schema(**details: Any) -> dict[str, Any]:
    """The error envelope's schema, with an app's extra members (`details`)."""
    members = {
        "status": INT,
        "title": STR,
        "message": STR,
        "field": STR,
        "fields": {"type": "object", "additionalProperties": STR},
        **details,
    }
    return obj({"error": obj(members, ("status", "title", "message"))}, ("error",))


def document(
    title: str,
    prefix: str,
    description: str,
    schemas: Mapping[str, Any],
    paths: Mapping[str, Any],
) -> dict[str, Any]:
    """The whole document: `paths` relative to `prefix`, `schemas` plus the error envelope
    (an app's own "Error" schema wins), the session cookie as security, and this route."""
    all_schemas = {"Error": error_schema(), **schemas}
    all_paths = dict(paths)
    all_paths["/openapi.json"] = {
        "get": {
            "summary": "This document",
            "security": [],
            "responses": {"200": {"description": "OpenAPI 3.1 document"}},
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"officegym {title} API",
            "version": "1",
            "description": (
                f"{description} Sign in through /login; the session cookie authenticates. "
                f"Writes need the header '{CSRF_HEADER}: {CSRF_HEADER_VALUE}' (CSRF defence)."
            ),
        },
        "servers": [{"url": prefix}],
        "components": {
            "schemas": all_schemas,
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "officegym_session"}
            },
        },
        "security": [{"session": []}],
        "paths": all_paths,
    }


__all__ = [
    "BOOL",
    "DATE",
    "ERRORS",
    "IDS",
    "INT",
    "NULL_INT",
    "NULL_TIME",
    "STR",
    "TIME",
    "document",
    "error_schema",
    "list_of",
    "obj",
    "operation",
    "param",
    "ref",
]
