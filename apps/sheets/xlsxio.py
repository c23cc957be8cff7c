"""Excel workbooks (.xlsx) in and out through openpyxl, as `BookData`.

Reading keeps what a person typed: formulas as formula text (`=SUM(A1:A3)`, without Excel's
`_xlfn.` prefixes), numbers as the shortest text of the number, whole-day dates as ISO
`yyyy-mm-dd` with their number format, booleans as `TRUE`/`FALSE`, and text that would read as
something else if typed (`=1+1`, `0042`, `TRUE`, `2024-03-01`) behind an apostrophe. Kept with
each cell: its number format, bold, italic and a solid fill colour; with each sheet: its column
widths in pixels and its frozen top rows. Everything else (charts, merges, comments, theme
colours, conditional formats) is left behind.

Any file that is not a readable workbook within the limits of `book` raises `FileError`.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
import warnings
import zipfile
import zlib
from collections.abc import Mapping
from typing import Any

import openpyxl
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, Cell
from openpyxl.styles import Font, PatternFill
from openpyxl.styles.colors import COLOR_INDEX
from openpyxl.utils import get_column_letter
from openpyxl.utils.datetime import to_excel
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.worksheet.worksheet import Worksheet

from .book import (
    BookData,
    CellData,
    FileError,
    SheetData,
    check_cell_count,
    check_sheet_count,
    check_size,
    number_text,
)

# A 10 MB archive of XML can unpack to gigabytes; openpyxl holds every cell in memory, so the
# unpacked size is bounded too. 200,000 typical cells unpack to about 10 MB.
MAX_UNZIPPED_BYTES = 50 * 1024 * 1024
DEFAULT_DATE_FORMAT = "yyyy-mm-dd"

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Text a spreadsheet might read as a number when typed: amounts, percentages, negatives in
# parentheses. Such text read from a file is kept as text with an apostrophe.
_NUMBER_LIKE = re.compile(
    r"\(?[+-]?[$€£¥]?\s*(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*%?\)?"
)
_ARGB = re.compile(r"(?:[0-9A-Fa-f]{2})?[0-9A-Fa-f]{6}")
_FROZEN_CELL = re.compile(r"\$?[A-Za-z]{1,3}\$?(\d+)")
_FUNCTION_PREFIX = re.compile(r"\b_xl(?:fn|ws)\.")
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

# What openpyxl, zipfile and the XML parser raise on damaged input.
_READ_ERRORS = (
    InvalidFileException,
    zipfile.BadZipFile,
    zlib.error,
    SyntaxError,
    OSError,
    EOFError,
    KeyError,
    IndexError,
    ValueError,
    TypeError,
    AttributeError,
)


def read_xlsx(data: bytes, filename: str) -> BookData:
    """The workbook in `data` (an upload named `filename`), sheet by sheet in tab order.

    Raises FileError for a name not ending in .xlsx, an empty or oversized file, a file that is
    not a zip archive or not a workbook, damaged contents, or more sheets or cells than allowed.
    """
    if not filename.lower().endswith(".xlsx"):
        raise FileError(
            f"'{filename}' is not an .xlsx file. Save it from your spreadsheet as an Excel "
            "Workbook (.xlsx), or import a .csv file as a single sheet."
        )
    if not data:
        raise FileError("The file is empty.")
    check_size(data)
    _check_archive(data)
    try:
        with warnings.catch_warnings():
            # openpyxl warns about each feature it drops (data validation, slicers...); the
            # module docstring says what is kept.
            warnings.simplefilter("ignore")
            workbook = openpyxl.load_workbook(io.BytesIO(data), rich_text=False)
    except _READ_ERRORS as error:
        detail = str(error).strip()[:200]
        raise FileError(
            "This .xlsx workbook is damaged and could not be read"
            + (f" ({detail})." if detail else ".")
            + " Open it in Excel and save a new copy."
        ) from error
    check_sheet_count(len(workbook.worksheets))
    return BookData(tuple(_read_sheet(sheet) for sheet in workbook.worksheets))


def write_xlsx(book: BookData, values: Mapping[Any, Any] | None = None) -> bytes:
    """The book as .xlsx bytes that Excel, LibreOffice and openpyxl open with formulas intact.

    Each raw becomes what typing it gives: `=...` a formula, `'...` text, `TRUE`/`FALSE` a
    boolean, a plain decimal a number, an ISO date a date (shown `yyyy-mm-dd` unless the cell
    has a format), anything else text. `values` (the computed values of formulas) is accepted
    and ignored: openpyxl cannot write cached results, so a spreadsheet recalculates formulas
    on opening. A book with no sheets is written with one empty sheet, as xlsx needs one.
    Raises FileError for a sheet name xlsx does not allow (one with `[]:*?/\\`).
    """
    workbook = openpyxl.Workbook()
    first = workbook.active
    for sheet in book.sheets:
        try:
            worksheet = workbook.create_sheet(sheet.name)
        except ValueError as error:
            raise FileError(
                f"Sheet '{sheet.name}' can't be saved in an .xlsx file: {error}. Rename it."
            ) from None
        _write_sheet(worksheet, sheet)
    if book.sheets:
        workbook.remove(first)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def _check_archive(data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        hint = (
            " It looks like an old .xls workbook or a password-protected one: open it in Excel "
            "and save it as an unprotected Excel Workbook (.xlsx)."
            if data.startswith(_OLE_MAGIC)
            else ""
        )
        raise FileError(
            "This file is not an .xlsx workbook (it could not be opened as a zip archive)." + hint
        ) from None
    names = {entry.filename for entry in entries}
    if "[Content_Types].xml" not in names or not any(
        name.lower().endswith("workbook.xml") for name in names
    ):
        raise FileError(
            "This file is a zip archive but not an .xlsx workbook (it has no workbook inside). "
            "Save it from your spreadsheet as an Excel Workbook (.xlsx)."
        )
    unzipped = sum(entry.file_size for entry in entries)
    if unzipped > MAX_UNZIPPED_BYTES:
        raise FileError(
            f"The workbook unpacks to {unzipped / (1024 * 1024):,.1f} MB; the limit is "
            f"{MAX_UNZIPPED_BYTES // (1024 * 1024)} MB. Split it into smaller workbooks."
        )


def _read_sheet(worksheet: Worksheet) -> SheetData:
    # openpyxl has no public way to walk only the cells a sheet stores: iter_rows pads every row
    # to the widest one, which for a sparse sheet is far more work than the cells themselves.
    stored = sorted(worksheet._cells.values(), key=lambda c: (c.row, c.column))
    cells = [cell for cell in (_read_cell(c) for c in stored) if cell is not None]
    check_cell_count(worksheet.title, len(cells))
    return SheetData(
        name=worksheet.title,
        cells=tuple(cells),
        column_widths=_read_widths(worksheet),
        frozen_rows=_read_frozen_rows(worksheet.freeze_panes),
    )


def _read_cell(cell: Cell) -> CellData | None:
    raw = _raw(cell.value, cell.data_type)
    number_format = cell.number_format if cell.number_format != "General" else None
    bold = bool(cell.font.b)
    italic = bool(cell.font.i)
    fill = _fill_colour(cell.fill)
    if not raw and not (number_format or bold or italic or fill):
        return None
    return CellData(cell.row, cell.column, raw, number_format, bold, italic, fill)


def _raw(value: object, data_type: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return number_text(value)
    if isinstance(value, dt.datetime):
        if value.time() == dt.time():
            return value.date().isoformat()
        return number_text(to_excel(value))
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time | dt.timedelta):
        return number_text(to_excel(value))
    if isinstance(value, ArrayFormula):
        return _FUNCTION_PREFIX.sub("", value.text or "")
    if not isinstance(value, str):
        return ""
    if data_type == "f":
        return _FUNCTION_PREFIX.sub("", value)
    if data_type == "e":
        return value
    return "'" + value if _reads_as_other_than_text(value) else value


def _reads_as_other_than_text(text: str) -> bool:
    stripped = text.strip()
    return (
        text.startswith(("=", "'"))
        or stripped.upper() in ("TRUE", "FALSE")
        or bool(_ISO_DATE.fullmatch(stripped))
        or bool(_NUMBER_LIKE.fullmatch(stripped))
        or _is_float(stripped)
    )


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _fill_colour(fill: object) -> str | None:
    # Cell styles come wrapped in openpyxl's StyleProxy, so ask for the pattern, not the class.
    if getattr(fill, "fill_type", None) != "solid":
        return None
    colour = fill.fgColor
    if colour.type == "rgb" and isinstance(colour.rgb, str):
        argb = colour.rgb
    elif colour.type == "indexed" and 0 <= colour.indexed < len(COLOR_INDEX):
        argb = COLOR_INDEX[colour.indexed]
    else:
        return None
    return "#" + argb[-6:].upper() if _ARGB.fullmatch(argb) else None


def _read_widths(worksheet: Worksheet) -> dict[int, int]:
    used = worksheet.max_column
    widths: dict[int, int] = {}
    for dimension in worksheet.column_dimensions.values():
        if not dimension.width or dimension.hidden or not dimension.min:
            continue
        last = max(dimension.min, min(dimension.max or dimension.min, used))
        for col in range(dimension.min, last + 1):
            widths[col] = round(dimension.width * 7 + 5)
    return dict(sorted(widths.items()))


def _read_frozen_rows(freeze_panes: str | None) -> int:
    found = _FROZEN_CELL.fullmatch(freeze_panes or "")
    return max(int(found[1]) - 1, 0) if found else 0


def _write_sheet(worksheet: Worksheet, sheet: SheetData) -> None:
    for data in sheet.cells:
        cell = worksheet.cell(row=data.row, column=data.col)
        _write_value(cell, data)
        if data.bold or data.italic:
            cell.font = Font(b=data.bold, i=data.italic)
        if data.fill:
            cell.fill = PatternFill("solid", fgColor="FF" + data.fill.lstrip("#").upper())
    for col, pixels in sorted(sheet.column_widths.items()):
        worksheet.column_dimensions[get_column_letter(col)].width = (pixels - 5) / 7
    if sheet.frozen_rows > 0:
        worksheet.freeze_panes = f"A{sheet.frozen_rows + 1}"


def _write_value(cell: Cell, data: CellData) -> None:
    raw = data.raw
    number_format = data.number_format
    if raw.startswith("=") and len(raw) > 1:
        cell.value = ILLEGAL_CHARACTERS_RE.sub("", raw)
    elif raw.startswith("'") or raw == "=":
        _write_text(cell, raw[1:] if raw.startswith("'") else raw)
    elif raw.upper() in ("TRUE", "FALSE"):
        cell.value = raw.upper() == "TRUE"
    elif _NUMBER.fullmatch(raw) and math.isfinite(float(raw)):
        cell.value = int(raw) if _INTEGER.fullmatch(raw) else float(raw)
    elif _ISO_DATE.fullmatch(raw) and _is_date(raw):
        cell.value = dt.date.fromisoformat(raw)
        number_format = number_format or DEFAULT_DATE_FORMAT
    elif raw:
        _write_text(cell, raw)
    if number_format:
        cell.number_format = number_format


def _write_text(cell: Cell, text: str) -> None:
    # Assigning a string that starts with "=" makes openpyxl write a formula; text is text.
    cell.value = ILLEGAL_CHARACTERS_RE.sub("", text)
    cell.data_type = "s"


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


__all__ = ["DEFAULT_DATE_FORMAT", "MAX_UNZIPPED_BYTES", "read_xlsx", "write_xlsx"]
