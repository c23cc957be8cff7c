"""Sheets' writes: the only code that changes sheets tables.

Every public function is one act of a user, checked against `access`, run inside the
request's transaction (the web kit commits on success and rolls back on any refusal, so a
refused act writes nothing), logged as one `Edit` in the workbook's change history and
stamped from the world clock. Acts on cells record their inverse, so `undo` and `redo` replay
them server-side: undo takes back the actor's own latest act in that workbook.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from officegym.apps.web.errors import Conflict, Forbidden, NotFound, ValidationError
from officegym.seed_data.clock import stamp
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.sheets import (
    CHART_KINDS,
    PERMISSIONS,
    PIVOT_FUNCTIONS,
    Cell,
    Chart,
    ColumnWidth,
    Comment,
    Edit,
    Pivot,
    Share,
    Sheet,
    Workbook,
)

from . import access, charts, pivot
from .book import BookData, CellData, FileError, SheetData, number_text
from .cells import BLANK, Book, CellState, loaded, state_of
from .engine import refs
from .engine.numfmt import FORMATS, display
from .engine.values import CellError

MAX_NAME = 200
MAX_SHEET_NAME = 100
MAX_RAW = 5_000
MAX_ROWS = 100_000
MAX_COLS = 200
MAX_FILL_CELLS = 50_000
MIN_WIDTH, MAX_WIDTH = 30, 800
_SHEET_NAME_BAD = re.compile(r"[\[\]:*?/\\]")
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_NUMBER_FORMATS = frozenset(code for code in FORMATS.values() if code)


# -- small checks ----------------------------------------------------------------------------


def _name(value: object, label: str, limit: int = MAX_NAME) -> str:
    text = " ".join(str(value or "").split())
    if not text:
        raise ValidationError(f"Enter a {label}.", "name")
    if len(text) > limit:
        raise ValidationError(f"The {label} can be at most {limit} characters.", "name")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise ValidationError(f"The {label} can't contain control characters.", "name")
    return text


def _sheet_name(value: object) -> str:
    name = _name(value, "sheet name", MAX_SHEET_NAME)
    if _SHEET_NAME_BAD.search(name) or name.startswith("'") or name.endswith("'"):
        raise ValidationError(
            "A sheet name can't contain [ ] : * ? / \\ or start or end with an apostrophe.", "name"
        )
    return name


def parse_range(text: object, label: str = "range") -> refs.Range:
    """A range typed by a user (`B2:D40`, `B12`); a clear 422 when it is not one."""
    try:
        rng = refs.parse_range(str(text or ""))
    except (ValueError, KeyError):
        raise ValidationError(
            f"'{text}' is not a cell or range like B2 or A1:D40.", label
        ) from None
    if rng.r1 > MAX_ROWS or rng.c1 > MAX_COLS:
        raise ValidationError(
            f"A sheet has at most {MAX_ROWS:,} rows and {MAX_COLS} columns.", label
        )
    if rng.r2 > MAX_ROWS or rng.c2 > MAX_COLS:
        rng = refs.Range(rng.r1, rng.c1, min(rng.r2, MAX_ROWS), min(rng.c2, MAX_COLS))
    return rng


def parse_cell(text: object, label: str = "cell") -> tuple[int, int]:
    rng = parse_range(text, label)
    if (rng.r1, rng.c1) != (rng.r2, rng.c2):
        raise ValidationError(f"'{text}' is a range; give one cell like B12.", label)
    return rng.r1, rng.c1


def _raw(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        number = float(value) if abs(value) < 1e308 else math.inf
        if not math.isfinite(number):
            raise ValidationError("A number in a cell must be finite, below 1e308.", "raw")
        return refs_number(number)
    if not isinstance(value, str):
        raise ValidationError("A cell's input must be text or a number.", "raw")
    if "\x00" in value:
        raise ValidationError("A cell's input can't contain NUL characters.", "raw")
    if len(value) > MAX_RAW:
        raise ValidationError(f"A cell holds at most {MAX_RAW:,} characters.", "raw")
    return value.replace("\r\n", "\n")


def _letters(value: object) -> object:
    """Column letters (`C`, `aa`) as the column's number; anything else as it is, for the
    caller's own check to refuse."""
    if isinstance(value, str) and value.isascii() and value.isalpha():
        return refs.column_number(value.upper())
    return value


