"""Sheets: workbooks of named sheets whose cells keep both what was typed and what it is worth,
with the state a spreadsheet keeps beside its cells (formats, widths, comments, charts, pivot
tables) and the history of every edit, which server-side undo and redo replay."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base

VALUE_TYPES = ("number", "text", "bool", "error", "empty")
PERMISSIONS = ("view", "edit")
CHART_KINDS = ("bar", "line", "pie")
PIVOT_FUNCTIONS = ("SUM", "COUNT", "AVERAGE", "MIN", "MAX")


class Workbook(Base):
    """A workbook; `trashed_at` is set while it is in the trash (restorable)."""

    __tablename__ = "sheets_workbook"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    owner_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    updated_at: Mapped[datetime] = mapped_column()
    trashed_at: Mapped[datetime | None] = mapped_column(default=None)


class Sheet(Base):
    """One tab. `frozen_rows` rows stay on screen while scrolling; `filter_range` (`A1:F40`,
    header row first) and `filter_json` (column number → the shown values) hide the rows a
    filter leaves out."""

    __tablename__ = "sheets_sheet"
    __table_args__ = (UniqueConstraint("workbook_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"))
    name: Mapped[str] = mapped_column(String(100))
    position: Mapped[int] = mapped_column()
    frozen_rows: Mapped[int] = mapped_column(default=0)
    filter_range: Mapped[str | None] = mapped_column(String(40), default=None)
    filter_json: Mapped[str | None] = mapped_column(Text, default=None)


class ColumnWidth(Base):
    """A column whose width differs from the default (in pixels)."""

    __tablename__ = "sheets_column"
    __table_args__ = (UniqueConstraint("sheet_id", "col"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"))
    col: Mapped[int] = mapped_column()
    width: Mapped[int] = mapped_column()


class Cell(Base):
    """One cell with content or a format. `row` and `col` are 1-based (A1 is row 1, col 1).

    `raw` is the input as typed (`=SUM(D2:D9)`, `48500`, `Acme`, or empty for a cell that only
    carries a format); the evaluated value is in `value_num` (numbers, dates as serial numbers
    and booleans as 0/1) or `value_text` (text, and error codes like `#DIV/0!`) according to
    `value_type`. `number_format` is an Excel format code (`$#,##0.00`, `0.0%`, `yyyy-mm-dd`).
    """

    __tablename__ = "sheets_cell"
    __table_args__ = (
        UniqueConstraint("sheet_id", "row", "col"),
        # The formulas of a sheet, which every recomputation reads, without a scan of its cells.
        Index("ix_sheets_cell_formula", "sheet_id", sqlite_where=text("raw LIKE '=%'")),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"))
    row: Mapped[int] = mapped_column()
    col: Mapped[int] = mapped_column()
    raw: Mapped[str] = mapped_column(Text)
    value_type: Mapped[str] = mapped_column(String(8))
    value_num: Mapped[float | None] = mapped_column()
    value_text: Mapped[str | None] = mapped_column(Text)
    number_format: Mapped[str | None] = mapped_column(String(40))
    bold: Mapped[bool] = mapped_column(default=False)
    italic: Mapped[bool] = mapped_column(default=False)
    fill: Mapped[str | None] = mapped_column(String(7), default=None)


class Share(Base):
    """Access to a workbook for someone other than its owner: `permission` is view or edit."""

    __tablename__ = "sheets_share"
    __table_args__ = (UniqueConstraint("workbook_id", "employee_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"))
    employee_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    permission: Mapped[str] = mapped_column(String(8))


class Comment(Base):
    """A note on one cell, by someone who can view the workbook."""

    __tablename__ = "sheets_comment"

    id: Mapped[int] = mapped_column(primary_key=True)
    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"), index=True)
    row: Mapped[int] = mapped_column()
    col: Mapped[int] = mapped_column()
    author_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column()


class Chart(Base):
    """A bar, line or pie chart of `source_range` on its sheet (first column labels, the other
    columns series, first row their names), drawn at `anchor` (`H2`)."""

    __tablename__ = "sheets_chart"

    id: Mapped[int] = mapped_column(primary_key=True)
    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    title: Mapped[str] = mapped_column(String(200))
    source_range: Mapped[str] = mapped_column(String(40))
    anchor: Mapped[str] = mapped_column(String(12))


class Pivot(Base):
    """A pivot table of `source_range` on `source_sheet_id`, written to `target_sheet_id`.

    `rows_json` and `columns_json` are lists of header names; `values_json` a list of
    `{"field": ..., "function": "SUM"}`; `filters_json` maps a header to its shown values.
    """

    __tablename__ = "sheets_pivot"

    id: Mapped[int] = mapped_column(primary_key=True)
    source_sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"), index=True)
    source_range: Mapped[str] = mapped_column(String(40))
    target_sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"), index=True)
    rows_json: Mapped[str] = mapped_column(Text)
    columns_json: Mapped[str] = mapped_column(Text)
    values_json: Mapped[str] = mapped_column(Text)
    filters_json: Mapped[str] = mapped_column(Text)
    refreshed_at: Mapped[datetime] = mapped_column()


class Edit(Base):
    """One act on a workbook, in its change history: who, when (world time), what
    (`summary`, `cells_json` listing `[sheet, address, old raw, new raw]`), and the state before
    and after (`undo_json`, `redo_json`) that server-side undo and redo restore.
    `undone` is set while the act is undone."""

    __tablename__ = "sheets_edit"

    id: Mapped[int] = mapped_column(primary_key=True)
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"), index=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    at: Mapped[datetime] = mapped_column()
    summary: Mapped[str] = mapped_column(String(200))
    cells_json: Mapped[str] = mapped_column(Text)
    undo_json: Mapped[str] = mapped_column(Text)
    redo_json: Mapped[str] = mapped_column(Text)
    undone: Mapped[bool] = mapped_column(default=False)
