"""Sheets' pages: server-rendered HTML over `reads` and `service`.

Every act is a form that works without JavaScript (the name box is a GET to the sheet with
`?cell=`, the formula bar and the toolbar are POSTs that redirect back, PRG); grid.js makes the
grid behave like a spreadsheet on top (keyboard, selection, in-cell editing, copy and paste,
windowed scrolling) through the JSON API. A refused act re-renders with the service's message
and a 4xx, and the kit rolls the transaction back, so nothing is half-written.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import datetime
from typing import Any

from flask import Response, flash, jsonify, redirect, render_template, request, send_file, url_for
from werkzeug.datastructures import FileStorage

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import TITLES, AppError, ValidationError, error_response
from officegym.apps.web.inputs import parse_int
from officegym.apps.web.localtime import to_local
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.sheets import CHART_KINDS, PIVOT_FUNCTIONS

from . import access, csvio, reads, service, xlsxio
from .blueprint import bp
from .book import MAX_BYTES, FileError
from .engine import refs
from .engine.numfmt import FORMATS

FILLS = (
    ("", "No fill"),
    ("#FFF2CC", "Yellow"),
    ("#E2EFDA", "Green"),
    ("#DDEBF7", "Blue"),
    ("#FCE4D6", "Orange"),
    ("#F4CCCC", "Red"),
    ("#EDEDED", "Grey"),
)
TOOL_ACTIONS = {
    "bold",
    "italic",
    "unbold",
    "unitalic",
    "format",
    "fill_colour",
    "fill_down",
    "fill_right",
    "sort_asc",
    "sort_desc",
    "filter",
    "unfilter",
    "freeze",
    "unfreeze",
    "insert_row",
    "insert_col",
    "delete_row",
    "delete_col",
    "clear",
    "undo",
    "redo",
    "width",
}


def _actor() -> Employee:
    return current_user()


def _call(function: Callable, *args: Any, **kwargs: Any) -> Any:
    return function(get_db(), _actor(), *args, **kwargs)


@bp.errorhandler(AppError)
def _sheets_error(error: AppError):
    return error_response(error.status, TITLES.get(error.status, "Error"), error.message)


@bp.app_template_filter("sheets_local")
def _local(value: datetime) -> datetime:
    """A stored (naive UTC) time in the reader's timezone, for the pages to format."""
    user = current_user()
    return to_local(value, user.timezone if user is not None else None)


def _grid_url(workbook_id: int, sheet_id: int, cell: str | None = None) -> str:
    return url_for("sheets.sheet", workbook_id=workbook_id, sheet_id=sheet_id, cell=cell or None)


# -- home ------------------------------------------------------------------------------------


@bp.get("/")
@login_required
def index():
    tab = request.args.get("tab", "all")
    if tab not in dict(reads.TABS):
        tab = "all"
    q = request.args.get("q", "")
    items = reads.workbooks(get_db(), _actor(), tab, q)
    return render_template(
        "sheets/home.html", items=items, tab=tab, tabs=reads.TABS, q=q, section="home"
    )


@bp.post("/new")
@login_required
def new_workbook():
    try:
        book = _call(service.create_workbook, request.form.get("name", ""))
    except ValidationError as error:
        items = reads.workbooks(get_db(), _actor(), "all")
        html = render_template(
            "sheets/home.html", items=items, tab="all", tabs=reads.TABS, q="", error=error.message,
            name=request.form.get("name", ""), section="home",
        )  # fmt: skip
        return html, error.status
    return redirect(url_for("sheets.workbook", workbook_id=book.id))


