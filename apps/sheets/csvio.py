"""One sheet as CSV: importing a file's fields as typed cells, and exporting a sheet's shown
values with cells a spreadsheet would run as formulas neutralised.

An imported field becomes the cell's raw input as if typed, so `4200` is a number and
`2024-03-01` a date, except that a field starting with `=` is kept as text (`'=HYPERLINK(...)`):
a file's contents never become live formulas. Decoding, delimiter sniffing and the export's
formula quoting are the ones every app uses (`apps.web.csvfiles`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence

from officegym.apps.web.csvfiles import decode, guess_encoding, sniff_delimiter, write
from officegym.apps.web.errors import ValidationError

from .book import CellData, FileError, SheetData, check_cell_count, check_size

EXTENSIONS = (".csv", ".tsv", ".txt")


def read_csv(data: bytes, filename: str, sheet_name: str) -> SheetData:
    """The file's rows as a sheet named `sheet_name`, row 1 being the file's first line.

    Text is read as UTF-8 (with or without a byte order mark), else as Windows-1252; the
    delimiter is whichever of comma, semicolon and tab the first line holds most of. Raises
    FileError for another kind of file, an empty or oversized one, or more cells than allowed.
    """
    if not filename.lower().endswith(EXTENSIONS):
        raise FileError(
            f"'{filename}' is not a CSV file. Save the sheet from your spreadsheet as CSV "
            "(.csv), or import an .xlsx workbook instead."
        )
    check_size(data)
    try:
        text = decode(data, guess_encoding(data))
    except ValidationError as error:
        raise FileError(error.message) from None
    delimiter = sniff_delimiter(text)
    # Count first, so an oversized file is refused before a cell object exists for each field.
    check_cell_count(sheet_name, sum(1 for _ in _fields(text, delimiter)))
    cells = tuple(
        CellData(row, col, "'" + value if value.startswith("=") else value)
        for row, col, value in _fields(text, delimiter)
    )
    return SheetData(name=sheet_name, cells=cells)


def write_csv(rows: Sequence[Sequence[object]]) -> str:
    """CSV text (CRLF line ends) of a sheet's shown values, first row first.

    Numbers are written as numbers (4200.0 as `4200`), booleans as `TRUE`/`FALSE`, empty
    cells as nothing; text a spreadsheet would run as a formula gets a leading apostrophe,
    exactly as the CRM's exports do.
    """
    if not rows:
        return ""
    shown = [[_shown(value) for value in row] for row in rows]
    return write(shown[0], shown[1:])


def _fields(text: str, delimiter: str) -> Iterator[tuple[int, int, str]]:
    """(row, column, field) for every non-empty field, 1-based."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        for row, values in enumerate(reader, start=1):
            for col, value in enumerate(values, start=1):
                if value:
                    yield row, col, value
    except csv.Error as error:
        raise FileError(
            f"Line {reader.line_num} of the file can't be read as CSV: {error}."
        ) from None


def _shown(value: object) -> object:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


__all__ = ["EXTENSIONS", "read_csv", "write_csv"]
