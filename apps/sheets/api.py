"""Sheets' JSON API: the same reads and writes as the pages, as JSON under `/sheets/api`.

Built on the kit's `api_blueprint` (see `officegym.apps.web.jsonapi`): the session cookie
authenticates, writes need the header `X-Requested-With: officegym`, and a refusal from the
service layer becomes `{"error": {...}}` with 400/401/403/404/409/422. Writes on cells answer
with the cells they changed (recomputed dependents included), so a client redraws only those.

`GET /sheets/api/openapi.json` describes every route (OpenAPI 3.1, see `openapi`).
"""

from __future__ import annotations

import io
from typing import Any

from flask import Response, jsonify, request, send_file

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import ValidationError
from officegym.apps.web.jsonapi import api_blueprint, arg_int, field, flag, json_body, ok

from . import access, csvio, reads, service, xlsxio
from .book import MAX_BYTES, BookData, FileError
from .engine import refs
from .openapi import document as openapi_document

api_bp = api_blueprint("sheets_api", __name__)


def _me():
    return current_user()


def _book_json(book) -> dict[str, Any]:
    db = get_db()
    role = access.role_of(db, _me(), book)
    return {
        "id": book.id,
        "name": book.name,
        "owner_id": book.owner_id,
        "role": role,
        "created_at": book.created_at,
        "updated_at": book.updated_at,
        "trashed": book.trashed_at is not None,
        "sheets": [
            {
                "id": s.id,
                "name": s.name,
                "position": s.position,
                "frozen_rows": s.frozen_rows,
                "filter_range": s.filter_range,
            }
            for s in reads.sheets_of(db, book.id)
        ],
    }


def _changed(workbook_id: int, sheet_id: int) -> dict[str, Any]:
    last_row, last_col = reads.extent(get_db(), sheet_id)
    return {"ok": True, "last_row": last_row, "last_col": last_col}


def _text(data: dict, name: str, required: bool = True) -> str:
    return field(data, name, str, "", required)


# -- workbooks -------------------------------------------------------------------------------


@api_bp.get("/workbooks")
@login_required
def list_workbooks():
    tab = request.args.get("tab", "all")
    if tab not in dict(reads.TABS):
        raise ValidationError(f"'tab' is one of {', '.join(dict(reads.TABS))}.", "tab")
    return ok(reads.workbooks(get_db(), _me(), tab, request.args.get("q", "")))


@api_bp.post("/workbooks")
@login_required
def create_workbook():
    book = service.create_workbook(get_db(), _me(), _text(json_body(), "name"))
    return ok(_book_json(book), 201)


@api_bp.get("/workbooks/<int:workbook_id>")
@login_required
def get_workbook(workbook_id: int):
    return ok(_book_json(access.workbook_for(get_db(), _me(), workbook_id)))


@api_bp.patch("/workbooks/<int:workbook_id>")
@login_required
def rename_workbook(workbook_id: int):
    book = service.rename_workbook(get_db(), _me(), workbook_id, _text(json_body(), "name"))
    return ok(_book_json(book))


@api_bp.post("/workbooks/<int:workbook_id>/copy")
@login_required
def copy_workbook(workbook_id: int):
    name = field(json_body(), "name", str)
    return ok(_book_json(service.copy_workbook(get_db(), _me(), workbook_id, name)), 201)


@api_bp.post("/workbooks/<int:workbook_id>/trash")
@login_required
def trash_workbook(workbook_id: int):
    return ok(_book_json(service.trash_workbook(get_db(), _me(), workbook_id)))


@api_bp.post("/workbooks/<int:workbook_id>/restore")
@login_required
def restore_workbook(workbook_id: int):
    return ok(_book_json(service.restore_workbook(get_db(), _me(), workbook_id)))


@api_bp.get("/workbooks/<int:workbook_id>/shares")
@login_required
def list_shares(workbook_id: int):
    _, owner, shared = reads.shares(get_db(), _me(), workbook_id)
    return ok({"owner_id": owner.id, "shares": shared})