@bp.post("/import")
@login_required
def import_file():
    upload: FileStorage | None = request.files.get("file")
    try:
        if upload is None or not upload.filename:
            raise ValidationError("Choose an .xlsx or .csv file to import.", "file")
        data = upload.read(MAX_BYTES + 1)
        name = request.form.get("name") or upload.filename.rsplit(".", 1)[0]
        lower = upload.filename.lower()
        try:
            if lower.endswith(".csv"):
                sheet = csvio.read_csv(data, upload.filename, "Sheet1")
                from .book import BookData

                book_data = BookData((sheet,))
            else:
                book_data = xlsxio.read_xlsx(data, upload.filename)
        except FileError as error:
            raise service.file_error(error) from None
        book = _call(service.import_book, book_data, name)
    except ValidationError as error:
        items = reads.workbooks(get_db(), _actor(), "all")
        html = render_template(
            "sheets/home.html", items=items, tab="all", tabs=reads.TABS, q="",
            import_error=error.message, section="home",
        )  # fmt: skip
        return html, error.status
    flash(f"Imported “{book.name}”.", "success")
    return redirect(url_for("sheets.workbook", workbook_id=book.id))


# -- a workbook and its sheets --------------------------------------------------------------


@bp.get("/w/<int:workbook_id>")
@login_required
def workbook(workbook_id: int):
    book = access.workbook_for(get_db(), _actor(), workbook_id)
    first = reads.sheets_of(get_db(), book.id)[0]
    return redirect(_grid_url(book.id, first.id, request.args.get("cell")))


def _selection(text: str | None) -> refs.Range:
    if text:
        try:
            return service.parse_range(text)
        except ValidationError:
            pass
    return refs.Range(1, 1, 1, 1)


@bp.get("/w/<int:workbook_id>/s/<int:sheet_id>")
@login_required
def sheet(workbook_id: int, sheet_id: int):
    return _sheet_page(workbook_id, sheet_id)


def _sheet_page(
    workbook_id: int,
    sheet_id: int,
    status: int = 200,
    error: str | None = None,
    raw: str | None = None,
):
    db = get_db()
    selection = _selection(request.values.get("cell"))
    start = max(1, selection.r1 - 5)
    start = parse_int(request.args.get("start"), start)
    view = reads.grid(db, _actor(), workbook_id, sheet_id, start, min_cols=selection.c2)
    active = reads.cells_in(
        db, view.sheet.id, refs.Range(selection.r1, selection.c1, selection.r1, selection.c1)
    )
    current = active[0] if active else None
    html = render_template(
        "sheets/grid.html",
        view=view,
        selection=selection,
        current=current,
        raw=raw if raw is not None else (current.raw if current else ""),
        error=error,
        formats=FORMATS,
        fills=FILLS,
        letters=refs.column_letters,
        address=refs.address,
        window=reads.WINDOW,
        section="sheet",
    )
    return html, status


@bp.get("/w/<int:workbook_id>/s/<int:sheet_id>/rows")
@login_required
def rows_fragment(workbook_id: int, sheet_id: int):
    """The grid rows of a window (`start`, `count`), as the page's `<tbody>` rows."""
    start = request.args.get("start", "1")
    count = request.args.get("count", str(reads.WINDOW))
    start_n = parse_int(start, 1)
    count_n = min(200, parse_int(count, reads.WINDOW))
    cols = request.args.get("cols", "0")
    min_cols = min(200, parse_int(cols, 0))
    view = reads.grid(get_db(), _actor(), workbook_id, sheet_id, start_n, max(1, count_n), min_cols)
    html = render_template(
        "sheets/_rows.html", view=view, letters=refs.column_letters, address=refs.address
    )
    return html


@bp.post("/w/<int:workbook_id>/s/<int:sheet_id>/cell")
@login_required
def set_cell(workbook_id: int, sheet_id: int):
    cell = request.form.get("cell", "")
    raw = request.form.get("raw", "")
    try:
        r, c = service.parse_cell(cell.split(":")[0] if cell else "A1")
        service.set_cell(get_db(), _actor(), workbook_id, sheet_id, refs.address(r, c), raw)
    except ValidationError as error:
        return _sheet_page(workbook_id, sheet_id, error.status, error.message, raw)
    return redirect(_grid_url(workbook_id, sheet_id, refs.address(r + 1, c)))


