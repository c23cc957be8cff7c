"""The OpenAPI 3.1 document of the CRM JSON API (api.py), written by hand on the kit's scaffold
(`officegym.apps.web.openapi`): the CRM's schemas and paths, its wording of the error replies,
and its error envelope, which adds the likely duplicates of a refused record; the session
cookie and the CSRF header come from the kit."""

from __future__ import annotations

from functools import partial
from typing import Any

from officegym.apps.web.openapi import (
    BOOL,
    DATE,
    IDS,
    INT,
    NULL_INT,
    NULL_TIME,
    STR,
    TIME,
    error_schema,
    list_of,
    obj,
    operation,
    param,
    ref,
)
from officegym.apps.web.openapi import document as kit_document

from .fields import OBJECTS
from .listing import FILTERS

PREFIX = "/crm/api"
DESCRIPTION = "JSON over the CRM's service layer."
LIST_OBJECTS = ["accounts", "contacts", "leads", "opportunities", "activities"]
RECORD_OBJECTS = [*LIST_OBJECTS, "notes"]
MERGE_OBJECTS = ["accounts", "contacts", "leads"]
NULL_STR: dict[str, Any] = {"type": ["string", "null"]}

# The error replies of every CRM route, in the CRM's words (409 only on writes).
ERRORS = {
    "401": "Not signed in",
    "403": "Not allowed (or missing the CSRF header on a write)",
    "404": "No such record",
    "409": "Conflicts with the current state (converted lead, probable duplicate, still referenced)",
    "422": "Invalid input; `fields` says what is wrong with each field",
}
_op = partial(operation, errors=ERRORS)

_KIND_SCHEMA = {
    "text": NULL_STR,
    "textarea": NULL_STR,
    "email": {"type": ["string", "null"], "format": "email"},
    "phone": NULL_STR,
    "url": {"type": ["string", "null"], "format": "uri"},
    "int": NULL_INT,
    "money": {"type": ["integer", "null"], "minimum": 0},
    "percent": {"type": ["integer", "null"], "minimum": 0, "maximum": 100},
    "date": {"type": ["string", "null"], "format": "date"},
    "employee": {"type": ["integer", "string", "null"], "description": "employee id or email"},
    "account": {"type": ["integer", "string", "null"], "description": "account id or exact name"},
    "contact": {"type": ["integer", "string", "null"], "description": "contact id or full name"},
    "opportunity": NULL_INT,
}


def _values_schema(key: str) -> dict:
    props: dict[str, Any] = {}
    for f in OBJECTS[key].fields:
        schema = dict(_KIND_SCHEMA.get(f.kind, NULL_STR))
        if f.kind == "choice":
            schema = {"enum": [*f.choices, None]}
        schema["title"] = f.label
        props[f.name] = schema
    return {"type": "object", "properties": props, "additionalProperties": False}


def _schemas() -> dict[str, dict]:
    schemas: dict[str, dict] = {
        "Error": error_schema(duplicates=list_of("Candidate")),
        "Person": obj(
            {
                "id": INT,
                "display_name": STR,
                "title": STR,
                "email": STR,
                "avatar_color": STR,
                "is_active": BOOL,
            }
        ),
        "Link": obj({"key": STR, "id": INT, "title": STR}),
        "Record": obj(
            {
                "object": {"enum": RECORD_OBJECTS},
                "id": INT,
                "title": STR,
                "owner": ref("Person"),
                "values": {"type": "object"},
                "created_at": TIME,
                "updated_at": NULL_TIME,
                "can_edit": BOOL,
                "changed": list_of(STR),
                "related": list_of({"type": "object"}),
                "open_activities": list_of({"type": "object"}),
                "past_activities": list_of({"type": "object"}),
                "notes": list_of({"type": "object"}),
                "history": list_of("HistoryEntry"),
            }
        ),
        "HistoryEntry": obj(
            {
                "field": STR,
                "label": STR,
                "old": NULL_STR,
                "new": NULL_STR,
                "by": ref("Person"),
                "at": TIME,
            }
        ),
        "ListPage": obj(
            {
                "object": {"enum": LIST_OBJECTS},
                "total": INT,
                "page": INT,
                "per_page": INT,
                "pages": INT,
                "sort": STR,
                "dir": {"enum": ["asc", "desc"]},
                "view": NULL_STR,
                "params": {"type": "object", "additionalProperties": STR},
                "rows": list_of({"type": "object"}),
            }
        ),
        "Candidate": obj(
            {
                "key": STR,
                "id": INT,
                "title": STR,
                "detail": STR,
                "owner": STR,
                "created_at": TIME,
                "reason": STR,
            }
        ),
        "DuplicateGroup": obj({"key": STR, "records": list_of("Candidate"), "reason": STR}),
        "Conversion": obj(
            {
                "account_id": INT,
                "contact_id": INT,
                "opportunity_id": NULL_INT,
                "created_account": BOOL,
                "created_contact": BOOL,
            }
        ),
        "RowResult": obj(
            {
                "line": INT,
                "values": {"type": "object"},
                "errors": {"type": "object", "additionalProperties": STR},
            }
        ),
        "Figure": obj(
            {
                "count": INT,
                "amount": INT,
                "weighted": INT,
                "params": {"type": "object", "additionalProperties": STR},
            }
        ),
    }
    for key in RECORD_OBJECTS:
        schemas[f"{OBJECTS[key].singular}Values"] = _values_schema(key)
    return schemas