@api_bp.post("/workbooks/<int:workbook_id>/shares")
@login_required
def add_share(workbook_id: int):
    data = json_body()
    share = service.share(
        get_db(),
        _me(),
        workbook_id,
        field(data, "employee_id", int, required=True),
        _text(data, "permission"),
    )
    return ok({"employee_id": share.employee_id, "permission": share.permission}, 201)


@api_bp.delete("/workbooks/<int:workbook_id>/shares/<int:employee_id>")
@login_required
def remove_share(workbook_id: int, employee_id: int):
    service.unshare(get_db(), _me(), workbook_id, employee_id)
    return ok({"ok": True})


@api_bp.get("/workbooks/<int:workbook_id>/history")
@login_required
def history(workbook_id: int):
    limit = min(200, max(1, arg_int("limit", 50) or 50))
    return ok(reads.history(get_db(), _me(), workbook_id, limit, arg_int("before")))


@api_bp.post("/workbooks/<int:workbook_id>/undo")
@login_required
def undo(workbook_id: int):
    edit = service.undo(get_db(), _me(), workbook_id)
    return ok({"undid": edit.summary})


@api_bp.post("/workbooks/<int:workbook_id>/redo")
@login_required
def redo(workbook_id: int):
    edit = service.redo(get_db(), _me(), workbook_id)
    return ok({"redid": edit.summary})


@api_bp.get("/workbooks/<int:workbook_id>/find")
@login_required
def find(workbook_id: int):
    found = service.find(
        get_db(), _me(), workbook_id, request.args.get("q", ""), arg_int("sheet_id"),
        flag("match_case"), flag("whole"), flag("in_formulas"),
    )  # fmt: skip
    return ok(
        [
            {"sheet_id": s.id, "sheet": s.name, **reads.cell_view(c).to_json()}
            for s, c in found[:1000]
        ]
    )


@api_bp.post("/workbooks/<int:workbook_id>/replace")
@login_required
def replace(workbook_id: int):
    data = json_body()
    count = service.replace_all(
        get_db(), _me(), workbook_id, _text(data, "find"), field(data, "replace", str, ""),
        field(data, "sheet_id", int), bool(field(data, "match_case", bool, False)),
        bool(field(data, "whole", bool, False)), bool(field(data, "in_formulas", bool, False)),
    )  # fmt: skip
    return ok({"replaced": count})


@api_bp.get("/workbooks/<int:workbook_id>/export.xlsx")
@login_required
def export_xlsx(workbook_id: int):
    data = xlsxio.write_xlsx(service.book_data(get_db(), _me(), workbook_id))
    return send_file(
        io.BytesIO(data),
        mimetype="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        as_attachment=True,
        download_name=f"workbook-{workbook_id}.xlsx",
    )


@api_bp.post("/workbooks/import")
@login_required
def import_workbook():
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        raise ValidationError("Send the file as multipart form field 'file'.", "file")
    data = upload.read(MAX_BYTES + 1)
    try:
        if upload.filename.lower().endswith(".csv"):
            book_data = BookData((csvio.read_csv(data, upload.filename, "Sheet1"),))
        else:
            book_data = xlsxio.read_xlsx(data, upload.filename)
    except FileError as error:
        raise service.file_error(error) from None
    name = request.form.get("name") or upload.filename.rsplit(".", 1)[0]
    book = service.import_book(get_db(), _me(), book_data, name)
    return ok(_book_json(book), 201)


# -- sheets ----------------------------------------------------------------------------------


@api_bp.post("/workbooks/<int:workbook_id>/sheets")
@login_required
def add_sheet(workbook_id: int):
    sheet = service.add_sheet(get_db(), _me(), workbook_id, field(json_body(), "name", str))
    return ok({"id": sheet.id, "name": sheet.name, "position": sheet.position}, 201)


@api_bp.patch("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>")
@login_required
def update_sheet(workbook_id: int, sheet_id: int):
    data, db, me = json_body(), get_db(), _me()
    if not {"name", "position", "frozen_rows"} & data.keys():
        raise ValidationError("Send a name, a position or frozen_rows.", "name")
    if "name" in data:
        service.rename_sheet(db, me, workbook_id, sheet_id, _text(data, "name"))
    if "position" in data:
        service.move_sheet(
            db, me, workbook_id, sheet_id, field(data, "position", int, required=True)
        )
    if "frozen_rows" in data:
        service.freeze(
            db, me, workbook_id, sheet_id, field(data, "frozen_rows", int, required=True)
        )
    return ok(_book_json(access.workbook_for(db, me, workbook_id)))