@bp.post("/w/<int:workbook_id>/s/<int:sheet_id>/act")
@login_required
def act(workbook_id: int, sheet_id: int):
    """One toolbar button on the current selection."""
    action = request.form.get("action", "")
    cell = request.form.get("cell", "A1") or "A1"
    db, me = get_db(), _actor()
    try:
        if action not in TOOL_ACTIONS:
            raise ValidationError("Choose an action from the toolbar.", "action")
        rng = service.parse_range(cell)
        a = rng.address
        if action in ("bold", "unbold"):
            service.set_format(db, me, workbook_id, sheet_id, a, bold=action == "bold")
        elif action in ("italic", "unitalic"):
            service.set_format(db, me, workbook_id, sheet_id, a, italic=action == "italic")
        elif action == "format":
            service.set_format(
                db,
                me,
                workbook_id,
                sheet_id,
                a,
                number_format=request.form.get("number_format") or None,
            )
        elif action == "fill_colour":
            service.set_format(
                db, me, workbook_id, sheet_id, a, fill=request.form.get("fill") or None
            )
        elif action in ("fill_down", "fill_right"):
            service.fill(db, me, workbook_id, sheet_id, a, action.removeprefix("fill_"))
        elif action in ("sort_asc", "sort_desc"):
            target = _data_block(db, me, workbook_id, sheet_id, rng)
            service.sort_range(
                db, me, workbook_id, sheet_id, target.address, rng.c1, action == "sort_desc", True
            )
        elif action == "filter":
            target = _data_block(db, me, workbook_id, sheet_id, rng)
            service.set_filter(db, me, workbook_id, sheet_id, target.address, {})
            return redirect(
                url_for(
                    "sheets.filter_page",
                    workbook_id=workbook_id,
                    sheet_id=sheet_id,
                    col=refs.column_letters(rng.c1),
                )
            )
        elif action == "unfilter":
            service.clear_filter(db, me, workbook_id, sheet_id)
        elif action in ("freeze", "unfreeze"):
            service.freeze(db, me, workbook_id, sheet_id, 1 if action == "freeze" else 0)
        elif action == "insert_row":
            service.insert(db, me, workbook_id, sheet_id, "row", rng.r1, rng.rows)
        elif action == "insert_col":
            service.insert(db, me, workbook_id, sheet_id, "col", rng.c1, rng.cols)
        elif action == "delete_row":
            service.delete_lines(db, me, workbook_id, sheet_id, "row", rng.r1, rng.rows)
        elif action == "delete_col":
            service.delete_lines(db, me, workbook_id, sheet_id, "col", rng.c1, rng.cols)
        elif action == "clear":
            service.clear(db, me, workbook_id, sheet_id, a)
        elif action == "width":
            text = request.form.get("width", "")
            width = int(text) if text.isdecimal() and len(text) < 6 else -1
            for col in range(rng.c1, rng.c2 + 1):
                service.set_width(db, me, workbook_id, sheet_id, col, width)
        elif action == "undo":
            edit = service.undo(db, me, workbook_id)
            flash(f"Undid: {edit.summary}", "success")
        elif action == "redo":
            edit = service.redo(db, me, workbook_id)
            flash(f"Redid: {edit.summary}", "success")
    except (ValidationError, AppError) as error:
        if error.status in (404,):
            raise
        return _sheet_page(workbook_id, sheet_id, error.status, error.message)
    return redirect(_grid_url(workbook_id, sheet_id, cell))


def _data_block(db, me, workbook_id: int, sheet_id: int, rng: refs.Range) -> refs.Range:
    """The range a sort or filter acts on: the selection if it is a block, else the whole
    used area of the sheet (header row first), as spreadsheets expand a single cell."""
    if rng.rows > 1:
        return rng
    _, sheet = access.sheet_for(db, me, workbook_id, sheet_id)
    used = reads.used_range(db, sheet.id)
    if used is None:
        raise ValidationError("The sheet is empty: there is nothing to sort or filter.", "cell")
    return used


# -- sheet tabs and workbook settings -------------------------------------------------------


@bp.post("/w/<int:workbook_id>/sheets")
@login_required
def add_sheet(workbook_id: int):
    new = _call(service.add_sheet, workbook_id, request.form.get("name") or None)
    return redirect(_grid_url(workbook_id, new.id))


