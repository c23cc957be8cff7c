"""CSV in and out: reading an uploaded file into rows, mapping its columns to fields, and
writing list views as CSV that spreadsheets open safely (no database access here).

Exported text cells that a spreadsheet would run as a formula (starting with =, +, -, @, a tab
or a carriage return) are written with a leading apostrophe, so `=cmd|' /C calc'!A0` shows as
text instead of running.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from officegym.apps.web.errors import ValidationError

from .fields import ObjectType

MAX_IMPORT_ROWS = 50_000
MAX_IMPORT_BYTES = 10 * 1024 * 1024
ENCODINGS = {
    "utf-8": "UTF-8",
    "windows-1252": "Windows-1252 (Excel on Windows)",
    "latin-1": "ISO-8859-1",
}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# Header spellings (lower-case, spaces and punctuation removed) that name each contact field.
IMPORT_FIELDS = (
    "first_name",
    "last_name",
    "account_id",
    "title",
    "email",
    "phone",
    "mailing_city",
    "owner_id",
)
_SYNONYMS = {
    "first_name": ("firstname", "first", "givenname", "forename"),
    "last_name": ("lastname", "last", "surname", "familyname"),
    "account_id": ("account", "accountname", "company", "companyname", "organization", "organisation"),
    "title": ("title", "jobtitle", "position", "role"),
    "email": ("email", "emailaddress", "mail"),
    "phone": ("phone", "phonenumber", "telephone", "tel", "mobile", "businessphone"),
    "mailing_city": ("mailingcity", "city", "town"),
    "owner_id": ("owner", "owneremail", "contactowner", "contactowneremail"),
}  # fmt: skip


@dataclass(frozen=True)
class Table:
    """A CSV file as read: its header cells and its data rows with their line numbers."""

    headers: tuple[str, ...]
    rows: tuple[tuple[int, tuple[str, ...]], ...]


@dataclass(frozen=True)
class RowResult:
    """One data row checked for import: the values read and, if rejected, why (per field)."""

    line: int
    values: Mapping[str, Any]
    errors: Mapping[str, str]

    @property
    def ok(self) -> bool:
        return not self.errors


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


def read(text: str, max_rows: int = MAX_IMPORT_ROWS) -> Table:
    """Parse CSV text (comma, semicolon or tab separated) with a header row."""
    first_line = text.lstrip("\r\n").split("\n", 1)[0]
    delimiter = max(",;\t", key=lambda d: (first_line.count(d), d == ","))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    headers: tuple[str, ...] | None = None
    rows: list[tuple[int, tuple[str, ...]]] = []
    try:
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue
            if headers is None:
                headers = tuple(cell.strip() for cell in cells)
                continue
            rows.append((reader.line_num, tuple(cells)))
            if len(rows) > max_rows:
                raise ValidationError(
                    f"Import at most {max_rows:,} rows at a time; this file has more.", "file"
                )
    except csv.Error as error:
        raise ValidationError(
            f"Line {reader.line_num} of the file can't be read as CSV: {error}.", "file"
        ) from None
    if headers is None:
        raise ValidationError("The file is empty.", "file")
    if not any(headers):
        raise ValidationError("The first row must name the columns.", "file")
    if not rows:
        raise ValidationError("The file has a header row but no contacts under it.", "file")
    return Table(headers, tuple(rows))


def _squash(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


def guess_mapping(headers: Sequence[str]) -> dict[int, str]:
    """Column index → contact field, for the headers whose names say which field they are."""
    mapping: dict[int, str] = {}
    used: set[str] = set()
    for index, header in enumerate(headers):
        squashed = _squash(header)
        for name in IMPORT_FIELDS:
            if name not in used and (squashed == _squash(name) or squashed in _SYNONYMS[name]):
                mapping[index] = name
                used.add(name)
                break
    return mapping


def check_mapping(spec: ObjectType, table: Table, mapping: Mapping[int, str]) -> dict[int, str]:
    """The mapping if usable: known columns and fields, each field once, required fields
    mapped. Otherwise ValidationError naming what's wrong."""
    clean: dict[int, str] = {}
    seen: dict[str, int] = {}
    for index, name in sorted(mapping.items()):
        if not name:
            continue
        if not 0 <= index < len(table.headers):
            raise ValidationError(f"The file has no column {index + 1}.", "mapping")
        if name not in IMPORT_FIELDS:
            raise ValidationError(f"Contacts can't import a field called “{name}”.", "mapping")
        if name in seen:
            label = spec.field(name).label
            raise ValidationError(
                f"Two columns (“{table.headers[seen[name]]}” and “{table.headers[index]}”) are "
                f"mapped to {label}; map one of them to nothing.",
                "mapping",
            )
        seen[name] = index
        clean[index] = name
    missing = [
        spec.field(n).label
        for n in IMPORT_FIELDS
        if spec.field(n).required and n != "owner_id" and n not in seen
    ]
    if missing:
        raise ValidationError(
            f"Map a column to {' and '.join(missing)}: every contact needs "
            f"{'it' if len(missing) == 1 else 'them'}. The file's columns are: "
            f"{', '.join(h or '(blank)' for h in table.headers)}.",
            "mapping",
        )
    return clean


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


def error_report(results: Iterable[RowResult], headers: Mapping[str, str]) -> str:
    """The rejected rows as CSV: line, field, message (for people to fix and re-import)."""
    rows = []
    for result in results:
        for name, message in result.errors.items():
            rows.append((result.line, headers.get(name, name), message))
    return write(("Line", "Field", "Problem"), rows)


__all__ = [
    "ENCODINGS",
    "FORMULA_STARTS",
    "IMPORT_FIELDS",
    "MAX_IMPORT_ROWS",
    "RowResult",
    "Table",
    "check_mapping",
    "decode",
    "error_report",
    "guess_mapping",
    "read",
    "safe_cell",
    "write",
]
