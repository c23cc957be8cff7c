"""The OpenAPI 3.1 document of the sheets JSON API (api.py), on the kit's scaffold
(`officegym.apps.web.openapi`)."""

from __future__ import annotations

from functools import partial
from typing import Any

from officegym.apps.web.openapi import BOOL, INT, STR, TIME, list_of, obj, operation, param, ref
from officegym.apps.web.openapi import document as kit_document
from officegym.seed_data.schema.sheets import CHART_KINDS, PERMISSIONS, PIVOT_FUNCTIONS

PREFIX = "/sheets/api"
DESCRIPTION = "JSON over the sheets service layer: workbooks, sheets, ranges, pivots, charts."
ERRORS = {
    "401": "Not signed in",
    "403": "Not allowed: view-only access, not the owner, or a write without the CSRF header",
    "404": "No such workbook, sheet, comment, chart or pivot (or not shared with you)",
    "409": "Conflicts with the current state (workbook in the trash, nothing to undo, last sheet)",
    "422": "Invalid input; `field` names what is wrong",
}
_op = partial(operation, errors=ERRORS)
NULL_STR: dict[str, Any] = {"type": ["string", "null"]}
WB = param("workbook_id")
SH = param("sheet_id")
RAW = {
    "type": ["string", "number", "boolean", "null"],
    "description": "what is typed: text, a number or a =formula",
}


def _schemas() -> dict[str, Any]:
    return {
        "Sheet": obj(
            {"id": INT, "name": STR, "position": INT, "frozen_rows": INT, "filter_range": NULL_STR}
        ),
        "Workbook": obj(
            {
                "id": INT,
                "name": STR,
                "owner_id": INT,
                "role": {"enum": ["owner", "edit", "view"]},
                "created_at": TIME,
                "updated_at": TIME,
                "trashed": BOOL,
                "sheets": list_of("Sheet"),
            }
        ),  # fmt: skip
        "WorkbookItem": obj(
            {
                "id": INT,
                "name": STR,
                "owner": STR,
                "owner_id": INT,
                "role": STR,
                "updated_at": TIME,
                "trashed": BOOL,
            }
        ),
        "Cell": obj(
            {
                "address": STR,
                "row": INT,
                "col": INT,
                "raw": STR,
                "value": {"type": ["number", "string", "boolean", "null"]},
                "type": {"enum": ["number", "text", "bool", "error", "empty"]},
                "shown": STR,
                "number_format": NULL_STR,
                "bold": BOOL,
                "italic": BOOL,
                "fill": NULL_STR,
            }
        ),  # fmt: skip
        "Changed": obj({"ok": BOOL, "last_row": INT, "last_col": INT}),
        "Done": obj({"ok": BOOL}),
    }