@bp.route("/w/<int:workbook_id>/s/<int:sheet_id>/settings", methods=["GET", "POST"])
@login_required
def sheet_settings(workbook_id: int, sheet_id: int):
    db, me = get_db(), _actor()
    book, sheet = access.sheet_for(db, me, workbook_id, sheet_id)
    error = None
    if request.method == "POST":
        what = request.form.get("action")
        try:
            if what == "rename":
                service.rename_sheet(db, me, workbook_id, sheet_id, request.form.get("name"))
            elif what == "move":
                position = request.form.get("position", "")
                service.move_sheet(
                    db, me, workbook_id, sheet_id, int(position) - 1 if position.isdecimal() else -1
                )
            elif what == "delete":
                service.delete_sheet(db, me, workbook_id, sheet_id)
                return redirect(url_for("sheets.workbook", workbook_id=workbook_id))
            else:
                raise ValidationError("Choose rename, move or delete.", "action")
            return redirect(_grid_url(workbook_id, sheet_id))
        except ValidationError as e:
            error = e
        except AppError as e:
            if e.status == 404:
                raise
            error = e
    sheets = reads.sheets_of(db, book.id)
    html = render_template(
        "sheets/sheet_settings.html",
        book=book,
        sheet=sheet,
        sheets=sheets,
        error=error,
        section="sheet",
    )
    return html, (error.status if error else 200)


@bp.route("/w/<int:workbook_id>/settings", methods=["GET", "POST"])
@login_required
def workbook_settings(workbook_id: int):
    db, me = get_db(), _actor()
    book = access.workbook_for(db, me, workbook_id)
    error = None
    if request.method == "POST":
        what = request.form.get("action")
        try:
            if what == "rename":
                service.rename_workbook(db, me, workbook_id, request.form.get("name"))
            elif what == "copy":
                copy = service.copy_workbook(
                    db, me, workbook_id, request.form.get("copy_name") or None
                )
                return redirect(url_for("sheets.workbook", workbook_id=copy.id))
            elif what == "trash":
                service.trash_workbook(db, me, workbook_id)
                flash(f"Moved “{book.name}” to the trash.", "success")
                return redirect(url_for("sheets.index"))
            elif what == "restore":
                service.restore_workbook(db, me, workbook_id)
            else:
                raise ValidationError("Choose an action.", "action")
            return redirect(url_for("sheets.workbook_settings", workbook_id=workbook_id))
        except AppError as e:
            if e.status == 404:
                raise
            error = e
    role = access.role_of(db, me, book)
    html = render_template(
        "sheets/workbook_settings.html", book=book, role=role, error=error, section="settings"
    )
    return html, (error.status if error else 200)


# -- sharing and history ---------------------------------------------------------------------


@bp.route("/w/<int:workbook_id>/share", methods=["GET", "POST"])
@login_required
def share(workbook_id: int):
    db, me = get_db(), _actor()
    error = None
    if request.method == "POST":
        try:
            if request.form.get("remove"):
                service.unshare(db, me, workbook_id, _int(request.form.get("remove")))
            else:
                person = _person(
                    request.form.get("employee_id"), request.form.get("employee_id_text")
                )
                service.share(db, me, workbook_id, person, request.form.get("permission"))
                flash("Sharing updated.", "success")
            return redirect(url_for("sheets.share", workbook_id=workbook_id))
        except AppError as e:
            if e.status == 404 and not request.form.get("remove"):
                raise
            error = e
    book, owner, shared = reads.shares(db, me, workbook_id)
    role = access.role_of(db, me, book)
    html = render_template(
        "sheets/share.html",
        book=book,
        owner=owner,
        shared=shared,
        role=role,
        error=error,
        section="share",
    )
    return html, (error.status if error else 200)


def _int(text: str | None) -> int | None:
    return parse_int(text)