def refs_number(value: float) -> str:
    """A number as a user would type it (`4200`, `0.125`)."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


# -- history -----------------------------------------------------------------------------------


def _record(
    db: Session,
    actor: Employee,
    book: Workbook,
    summary: str,
    cells: Sequence[tuple[str, str, str, str]] = (),
    undo: Sequence[dict] = (),
    redo: Sequence[dict] = (),
) -> Edit:
    at = stamp(db)
    book.updated_at = at
    edit = Edit(
        workbook_id=book.id,
        employee_id=actor.id,
        at=at,
        summary=summary[:200],
        cells_json=json.dumps([list(c) for c in cells[:500]]),
        undo_json=json.dumps({"ops": list(undo)}) if undo else "{}",
        redo_json=json.dumps({"ops": list(redo)}) if redo else "{}",
        undone=False,
    )
    db.add(edit)
    db.flush()
    return edit


def _today(db: Session):
    from officegym.seed_data.clock import now

    return now(db).date()


class _Act:
    """The cell changes of one act on a workbook, with their inverse for undo."""

    def __init__(self, db: Session, book: Workbook) -> None:
        self.db = db
        self.book = book
        self.cells = Book(db, book.id, _today(db))
        self.before: dict[tuple[int, int, int], CellState] = {}
        self.after: dict[tuple[int, int, int], CellState] = {}

    def state(self, sheet_id: int, row: int, col: int) -> CellState:
        key = (sheet_id, row, col)
        if key in self.after:
            return self.after[key]
        return state_of(self.cells.cell(sheet_id, row, col))

    def put(self, sheet_id: int, row: int, col: int, state: CellState) -> None:
        key = (sheet_id, row, col)
        old = self.state(sheet_id, row, col)
        if key not in self.before:
            self.before[key] = old
        if old == state and key not in self.after:
            return
        self.cells.put(sheet_id, row, col, state)
        self.after[key] = state

    def changes(self) -> list[tuple[tuple[int, int, int], CellState, CellState]]:
        return [
            (key, self.before[key], self.after[key])
            for key in sorted(self.after)
            if self.before[key] != self.after[key]
        ]

    def finish(self, actor: Employee, summary: str) -> Edit | None:
        """Recompute dependents and log the act (None when nothing changed)."""
        changes = self.changes()
        if not changes:
            return None
        self.cells.recompute()
        names = self.cells.sheet_names
        listed = [
            (names[s], refs.address(r, c), old.raw, new.raw)
            for (s, r, c), old, new in changes
            if old.raw != new.raw
        ]
        undo = _cells_op(((k, old) for k, old, _ in changes))
        redo = _cells_op(((k, new) for k, _, new in changes))
        return _record(self.db, actor, self.book, summary, listed, undo, redo)


def _cells_op(items: Iterable[tuple[tuple[int, int, int], CellState]]) -> list[dict]:
    by_sheet: dict[int, list] = {}
    for (sheet_id, row, col), state in items:
        by_sheet.setdefault(sheet_id, []).append(
            [row, col, None if state.is_blank else state.to_json()]
        )
    return [{"op": "cells", "sheet": s, "cells": cells} for s, cells in sorted(by_sheet.items())]


# -- workbooks -------------------------------------------------------------------------------


def create_workbook(db: Session, actor: Employee, name: object) -> Workbook:
    now = stamp(db)
    book = Workbook(
        name=_name(name, "workbook name"), owner_id=actor.id, created_at=now, updated_at=now
    )
    db.add(book)
    db.flush()
    db.add(Sheet(workbook_id=book.id, name="Sheet1", position=0))
    db.flush()
    _record(db, actor, book, "Created the workbook")
    return book


def rename_workbook(db: Session, actor: Employee, workbook_id: int, name: object) -> Workbook:
    book = access.workbook_for(db, actor, workbook_id, "edit")
    new = _name(name, "workbook name")
    if new != book.name:
        old = book.name
        book.name = new
        _record(db, actor, book, f"Renamed the workbook from “{old}” to “{new}”")
    return book


def copy_workbook(db: Session, actor: Employee, workbook_id: int, name: object = None) -> Workbook:
    """A copy owned by the actor: sheets, cells, formats, widths and charts (not sharing)."""
    source = access.workbook_for(db, actor, workbook_id, "view")
    now = stamp(db)
    book = Workbook(
        name=_name(name or f"Copy of {source.name}", "workbook name"),
        owner_id=actor.id,
        created_at=now,
        updated_at=now,
    )
    db.add(book)
    db.flush()
    for sheet in _sheets(db, source.id):
        copy = Sheet(
            workbook_id=book.id,
            name=sheet.name,
            position=sheet.position,
            frozen_rows=sheet.frozen_rows,
            filter_range=sheet.filter_range,
            filter_json=sheet.filter_json,
        )
        db.add(copy)
        db.flush()
        for cell in db.scalars(select(Cell).where(Cell.sheet_id == sheet.id)):
            db.add(
                Cell(
                    sheet_id=copy.id,
                    row=cell.row,
                    col=cell.col,
                    raw=cell.raw,
                    value_type=cell.value_type,
                    value_num=cell.value_num,
                    value_text=cell.value_text,
                    number_format=cell.number_format,
                    bold=cell.bold,
                    italic=cell.italic,
                    fill=cell.fill,
                )
            )
        for width in db.scalars(select(ColumnWidth).where(ColumnWidth.sheet_id == sheet.id)):
            db.add(ColumnWidth(sheet_id=copy.id, col=width.col, width=width.width))
        for chart in db.scalars(select(Chart).where(Chart.sheet_id == sheet.id)):
            db.add(
                Chart(
                    sheet_id=copy.id,
                    kind=chart.kind,
                    title=chart.title,
                    source_range=chart.source_range,
                    anchor=chart.anchor,
                )
            )
    db.flush()
    _record(db, actor, book, f"Made a copy of “{source.name}”")
    return book


def trash_workbook(db: Session, actor: Employee, workbook_id: int) -> Workbook:
    book = access.workbook_for(db, actor, workbook_id, "owner")
    if book.trashed_at is not None:
        raise Conflict("This workbook is already in the trash.")
    book.trashed_at = stamp(db)
    _record(db, actor, book, "Moved the workbook to the trash")
    return book


def restore_workbook(db: Session, actor: Employee, workbook_id: int) -> Workbook:
    book = access.workbook_for(db, actor, workbook_id, "view")
    if book.owner_id != actor.id:
        raise Forbidden("Only the owner of this workbook can do that.")
    if book.trashed_at is None:
        raise Conflict("This workbook is not in the trash.")
    book.trashed_at = None
    _record(db, actor, book, "Restored the workbook from the trash")
    return book


# -- sharing ---------------------------------------------------------------------------------


def share(
    db: Session, actor: Employee, workbook_id: int, employee_id: object, permission: object
) -> Share:
    """Give someone view or edit access (or change theirs). Owner and editors may share."""
    book = access.workbook_for(db, actor, workbook_id, "edit")
    if permission not in PERMISSIONS:
        raise ValidationError("Choose view or edit access.", "permission")
    person = db.get(Employee, employee_id) if access.row_id(employee_id) else None
    if person is None or not person.is_active:
        raise ValidationError("Choose a person from the directory.", "employee_id")
    if person.id == book.owner_id:
        raise ValidationError(f"{person.display_name} owns this workbook.", "employee_id")
    found = db.scalars(
        select(Share).where(Share.workbook_id == book.id, Share.employee_id == person.id)
    ).first()
    if found is not None and found.permission == permission:
        return found
    if found is None:
        found = Share(workbook_id=book.id, employee_id=person.id, permission=permission)
        db.add(found)
    else:
        found.permission = str(permission)
    db.flush()
    verb = "can edit" if permission == "edit" else "can view"
    _record(db, actor, book, f"Shared with {person.display_name} ({verb})")
    return found


def unshare(db: Session, actor: Employee, workbook_id: int, employee_id: object) -> None:
    book = access.workbook_for(db, actor, workbook_id, "edit")
    found = db.scalars(
        select(Share).where(
            Share.workbook_id == book.id, Share.employee_id == access.row_id(employee_id)
        )
    ).first()
    if found is None:
        raise NotFound("That person doesn't have access to this workbook.")
    person = db.get(Employee, found.employee_id)
    db.delete(found)
    db.flush()
    _record(db, actor, book, f"Removed access for {person.display_name if person else 'someone'}")


# -- sheets ----------------------------------------------------------------------------------


def _sheets(db: Session, workbook_id: int) -> list[Sheet]:
    return list(
        db.scalars(
            select(Sheet).where(Sheet.workbook_id == workbook_id).order_by(Sheet.position, Sheet.id)
        )
    )


def _unique_sheet_name(
    db: Session, workbook_id: int, name: str, sheet_id: int | None = None
) -> None:
    for sheet in _sheets(db, workbook_id):
        if sheet.id != sheet_id and sheet.name.casefold() == name.casefold():
            raise ValidationError(f"There is already a sheet named “{sheet.name}”.", "name")


def _next_sheet_name(db: Session, workbook_id: int, stem: str) -> str:
    taken = {s.name.casefold() for s in _sheets(db, workbook_id)}
    n = 1
    while f"{stem}{n}".casefold() in taken:
        n += 1
    return f"{stem}{n}"


def add_sheet(db: Session, actor: Employee, workbook_id: int, name: object = None) -> Sheet:
    book = access.workbook_for(db, actor, workbook_id, "edit")
    title = _sheet_name(name) if name else _next_sheet_name(db, book.id, "Sheet")
    _unique_sheet_name(db, book.id, title)
    sheets = _sheets(db, book.id)
    if len(sheets) >= 50:
        raise ValidationError("A workbook has at most 50 sheets.", "name")
    sheet = Sheet(workbook_id=book.id, name=title, position=len(sheets))
    db.add(sheet)
    db.flush()
    _record(db, actor, book, f"Added sheet “{title}”")
    return sheet


def _rewrite_formulas(act: _Act, rewrite) -> None:
    """Apply `rewrite(raw, own_sheet_name) -> raw` to every formula of the workbook."""
    names = act.cells.sheet_names
    rows = act.db.execute(
        select(Cell.sheet_id, Cell.row, Cell.col).where(
            Cell.sheet_id.in_(names), Cell.raw.like("=%")
        )
    ).all()
    for sheet_id, row, col in rows:
        state = act.state(sheet_id, row, col)
        new = rewrite(state.raw, names[sheet_id])
        if new != state.raw:
            act.put(sheet_id, row, col, _with_raw(state, new))


def _with_raw(state: CellState, raw: str) -> CellState:
    return CellState(raw, state.number_format, state.bold, state.italic, state.fill)


def rename_sheet(
    db: Session, actor: Employee, workbook_id: int, sheet_id: int, name: object
) -> Sheet:
    """Rename a tab; formulas that name it follow the new name."""
    book, sheet = access.sheet_for(db, actor, workbook_id, sheet_id, "edit")
    new = _sheet_name(name)
    if new == sheet.name:
        return sheet
    _unique_sheet_name(db, book.id, new, sheet.id)
    old = sheet.name
    act = _Act(db, book)
    _rewrite_formulas(act, lambda raw, _own: refs.rename_sheet(raw, old, new))
    sheet.name = new
    db.flush()
    act.cells = _refresh_names(act)
    act.cells.changed = {k for k, _, _ in act.changes()}
    act.cells.recompute()
    _record(db, actor, book, f"Renamed sheet “{old}” to “{new}”")
    return sheet


def _refresh_names(act: _Act) -> Book:
    book = Book(act.db, act.book.id, act.cells.today)
    book.values = act.cells.values
    return book


def move_sheet(
    db: Session, actor: Employee, workbook_id: int, sheet_id: int, position: object
) -> Sheet:
    book, sheet = access.sheet_for(db, actor, workbook_id, sheet_id, "edit")
    sheets = _sheets(db, book.id)
    if (
        not isinstance(position, int)
        or isinstance(position, bool)
        or not 0 <= position < len(sheets)
    ):
        raise ValidationError(f"Choose a position from 1 to {len(sheets)}.", "position")
    order = [s for s in sheets if s.id != sheet.id]
    order.insert(position, sheet)
    for i, s in enumerate(order):
        s.position = i
    db.flush()
    _record(db, actor, book, f"Moved sheet “{sheet.name}” to position {position + 1}")
    return sheet


def delete_sheet(db: Session, actor: Employee, workbook_id: int, sheet_id: int) -> None:
    """Delete a tab and what hangs on it; formulas that read it become #REF!."""
    book, sheet = access.sheet_for(db, actor, workbook_id, sheet_id, "edit")
    sheets = _sheets(db, book.id)
    if len(sheets) == 1:
        raise Conflict("A workbook needs at least one sheet.")
    name = sheet.name
    used_by = db.scalars(
        select(Pivot).where(
            (Pivot.source_sheet_id == sheet.id) | (Pivot.target_sheet_id == sheet.id)
        )
    )
    for p in used_by:
        db.delete(p)
    db.execute(delete(Cell).where(Cell.sheet_id == sheet.id))
    db.execute(delete(ColumnWidth).where(ColumnWidth.sheet_id == sheet.id))
    db.execute(delete(Comment).where(Comment.sheet_id == sheet.id))
    db.execute(delete(Chart).where(Chart.sheet_id == sheet.id))
    db.delete(sheet)
    db.flush()
    for i, s in enumerate(x for x in sheets if x.id != sheet.id):
        s.position = i
    act = _Act(db, book)
    act.cells.recompute_all()
    _record(db, actor, book, f"Deleted sheet “{name}”")


