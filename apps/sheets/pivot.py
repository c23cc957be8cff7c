"""Pivot tables: a header row and data rows summarised into the grid a spreadsheet writes on a
sheet, laid out as Excel's tabular form and Google Sheets lay it out.

The grid has a header row (the row fields' names, then one column per column-field
combination and value, `Closed Won · SUM of Amount`, then with column fields a `Grand Total`
column per value), one row per distinct combination of row-field values in ascending order
(numbers, then text ignoring case, then FALSE and TRUE, then blanks), and a `Grand Total` row.

Summaries follow spreadsheets: SUM, AVERAGE, MIN and MAX read numbers only, skipping text,
booleans and empty cells; COUNT counts every non-empty value (text too), as COUNTA does and
as Google Sheets' pivot COUNT does. A combination with no source rows is blank (None), not 0;
one whose rows hold no numbers sums to 0 and has no AVERAGE, MIN or MAX (None). Sums add in
source row order, one float at a time, so every run (and a spreadsheet) gets the same bits.
Totals summarise the source rows themselves, never the subtotals.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from . import book
from .book import number_text

Value = float | str | bool | None

FUNCTIONS = ("SUM", "COUNT", "AVERAGE", "MIN", "MAX")
GRAND_TOTAL = "Grand Total"
BLANK = "(blank)"
SEPARATOR = " · "

# A group's identity: its kind (number, text, boolean, blank) and value; 1.0 and True differ.
_Key = tuple[int, object]
_NUMBER, _TEXT, _BOOL, _BLANK = range(4)
_Group = tuple[_Key, ...] | None


class PivotError(ValueError):
    """A pivot table that cannot be built as asked, with a message that says what to change."""


@dataclass
class _Tally:
    """Running summary of one value field over one group of source rows."""

    rows: int = 0
    filled: int = 0
    numbers: int = 0
    total: float = 0.0
    low: float = math.inf
    high: float = -math.inf

    def add(self, value: Value) -> None:
        self.rows += 1
        if value is None or value == "":
            return
        self.filled += 1
        if isinstance(value, bool) or not isinstance(value, int | float):
            return
        if not math.isfinite(value):
            return
        self.numbers += 1
        # One addition at a time in source order; sum() may compensate and differ in the last bit.
        self.total = self.total + value
        self.low = min(self.low, value)
        self.high = max(self.high, value)

    def result(self, function: str) -> Value:
        if not self.rows:
            return None
        if function == "COUNT":
            return float(self.filled)
        if function == "SUM":
            return self.total
        if not self.numbers:
            return None
        if function == "AVERAGE":
            return self.total / self.numbers
        return self.low if function == "MIN" else self.high


def pivot(
    header: Sequence[str],
    rows: Sequence[Sequence[Value]],
    row_fields: Sequence[str],
    column_fields: Sequence[str],
    values: Sequence[tuple[str, str]],
    filters: Mapping[str, Collection[Value]] | None = None,
) -> list[list[Value]]:
    """The pivot grid of `rows` (each read against `header`), grouped by `row_fields` down and
    `column_fields` across, summarising each `(field, function)` of `values`.

    `filters` maps a field to the values whose rows are kept (a number also matches its text,
    `2024` matches 2024.0; None or "" matches blanks). Raises PivotError for an unknown or
    ambiguous field, an unknown function, no values, or a grid larger than a sheet holds.
    """
    index = _field_index(header)
    row_at = [_column(index, name) for name in row_fields]
    col_at = [_column(index, name) for name in column_fields]
    if not values:
        raise PivotError("Add a value to summarise (for example SUM of an amount column).")
    value_at = [_column(index, field) for field, _ in values]
    functions = [_function(function) for _, function in values]
    kept = _filter(rows, index, filters or {})

    def key_of(row: Sequence[Value], at: Sequence[int]) -> tuple[_Key, ...]:
        return tuple(_key(_cell(row, i)) for i in at)

    row_keys = sorted({key_of(row, row_at) for row in kept}) if row_at else []
    col_keys = sorted({key_of(row, col_at) for row in kept}) if col_at else []
    width = max(len(row_at), 1) + len(values) * (len(col_keys) + 1)
    cells = width * (len(row_keys) + 2)
    if cells > book.MAX_CELLS:
        raise PivotError(
            f"This pivot table would have {cells:,} cells; a sheet holds at most "
            f"{book.MAX_CELLS:,}. Use fewer distinct values across, or filter the rows."
        )

    # (row group, column group) → one tally per value; None stands for "all" (the totals).
    tallies: dict[tuple[_Group, _Group], list[_Tally]] = {}
    for row in kept:
        row_key = key_of(row, row_at) if row_at else None
        col_key = key_of(row, col_at) if col_at else None
        for group in {(row_key, col_key), (row_key, None), (None, col_key), (None, None)}:
            found = tallies.setdefault(group, [_Tally() for _ in values])
            for tally, at in zip(found, value_at, strict=True):
                tally.add(_cell(row, at))

    def summary_cells(row_key: _Group) -> list[Value]:
        out: list[Value] = []
        for col_key in [*col_keys, None]:
            found = tallies.get((row_key, col_key))
            out += [found[i].result(f) if found else None for i, f in enumerate(functions)]
        return out

    labels = [f"{f} of {field}" for f, (field, _) in zip(functions, values, strict=True)]
    head: list[Value] = list(row_fields) if row_at else [""]
    if col_at:
        for col_key in col_keys:
            prefix = SEPARATOR.join(_label(key) for key in col_key)
            head += [f"{prefix}{SEPARATOR}{label}" for label in labels]
        head += (
            [GRAND_TOTAL]
            if len(labels) == 1
            else [f"{GRAND_TOTAL}{SEPARATOR}{label}" for label in labels]
        )
    else:
        head += labels
    grid: list[list[Value]] = [head]
    for row_key in row_keys:
        grid.append([_shown(key) for key in row_key] + summary_cells(row_key))
    grid.append([GRAND_TOTAL] + [None] * (max(len(row_at), 1) - 1) + summary_cells(None))
    return grid


def _field_index(header: Sequence[str]) -> dict[str, int | None]:
    """Header name → its column; None for a name more than one column has."""
    index: dict[str, int | None] = {}
    for i, name in enumerate(header):
        index[name] = None if name in index else i
    return index


def _column(index: Mapping[str, int | None], name: str) -> int:
    if name not in index:
        known = ", ".join(f"'{n}'" for n in index if n) or "none"
        raise PivotError(f"There is no column named '{name}'. The columns are: {known}.")
    at = index[name]
    if at is None:
        raise PivotError(f"Two columns are named '{name}'; rename one to use it in a pivot table.")
    return at


def _function(name: str) -> str:
    function = name.strip().upper()
    if function not in FUNCTIONS:
        raise PivotError(f"'{name}' is not a pivot function; use one of {', '.join(FUNCTIONS)}.")
    return function


def _filter(
    rows: Sequence[Sequence[Value]],
    index: Mapping[str, int | None],
    filters: Mapping[str, Collection[Value]],
) -> list[Sequence[Value]]:
    checks: list[tuple[int, set[_Key], set[str]]] = []
    for name in sorted(filters):
        allowed = filters[name]
        keys = {_key(value) for value in allowed}
        texts = {value for value in allowed if isinstance(value, str)}
        checks.append((_column(index, name), keys, texts))
    return [
        row
        for row in rows
        if all(
            _key(value := _cell(row, at)) in keys or _label(_key(value)) in texts
            for at, keys, texts in checks
        )
    ]


def _cell(row: Sequence[Value], at: int) -> Value:
    return row[at] if at < len(row) else None


def _key(value: Value) -> _Key:
    if value is None or value == "":
        return (_BLANK, "")
    if isinstance(value, bool):
        return (_BOOL, value)
    if isinstance(value, int | float):
        if math.isfinite(value):
            return (_NUMBER, float(value))
        value = "#NUM!"
    return (_TEXT, (value.casefold(), value))


def _label(key: _Key) -> str:
    """A group as its header shows it: `2024`, `Closed Won`, `TRUE`, `(blank)`."""
    kind, value = key
    if kind == _NUMBER:
        return number_text(value)  # type: ignore[arg-type]
    if kind == _TEXT:
        return value[1]  # type: ignore[index]
    if kind == _BOOL:
        return "TRUE" if value else "FALSE"
    return BLANK


def _shown(key: _Key) -> Value:
    """A group as its row shows it: numbers stay numbers, blanks read `(blank)`."""
    kind, value = key
    if kind in (_NUMBER, _BOOL):
        return value  # type: ignore[return-value]
    return _label(key)


__all__ = ["BLANK", "FUNCTIONS", "GRAND_TOTAL", "SEPARATOR", "PivotError", "Value", "pivot"]