def _person(chosen: str | None, typed: str | None) -> int:
    """The person a lookup box names: the chosen id, else the one active person whose name
    is exactly what was typed."""
    db = get_db()
    chosen_id = parse_int(chosen)
    if chosen_id is not None:
        person = db.get(Employee, chosen_id)
        if person is not None and (
            not typed or " ".join(typed.split()).lower() == person.display_name.lower()
        ):
            return person.id
    found = reads.find_person(db, typed or "")
    if not found:
        raise ValidationError(
            f"No one in the directory is named “{typed or ''}”. Pick a person from the list.",
            "employee_id",
        )
    if len(found) > 1:
        raise ValidationError(
            f"{len(found)} people are named “{typed}”. Pick one from the list.", "employee_id"
        )
    return found[0].id


@bp.get("/lookup/people")
@login_required
def lookup_people():
    return jsonify(reads.people(get_db(), request.args.get("q", "")))


@bp.get("/w/<int:workbook_id>/history")
@login_required
def history(workbook_id: int):
    db, me = get_db(), _actor()
    book = access.workbook_for(db, me, workbook_id)
    before = _int(request.args.get("before"))
    edits = reads.history(db, me, workbook_id, 50, before)
    return render_template("sheets/history.html", book=book, edits=edits, section="history")


# -- find, filter, comments, pivots, charts --------------------------------------------------


@bp.route("/w/<int:workbook_id>/s/<int:sheet_id>/find", methods=["GET", "POST"])
@login_required
def find(workbook_id: int, sheet_id: int):
    db, me = get_db(), _actor()
    book, sheet = access.sheet_for(db, me, workbook_id, sheet_id)
    form = request.values
    text = form.get("find", "")
    options = {
        "match_case": form.get("match_case") == "on",
        "whole": form.get("whole") == "on",
        "in_formulas": form.get("in_formulas") == "on",
    }
    scope = form.get("scope", "sheet")
    scope_id = sheet.id if scope == "sheet" else None
    error = message = None
    results = []
    try:
        if request.method == "POST":
            count = service.replace_all(
                db, me, workbook_id, text, form.get("replace", ""), scope_id, **options
            )
            message = f"Replaced {count} cell{'s' if count != 1 else ''}."
        if text:
            results = service.find(db, me, workbook_id, text, scope_id, **options)
    except AppError as e:
        if e.status == 404:
            raise
        error = e
    html = render_template(
        "sheets/find.html", book=book, sheet=sheet, text=text, replacement=form.get("replace", ""),
        options=options, scope=scope, results=results[:200], total=len(results), error=error,
        message=message, address=refs.address, display=_shown, section="find",
    )  # fmt: skip
    return html, (error.status if error else 200)


def _shown(cell) -> str:
    return reads.cell_view(cell).shown


@bp.route("/w/<int:workbook_id>/s/<int:sheet_id>/sort", methods=["GET", "POST"])
@login_required
def sort_page(workbook_id: int, sheet_id: int):
    """Sort a range by one of its columns, with or without a header row."""
    db, me = get_db(), _actor()
    book, sheet = access.sheet_for(db, me, workbook_id, sheet_id)
    source = request.values.get("range") or ""
    if not source or ":" not in source:
        used = reads.used_range(db, sheet.id)
        source = used.address if used else "A1:A1"
    error = None
    try:
        rng = service.parse_range(source, "range")
        headers = reads.header_row(db, sheet.id, rng)
    except ValidationError as e:
        error, rng, headers = e, None, []
    header = request.form.get("header", "on") == "on" if request.method == "POST" else True
    if request.method == "POST" and error is None:
        by = request.form.get("column", "")
        try:
            service.sort_range(
                db, me, workbook_id, sheet_id, rng.address, by if by.isalpha() else None,
                request.form.get("order") == "desc", header,
            )  # fmt: skip
            return redirect(_grid_url(workbook_id, sheet_id, rng.address))
        except AppError as e:
            if e.status == 404:
                raise
            error = e
    columns = []
    if rng is not None:
        for i, h in enumerate(headers):
            letter = refs.column_letters(rng.c1 + i)
            columns.append((letter, f"Column {letter}" + (f" ({h})" if h and header else "")))
    html = render_template(
        "sheets/sort.html", book=book, sheet=sheet, source=source, columns=columns, error=error,
        form=request.form, header=header, section="sort",
    )  # fmt: skip
    return html, (error.status if error else 200)


