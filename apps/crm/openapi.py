"""The OpenAPI 3.1 document of the CRM JSON API (api.py), written by hand."""

from __future__ import annotations

from typing import Any

from .api import CSRF_HEADER, CSRF_HEADER_VALUE
from .fields import OBJECTS
from .listing import FILTERS

PREFIX = "/crm/api"
LIST_OBJECTS = ["accounts", "contacts", "leads", "opportunities", "activities"]
RECORD_OBJECTS = [*LIST_OBJECTS, "notes"]
MERGE_OBJECTS = ["accounts", "contacts", "leads"]


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _list(schema: dict) -> dict:
    return {"type": "array", "items": schema}


def _obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    return schema


_STR = {"type": "string"}
_NSTR = {"type": ["string", "null"]}
_INT = {"type": "integer"}
_NINT = {"type": ["integer", "null"]}
_BOOL = {"type": "boolean"}
_TIME = {"type": "string", "format": "date-time"}
_NTIME = {"type": ["string", "null"], "format": "date-time"}
_IDS = {"type": "array", "items": _INT}

_KIND_SCHEMA = {
    "text": _NSTR,
    "textarea": _NSTR,
    "email": {"type": ["string", "null"], "format": "email"},
    "phone": _NSTR,
    "url": {"type": ["string", "null"], "format": "uri"},
    "int": _NINT,
    "money": {"type": ["integer", "null"], "minimum": 0},
    "percent": {"type": ["integer", "null"], "minimum": 0, "maximum": 100},
    "date": {"type": ["string", "null"], "format": "date"},
    "employee": {"type": ["integer", "string", "null"], "description": "employee id or email"},
    "account": {"type": ["integer", "string", "null"], "description": "account id or exact name"},
    "contact": {"type": ["integer", "string", "null"], "description": "contact id or full name"},
    "opportunity": _NINT,
}


def _values_schema(key: str) -> dict:
    props: dict[str, Any] = {}
    for f in OBJECTS[key].fields:
        schema = dict(_KIND_SCHEMA.get(f.kind, _NSTR))
        if f.kind == "choice":
            schema = {"enum": [*f.choices, None]}
        schema["title"] = f.label
        props[f.name] = schema
    return {"type": "object", "properties": props, "additionalProperties": False}


def _schemas() -> dict[str, dict]:
    schemas: dict[str, dict] = {
        "Error": _obj(
            {
                "error": _obj(
                    {
                        "status": _INT,
                        "title": _STR,
                        "message": _STR,
                        "field": _STR,
                        "fields": {"type": "object", "additionalProperties": _STR},
                        "duplicates": _list(_ref("Candidate")),
                    },
                    ("status", "title", "message"),
                )
            },
            ("error",),
        ),
        "Person": _obj(
            {
                "id": _INT,
                "display_name": _STR,
                "title": _STR,
                "email": _STR,
                "avatar_color": _STR,
                "is_active": _BOOL,
            }
        ),
        "Link": _obj({"key": _STR, "id": _INT, "title": _STR}),
        "Record": _obj(
            {
                "object": {"enum": RECORD_OBJECTS},
                "id": _INT,
                "title": _STR,
                "owner": _ref("Person"),
                "values": {"type": "object"},
                "created_at": _TIME,
                "updated_at": _NTIME,
                "can_edit": _BOOL,
                "changed": _list(_STR),
                "related": _list({"type": "object"}),
                "open_activities": _list({"type": "object"}),
                "past_activities": _list({"type": "object"}),
                "notes": _list({"type": "object"}),
                "history": _list(_ref("HistoryEntry")),
            }
        ),
        "HistoryEntry": _obj(
            {
                "field": _STR,
                "label": _STR,
                "old": _NSTR,
                "new": _NSTR,
                "by": _ref("Person"),
                "at": _TIME,
            }
        ),
        "ListPage": _obj(
            {
                "object": {"enum": LIST_OBJECTS},
                "total": _INT,
                "page": _INT,
                "per_page": _INT,
                "pages": _INT,
                "sort": _STR,
                "dir": {"enum": ["asc", "desc"]},
                "view": _NSTR,
                "params": {"type": "object", "additionalProperties": _STR},
                "rows": _list({"type": "object"}),
            }
        ),
        "Candidate": _obj(
            {
                "key": _STR,
                "id": _INT,
                "title": _STR,
                "detail": _STR,
                "owner": _STR,
                "created_at": _TIME,
                "reason": _STR,
            }
        ),
        "DuplicateGroup": _obj({"key": _STR, "records": _list(_ref("Candidate")), "reason": _STR}),
        "Conversion": _obj(
            {
                "account_id": _INT,
                "contact_id": _INT,
                "opportunity_id": _NINT,
                "created_account": _BOOL,
                "created_contact": _BOOL,
            }
        ),
        "RowResult": _obj(
            {
                "line": _INT,
                "values": {"type": "object"},
                "errors": {"type": "object", "additionalProperties": _STR},
            }
        ),
        "Figure": _obj(
            {
                "count": _INT,
                "amount": _INT,
                "weighted": _INT,
                "params": {"type": "object", "additionalProperties": _STR},
            }
        ),
    }
    for key in RECORD_OBJECTS:
        schemas[f"{OBJECTS[key].singular}Values"] = _values_schema(key)
    return schemas


