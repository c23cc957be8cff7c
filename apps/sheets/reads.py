"""What sheets' pages and API show: workbook lists, a window of a sheet's grid, history.

Reads never write. A sheet is shown as a window of rows (the rows around the one asked for),
as spreadsheet apps render only what is on screen: each cell carries its address and shown
value, so `B12 = $4,200` is what an agent reads in the accessibility tree.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.sheets import (
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

from . import access, charts
from .cells import loaded
from .engine import refs
from .engine.numfmt import display
from .engine.values import CellError

Tab = Literal["all", "mine", "shared", "recent", "trash"]
TABS: tuple[tuple[Tab, str], ...] = (
    ("all", "All"),
    ("mine", "Owned by me"),
    ("shared", "Shared with me"),
    ("recent", "Recent"),
    ("trash", "Trash"),
)
WINDOW = 30
MIN_COLS = 8
DEFAULT_WIDTH = 100
HOME_LIMIT = 50


@dataclass(frozen=True)
class WorkbookItem:
    id: int
    name: str
    owner: str
    owner_id: int
    role: str
    updated_at: datetime
    trashed: bool


@dataclass(frozen=True)
class CellView:
    row: int
    col: int
    address: str
    raw: str
    shown: str
    kind: str
    number_format: str | None
    bold: bool
    italic: bool
    fill: str | None
    error_detail: str = ""

    @property
    def label(self) -> str:
        """The accessible name: `B12 = $4,200`, or just `B12` when empty."""
        return f"{self.address} = {self.shown}" if self.shown != "" else self.address

    @property
    def align(self) -> str:
        return "right" if self.kind in ("number", "bool") else "left"

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "row": self.row,
            "col": self.col,
            "raw": self.raw,
            "value": self.value,
            "type": self.kind,
            "shown": self.shown,
            "number_format": self.number_format,
            "bold": self.bold,
            "italic": self.italic,
            "fill": self.fill,
        }

    value: Any = None


@dataclass(frozen=True)
class ChartView:
    id: int
    kind: str
    title: str
    source_range: str
    anchor: str
    svg: str


@dataclass(frozen=True)
class CommentView:
    id: int
    address: str
    author: str
    author_id: int
    body: str
    created_at: datetime


@dataclass(frozen=True)
class SheetTab:
    id: int
    name: str
    position: int


@dataclass
class GridView:
    """One window of a sheet, with everything the page around the grid shows."""

    book: Workbook
    sheet: Sheet
    role: str
    tabs: list[SheetTab]
    last_row: int
    last_col: int
    rows: list[int]
    cols: list[int]
    cells: dict[tuple[int, int], CellView]
    widths: dict[int, int]
    hidden: set[int]
    charts: list[ChartView]
    comments: dict[str, list[CommentView]]
    pivots: list[Pivot] = field(default_factory=list)
    pivot_of_sheet: Pivot | None = None

    @property
    def can_edit(self) -> bool:
        return self.role in ("owner", "edit") and self.book.trashed_at is None

    @property
    def row_count(self) -> int:
        return max(self.last_row, self.rows[-1] if self.rows else 0)


def _item(book: Workbook, owner: Employee, role: str) -> WorkbookItem:
    return WorkbookItem(
        book.id,
        book.name,
        owner.display_name,
        owner.id,
        role,
        book.updated_at,
        book.trashed_at is not None,
    )


def workbooks(db: Session, actor: Employee, tab: str = "all", q: str = "") -> list[WorkbookItem]:
    """The workbooks on one tab of the home page, newest first, optionally searched by name."""
    shared_ids = select(Share.workbook_id).where(Share.employee_id == actor.id)
    query = select(Workbook, Employee).join(Employee, Employee.id == Workbook.owner_id)
    if tab == "trash":
        query = query.where(Workbook.owner_id == actor.id, Workbook.trashed_at.is_not(None))
    else:
        query = query.where(Workbook.trashed_at.is_(None))
        if tab == "mine":
            query = query.where(Workbook.owner_id == actor.id)
        elif tab == "shared":
            query = query.where(Workbook.id.in_(shared_ids))
        else:
            query = query.where(or_(Workbook.owner_id == actor.id, Workbook.id.in_(shared_ids)))
    words = " ".join(str(q or "").split())[:100].split()
    for word in words[:6]:
        escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(Workbook.name.like(f"%{escaped}%", escape="\\"))
    if tab == "recent":
        mine = (
            select(Edit.workbook_id, func.max(Edit.at).label("at"))
            .where(Edit.employee_id == actor.id)
            .group_by(Edit.workbook_id)
            .subquery()
        )
        query = query.join(mine, mine.c.workbook_id == Workbook.id).order_by(
            mine.c.at.desc(), Workbook.id
        )
    else:
        query = query.order_by(Workbook.updated_at.desc(), Workbook.id)
    rows = db.execute(query.limit(HOME_LIMIT)).all()
    permissions = dict(
        db.execute(
            select(Share.workbook_id, Share.permission).where(
                Share.employee_id == actor.id, Share.workbook_id.in_([b.id for b, _ in rows])
            )
        ).all()
    )
    return [
        _item(
            book, owner, "owner" if book.owner_id == actor.id else permissions.get(book.id, "view")
        )
        for book, owner in rows
    ]


def sheets_of(db: Session, workbook_id: int) -> list[Sheet]:
    return list(
        db.scalars(
            select(Sheet).where(Sheet.workbook_id == workbook_id).order_by(Sheet.position, Sheet.id)
        )
    )


def extent(db: Session, sheet_id: int) -> tuple[int, int]:
    rows, cols = db.execute(
        select(func.max(Cell.row), func.max(Cell.col)).where(Cell.sheet_id == sheet_id)
    ).one()
    return rows or 0, cols or 0


def cell_view(cell: Cell) -> CellView:
    value = loaded(cell.value_type, cell.value_num, cell.value_text)
    detail = value.detail if isinstance(value, CellError) else ""
    return CellView(
        cell.row,
        cell.col,
        refs.address(cell.row, cell.col),
        cell.raw,
        display(value, cell.number_format),
        cell.value_type,
        cell.number_format,
        bool(cell.bold),
        bool(cell.italic),
        cell.fill,
        detail,
        value.code if isinstance(value, CellError) else value,
    )


def cells_in(db: Session, sheet_id: int, rng: refs.Range) -> list[CellView]:
    return [
        cell_view(c)
        for c in db.scalars(
            select(Cell)
            .where(
                Cell.sheet_id == sheet_id,
                Cell.row.between(rng.r1, rng.r2),
                Cell.col.between(rng.c1, rng.c2),
            )
            .order_by(Cell.row, Cell.col)
        )
    ]


def window_rows(start: int, count: int, hidden: set[int], frozen: int) -> list[int]:
    """`count` visible row numbers from `start`, after the frozen rows (always shown)."""
    rows = [r for r in range(1, frozen + 1)]
    r = max(start, frozen + 1)
    while len(rows) < count + frozen and r <= 100_000:
        if r not in hidden:
            rows.append(r)
        r += 1
    return rows


def grid(
    db: Session,
    actor: Employee,
    workbook_id: int,
    sheet_id: int,
    start: int = 1,
    count: int = WINDOW,
    min_cols: int = 0,
) -> GridView:
    from .service import hidden_rows

    book, sheet = access.sheet_for(db, actor, workbook_id, sheet_id, "view")
    role = access.role_of(db, actor, book) or "view"
    last_row, last_col = extent(db, sheet.id)
    hidden = hidden_rows(db, sheet)
    start = max(1, min(start, 100_000))
    rows = window_rows(start, count, hidden, sheet.frozen_rows)
    ncols = max(MIN_COLS, last_col + 1, min_cols)
    cols = list(range(1, min(ncols, 200) + 1))
    cells: dict[tuple[int, int], CellView] = {}
    if rows:
        wanted = set(rows)
        for view in cells_in(db, sheet.id, refs.Range(min(rows), 1, max(rows), cols[-1])):
            if view.row in wanted:
                cells[view.row, view.col] = view
    widths = {
        w.col: w.width
        for w in db.scalars(select(ColumnWidth).where(ColumnWidth.sheet_id == sheet.id))
    }
    comments: dict[str, list[CommentView]] = {}
    for comment, author in db.execute(
        select(Comment, Employee)
        .join(Employee, Employee.id == Comment.author_id)
        .where(Comment.sheet_id == sheet.id)
        .order_by(Comment.id)
    ):
        address = refs.address(comment.row, comment.col)
        comments.setdefault(address, []).append(
            CommentView(
                comment.id,
                address,
                author.display_name,
                author.id,
                comment.body,
                comment.created_at,
            )
        )
    pivots = list(db.scalars(select(Pivot).where(Pivot.source_sheet_id == sheet.id)))
    own_pivot = db.scalars(select(Pivot).where(Pivot.target_sheet_id == sheet.id)).first()
    return GridView(
        book,
        sheet,
        role,
        [SheetTab(s.id, s.name, s.position) for s in sheets_of(db, book.id)],
        last_row,
        last_col,
        rows,
        cols,
        cells,
        widths,
        hidden,
        chart_views(db, sheet),
        comments,
        pivots,
        own_pivot,
    )


def chart_views(db: Session, sheet: Sheet) -> list[ChartView]:
    views = []
    for chart in db.scalars(select(Chart).where(Chart.sheet_id == sheet.id).order_by(Chart.id)):
        views.append(
            ChartView(
                chart.id,
                chart.kind,
                chart.title,
                chart.source_range,
                chart.anchor,
                chart_svg(db, sheet, chart),
            )
        )
    return views


def chart_svg(db: Session, sheet: Sheet, chart: Chart) -> str:
    """The chart drawn from its range's current values."""
    rng = refs.parse_range(chart.source_range)
    grid_values: list[list[Any]] = [[None] * rng.cols for _ in range(rng.rows)]
    for view in cells_in(db, sheet.id, rng):
        value = view.value
        grid_values[view.row - rng.r1][view.col - rng.c1] = (
            view.shown if isinstance(value, str) or value is None else value
        )
    try:
        labels, series = charts.series_from_range(grid_values)
    except charts.ChartError:
        labels, series = [], []
    return charts.chart_svg(chart.kind, chart.title, labels, series)