def _body(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return obj(props, required)


def _paths() -> dict[str, Any]:
    ref_body = {"ref": {**STR, "description": "A1 range such as B2:D40"}}
    sheet_write = partial(_op, write=True, params=(WB, SH))
    return {
        "/workbooks": {
            "get": _op("Workbooks on a home tab", list_of("WorkbookItem"),
                       params=(param("tab", "query", {"enum": ["all", "mine", "shared", "recent", "trash"]}), param("q", "query"))),
            "post": _op("Create a workbook", ref("Workbook"), status="201", write=True, body=_body({"name": STR}, ("name",))),
        },  # fmt: skip
        "/workbooks/import": {
            "post": {
                **_op("Import an .xlsx or .csv file as a new workbook", ref("Workbook"), status="201", write=True),
                "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": obj({"file": {"type": "string", "format": "binary"}, "name": STR}, ("file",))}}},
            }
        },  # fmt: skip
        "/workbooks/{workbook_id}": {
            "get": _op("A workbook and its sheets", ref("Workbook"), params=(WB,)),
            "patch": _op("Rename a workbook", ref("Workbook"), params=(WB,), write=True, body=_body({"name": STR}, ("name",))),
        },  # fmt: skip
        "/workbooks/{workbook_id}/copy": {"post": _op("Copy a workbook", ref("Workbook"), status="201", params=(WB,), write=True, body=_body({"name": STR}))},
        "/workbooks/{workbook_id}/trash": {"post": _op("Move to the trash (owner)", ref("Workbook"), params=(WB,), write=True)},
        "/workbooks/{workbook_id}/restore": {"post": _op("Restore from the trash (owner)", ref("Workbook"), params=(WB,), write=True)},
        "/workbooks/{workbook_id}/shares": {
            "get": _op("Who has access", obj({"owner_id": INT, "shares": {"type": "array"}}), params=(WB,)),
            "post": _op("Share with a person", obj({"employee_id": INT, "permission": STR}), status="201", params=(WB,), write=True,
                        body=_body({"employee_id": INT, "permission": {"enum": list(PERMISSIONS)}}, ("employee_id", "permission"))),
        },  # fmt: skip
        "/workbooks/{workbook_id}/shares/{employee_id}": {"delete": _op("Remove a person's access", ref("Done"), params=(WB, param("employee_id")), write=True)},
        "/workbooks/{workbook_id}/history": {"get": _op("Change history, newest first", {"type": "array"}, params=(WB, param("limit", "query", INT), param("before", "query", INT)))},
        "/workbooks/{workbook_id}/undo": {"post": _op("Undo your latest change", obj({"undid": STR}), params=(WB,), write=True)},
        "/workbooks/{workbook_id}/redo": {"post": _op("Redo what you undid", obj({"redid": STR}), params=(WB,), write=True)},
        "/workbooks/{workbook_id}/find": {"get": _op("Find cells by shown value", {"type": "array"}, params=(WB, param("q", "query", required=True), param("sheet_id", "query", INT), param("match_case", "query"), param("whole", "query"), param("in_formulas", "query")))},
        "/workbooks/{workbook_id}/replace": {"post": _op("Replace in every matching cell", obj({"replaced": INT}), params=(WB,), write=True,
            body=_body({"find": STR, "replace": STR, "sheet_id": INT, "match_case": BOOL, "whole": BOOL, "in_formulas": BOOL}, ("find",)))},
        "/workbooks/{workbook_id}/export.xlsx": {"get": {"summary": "Download as .xlsx", "parameters": [WB], "responses": {"200": {"description": "xlsx file"}}}},
        "/workbooks/{workbook_id}/import.csv": {
            "post": {
                **_op("Import a .csv file as a new sheet", obj({"id": INT, "name": STR}), status="201", params=(WB,), write=True),
                "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": obj({"file": {"type": "string", "format": "binary"}, "name": STR}, ("file",))}}},
            }
        },
        "/workbooks/{workbook_id}/sheets": {"post": _op("Add a sheet", obj({"id": INT, "name": STR, "position": INT}), status="201", params=(WB,), write=True, body=_body({"name": STR}))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}": {
            "patch": _op("Rename, move or freeze a sheet", ref("Workbook"), params=(WB, SH), write=True, body=_body({"name": STR, "position": INT, "frozen_rows": INT})),
            "delete": _op("Delete a sheet", ref("Done"), params=(WB, SH), write=True),
        },
        "/workbooks/{workbook_id}/sheets/{sheet_id}/range": {
            "get": _op("Read a range (default: the used area)", obj({"ref": NULL_STR, "cells": list_of("Cell")}), params=(WB, SH, param("ref", "query"))),
            "put": _op("Write a block of inputs from its top-left cell", ref("Changed"), params=(WB, SH), write=True,
                       body=_body({"ref": STR, "values": {"type": "array", "items": {"type": "array", "items": RAW}}}, ("ref", "values"))),
        },  # fmt: skip
        "/workbooks/{workbook_id}/sheets/{sheet_id}/edge": {"get": _op("Where Ctrl+arrow lands", obj({"cell": STR}), params=(WB, SH, param("cell", "query", required=True), param("direction", "query", {"enum": ["up", "down", "left", "right"]}, required=True)))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/clear": {"post": sheet_write("Clear a range", ref("Changed"), body=_body({**ref_body, "formats": BOOL}, ("ref",)))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/format": {"post": sheet_write("Format a range", ref("Changed"), body=_body({**ref_body, "number_format": NULL_STR, "bold": BOOL, "italic": BOOL, "fill": NULL_STR}, ("ref",)))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/fill": {"post": sheet_write("Fill down or right", ref("Changed"), body=_body({**ref_body, "direction": {"enum": ["down", "right"]}}, ("ref",)))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/paste": {"post": sheet_write("Paste a copied range", ref("Changed"), body=_body({"source": STR, "target": STR, "source_sheet_id": INT, "cut": BOOL}, ("source", "target")))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/insert": {"post": sheet_write("Insert rows or columns", ref("Changed"), body=_body({"axis": {"enum": ["row", "col"]}, "at": {"type": ["integer", "string"]}, "count": INT}, ("axis", "at")))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/delete": {"post": sheet_write("Delete rows or columns", ref("Changed"), body=_body({"axis": {"enum": ["row", "col"]}, "at": {"type": ["integer", "string"]}, "count": INT}, ("axis", "at")))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/sort": {"post": sheet_write("Sort a range by a column", ref("Changed"), body=_body({**ref_body, "by": {"type": ["integer", "string"]}, "descending": BOOL, "header": BOOL}, ("ref", "by")))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/filter": {
            "post": sheet_write("Filter a range", ref("Changed"), body=_body({**ref_body, "shown": {"type": "object", "additionalProperties": {"type": "array", "items": STR}}}, ("ref",))),
            "delete": _op("Turn off the filter", ref("Done"), params=(WB, SH), write=True),
        },
        "/workbooks/{workbook_id}/sheets/{sheet_id}/columns/{col}": {"put": _op("Set a column's width", ref("Done"), params=(WB, SH, param("col", schema=STR)), write=True, body=_body({"width": INT}, ("width",)))},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/comments": {"post": sheet_write("Comment on a cell", obj({"id": INT, "cell": STR, "body": STR}), status="201", body=_body({"cell": STR, "body": STR}, ("cell", "body")))},
        "/workbooks/{workbook_id}/comments/{comment_id}": {"delete": _op("Delete a comment", ref("Done"), params=(WB, param("comment_id")), write=True)},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/pivots": {"post": sheet_write("Make a pivot table on a new sheet", obj({"id": INT, "sheet_id": INT}), status="201",
            body=_body({"source": STR, "rows": {"type": "array", "items": STR}, "columns": {"type": "array", "items": STR},
                        "values": {"type": "array", "items": obj({"field": STR, "function": {"enum": list(PIVOT_FUNCTIONS)}}, ("field",))},
                        "filters": {"type": "object", "additionalProperties": {"type": "array", "items": STR}}, "name": STR}, ("source", "values")))},
        "/workbooks/{workbook_id}/pivots/{pivot_id}/refresh": {"post": _op("Refresh a pivot table", obj({"id": INT, "sheet_id": INT}), params=(WB, param("pivot_id")), write=True)},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/charts": {"post": sheet_write("Insert a chart", obj({"id": INT, "title": STR, "anchor": STR}), status="201",
            body=_body({"kind": {"enum": list(CHART_KINDS)}, "source": STR, "title": STR, "anchor": STR}, ("kind", "source")))},
        "/workbooks/{workbook_id}/charts/{chart_id}": {"delete": _op("Delete a chart", ref("Done"), params=(WB, param("chart_id")), write=True)},
        "/workbooks/{workbook_id}/sheets/{sheet_id}/export.csv": {"get": {"summary": "A sheet's shown values as CSV", "parameters": [WB, SH], "responses": {"200": {"description": "CSV text"}}}},
    }  # fmt: skip


def document() -> dict[str, Any]:
    return kit_document("Sheets", PREFIX, DESCRIPTION, _schemas(), _paths())