# -- cells -----------------------------------------------------------------------------------


def _editable_sheet(
    db: Session, actor: Employee, workbook_id: int, sheet_id: int
) -> tuple[Workbook, Sheet]:
    return access.sheet_for(db, actor, workbook_id, sheet_id, "edit")


def set_cells(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    top_left: object,
    rows: Sequence[Sequence[object]],
    summary: str | None = None,
) -> Edit | None:
    """Type `rows` (a block of inputs) starting at `top_left`; formats stay, values follow."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    r0, c0 = parse_cell(top_left)
    if not isinstance(rows, Sequence) or isinstance(rows, str) or not rows:
        raise ValidationError("Give the inputs as a list of rows.", "values")
    if any(not isinstance(r, Sequence) or isinstance(r, str) for r in rows):
        raise ValidationError("Each row of inputs must be a list.", "values")
    count = sum(len(r) for r in rows)
    if count > MAX_FILL_CELLS:
        raise ValidationError(f"Write at most {MAX_FILL_CELLS:,} cells at once.", "values")
    if r0 + len(rows) - 1 > MAX_ROWS or c0 + max(len(r) for r in rows) - 1 > MAX_COLS:
        raise ValidationError("That block runs past the edge of the sheet.", "values")
    act = _Act(db, book)
    width = max(len(r) for r in rows)
    act.cells.preload(sheet.id, refs.Range(r0, c0, r0 + len(rows) - 1, c0 + max(width, 1) - 1))
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            state = act.state(sheet.id, r0 + i, c0 + j)
            act.put(sheet.id, r0 + i, c0 + j, _with_raw(state, _raw(value)))
    where = refs.address(r0, c0)
    if count > 1:
        last = max(len(r) for r in rows)
        where = refs.Range(r0, c0, r0 + len(rows) - 1, c0 + last - 1).address
    return act.finish(actor, summary or f"Edited {where}")


def set_cell(
    db: Session, actor: Employee, workbook_id: int, sheet_id: int, address: object, raw: object
) -> Edit | None:
    return set_cells(db, actor, workbook_id, sheet_id, address, [[raw]])


def clear(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    rng_text: object,
    formats: bool = False,
) -> Edit | None:
    """Delete: empty the cells' contents (and their formats too with `formats`)."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    rng = parse_range(rng_text)
    act = _Act(db, book)
    for cell in _cells_in(db, sheet.id, rng):
        state = state_of(cell)
        act.put(sheet.id, cell.row, cell.col, BLANK if formats else _with_raw(state, ""))
    return act.finish(actor, f"Cleared {rng.address}")


def _cells_in(db: Session, sheet_id: int, rng: refs.Range) -> list[Cell]:
    return list(
        db.scalars(
            select(Cell)
            .where(
                Cell.sheet_id == sheet_id,
                Cell.row.between(rng.r1, rng.r2),
                Cell.col.between(rng.c1, rng.c2),
            )
            .order_by(Cell.row, Cell.col)
        )
    )


def set_format(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    rng_text: object,
    *,
    number_format: object = ...,
    bold: object = ...,
    italic: object = ...,
    fill: object = ...,
) -> Edit | None:
    """Format a range: number format (an Excel code from the menu, or None for automatic),
    bold, italic, fill colour (`#RRGGBB` or None). Arguments left out stay as they are."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    rng = parse_range(rng_text)
    last_row, last_col = _extent(db, sheet.id)
    if min(rng.rows, max(last_row, 1)) * min(rng.cols, max(last_col, 1)) > MAX_FILL_CELLS:
        raise ValidationError(f"Format at most {MAX_FILL_CELLS:,} cells at once.", "range")
    if (
        number_format is not ...
        and number_format not in (None, "")
        and not (isinstance(number_format, str) and number_format in _NUMBER_FORMATS)
    ):
        raise ValidationError("Choose a number format from the list.", "number_format")
    if (
        fill is not ...
        and fill not in (None, "")
        and not (isinstance(fill, str) and _COLOUR.fullmatch(fill))
    ):
        raise ValidationError("A fill colour looks like #FFF2CC.", "fill")
    for flag, label in ((bold, "bold"), (italic, "italic")):
        if flag is not ... and not isinstance(flag, bool):
            raise ValidationError(f"'{label}' must be true or false.", label)
    existing = {(c.row, c.col): c for c in _cells_in(db, sheet.id, rng)}
    last_row, last_col = _extent(db, sheet.id)
    # A whole column or row stops at the last used cell, as its formats would be invisible.
    r2 = min(rng.r2, max(last_row, rng.r1)) if rng.r2 >= MAX_ROWS else rng.r2
    c2 = min(rng.c2, max(last_col, rng.c1)) if rng.c2 >= MAX_COLS else rng.c2
    rows, cols = range(rng.r1, r2 + 1), range(rng.c1, c2 + 1)
    act = _Act(db, book)
    for r in rows:
        for c in cols:
            state = state_of(existing.get((r, c)))
            new = CellState(
                state.raw,
                state.number_format if number_format is ... else (number_format or None),
                state.bold if bold is ... else bool(bold),
                state.italic if italic is ... else bool(italic),
                state.fill if fill is ... else (str(fill).upper() if fill else None),
            )
            act.put(sheet.id, r, c, new)
    return act.finish(actor, f"Formatted {rng.address}")


def _extent(db: Session, sheet_id: int) -> tuple[int, int]:
    rows, cols = db.execute(
        select(func.max(Cell.row), func.max(Cell.col)).where(Cell.sheet_id == sheet_id)
    ).one()
    return rows or 0, cols or 0


def fill(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    rng_text: object,
    direction: object = "down",
) -> Edit | None:
    """Fill down (from the top row of the range) or right (from its left column), as Ctrl+D
    and Ctrl+R do: relative references shift with each cell, `$` references stay."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    rng = parse_range(rng_text)
    if direction not in ("down", "right"):
        raise ValidationError("Fill down or right.", "direction")
    if rng.rows * rng.cols > MAX_FILL_CELLS:
        raise ValidationError(f"Fill at most {MAX_FILL_CELLS:,} cells at once.", "range")
    act = _Act(db, book)
    act.cells.preload(sheet.id, rng)
    if direction == "down":
        if rng.rows < 2:
            raise ValidationError("Select the cell to copy and the cells below it.", "range")
        for c in range(rng.c1, rng.c2 + 1):
            source = act.state(sheet.id, rng.r1, c)
            for r in range(rng.r1 + 1, rng.r2 + 1):
                act.put(sheet.id, r, c, _shifted(source, r - rng.r1, 0))
    else:
        if rng.cols < 2:
            raise ValidationError("Select the cell to copy and the cells right of it.", "range")
        for r in range(rng.r1, rng.r2 + 1):
            source = act.state(sheet.id, r, rng.c1)
            for c in range(rng.c1 + 1, rng.c2 + 1):
                act.put(sheet.id, r, c, _shifted(source, 0, c - rng.c1))
    return act.finish(actor, f"Filled {direction} {rng.address}")


