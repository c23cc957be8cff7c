"""CSV text shared by the apps: decoding an uploaded file, guessing its delimiter, and writing
exports that spreadsheets open safely (no database access here).

Exported text cells that a spreadsheet would run as a formula (starting with =, +, -, @, a tab
or a carriage return) are written with a leading apostrophe, so `=cmd|' /C calc'!A0` shows as
text instead of running.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from .errors import ValidationError

MAX_IMPORT_BYTES = 10 * 1024 * 1024
ENCODINGS = {
    "utf-8": "UTF-8",
    "windows-1252": "Windows-1252 (Excel on Windows)",
    "latin-1": "ISO-8859-1",
}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
DELIMITERS = ",;\t"


def decode(data: bytes, encoding: str = "utf-8") -> str:
    """The text of an uploaded file, or ValidationError saying why it can't be read."""
    if encoding not in ENCODINGS:
        raise ValidationError("Choose the file's character encoding from the list.", "encoding")
    if not data.strip():
        raise ValidationError("The file is empty.", "file")
    if len(data) > MAX_IMPORT_BYTES:
        raise ValidationError(
            f"The file is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MB; split it up.", "file"
        )
    if b"\x00" in data[:8192]:
        raise ValidationError(
            "This doesn't look like a CSV file: it contains binary data. Export the sheet as "
            "CSV and try again.",
            "file",
        )
    codec = "utf-8-sig" if encoding == "utf-8" else encoding
    try:
        return data.decode(codec)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ValidationError(
            f"The file isn't valid {ENCODINGS[encoding]} text (line {line} has a byte that "
            "isn't). Save it as “CSV UTF-8”, or choose the encoding it was saved in.",
            "file",
        ) from None


def guess_encoding(data: bytes) -> str:
    """The first of ENCODINGS that reads `data` without error: UTF-8 (with or without a byte
    order mark), then Windows-1252, which Excel on Windows saves; ISO-8859-1 reads any bytes."""
    for encoding in ("utf-8-sig", "windows-1252"):
        try:
            data.decode(encoding)
        except UnicodeDecodeError:
            continue
        return "utf-8" if encoding == "utf-8-sig" else encoding
    return "latin-1"


def sniff_delimiter(text: str) -> str:
    """The delimiter of CSV text: whichever of comma, semicolon and tab its first line holds
    most of (a comma when none is there)."""
    first_line = text.lstrip("\r\n").split("\n", 1)[0]
    return max(DELIMITERS, key=lambda d: (first_line.count(d), d == ","))


def safe_cell(value: Any) -> Any:
    """A value as written to an exported CSV: text that would run as a formula is quoted."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV text (with a header row, CRLF line ends, formula cells neutralised)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([safe_cell(h) for h in headers])
    for row in rows:
        writer.writerow([safe_cell(v) for v in row])
    return out.getvalue()


__all__ = [
    "DELIMITERS",
    "ENCODINGS",
    "FORMULA_STARTS",
    "MAX_IMPORT_BYTES",
    "decode",
    "guess_encoding",
    "safe_cell",
    "sniff_delimiter",
    "write",
]