@bp.route("/w/<int:workbook_id>/s/<int:sheet_id>/filter", methods=["GET", "POST"])
@login_required
def filter_page(workbook_id: int, sheet_id: int):
    """Choose which values of one column the sheet's filter shows."""
    db, me = get_db(), _actor()
    book, sheet = access.sheet_for(db, me, workbook_id, sheet_id)
    if not sheet.filter_range:
        return redirect(_grid_url(workbook_id, sheet_id))
    rng = refs.parse_range(sheet.filter_range)
    col_text = request.values.get("col", refs.column_letters(rng.c1))
    col = (
        refs.column_number(col_text.upper())
        if col_text.isascii() and col_text.isalpha() and len(col_text) <= 3
        else rng.c1
    )
    col = min(max(col, rng.c1), rng.c2)
    import json

    criteria = json.loads(sheet.filter_json or "{}")
    if request.method == "POST":
        chosen = request.form.getlist("show")
        criteria[str(col)] = chosen
        if request.form.get("all"):
            criteria.pop(str(col), None)
        service.set_filter(
            db, me, workbook_id, sheet_id, rng.address, {int(k): v for k, v in criteria.items()}
        )
        return redirect(_grid_url(workbook_id, sheet_id))
    values = sorted(
        {v.shown for v in reads.cells_in(db, sheet.id, refs.Range(rng.r1 + 1, col, rng.r2, col))}
        | ({""} if _has_blank(db, sheet.id, rng, col) else set()),
        key=lambda s: (s == "", s.casefold()),
    )
    shown = set(criteria.get(str(col), values))
    headers = reads.header_row(db, sheet.id, rng)
    return render_template(
        "sheets/filter.html", book=book, sheet=sheet, rng=rng, col=col, values=values, shown=shown,
        headers=headers, letters=refs.column_letters, section="filter",
    )  # fmt: skip


def _has_blank(db, sheet_id: int, rng: refs.Range, col: int) -> bool:
    last_row, _ = reads.extent(db, sheet_id)
    filled = {
        v.row
        for v in reads.cells_in(db, sheet_id, refs.Range(rng.r1 + 1, col, rng.r2, col))
        if v.shown
    }
    return any(r not in filled for r in range(rng.r1 + 1, min(rng.r2, last_row) + 1))


@bp.route("/w/<int:workbook_id>/s/<int:sheet_id>/comments", methods=["GET", "POST"])
@login_required
def comments(workbook_id: int, sheet_id: int):
    db, me = get_db(), _actor()
    book, sheet = access.sheet_for(db, me, workbook_id, sheet_id)
    cell = request.values.get("cell", "A1")
    error = None
    if request.method == "POST":
        try:
            if request.form.get("delete"):
                service.delete_comment(db, me, workbook_id, _int(request.form.get("delete")))
            else:
                service.add_comment(db, me, workbook_id, sheet_id, cell, request.form.get("body"))
            return redirect(
                url_for("sheets.comments", workbook_id=workbook_id, sheet_id=sheet_id, cell=cell)
            )
        except AppError as e:
            if e.status == 404:
                raise
            error = e
    view = reads.grid(db, me, workbook_id, sheet_id, 1, 1)
    html = render_template(
        "sheets/comments.html", book=book, sheet=sheet, cell=cell, comments=view.comments, error=error,
        body=request.form.get("body", ""), section="comments", me=me,
    )  # fmt: skip
    return html, (error.status if error else 200)


