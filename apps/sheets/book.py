"""A workbook as files carry it: sheets of typed cells with their formats, independent of the
database, so xlsx and CSV import and export read and write one neutral shape.

A cell's `raw` is what was typed, exactly as the Sheets app stores it: a formula (`=SUM(A1:A3)`),
a number (`4200`, `0.5`), an ISO date (`2024-03-01`), `TRUE`/`FALSE`, text (`Acme`), or text
that would otherwise read as one of those, kept as text by a leading apostrophe (`'0042`).

The limits bound what one upload may cost: a file over them is refused with a `FileError` whose
message says what is too big and by how much.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

MAX_BYTES = 10 * 1024 * 1024
MAX_CELLS = 200_000
MAX_SHEETS = 50


class FileError(ValueError):
    """A file that cannot be imported (or a book that cannot be exported), with a message that
    says why and what to do about it."""


@dataclass(frozen=True)
class CellData:
    """One cell with content or a format; `row` and `col` are 1-based (A1 is row 1, col 1).
    `fill` is a solid background colour as `#RRGGBB`; `number_format` an Excel format code."""

    row: int
    col: int
    raw: str
    number_format: str | None = None
    bold: bool = False
    italic: bool = False
    fill: str | None = None


@dataclass(frozen=True)
class SheetData:
    """One sheet: its cells (in row, then column order when read from a file), the widths of
    the columns that have one (column number → pixels) and how many top rows stay frozen."""

    name: str
    cells: tuple[CellData, ...]
    column_widths: Mapping[int, int] = field(default_factory=dict)
    frozen_rows: int = 0


@dataclass(frozen=True)
class BookData:
    """A workbook: its sheets in tab order."""

    sheets: tuple[SheetData, ...]


def check_size(data: bytes) -> None:
    """Refuse a file larger than MAX_BYTES, before anything parses it."""
    if len(data) > MAX_BYTES:
        shown = math.ceil(len(data) * 10 / (1024 * 1024)) / 10
        raise FileError(
            f"The file is {shown:.1f} MB; the limit is {MAX_BYTES // (1024 * 1024)} MB."
        )


def check_sheet_count(count: int) -> None:
    """Refuse a workbook of more than MAX_SHEETS sheets."""
    if count > MAX_SHEETS:
        raise FileError(f"The workbook has {count:,} sheets; the limit is {MAX_SHEETS:,}.")


def check_cell_count(sheet_name: str, count: int) -> None:
    """Refuse a sheet of more than MAX_CELLS cells with content or a format."""
    if count > MAX_CELLS:
        raise FileError(f"Sheet '{sheet_name}' has {count:,} cells; the limit is {MAX_CELLS:,}.")


def number_text(value: float) -> str:
    """A number as typed, in the shortest plain decimal that reads back as the same float:
    4200.0 → `4200`, 0.5 → `0.5`, 1e-05 → `0.00001`. Infinities and NaN, which no
    spreadsheet cell holds, show as `#NUM!`."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not math.isfinite(value):
        return "#NUM!"
    text = format(Decimal(repr(float(value))), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


__all__ = [
    "MAX_BYTES",
    "MAX_CELLS",
    "MAX_SHEETS",
    "BookData",
    "CellData",
    "FileError",
    "SheetData",
    "check_cell_count",
    "check_sheet_count",
    "check_size",
    "number_text",
]