@dataclass(frozen=True)
class EditView:
    id: int
    who: str
    employee_id: int
    at: datetime
    summary: str
    cells: list[tuple[str, str, str, str]]
    undone: bool


def history(
    db: Session, actor: Employee, workbook_id: int, limit: int = 100, before: int | None = None
) -> list[EditView]:
    """The workbook's change history, newest first."""
    book = access.workbook_for(db, actor, workbook_id, "view")
    query = (
        select(Edit, Employee)
        .join(Employee, Employee.id == Edit.employee_id)
        .where(Edit.workbook_id == book.id)
        .order_by(Edit.id.desc())
        .limit(limit)
    )
    if before is not None:
        query = query.where(Edit.id < max(0, min(before, 2**63 - 1)))
    return [
        EditView(
            e.id,
            who.display_name,
            who.id,
            e.at,
            e.summary,
            [tuple(c) for c in json.loads(e.cells_json)],
            bool(e.undone),
        )
        for e, who in db.execute(query)
    ]


@dataclass(frozen=True)
class ShareView:
    employee_id: int
    name: str
    title: str
    permission: str


def shares(
    db: Session, actor: Employee, workbook_id: int
) -> tuple[Workbook, Employee, list[ShareView]]:
    book = access.workbook_for(db, actor, workbook_id, "view")
    owner = db.get(Employee, book.owner_id)
    found = db.execute(
        select(Share, Employee)
        .join(Employee, Employee.id == Share.employee_id)
        .where(Share.workbook_id == book.id)
        .order_by(Employee.display_name, Employee.id)
    )
    return (
        book,
        owner,
        [ShareView(e.id, e.display_name, e.title or "", s.permission) for s, e in found],
    )


