"""Sheets: workbooks of named sheets whose cells keep both what was typed and what it is worth."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base

VALUE_TYPES = ("number", "text", "bool", "error", "empty")


class Workbook(Base):
    __tablename__ = "sheets_workbook"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    owner_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    updated_at: Mapped[datetime] = mapped_column()


class Sheet(Base):
    __tablename__ = "sheets_sheet"
    __table_args__ = (UniqueConstraint("workbook_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"))
    name: Mapped[str] = mapped_column(String(100))
    position: Mapped[int] = mapped_column()


class Cell(Base):
    """One non-empty cell. `row` and `col` are 1-based (A1 is row 1, col 1).

    `raw` is the input as typed (`=SUM(D2:D9)`, `48500`, `Acme`); the evaluated value is in
    `value_num` (numbers and booleans as 0/1) or `value_text` according to `value_type`.
    """

    __tablename__ = "sheets_cell"
    __table_args__ = (UniqueConstraint("sheet_id", "row", "col"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    sheet_id: Mapped[int] = mapped_column(ForeignKey("sheets_sheet.id"))
    row: Mapped[int] = mapped_column()
    col: Mapped[int] = mapped_column()
    raw: Mapped[str] = mapped_column(Text)
    value_type: Mapped[str] = mapped_column(String(8))
    value_num: Mapped[float | None] = mapped_column()
    value_text: Mapped[str | None] = mapped_column(Text)
    number_format: Mapped[str | None] = mapped_column(String(40))


class Share(Base):
    """Access to a workbook for someone other than its owner: `permission` is view or edit."""

    __tablename__ = "sheets_share"
    __table_args__ = (UniqueConstraint("workbook_id", "employee_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    workbook_id: Mapped[int] = mapped_column(ForeignKey("sheets_workbook.id"))
    employee_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    permission: Mapped[str] = mapped_column(String(8))