@bp.route("/w/<int:workbook_id>/s/<int:sheet_id>/pivot", methods=["GET", "POST"])
@login_required
def pivot_page(workbook_id: int, sheet_id: int):
    db, me = get_db(), _actor()
    book, sheet = access.sheet_for(db, me, workbook_id, sheet_id)
    source = request.values.get("source") or ""
    if not source:
        used = reads.used_range(db, sheet.id)
        source = used.address if used else "A1:A1"
    error = None
    try:
        rng = service.parse_range(source, "source")
        headers = [h for h in reads.header_row(db, sheet.id, rng) if h]
    except ValidationError as e:
        error, headers = e, []
    if request.method == "POST" and error is None:
        form = request.form
        rows = [x for x in form.getlist("rows") if x]
        columns = [x for x in form.getlist("columns") if x]
        values = [{"field": form.get("value_field", ""), "function": form.get("function", "SUM")}]
        filters = {}
        if form.get("filter_field") and form.get("filter_values"):
            filters[form["filter_field"]] = [
                v.strip() for v in form["filter_values"].split(",") if v.strip()
            ]
        try:
            made = service.create_pivot(
                db,
                me,
                workbook_id,
                sheet_id,
                source,
                rows,
                columns,
                values,
                filters,
                form.get("name") or None,
            )
            return redirect(_grid_url(workbook_id, made.target_sheet_id))
        except AppError as e:
            if e.status == 404:
                raise
            error = e
    html = render_template(
        "sheets/pivot.html", book=book, sheet=sheet, source=source, headers=headers,
        functions=PIVOT_FUNCTIONS, error=error, form=request.form, section="pivot",
    )  # fmt: skip
    return html, (error.status if error else 200)


@bp.post("/w/<int:workbook_id>/pivots/<int:pivot_id>/refresh")
@login_required
def refresh_pivot(workbook_id: int, pivot_id: int):
    p = _call(service.refresh_pivot, workbook_id, pivot_id)
    flash("Pivot table refreshed.", "success")
    return redirect(_grid_url(workbook_id, p.target_sheet_id))


@bp.route("/w/<int:workbook_id>/s/<int:sheet_id>/chart", methods=["GET", "POST"])
@login_required
def chart_page(workbook_id: int, sheet_id: int):
    db, me = get_db(), _actor()
    book, sheet = access.sheet_for(db, me, workbook_id, sheet_id)
    error = None
    # The form's range wins over the link's (which carries the selection it was opened from).
    source = request.form.get("source") if request.method == "POST" else None
    source = source if source is not None else request.args.get("source", "")
    if request.method == "POST":
        try:
            if request.form.get("delete"):
                service.delete_chart(db, me, workbook_id, _int(request.form.get("delete")))
            else:
                service.add_chart(
                    db, me, workbook_id, sheet_id, request.form.get("kind"), source,
                    request.form.get("title", ""), request.form.get("anchor") or None,
                )  # fmt: skip
            return redirect(_grid_url(workbook_id, sheet_id))
        except AppError as e:
            if e.status == 404:
                raise
            error = e
    html = render_template(
        "sheets/chart.html", book=book, sheet=sheet, source=source, kinds=CHART_KINDS, error=error,
        form=request.form, section="chart",
    )  # fmt: skip
    return html, (error.status if error else 200)


# -- export ----------------------------------------------------------------------------------


@bp.get("/w/<int:workbook_id>/export.xlsx")
@login_required
def export_xlsx(workbook_id: int):
    book = access.workbook_for(get_db(), _actor(), workbook_id)
    data = xlsxio.write_xlsx(_call(service.book_data, workbook_id))
    return send_file(
        io.BytesIO(data),
        mimetype="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        as_attachment=True,
        download_name=f"{_file_stem(book.name)}.xlsx",
    )


@bp.get("/w/<int:workbook_id>/s/<int:sheet_id>/export.csv")
@login_required
def export_csv(workbook_id: int, sheet_id: int):
    _, sheet = access.sheet_for(get_db(), _actor(), workbook_id, sheet_id)
    text = csvio.write_csv(_call(service.shown_rows, workbook_id, sheet_id))
    return Response(
        text,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{_file_stem(sheet.name)}.csv"'},
    )


def _file_stem(name: str) -> str:
    stem = "".join(ch if ch.isalnum() or ch in " -_." else "_" for ch in name).strip() or "workbook"
    return stem[:100]