def _list_params(key: str) -> tuple:
    params = [
        param("q", "query"),
        param("view", "query"),
        param("sort", "query"),
        param("dir", "query", {"enum": ["asc", "desc"]}),
        param("page", "query", INT),
        param("per_page", "query", {"enum": [25, 50, 100, 200]}),
    ]
    for f in FILTERS[key]:
        if f.kind == "date":
            params += [
                param(f.name, "query"),
                param(f"{f.name}_from", "query", DATE),
                param(f"{f.name}_to", "query", DATE),
            ]
        elif f.kind == "number":
            params += [
                param(f"{f.name}_min", "query", INT),
                param(f"{f.name}_max", "query", INT),
            ]
        else:
            params.append(param(f.name, "query"))
    return tuple(params)


def document() -> dict:
    """The whole document (paths relative to `PREFIX`)."""
    paths: dict[str, dict] = {
        "/objects": {
            "get": _op(
                "Object types, fields, picklists and list views", list_of({"type": "object"})
            )
        },
    }
    for key in RECORD_OBJECTS:
        spec = OBJECTS[key]
        values = ref(f"{spec.singular}Values")
        create_body = {
            "allOf": [
                values,
                obj({"allow_duplicate": BOOL}),
            ]
        }
        collection: dict[str, Any] = {
            "post": _op(
                f"Create a {spec.noun}", ref("Record"), status="201", write=True, body=create_body
            )
        }
        if key in LIST_OBJECTS:
            collection["get"] = _op(
                f"List {spec.plural.lower()} (search, filters, sort, saved views, pages)",
                ref("ListPage"),
                params=_list_params(key),
            )
        paths[f"/{key}"] = collection
        rid = param("record_id")
        paths[f"/{key}/{{record_id}}"] = {
            "get": _op(
                f"A {spec.noun} with related lists, activities, notes and history",
                ref("Record"),
                params=(rid,),
            ),
            "patch": _op(
                f"Change fields of a {spec.noun}",
                ref("Record"),
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
            "get": _op("Field history", list_of("HistoryEntry"), params=(rid,))
        }
        if key in LIST_OBJECTS:
            paths[f"/{key}/bulk"] = {
                "post": _op(
                    f"Set owner/stage/status on many {spec.plural.lower()} (all or none)",
                    obj({"changed": INT}),
                    write=True,
                    body=obj({"ids": IDS, "field": STR, "value": {}}, ("ids", "field", "value")),
                )
            }
    for key in MERGE_OBJECTS:
        spec = OBJECTS[key]
        paths[f"/{key}/merge"] = {
            "post": _op(
                f"Merge 2-3 {spec.plural.lower()}",
                ref("Record"),
                write=True,
                body=obj(
                    {
                        "ids": IDS,
                        "master_id": INT,
                        "picks": {"type": "object", "additionalProperties": INT},
                    },
                    ("ids", "master_id"),
                ),
            )
        }
        paths[f"/duplicates/{key}"] = {
            "get": _op(f"Possible duplicate {spec.plural.lower()}", list_of("DuplicateGroup"))
        }
    paths["/opportunities/{record_id}/stage"] = {
        "post": _op(
            "Move a deal to a stage",
            ref("Record"),
            write=True,
            params=(param("record_id"),),
            body=obj(
                {"stage": {"enum": list(OBJECTS["opportunities"].field("stage").choices)}},
                ("stage",),
            ),
        )
    }
    paths["/activities/{record_id}/complete"] = {
        "post": _op(
            "Mark an activity completed", ref("Record"), write=True, params=(param("record_id"),)
        )
    }
    paths["/leads/{lead_id}/conversion-candidates"] = {
        "get": _op(
            "Existing accounts and contacts the lead may be",
            obj({"accounts": list_of("Candidate"), "contacts": list_of("Candidate")}),
            params=(param("lead_id"),),
        )
    }
    paths["/leads/{lead_id}/convert"] = {
        "post": _op(
            "Convert a lead into an account, contact and optional opportunity",
            ref("Conversion"),
            status="201",
            write=True,
            params=(param("lead_id"),),
            body=obj(
                {
                    "account_id": NULL_INT,
                    "account_name": NULL_STR,
                    "contact_id": NULL_INT,
                    "create_opportunity": BOOL,
                    "opportunity_name": NULL_STR,
                    "owner_id": {"type": ["integer", "string", "null"]},
                    "allow_duplicate": BOOL,
                }
            ),
        )
    }
    paths["/contacts/import"] = {
        "post": _op(
            "Import contacts from CSV text: bad rows rejected, valid rows all imported together",
            obj(
                {
                    "imported": INT,
                    "contact_ids": IDS,
                    "rejected": list_of("RowResult"),
                    "total_rows": INT,
                    "valid": INT,
                }
            ),
            write=True,
            body=obj(
                {
                    "csv": STR,
                    "mapping": {"type": "object", "additionalProperties": STR},
                    "dry_run": BOOL,
                },
                ("csv",),
            ),
        )
    }
    paths["/reports/pipeline"] = {
        "get": _op(
            "Open pipeline by stage and owner; won and lost this quarter",
            obj(
                {
                    "stages": list_of({"type": "array"}),
                    "owners": list_of({"type": "object"}),
                    "total": ref("Figure"),
                    "won": ref("Figure"),
                    "lost": ref("Figure"),
                    "quarter": list_of(DATE),
                    "win_rate": NULL_INT,
                }
            ),
            params=(
                param("scope", "query", {"enum": ["", "team", "me"]}),
                param("close", "query"),
            ),
        )
    }
    return kit_document("CRM", PREFIX, DESCRIPTION, _schemas(), paths)


__all__ = ["ERRORS", "PREFIX", "document"]
