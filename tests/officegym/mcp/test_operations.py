"""Tools are read from the apps' OpenAPI documents: one per route, with its own schemas."""

from __future__ import annotations

import importlib
import json

import pytest

from officegym.apps import registry
from officegym.mcp.operations import FILE_SCHEMA, OperationError, operations

APPS = [app.slug for app in registry.entries()]


def document(app: str) -> dict:
    return importlib.import_module(f"officegym.apps.{app}.openapi").document()


@pytest.mark.parametrize("app", APPS)
def test_every_documented_route_but_the_document_itself_is_one_tool(app):
    doc = document(app)
    prefix = doc["servers"][0]["url"]
    routes = {
        (method.upper(), prefix + path)
        for path, methods in doc["paths"].items()
        for method in methods
        if path != "/openapi.json"
    }
    ops = operations(doc, app)
    assert {(op.method, op.path) for op in ops} == routes
    assert all(op.name.startswith(f"{app}_") and len(op.name) <= 64 for op in ops)
    assert all(op.summary in op.description for op in ops)


def test_tool_names_are_unique_across_the_apps():
    names = [op.name for app in APPS for op in operations(document(app), app)]
    assert len(names) == len(set(names))


def test_a_tool_schema_is_the_documented_parameters_and_the_body_with_references_inlined():
    doc = document("crm")
    ops = {op.name: op for op in operations(doc, "crm")}
    patch = ops["crm_patch_accounts_item"]
    assert patch.method == "PATCH" and patch.path == "/crm/api/accounts/{record_id}"
    schema = patch.input_schema
    assert schema["required"] == ["record_id", "body"]
    assert schema["properties"]["record_id"] == {"type": "integer"}
    assert schema["properties"]["body"] == doc["components"]["schemas"]["AccountValues"]
    listing = ops["crm_get_opportunities"].input_schema
    assert "required" not in listing and listing["properties"]["dir"] == {"enum": ["asc", "desc"]}
    assert "$ref" not in json.dumps([op.input_schema for op in ops.values()])


def test_a_file_field_of_a_multipart_body_takes_a_named_file():
    ops = {op.name: op for op in operations(document("sheets"), "sheets")}
    upload = ops["sheets_post_workbooks_import"]
    assert upload.body == "multipart" and upload.file_fields == ("file",)
    assert upload.input_schema["properties"]["body"]["properties"]["file"] == FILE_SCHEMA


def test_a_reference_to_no_schema_is_an_operation_error():
    doc = {
        "servers": [{"url": "/x/api"}],
        "paths": {
            "/things": {
                "post": {
                    "summary": "Make a thing",
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Gone"}}
                        }
                    },
                }
            }
        },
    }
    with pytest.raises(OperationError, match="Gone"):
        operations(doc, "x")
