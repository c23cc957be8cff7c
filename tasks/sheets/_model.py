"""A workbook as a verifier sees it: read from a world file and re-evaluated from what is
typed, never from the values stored beside it.

Verifiers grade computed values, so they recompute every formula with the app's own engine
(`officegym.apps.sheets.engine`) from the cells' raw input: a value written without the
product computing it (a forged `value_num`, a junk suffix on a formula) is caught. `fork`
gives the same workbook with one input changed and everything recomputed, in memory: how a
verifier proves a formula is live (a typed-in number does not follow its inputs).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date

from officegym.apps.sheets.engine import graph, refs
from officegym.apps.sheets.engine.numfmt import display
from officegym.apps.sheets.engine.values import CellError, Value, parse_input

Key = tuple[str, int, int]  # (sheet name, row, col)


@dataclass
class Book:
    """One workbook's typed inputs, formats and recomputed values, by (sheet, row, col)."""

    id: int
    name: str
    today: date
    sheet_ids: dict[str, int]
    raw: dict[Key, str] = field(default_factory=dict)
    formats: dict[Key, str | None] = field(default_factory=dict)
    values: dict[Key, Value] = field(default_factory=dict)

    @classmethod
    def load(cls, conn: sqlite3.Connection, workbook_id: int, today: date) -> Book:
        (name,) = conn.execute(
            "SELECT name FROM sheets_workbook WHERE id = ?", (workbook_id,)
        ).fetchone()
        sheets = conn.execute(
            "SELECT id, name FROM sheets_sheet WHERE workbook_id = ? ORDER BY position, id",
            (workbook_id,),
        ).fetchall()
        book = cls(workbook_id, name, today, {n: i for i, n in sheets})
        names = {i: n for i, n in sheets}
        cells = conn.execute(
            "SELECT sheet_id, row, col, raw, number_format FROM sheets_cell WHERE sheet_id IN "
            "(SELECT id FROM sheets_sheet WHERE workbook_id = ?)",
            (workbook_id,),
        )
        for sheet_id, row, col, raw, number_format in cells:
            key = (names[sheet_id], row, col)
            book.formats[key] = number_format
            if raw:
                book.raw[key] = raw
        book.evaluate()
        return book

    def evaluate(self) -> None:
        """Compute every cell from its raw input (constants parsed, formulas evaluated)."""
        self.values = {}
        for key, raw in self.raw.items():
            parsed = parse_input(raw)
            if parsed.kind != "formula":
                self.values[key] = parsed.value
        formulas = {k: r for k, r in self.raw.items() if r.startswith("=")}
        graph.recompute(self.values, formulas, formulas, self.today, sheets=list(self.sheet_ids))

    def fork(self, sheet: str, address: str, raw: str) -> Book:
        """The same workbook with `address` on `sheet` typed as `raw`, everything recomputed."""
        row, col = refs.parse_address(address)
        copy = Book(
            self.id, self.name, self.today, dict(self.sheet_ids), dict(self.raw), dict(self.formats)
        )
        if raw:
            copy.raw[sheet, row, col] = raw
        else:
            copy.raw.pop((sheet, row, col), None)
        copy.evaluate()
        return copy

    def value(self, sheet: str, address: str) -> Value:
        row, col = refs.parse_address(address)
        return self.values.get((sheet, row, col))

    def raw_at(self, sheet: str, address: str) -> str:
        row, col = refs.parse_address(address)
        return self.raw.get((sheet, row, col), "")

    def shown(self, sheet: str, address: str) -> str:
        row, col = refs.parse_address(address)
        return display(self.values.get((sheet, row, col)), self.formats.get((sheet, row, col)))

    def cells(self, sheet: str) -> Iterator[tuple[int, int, str]]:
        """(row, col, raw) of every typed cell of `sheet`, row by row."""
        for (name, row, col), raw in sorted(self.raw.items(), key=lambda kv: (kv[0][1], kv[0][2])):
            if name == sheet:
                yield row, col, raw

    def column(self, sheet: str, col: int, first: int = 1, last: int | None = None) -> list[Value]:
        rows = [r for (s, r, c) in self.raw if s == sheet and c == col]
        end = last if last is not None else max(rows, default=0)
        return [self.values.get((sheet, r, col)) for r in range(first, end + 1)]

    def last_row(self, sheet: str) -> int:
        return max((r for (s, r, _c) in self.raw if s == sheet), default=0)

    def is_error(self, sheet: str, address: str) -> bool:
        return isinstance(self.value(sheet, address), CellError)


def load(conn: sqlite3.Connection, workbook_id: int, today: date) -> Book:
    return Book.load(conn, workbook_id, today)


def numbers(values: Mapping[object, Value] | list[Value]) -> list[float]:
    items = values.values() if isinstance(values, Mapping) else values
    return [float(v) for v in items if isinstance(v, float | int) and not isinstance(v, bool)]


__all__ = ["Book", "Key", "load", "numbers"]