def _shifted(state: CellState, d_rows: int, d_cols: int) -> CellState:
    return _with_raw(state, refs.shift(state.raw, d_rows, d_cols))


def paste(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    source: object,
    target: object,
    source_sheet_id: int | None = None,
    cut: bool = False,
) -> Edit | None:
    """Paste a copied range (from this sheet or another of the workbook) at `target`,
    formats included; formulas shift by the distance moved, as a spreadsheet pastes."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    src_sheet = sheet
    if source_sheet_id is not None and source_sheet_id != sheet.id:
        _, src_sheet = access.sheet_for(db, actor, workbook_id, source_sheet_id, "edit")
    rng = parse_range(source, "source")
    r0, c0 = parse_cell(target, "target")
    if rng.rows * rng.cols > MAX_FILL_CELLS:
        raise ValidationError(f"Paste at most {MAX_FILL_CELLS:,} cells at once.", "source")
    if r0 + rng.rows - 1 > MAX_ROWS or c0 + rng.cols - 1 > MAX_COLS:
        raise ValidationError("That paste runs past the edge of the sheet.", "target")
    act = _Act(db, book)
    states = {
        (r, c): act.state(src_sheet.id, r, c)
        for r in range(rng.r1, rng.r2 + 1)
        for c in range(rng.c1, rng.c2 + 1)
    }
    if cut:
        for r, c in states:
            act.put(src_sheet.id, r, c, BLANK)
    dr, dc = r0 - rng.r1, c0 - rng.c1
    for (r, c), state in states.items():
        moved = state if cut else _shifted(state, dr, dc)
        act.put(sheet.id, r + dr, c + dc, moved)
    end = refs.Range(r0, c0, r0 + rng.rows - 1, c0 + rng.cols - 1)
    return act.finish(actor, f"{'Moved' if cut else 'Pasted'} {rng.address} to {end.address}")


# -- rows and columns ------------------------------------------------------------------------


def _shift_block(db: Session, sheet_id: int, axis: str, at: int, by: int) -> None:
    """Move every cell at or after `at` on `axis` by `by` (two passes, so the unique index
    on (sheet, row, col) never sees two cells in one place)."""
    column = Cell.row if axis == "row" else Cell.col
    db.execute(
        update(Cell)
        .where(Cell.sheet_id == sheet_id, column >= at)
        .values({column: -(column + by)})
        .execution_options(synchronize_session=False)
    )
    db.execute(
        update(Cell)
        .where(Cell.sheet_id == sheet_id, column < 0)
        .values({column: -column})
        .execution_options(synchronize_session=False)
    )
    other = Comment.row if axis == "row" else Comment.col
    db.execute(
        update(Comment).where(Comment.sheet_id == sheet_id, other >= at).values({other: other + by})
    )
    if axis == "col":
        db.execute(
            update(ColumnWidth)
            .where(ColumnWidth.sheet_id == sheet_id, ColumnWidth.col >= at)
            .values(col=-(ColumnWidth.col + by))
            .execution_options(synchronize_session=False)
        )
        db.execute(
            update(ColumnWidth)
            .where(ColumnWidth.sheet_id == sheet_id, ColumnWidth.col < 0)
            .values(col=-ColumnWidth.col)
            .execution_options(synchronize_session=False)
        )
    db.expire_all()


def _adjust_ranges(db: Session, book: Workbook, sheet: Sheet, rewrite) -> None:
    """Ranges kept beside cells (charts, filters, pivot sources) follow the move."""

    def moved(text: str | None, own: str) -> str | None:
        if not text:
            return text
        new = rewrite("=" + text, own)[1:]
        return None if refs.REF_ERROR in new else new

    for chart in db.scalars(select(Chart).where(Chart.sheet_id == sheet.id)):
        chart.source_range = moved(chart.source_range, sheet.name) or chart.source_range
    sheet.filter_range = moved(sheet.filter_range, sheet.name)
    if sheet.filter_range is None:
        sheet.filter_json = None
    for p in db.scalars(select(Pivot).where(Pivot.source_sheet_id == sheet.id)):
        p.source_range = moved(p.source_range, sheet.name) or p.source_range


def insert(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    axis: object,
    at: object,
    count: object = 1,
) -> Edit:
    """Insert `count` empty rows or columns before row/column `at`; references follow."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    axis, at, count = _axis_args(axis, at, count)
    last_row, last_col = _extent(db, sheet.id)
    if (axis == "row" and last_row + count > MAX_ROWS) or (
        axis == "col" and last_col + count > MAX_COLS
    ):
        raise ValidationError("There is no room left on the sheet for that many.", "count")
    return _insert(db, actor, book, sheet, axis, at, count)


def _insert(db, actor, book, sheet, axis, at, count, record=True) -> Edit | None:
    act = _Act(db, book)
    name = sheet.name
    rewritten = _formula_rewrites(
        act, lambda raw, own: refs.insert(raw, own, name, axis, at, count)
    )
    _shift_block(db, sheet.id, axis, at, count)
    _apply_rewrites(act, rewritten, sheet.id, axis, at, count)
    _adjust_ranges(db, book, sheet, lambda raw, own: refs.insert(raw, own, name, axis, at, count))
    act.cells.recompute_all()
    if not record:
        return None
    what = _axis_label(axis, at, count)
    before = [{"op": "delete", "sheet": sheet.id, "axis": axis, "at": at, "count": count}]
    before += _cells_op((k, old) for k, (old, _) in rewritten.items())
    after = [{"op": "insert", "sheet": sheet.id, "axis": axis, "at": at, "count": count}]
    return _record(db, actor, book, f"Inserted {what}", (), before, after)