_ERRORS = {
    "401": "Not signed in",
    "403": "Not allowed (or missing the CSRF header on a write)",
    "404": "No such record",
    "409": "Conflicts with the current state (converted lead, probable duplicate, still referenced)",
    "422": "Invalid input; `fields` says what is wrong with each field",
}


def _param(name: str, where: str = "path", schema: dict | None = None, required=None) -> dict:
    return {
        "name": name,
        "in": where,
        "required": where == "path" if required is None else required,
        "schema": schema or (_INT if where == "path" else _STR),
    }


def _op(
    summary: str,
    response: dict | None,
    *,
    status: str = "200",
    write: bool = False,
    params: tuple = (),
    body: dict | None = None,
) -> dict:
    responses: dict[str, Any] = {}
    if response is None:
        responses[status] = {"description": "Done"}
    else:
        responses[status] = {
            "description": "OK",
            "content": {"application/json": {"schema": response}},
        }
    for code, text in _ERRORS.items():
        if code == "409" and not write:
            continue
        responses[code] = {
            "description": text,
            "content": {"application/json": {"schema": _ref("Error")}},
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


def _list_params(key: str) -> tuple:
    params = [
        _param("q", "query"),
        _param("view", "query"),
        _param("sort", "query"),
        _param("dir", "query", {"enum": ["asc", "desc"]}),
        _param("page", "query", _INT),
        _param("per_page", "query", {"enum": [25, 50, 100, 200]}),
    ]
    for f in FILTERS[key]:
        if f.kind == "date":
            params += [
                _param(f.name, "query"),
                _param(f"{f.name}_from", "query", {"type": "string", "format": "date"}),
                _param(f"{f.name}_to", "query", {"type": "string", "format": "date"}),
            ]
        elif f.kind == "number":
            params += [
                _param(f"{f.name}_min", "query", _INT),
                _param(f"{f.name}_max", "query", _INT),
            ]
        else:
            params.append(_param(f.name, "query"))
    return tuple(params)


def document() -> dict:
    """The whole document (paths relative to the server root)."""
    paths: dict[str, dict] = {
        "/objects": {
            "get": _op("Object types, fields, picklists and list views", _list({"type": "object"}))
        },
    }
    for key in RECORD_OBJECTS:
        spec = OBJECTS[key]
        values = _ref(f"{spec.singular}Values")
        create_body = {
            "allOf": [
                values,
                _obj({"allow_duplicate": _BOOL}),
            ]
        }
        collection: dict[str, Any] = {
            "post": _op(
                f"Create a {spec.noun}", _ref("Record"), status="201", write=True, body=create_body
            )
        }
        if key in LIST_OBJECTS:
            collection["get"] = _op(
                f"List {spec.plural.lower()} (search, filters, sort, saved views, pages)",
                _ref("ListPage"),
                params=_list_params(key),
            )
        paths[f"/{key}"] = collection
        rid = _param("record_id")
        paths[f"/{key}/{{record_id}}"] = {
            "get": _op(
                f"A {spec.noun} with related lists, activities, notes and history",
                _ref("Record"),
                params=(rid,),
            ),
            "patch": _op(
                f"Change fields of a {spec.noun}",
                _ref("Record"),
                write=True,
                params=(rid,),
                body=values,
            ),
            "delete": _op(
                f"Delete a {spec.noun} nothing refers to",
                None,
                status="204",
                write=True,
                params=(rid,),
            ),
        }
        paths[f"/{key}/{{record_id}}/history"] = {
            "get": _op("Field history", _list(_ref("HistoryEntry")), params=(rid,))
        }
        if key in LIST_OBJECTS:
            paths[f"/{key}/bulk"] = {
                "post": _op(
                    f"Set owner/stage/status on many {spec.plural.lower()} (all or none)",
                    _obj({"changed": _INT}),
                    write=True,
                    body=_obj({"ids": _IDS, "field": _STR, "value": {}}, ("ids", "field", "value")),
                )
            }
    for key in MERGE_OBJECTS:
        spec = OBJECTS[key]
        paths[f"/{key}/merge"] = {
            "post": _op(
                f"Merge 2-3 {spec.plural.lower()}",
                _ref("Record"),
                write=True,
                body=_obj(
                    {
                        "ids": _IDS,
                        "master_id": _INT,
                        "picks": {"type": "object", "additionalProperties": _INT},
                    },
                    ("ids", "master_id"),
                ),
            )
        }
        paths[f"/duplicates/{key}"] = {
            "get": _op(f"Possible duplicate {spec.plural.lower()}", _list(_ref("DuplicateGroup")))
        }
    paths["/opportunities/{record_id}/stage"] = {
        "post": _op(
            "Move a deal to a stage",
            _ref("Record"),
            write=True,
            params=(_param("record_id"),),
            body=_obj(
                {"stage": {"enum": list(OBJECTS["opportunities"].field("stage").choices)}},
                ("stage",),
            ),
        )
    }
    paths["/activities/{record_id}/complete"] = {
        "post": _op(
            "Mark an activity completed", _ref("Record"), write=True, params=(_param("record_id"),)
        )
    }
    paths["/leads/{lead_id}/conversion-candidates"] = {
        "get": _op(
            "Existing accounts and contacts the lead may be",
            _obj({"accounts": _list(_ref("Candidate")), "contacts": _list(_ref("Candidate"))}),
            params=(_param("lead_id"),),
        )
    }
    paths["/leads/{lead_id}/convert"] = {
        "post": _op(
            "Convert a lead into an account, contact and optional opportunity",
            _ref("Conversion"),
            status="201",
            write=True,
            params=(_param("lead_id"),),
            body=_obj(
                {
                    "account_id": _NINT,
                    "account_name": _NSTR,
                    "contact_id": _NINT,
                    "create_opportunity": _BOOL,
                    "opportunity_name": _NSTR,
                    "owner_id": {"type": ["integer", "string", "null"]},
                    "allow_duplicate": _BOOL,
                }
            ),
        )
    }
    paths["/contacts/import"] = {
        "post": _op(
            "Import contacts from CSV text: bad rows rejected, valid rows all imported together",
            _obj(
                {
                    "imported": _INT,
                    "contact_ids": _IDS,
                    "rejected": _list(_ref("RowResult")),
                    "total_rows": _INT,
                    "valid": _INT,
                }
            ),
            write=True,
            body=_obj(
                {
                    "csv": _STR,
                    "mapping": {"type": "object", "additionalProperties": _STR},
                    "dry_run": _BOOL,
                },
                ("csv",),
            ),
        )
    }
    paths["/reports/pipeline"] = {
        "get": _op(
            "Open pipeline by stage and owner; won and lost this quarter",
            _obj(
                {
                    "stages": _list({"type": "array"}),
                    "owners": _list({"type": "object"}),
                    "total": _ref("Figure"),
                    "won": _ref("Figure"),
                    "lost": _ref("Figure"),
                    "quarter": _list({"type": "string", "format": "date"}),
                    "win_rate": _NINT,
                }
            ),
            params=(
                _param("scope", "query", {"enum": ["", "team", "me"]}),
                _param("close", "query"),
            ),
        )
    }
    paths["/openapi.json"] = {
        "get": {
            "summary": "This document",
            "security": [],
            "responses": {"200": {"description": "OpenAPI 3.1 document"}},
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "officegym CRM API",
            "version": "1",
            "description": (
                "JSON over the CRM's service layer. Sign in through /login; the session cookie "
                f"authenticates. Writes need the header '{CSRF_HEADER}: {CSRF_HEADER_VALUE}' "
                "(CSRF defence)."
            ),
        },
        "servers": [{"url": PREFIX}],
        "components": {
            "schemas": _schemas(),
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "officegym_session"}
            },
        },
        "security": [{"session": []}],
        "paths": paths,
    }


__all__ = ["PREFIX", "document"]