def people(db: Session, q: str, limit: int = 8) -> list[dict[str, Any]]:
    """Active people whose name or email holds every typed word (for the share box)."""
    words = " ".join(str(q or "").split())[:100].split()[:6]
    if not words:
        return []
    query = select(Employee).where(Employee.is_active.is_(True))
    for word in words:
        escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(
            or_(
                Employee.display_name.like(f"%{escaped}%", escape="\\"),
                Employee.email.like(f"%{escaped}%", escape="\\"),
            )
        )
    found = db.scalars(query.order_by(Employee.display_name, Employee.id).limit(limit))
    return [{"id": e.id, "label": e.display_name, "detail": e.title or e.email} for e in found]


def find_person(db: Session, text: str) -> list[Employee]:
    """Active people whose name is exactly `text` (case ignored)."""
    name = " ".join(str(text or "").split())
    if not name:
        return []
    return list(
        db.scalars(
            select(Employee).where(
                Employee.is_active.is_(True), func.lower(Employee.display_name) == name.lower()
            )
        )
    )


def header_row(db: Session, sheet_id: int, rng: refs.Range) -> list[str]:
    """The shown values of a range's first row (the field names a pivot offers)."""
    views = {
        v.col: v.shown for v in cells_in(db, sheet_id, refs.Range(rng.r1, rng.c1, rng.r1, rng.c2))
    }
    return [views.get(c, "") for c in range(rng.c1, rng.c2 + 1)]


def used_range(db: Session, sheet_id: int) -> refs.Range | None:
    last_row, last_col = extent(db, sheet_id)
    if not last_row:
        return None
    return refs.Range(1, 1, last_row, last_col)


def sheet_names(sheets: Sequence[Sheet]) -> list[str]:
    return [s.name for s in sheets]


__all__ = [
    "TABS",
    "WINDOW",
    "CellView",
    "GridView",
    "WorkbookItem",
    "cells_in",
    "grid",
    "history",
    "people",
    "shares",
    "workbooks",
]


def edge(db: Session, sheet_id: int, row: int, col: int, direction: str) -> tuple[int, int]:
    """Where Ctrl+arrow lands, as in a spreadsheet: from a filled cell with a filled
    neighbour, the last filled cell of that run; else the next filled cell; else the edge
    of the used area (row 1 or column A going up or left)."""
    vertical = direction in ("up", "down")
    step = 1 if direction in ("down", "right") else -1
    line = Cell.col == col if vertical else Cell.row == row
    position = Cell.row if vertical else Cell.col
    filled = sorted(
        n
        for (n,) in db.execute(
            select(position).where(Cell.sheet_id == sheet_id, line, Cell.value_type != "empty")
        )
    )
    here = row if vertical else col
    taken = set(filled)
    if here in taken and here + step in taken:
        n = here
        while n + step in taken:
            n += step
        target = n
    else:
        ahead = [n for n in filled if (n - here) * step > 0]
        if ahead:
            target = ahead[0] if step > 0 else ahead[-1]
        else:
            last_row, last_col = extent(db, sheet_id)
            target = max(1, (last_row if vertical else last_col)) if step > 0 else 1
            target = max(target, here) if step > 0 else target
    return (target, col) if vertical else (row, target)