def delete_lines(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    axis: object,
    at: object,
    count: object = 1,
) -> Edit:
    """Delete rows or columns `at`..`at+count-1`; references into them become #REF!."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    axis, at, count = _axis_args(axis, at, count)
    return _delete(db, actor, book, sheet, axis, at, count)


def _delete(db, actor, book, sheet, axis, at, count, record=True) -> Edit | None:
    act = _Act(db, book)
    name = sheet.name
    column = Cell.row if axis == "row" else Cell.col
    gone = [
        (c.row, c.col, state_of(c))
        for c in db.scalars(
            select(Cell).where(Cell.sheet_id == sheet.id, column.between(at, at + count - 1))
        )
    ]
    rewritten = _formula_rewrites(
        act, lambda raw, own: refs.delete(raw, own, name, axis, at, count)
    )
    db.execute(delete(Cell).where(Cell.sheet_id == sheet.id, column.between(at, at + count - 1)))
    other = Comment.row if axis == "row" else Comment.col
    db.execute(
        delete(Comment).where(Comment.sheet_id == sheet.id, other.between(at, at + count - 1))
    )
    if axis == "col":
        db.execute(
            delete(ColumnWidth).where(
                ColumnWidth.sheet_id == sheet.id, ColumnWidth.col.between(at, at + count - 1)
            )
        )
    _shift_block(db, sheet.id, axis, at + count, -count)
    _apply_rewrites(
        act, rewritten, sheet.id, axis, at + count, -count, deleted=(at, at + count - 1)
    )
    _adjust_ranges(db, book, sheet, lambda raw, own: refs.delete(raw, own, name, axis, at, count))
    act.cells.recompute_all()
    if not record:
        return None
    restore = [{"op": "insert", "sheet": sheet.id, "axis": axis, "at": at, "count": count}]
    restore += _cells_op(((sheet.id, r, c), s) for r, c, s in gone)
    restore += _cells_op(
        (k, old)
        for k, (old, _) in rewritten.items()
        if k[0] != sheet.id or not _in_block(k, axis, at, count)
    )
    after = [{"op": "delete", "sheet": sheet.id, "axis": axis, "at": at, "count": count}]
    return _record(db, actor, book, f"Deleted {_axis_label(axis, at, count)}", (), restore, after)


def _in_block(key, axis, at, count) -> bool:
    _, row, col = key
    n = row if axis == "row" else col
    return at <= n < at + count


def _formula_rewrites(
    act: _Act, rewrite
) -> dict[tuple[int, int, int], tuple[CellState, CellState]]:
    """Every formula of the workbook that `rewrite` changes, by its current key."""
    names = act.cells.sheet_names
    found = {}
    for cell in act.db.scalars(select(Cell).where(Cell.sheet_id.in_(names), Cell.raw.like("=%"))):
        new = rewrite(cell.raw, names[cell.sheet_id])
        if new != cell.raw:
            state = state_of(cell)
            found[cell.sheet_id, cell.row, cell.col] = (state, _with_raw(state, new))
    return found


def _apply_rewrites(act, rewritten, sheet_id, axis, at, by, deleted=None) -> None:
    for (s, row, col), (_, new) in rewritten.items():
        if s == sheet_id:
            n = row if axis == "row" else col
            if deleted and deleted[0] <= n <= deleted[1]:
                continue
            if n >= at:
                row, col = (row + by, col) if axis == "row" else (row, col + by)
        cell = act.cells.cell(s, row, col)
        if cell is not None:
            cell.raw = new.raw
    act.db.flush()


def _axis_args(axis: object, at: object, count: object) -> tuple[str, int, int]:
    if axis not in ("row", "col"):
        raise ValidationError("Choose rows or columns.", "axis")
    limit = MAX_ROWS if axis == "row" else MAX_COLS
    if axis == "col":
        at = _letters(at)
    if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at <= limit:
        raise ValidationError(
            f"Choose a {'row' if axis == 'row' else 'column'} on the sheet.", "at"
        )
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 1000:
        raise ValidationError("Insert or delete from 1 to 1,000 at a time.", "count")
    return axis, at, count  # type: ignore[return-value]


def _axis_label(axis: str, at: int, count: int) -> str:
    if axis == "row":
        return f"row {at}" if count == 1 else f"rows {at}–{at + count - 1}"
    first, last = refs.column_letters(at), refs.column_letters(at + count - 1)
    return f"column {first}" if count == 1 else f"columns {first}–{last}"


# -- sheet settings --------------------------------------------------------------------------


def set_width(
    db: Session, actor: Employee, workbook_id: int, sheet_id: int, col: object, width: object
) -> None:
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    _, col, _ = _axis_args("col", col, 1)
    if not isinstance(width, int) or isinstance(width, bool) or not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValidationError(f"A column is {MIN_WIDTH} to {MAX_WIDTH} pixels wide.", "width")
    found = db.scalars(
        select(ColumnWidth).where(ColumnWidth.sheet_id == sheet.id, ColumnWidth.col == col)
    ).first()
    if found is None:
        db.add(ColumnWidth(sheet_id=sheet.id, col=col, width=width))
    else:
        found.width = width
    db.flush()
    _record(db, actor, book, f"Resized column {refs.column_letters(col)} to {width}px")


def freeze(db: Session, actor: Employee, workbook_id: int, sheet_id: int, rows: object) -> Sheet:
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    if not isinstance(rows, int) or isinstance(rows, bool) or not 0 <= rows <= 10:
        raise ValidationError("Freeze from 0 to 10 rows.", "rows")
    if sheet.frozen_rows != rows:
        sheet.frozen_rows = rows
        label = "Unfroze rows" if rows == 0 else f"Froze {rows} row{'s' if rows > 1 else ''}"
        _record(db, actor, book, f"{label} on “{sheet.name}”")
    return sheet


def sort_range(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    rng_text: object,
    by: object,
    descending: bool = False,
    header: bool = True,
) -> Edit | None:
    """Sort the rows of a range by one column (A→Z or Z→A): numbers before text, blanks
    last, ties kept in order; formulas move with their rows and shift like a paste."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    rng = parse_range(rng_text)
    by = _letters(by)
    if not isinstance(by, int) or isinstance(by, bool) or not rng.c1 <= by <= rng.c2:
        raise ValidationError("Sort by a column inside the range.", "by")
    last_row, _ = _extent(db, sheet.id)
    first = rng.r1 + (1 if header else 0)
    last = min(rng.r2, last_row)
    if last <= first:
        return None
    cells = {
        (c.row, c.col): c for c in _cells_in(db, sheet.id, refs.Range(first, rng.c1, last, rng.c2))
    }

    def key(row: int):
        cell = cells.get((row, by))
        value = loaded(cell.value_type, cell.value_num, cell.value_text) if cell else None
        if value is None or value == "":
            return (2, 0, "")
        if isinstance(value, bool | float | int):
            return (0, float(value), "")
        return (1, 0, str(value).casefold())

    rows = list(range(first, last + 1))
    ordered = sorted(rows, key=key, reverse=False)
    if descending:
        filled = [r for r in ordered if key(r)[0] < 2]
        blanks = [r for r in ordered if key(r)[0] == 2]
        filled = sorted(filled, key=key, reverse=True)
        ordered = filled + blanks
    # Read every state before writing: a write updates the loaded cell objects in place.
    states = {(r, c): state_of(cells.get((r, c))) for r in rows for c in range(rng.c1, rng.c2 + 1)}
    act = _Act(db, book)
    for target, source in zip(rows, ordered, strict=True):
        for c in range(rng.c1, rng.c2 + 1):
            act.put(sheet.id, target, c, _shifted(states[source, c], target - source, 0))
    direction = "Z→A" if descending else "A→Z"
    return act.finish(
        actor, f"Sorted {rng.address} by column {refs.column_letters(by)} {direction}"
    )