@api_bp.delete("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>")
@login_required
def delete_sheet(workbook_id: int, sheet_id: int):
    service.delete_sheet(get_db(), _me(), workbook_id, sheet_id)
    return ok({"ok": True})


@api_bp.get("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/range")
@login_required
def read_range(workbook_id: int, sheet_id: int):
    db = get_db()
    _, sheet = access.sheet_for(db, _me(), workbook_id, sheet_id)
    ref = request.args.get("ref")
    rng = service.parse_range(ref, "ref") if ref else reads.used_range(db, sheet.id)
    if rng is None:
        return ok({"ref": None, "cells": []})
    if rng.rows * rng.cols > 200_000:
        raise ValidationError("Read at most 200,000 cells at once.", "ref")
    return ok(
        {"ref": rng.address, "cells": [c.to_json() for c in reads.cells_in(db, sheet.id, rng)]}
    )


@api_bp.put("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/range")
@login_required
def write_range(workbook_id: int, sheet_id: int):
    data = json_body()
    values = data.get("values")
    if not isinstance(values, list):
        raise ValidationError("'values' must be a list of rows.", "values")
    service.set_cells(get_db(), _me(), workbook_id, sheet_id, _text(data, "ref"), values)
    return ok(_changed(workbook_id, sheet_id))


@api_bp.get("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/edge")
@login_required
def edge(workbook_id: int, sheet_id: int):
    """Where Ctrl+arrow lands from `cell` going `direction` (up, down, left, right)."""
    db = get_db()
    _, sheet = access.sheet_for(db, _me(), workbook_id, sheet_id)
    row, col = service.parse_cell(request.args.get("cell", "A1"))
    direction = request.args.get("direction", "down")
    if direction not in ("up", "down", "left", "right"):
        raise ValidationError("'direction' is up, down, left or right.", "direction")
    r, c = reads.edge(db, sheet.id, row, col, direction)
    return ok({"cell": refs.address(r, c)})


def _sheet_write(name: str):
    def view(workbook_id: int, sheet_id: int):
        data = json_body()
        db, me = get_db(), _me()
        if name == "clear":
            service.clear(
                db,
                me,
                workbook_id,
                sheet_id,
                _text(data, "ref"),
                bool(field(data, "formats", bool, False)),
            )
        elif name == "format":
            kwargs: dict[str, Any] = {}
            for key in ("number_format", "bold", "italic", "fill"):
                if key in data:
                    kwargs[key] = data[key]
            service.set_format(db, me, workbook_id, sheet_id, _text(data, "ref"), **kwargs)
        elif name == "fill":
            service.fill(
                db,
                me,
                workbook_id,
                sheet_id,
                _text(data, "ref"),
                field(data, "direction", str, "down"),
            )
        elif name == "paste":
            service.paste(
                db, me, workbook_id, sheet_id, _text(data, "source"), _text(data, "target"),
                field(data, "source_sheet_id", int), bool(field(data, "cut", bool, False)),
            )  # fmt: skip
        elif name == "insert":
            service.insert(
                db,
                me,
                workbook_id,
                sheet_id,
                data.get("axis"),
                data.get("at"),
                data.get("count", 1),
            )
        elif name == "delete":
            service.delete_lines(
                db,
                me,
                workbook_id,
                sheet_id,
                data.get("axis"),
                data.get("at"),
                data.get("count", 1),
            )
        elif name == "sort":
            service.sort_range(
                db, me, workbook_id, sheet_id, _text(data, "ref"), data.get("by"),
                bool(field(data, "descending", bool, False)), bool(field(data, "header", bool, True)),
            )  # fmt: skip
        elif name == "filter":
            shown = field(data, "shown", dict, {})
            service.set_filter(db, me, workbook_id, sheet_id, _text(data, "ref"), shown)
        return ok(_changed(workbook_id, sheet_id))

    view.__name__ = f"sheet_{name}"
    return view


