"""CSV in and out: reading an uploaded file into rows, mapping its columns to fields, and
writing list views as CSV that spreadsheets open safely (no database access here).

Decoding, delimiter sniffing and formula-safe writing are shared with the other apps and live
in `apps.web.csvfiles`; this module re-exports them under the names the CRM has always used.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from officegym.apps.web.csvfiles import (
    ENCODINGS,
    FORMULA_STARTS,
    decode,
    safe_cell,
    sniff_delimiter,
    write,
)
from officegym.apps.web.errors import ValidationError

from .fields import ObjectType

MAX_IMPORT_ROWS = 50_000

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


def read(text: str, max_rows: int = MAX_IMPORT_ROWS) -> Table:
    """Parse CSV text (comma, semicolon or tab separated) with a header row."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sniff_delimiter(text))
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