def set_filter(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    rng_text: object,
    shown: Mapping[object, Iterable[object]] | None = None,
) -> Sheet:
    """Turn on a filter over a range (header row first) and choose, per column, which shown
    values stay visible; rows whose value is not chosen are hidden until the filter is off."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    rng = parse_range(rng_text)
    if rng.rows < 2:
        raise ValidationError("A filter needs a header row and at least one row below it.", "range")
    criteria: dict[str, list[str]] = {}
    for col, values in (shown or {}).items():
        if isinstance(col, str) and col.isascii() and col.isdigit():
            col = int(col)
        col = _letters(col)
        if not isinstance(col, int) or not rng.c1 <= col <= rng.c2:
            raise ValidationError("Filter on a column inside the range.", "column")
        if (
            isinstance(values, str)
            or not isinstance(values, Iterable)
            or not all(isinstance(v, str | int | float) for v in values)
        ):
            raise ValidationError("List the values to show.", "values")
        criteria[str(col)] = sorted({str(v) for v in values})
    sheet.filter_range = rng.address
    sheet.filter_json = json.dumps(criteria, sort_keys=True)
    db.flush()
    _record(db, actor, book, f"Filtered {rng.address} on “{sheet.name}”")
    return sheet


def clear_filter(db: Session, actor: Employee, workbook_id: int, sheet_id: int) -> Sheet:
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    if sheet.filter_range is not None:
        sheet.filter_range = None
        sheet.filter_json = None
        _record(db, actor, book, f"Turned off the filter on “{sheet.name}”")
    return sheet


def hidden_rows(db: Session, sheet: Sheet) -> set[int]:
    """The rows the sheet's filter hides."""
    if not sheet.filter_range or not sheet.filter_json:
        return set()
    rng = refs.parse_range(sheet.filter_range)
    criteria = {int(k): set(v) for k, v in json.loads(sheet.filter_json).items()}
    if not criteria:
        return set()
    shown_values: dict[tuple[int, int], str] = {}
    for cell in _cells_in(db, sheet.id, refs.Range(rng.r1 + 1, rng.c1, rng.r2, rng.c2)):
        shown_values[cell.row, cell.col] = display(
            loaded(cell.value_type, cell.value_num, cell.value_text), cell.number_format
        )
    last_row, _ = _extent(db, sheet.id)
    hidden = set()
    for row in range(rng.r1 + 1, min(rng.r2, last_row) + 1):
        for col, allowed in criteria.items():
            if shown_values.get((row, col), "") not in allowed:
                hidden.add(row)
                break
    return hidden


# -- find and replace ------------------------------------------------------------------------


def _matcher(find: object, match_case: bool, whole: bool):
    text = str(find or "")
    if not text:
        raise ValidationError("Enter something to find.", "find")
    pattern = re.escape(text)
    if whole:
        pattern = f"^{pattern}$"
    return re.compile(pattern, 0 if match_case else re.IGNORECASE)


def find(
    db: Session,
    actor: Employee,
    workbook_id: int,
    text: object,
    sheet_id: int | None = None,
    match_case: bool = False,
    whole: bool = False,
    in_formulas: bool = False,
) -> list[tuple[Sheet, Cell]]:
    """Cells whose shown value (or, with `in_formulas`, input) matches, sheet by sheet, row by row."""
    book = access.workbook_for(db, actor, workbook_id, "view")
    pattern = _matcher(text, match_case, whole)
    sheets = [s for s in _sheets(db, book.id) if sheet_id is None or s.id == sheet_id]
    found = []
    for sheet in sheets:
        for cell in db.scalars(
            select(Cell).where(Cell.sheet_id == sheet.id).order_by(Cell.row, Cell.col)
        ):
            shown = display(
                loaded(cell.value_type, cell.value_num, cell.value_text), cell.number_format
            )
            if pattern.search(shown) or (in_formulas and pattern.search(cell.raw)):
                found.append((sheet, cell))
    return found


def replace_all(
    db: Session,
    actor: Employee,
    workbook_id: int,
    text: object,
    replacement: object,
    sheet_id: int | None = None,
    match_case: bool = False,
    whole: bool = False,
    in_formulas: bool = False,
) -> int:
    """Replace every match in what was typed (formulas only with `in_formulas`); returns how
    many cells changed."""
    book = access.workbook_for(db, actor, workbook_id, "edit")
    pattern = _matcher(text, match_case, whole)
    new_text = _raw(replacement if replacement is not None else "")
    act = _Act(db, book)
    count = 0
    for sheet in _sheets(db, book.id):
        if sheet_id is not None and sheet.id != sheet_id:
            continue
        for cell in db.scalars(
            select(Cell).where(Cell.sheet_id == sheet.id).order_by(Cell.row, Cell.col)
        ):
            if cell.raw.startswith("=") and not in_formulas:
                continue
            new = pattern.sub(lambda _m: new_text, cell.raw)
            if new != cell.raw:
                act.put(sheet.id, cell.row, cell.col, _with_raw(state_of(cell), new))
                count += 1
    act.finish(
        actor, f"Replaced “{text}” with “{new_text}” in {count} cell{'s' if count != 1 else ''}"
    )
    return count


# -- comments --------------------------------------------------------------------------------


def add_comment(
    db: Session, actor: Employee, workbook_id: int, sheet_id: int, address: object, body: object
) -> Comment:
    """Anyone who can see the workbook may comment on a cell."""
    book, sheet = access.sheet_for(db, actor, workbook_id, sheet_id, "view")
    if book.trashed_at is not None:
        raise Conflict("This workbook is in the trash. Restore it to make changes.")
    row, col = parse_cell(address)
    text = str(body or "").strip()
    if not text:
        raise ValidationError("Write a comment.", "body")
    if len(text) > 2000 or "\x00" in text:
        raise ValidationError("A comment is at most 2,000 characters of text.", "body")
    comment = Comment(
        sheet_id=sheet.id, row=row, col=col, author_id=actor.id, body=text, created_at=stamp(db)
    )
    db.add(comment)
    db.flush()
    _record(db, actor, book, f"Commented on {refs.address(row, col)} in “{sheet.name}”")
    return comment


def delete_comment(db: Session, actor: Employee, workbook_id: int, comment_id: object) -> None:
    book = access.workbook_for(db, actor, workbook_id, "view")
    if book.trashed_at is not None:
        raise Conflict("This workbook is in the trash. Restore it to make changes.")
    comment = db.get(Comment, comment_id) if access.row_id(comment_id) else None
    sheet = db.get(Sheet, comment.sheet_id) if comment else None
    if comment is None or sheet is None or sheet.workbook_id != book.id:
        raise NotFound("That comment doesn't exist.")
    if comment.author_id != actor.id and book.owner_id != actor.id:
        raise Forbidden("Only the comment's author or the workbook's owner can delete it.")
    db.delete(comment)
    db.flush()
    _record(db, actor, book, f"Deleted a comment on {refs.address(comment.row, comment.col)}")


# -- undo and redo ---------------------------------------------------------------------------


def _apply_ops(db: Session, book: Workbook, ops: Sequence[Mapping[str, Any]]) -> None:
    for op in ops:
        sheet = db.get(Sheet, op["sheet"])
        if sheet is None or sheet.workbook_id != book.id:
            raise Conflict("That change can no longer be undone: its sheet was deleted.")
        if op["op"] == "cells":
            act = _Act(db, book)
            for row, col, state in op["cells"]:
                act.put(sheet.id, row, col, CellState.from_json(state))
            act.cells.recompute()
        elif op["op"] == "insert":
            _insert(db, None, book, sheet, op["axis"], op["at"], op["count"], record=False)
        elif op["op"] == "delete":
            _delete(db, None, book, sheet, op["axis"], op["at"], op["count"], record=False)


def undo(db: Session, actor: Employee, workbook_id: int) -> Edit:
    """Take back the actor's latest act in this workbook that can be undone."""
    book = access.workbook_for(db, actor, workbook_id, "edit")
    edit = db.scalars(
        select(Edit)
        .where(
            Edit.workbook_id == book.id,
            Edit.employee_id == actor.id,
            Edit.undone.is_(False),
            Edit.undo_json != "{}",
        )
        .order_by(Edit.id.desc())
    ).first()
    if edit is None:
        raise Conflict("There is nothing of yours to undo in this workbook.")
    _apply_ops(db, book, json.loads(edit.undo_json)["ops"])
    edit.undone = True
    book.updated_at = stamp(db)
    db.flush()
    return edit