for _name in ("clear", "format", "fill", "paste", "insert", "delete", "sort", "filter"):
    api_bp.add_url_rule(
        f"/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/{_name}",
        view_func=login_required(_sheet_write(_name)),
        methods=["POST"],
    )


@api_bp.delete("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/filter")
@login_required
def clear_filter(workbook_id: int, sheet_id: int):
    service.clear_filter(get_db(), _me(), workbook_id, sheet_id)
    return ok({"ok": True})


@api_bp.put("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/columns/<col>")
@login_required
def set_width(workbook_id: int, sheet_id: int, col: str):
    width = field(json_body(), "width", int, required=True)
    service.set_width(
        get_db(), _me(), workbook_id, sheet_id, col.upper() if col.isalpha() else _int(col), width
    )
    return ok({"ok": True})


def _int(text: str) -> int | None:
    return int(text) if text.isdecimal() and len(text) < 7 else None


@api_bp.post("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/comments")
@login_required
def add_comment(workbook_id: int, sheet_id: int):
    data = json_body()
    comment = service.add_comment(
        get_db(), _me(), workbook_id, sheet_id, _text(data, "cell"), _text(data, "body")
    )
    return ok(
        {"id": comment.id, "cell": refs.address(comment.row, comment.col), "body": comment.body},
        201,
    )


@api_bp.delete("/workbooks/<int:workbook_id>/comments/<int:comment_id>")
@login_required
def delete_comment(workbook_id: int, comment_id: int):
    service.delete_comment(get_db(), _me(), workbook_id, comment_id)
    return ok({"ok": True})


@api_bp.post("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/pivots")
@login_required
def create_pivot(workbook_id: int, sheet_id: int):
    data = json_body()
    p = service.create_pivot(
        get_db(), _me(), workbook_id, sheet_id, _text(data, "source"),
        field(data, "rows", list, []), field(data, "columns", list, []),
        field(data, "values", list, []), field(data, "filters", dict, {}), field(data, "name", str),
    )  # fmt: skip
    return ok({"id": p.id, "sheet_id": p.target_sheet_id}, 201)


@api_bp.post("/workbooks/<int:workbook_id>/pivots/<int:pivot_id>/refresh")
@login_required
def refresh_pivot(workbook_id: int, pivot_id: int):
    p = service.refresh_pivot(get_db(), _me(), workbook_id, pivot_id)
    return ok({"id": p.id, "sheet_id": p.target_sheet_id})


@api_bp.post("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/charts")
@login_required
def add_chart(workbook_id: int, sheet_id: int):
    data = json_body()
    chart = service.add_chart(
        get_db(), _me(), workbook_id, sheet_id, _text(data, "kind"), _text(data, "source"),
        field(data, "title", str, ""), field(data, "anchor", str),
    )  # fmt: skip
    return ok({"id": chart.id, "title": chart.title, "anchor": chart.anchor}, 201)


@api_bp.delete("/workbooks/<int:workbook_id>/charts/<int:chart_id>")
@login_required
def delete_chart(workbook_id: int, chart_id: int):
    service.delete_chart(get_db(), _me(), workbook_id, chart_id)
    return ok({"ok": True})


@api_bp.get("/workbooks/<int:workbook_id>/sheets/<int:sheet_id>/export.csv")
@login_required
def export_csv(workbook_id: int, sheet_id: int):
    text = csvio.write_csv(service.shown_rows(get_db(), _me(), workbook_id, sheet_id))
    return Response(text, mimetype="text/csv")


@api_bp.post("/workbooks/<int:workbook_id>/import.csv")
@login_required
def import_csv_sheet(workbook_id: int):
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        raise ValidationError("Send the file as multipart form field 'file'.", "file")
    try:
        data = csvio.read_csv(
            upload.read(),
            upload.filename,
            request.form.get("name") or upload.filename.rsplit(".", 1)[0],
        )
    except FileError as error:
        raise service.file_error(error) from None
    sheet = service.import_csv_sheet(get_db(), _me(), workbook_id, data)
    return ok({"id": sheet.id, "name": sheet.name}, 201)


@api_bp.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())