def redo(db: Session, actor: Employee, workbook_id: int) -> Edit:
    """Do again the act the actor undid last, if they have made no new one since."""
    book = access.workbook_for(db, actor, workbook_id, "edit")
    mine = select(Edit).where(
        Edit.workbook_id == book.id, Edit.employee_id == actor.id, Edit.redo_json != "{}"
    )
    latest_done = db.scalars(mine.where(Edit.undone.is_(False)).order_by(Edit.id.desc())).first()
    edit = db.scalars(mine.where(Edit.undone.is_(True)).order_by(Edit.id.desc())).first()
    if edit is None or (latest_done is not None and latest_done.id > edit.id):
        raise Conflict("There is nothing to redo.")
    _apply_ops(db, book, json.loads(edit.redo_json)["ops"])
    edit.undone = False
    book.updated_at = stamp(db)
    db.flush()
    return edit


# -- pivot tables and charts -----------------------------------------------------------------


def _grid_values(db: Session, sheet_id: int, rng: refs.Range) -> list[list[Any]]:
    last_row, last_col = _extent(db, sheet_id)
    r2, c2 = min(rng.r2, last_row), min(rng.c2, last_col)
    grid = [[None] * (c2 - rng.c1 + 1) for _ in range(max(0, r2 - rng.r1 + 1))]
    for cell in _cells_in(
        db, sheet_id, refs.Range(rng.r1, rng.c1, max(r2, rng.r1), max(c2, rng.c1))
    ):
        if cell.row <= r2 and cell.col <= c2:
            value = loaded(cell.value_type, cell.value_num, cell.value_text)
            grid[cell.row - rng.r1][cell.col - rng.c1] = (
                None if isinstance(value, CellError) else value
            )
    return grid


def _pivot_grid(db: Session, p: Pivot) -> list[list[Any]]:
    grid = _grid_values(db, p.source_sheet_id, refs.parse_range(p.source_range))
    if len(grid) < 2:
        raise ValidationError(
            "The source range needs a header row and at least one row of data.", "range"
        )
    header = [
        "" if h is None else number_text(h) if isinstance(h, float) else str(h) for h in grid[0]
    ]
    values = [(v["field"], v["function"]) for v in json.loads(p.values_json)]
    try:
        return pivot.pivot(
            header,
            grid[1:],
            json.loads(p.rows_json),
            json.loads(p.columns_json),
            values,
            {k: set(v) for k, v in json.loads(p.filters_json).items()},
        )
    except pivot.PivotError as error:
        raise ValidationError(str(error), "values") from None


def _write_grid(db: Session, book: Workbook, sheet: Sheet, grid: list[list[Any]]) -> None:
    db.execute(delete(Cell).where(Cell.sheet_id == sheet.id))
    db.flush()
    cells = Book(db, book.id, _today(db))
    for i, row in enumerate(grid, start=1):
        for j, value in enumerate(row, start=1):
            if value is None or value == "":
                continue
            raw = (
                refs_number(float(value))
                if isinstance(value, int | float) and not isinstance(value, bool)
                else str(value)
            )
            if (
                isinstance(value, str)
                and value[:1] in "=+-@'"
                or (isinstance(value, str) and _looks_typed(value))
            ):
                raw = "'" + value
            cells.put(sheet.id, i, j, CellState(raw, None, i == 1, False, None))


def _looks_typed(text: str) -> bool:
    from .engine.values import parse_input

    return parse_input(text).kind != "text"


def create_pivot(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    source: object,
    rows: Sequence[str],
    columns: Sequence[str] = (),
    values: Sequence[Mapping[str, str]] = (),
    filters: Mapping[str, Iterable[object]] | None = None,
    name: object = None,
) -> Pivot:
    """A pivot table of a range, written to a new sheet (refreshable later)."""
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    rng = parse_range(source, "source")
    for label, group in (("rows", rows), ("columns", columns)):
        if isinstance(group, str) or not all(isinstance(x, str) for x in group):
            raise ValidationError(f"'{label}' must be a list of column names.", label)
    if not rows and not columns:
        raise ValidationError("Choose at least one field for rows or columns.", "rows")
    chosen = []
    for v in values or ():
        if not isinstance(v, Mapping) or not isinstance(v.get("field"), str):
            raise ValidationError("Each value needs a field and a function.", "values")
        function = str(v.get("function", "SUM")).upper()
        if function not in PIVOT_FUNCTIONS:
            raise ValidationError(f"Summarise by one of {', '.join(PIVOT_FUNCTIONS)}.", "values")
        chosen.append({"field": v["field"], "function": function})
    if not chosen:
        raise ValidationError("Choose at least one value to summarise.", "values")
    for values_shown in (filters or {}).values():
        if isinstance(values_shown, str | bytes) or not isinstance(values_shown, Iterable):
            raise ValidationError("A filter lists the values to show.", "filters")
        if not all(isinstance(x, str | int | float) for x in values_shown):
            raise ValidationError("A filter lists the values to show.", "filters")
    shown = {str(k): sorted({str(x) for x in v}) for k, v in (filters or {}).items()}
    title = _sheet_name(name) if name else _next_sheet_name(db, book.id, "Pivot Table ")
    _unique_sheet_name(db, book.id, title)
    target = Sheet(workbook_id=book.id, name=title, position=len(_sheets(db, book.id)))
    db.add(target)
    db.flush()
    p = Pivot(
        source_sheet_id=sheet.id,
        source_range=rng.address,
        target_sheet_id=target.id,
        rows_json=json.dumps(list(rows)),
        columns_json=json.dumps(list(columns)),
        values_json=json.dumps(chosen),
        filters_json=json.dumps(shown, sort_keys=True),
        refreshed_at=stamp(db),
    )
    db.add(p)
    db.flush()
    _write_grid(db, book, target, _pivot_grid(db, p))
    db.flush()
    Book(db, book.id, _today(db)).recompute_all()
    _record(db, actor, book, f"Made pivot table “{title}” from {sheet.name}!{rng.address}")
    return p


def refresh_pivot(db: Session, actor: Employee, workbook_id: int, pivot_id: object) -> Pivot:
    book = access.workbook_for(db, actor, workbook_id, "edit")
    p = db.get(Pivot, pivot_id) if access.row_id(pivot_id) else None
    target = db.get(Sheet, p.target_sheet_id) if p else None
    if p is None or target is None or target.workbook_id != book.id:
        raise NotFound("That pivot table doesn't exist.")
    _write_grid(db, book, target, _pivot_grid(db, p))
    p.refreshed_at = stamp(db)
    db.flush()
    Book(db, book.id, _today(db)).recompute_all()
    _record(db, actor, book, f"Refreshed pivot table “{target.name}”")
    return p


def add_chart(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    kind: object,
    source: object,
    title: object = "",
    anchor: object = None,
) -> Chart:
    book, sheet = _editable_sheet(db, actor, workbook_id, sheet_id)
    if kind not in CHART_KINDS:
        raise ValidationError("Choose a bar, line or pie chart.", "kind")
    rng = parse_range(source, "source")
    grid = _grid_values(db, sheet.id, rng)
    try:
        charts.series_from_range(grid)
    except charts.ChartError as error:
        raise ValidationError(str(error), "source") from None
    if anchor:
        r, c = parse_cell(anchor, "anchor")
    else:
        r, c = rng.r1, rng.c2 + 2
    text = " ".join(str(title or "").split())[:200] or f"Chart of {rng.address}"
    chart = Chart(
        sheet_id=sheet.id,
        kind=str(kind),
        title=text,
        source_range=rng.address,
        anchor=refs.address(r, c),
    )
    db.add(chart)
    db.flush()
    _record(db, actor, book, f"Added a {kind} chart “{text}” on “{sheet.name}”")
    return chart


def delete_chart(db: Session, actor: Employee, workbook_id: int, chart_id: object) -> None:
    book = access.workbook_for(db, actor, workbook_id, "edit")
    chart = db.get(Chart, chart_id) if access.row_id(chart_id) else None
    sheet = db.get(Sheet, chart.sheet_id) if chart else None
    if chart is None or sheet is None or sheet.workbook_id != book.id:
        raise NotFound("That chart doesn't exist.")
    db.delete(chart)
    db.flush()
    _record(db, actor, book, f"Deleted chart “{chart.title}”")


# -- import and export -----------------------------------------------------------------------


def book_data(db: Session, actor: Employee, workbook_id: int) -> BookData:
    """The workbook as the neutral model the file writers take (viewers may export)."""
    book = access.workbook_for(db, actor, workbook_id, "view")
    sheets = []
    for sheet in _sheets(db, book.id):
        cells = tuple(
            CellData(
                c.row, c.col, _file_raw(c), c.number_format, bool(c.bold), bool(c.italic), c.fill
            )
            for c in db.scalars(
                select(Cell).where(Cell.sheet_id == sheet.id).order_by(Cell.row, Cell.col)
            )
        )
        widths = {
            w.col: w.width
            for w in db.scalars(select(ColumnWidth).where(ColumnWidth.sheet_id == sheet.id))
        }
        sheets.append(SheetData(sheet.name, cells, widths, sheet.frozen_rows))
    return BookData(tuple(sheets))


def _file_raw(cell: Cell) -> str:
    """A cell's input as files carry it (see `book`): as typed, except a number typed with its
    formatting (`$4,200`, `12.5%`, `3/1/2025`), which becomes the plain number, its format
    being kept beside it."""
    from .engine.values import parse_input

    if cell.value_type != "number" or cell.value_num is None or cell.raw.startswith("="):
        return cell.raw
    implied = parse_input(cell.raw).implied_format
    if implied is None or implied == "yyyy-mm-dd":
        return cell.raw
    return number_text(cell.value_num)


def import_book(db: Session, actor: Employee, data: BookData, name: object) -> Workbook:
    """A new workbook owned by the actor from an imported file's contents."""
    if not data.sheets:
        raise ValidationError("The file has no sheets.", "file")
    now = stamp(db)
    book = Workbook(
        name=_name(name, "workbook name"), owner_id=actor.id, created_at=now, updated_at=now
    )
    db.add(book)
    db.flush()
    seen: set[str] = set()
    for position, sheet_data in enumerate(data.sheets):
        try:
            title = _sheet_name(sheet_data.name)
        except ValidationError:
            title = f"Sheet{position + 1}"
        if title.casefold() in seen:
            title = f"{title} ({position + 1})"
        seen.add(title.casefold())
        sheet = Sheet(
            workbook_id=book.id,
            name=title,
            position=position,
            frozen_rows=min(10, max(0, sheet_data.frozen_rows)),
        )
        db.add(sheet)
        db.flush()
        _load_cells(db, book, sheet, sheet_data)
    db.flush()
    Book(db, book.id, _today(db)).recompute_all()
    _record(db, actor, book, f"Imported “{book.name}”")
    return book


def _load_cells(db: Session, book: Workbook, sheet: Sheet, data: SheetData) -> None:
    from .engine.values import parse_input

    for c in data.cells:
        if not (1 <= c.row <= MAX_ROWS and 1 <= c.col <= MAX_COLS):
            raise ValidationError(
                f"Sheet “{data.name}” runs past {MAX_ROWS:,} rows or {MAX_COLS} columns.", "file"
            )
        raw = _raw(c.raw)
        parsed = parse_input(raw)
        value = None if parsed.kind == "formula" else parsed.value
        kind, num, text = _stored(value)
        number_format = (
            c.number_format
            if c.number_format in _NUMBER_FORMATS
            else (c.number_format or parsed.implied_format)
        )
        db.add(
            Cell(
                sheet_id=sheet.id, row=c.row, col=c.col, raw=raw, value_type=kind, value_num=num,
                value_text=text, number_format=(number_format or None) and str(number_format)[:40],
                bold=c.bold, italic=c.italic, fill=c.fill if c.fill and _COLOUR.fullmatch(c.fill) else None,
            )
        )  # fmt: skip
    for col, width in sorted(data.column_widths.items()):
        if 1 <= col <= MAX_COLS:
            db.add(
                ColumnWidth(
                    sheet_id=sheet.id, col=col, width=max(MIN_WIDTH, min(MAX_WIDTH, int(width)))
                )
            )


def _stored(value):
    from .cells import stored

    return stored(value)


def import_csv_sheet(db: Session, actor: Employee, workbook_id: int, data: SheetData) -> Sheet:
    """A CSV file as a new sheet of an existing workbook."""
    book = access.workbook_for(db, actor, workbook_id, "edit")
    title = data.name
    try:
        title = _sheet_name(title)
    except ValidationError:
        title = _next_sheet_name(db, book.id, "Sheet")
    if any(s.name.casefold() == title.casefold() for s in _sheets(db, book.id)):
        title = _next_sheet_name(db, book.id, f"{title} ")
    sheet = Sheet(workbook_id=book.id, name=title, position=len(_sheets(db, book.id)))
    db.add(sheet)
    db.flush()
    _load_cells(db, book, sheet, data)
    db.flush()
    Book(db, book.id, _today(db)).recompute_all()
    _record(db, actor, book, f"Imported sheet “{title}”")
    return sheet


def file_error(error: FileError) -> ValidationError:
    return ValidationError(str(error), "file")


@dataclass(frozen=True)
class ShownNumber:
    """A negative number as shown (`-5`, `-$1,200`): the CSV writer quotes text that starts
    with a minus sign, as a spreadsheet might run it as a formula, but a number is safe."""

    text: str

    def __str__(self) -> str:
        return self.text


_NEGATIVE_SHOWN = re.compile(r"-\$?[0-9][0-9,]*(?:\.[0-9]+)?%?")


def shown_rows(
    db: Session, actor: Employee, workbook_id: int, sheet_id: int
) -> list[list[str | ShownNumber]]:
    """A sheet's shown values, row by row (for CSV export)."""
    _, sheet = access.sheet_for(db, actor, workbook_id, sheet_id, "view")
    last_row, last_col = _extent(db, sheet.id)
    grid: list[list[str | ShownNumber]] = [[""] * last_col for _ in range(last_row)]
    for c in db.scalars(select(Cell).where(Cell.sheet_id == sheet.id)):
        shown = display(loaded(c.value_type, c.value_num, c.value_text), c.number_format)
        if c.value_type == "number" and _NEGATIVE_SHOWN.fullmatch(shown):
            grid[c.row - 1][c.col - 1] = ShownNumber(shown)
        else:
            grid[c.row - 1][c.col - 1] = shown
    return grid


def touch(book: Workbook, at: datetime) -> None:
    book.updated_at = at


__all__ = [
    "add_chart",
    "add_comment",
    "add_sheet",
    "book_data",
    "clear",
    "clear_filter",
    "copy_workbook",
    "create_pivot",
    "create_workbook",
    "delete_chart",
    "delete_comment",
    "delete_lines",
    "delete_sheet",
    "fill",
    "find",
    "freeze",
    "hidden_rows",
    "import_book",
    "import_csv_sheet",
    "insert",
    "move_sheet",
    "parse_cell",
    "parse_range",
    "paste",
    "redo",
    "refresh_pivot",
    "rename_sheet",
    "rename_workbook",
    "replace_all",
    "restore_workbook",
    "set_cell",
    "set_cells",
    "set_filter",
    "set_format",
    "set_width",
    "share",
    "shown_rows",
    "sort_range",
    "trash_workbook",
    "undo",
    "unshare",
]
