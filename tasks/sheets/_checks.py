"""Expectations for sheets tasks, on top of the verifier DSL (`officegym.tasks.expect`).

A spreadsheet task is about what a sheet *computes*, and honest solutions reach the same grid
by different acts (typing, pasting, filling, sorting), so these grade the final grid rather
than row-by-row changes:

- `sheet(...)`: the workbook, re-evaluated from what is typed (`model.Book`), meets a check,
  and the changes to the sheet's cells are claimed when each changed cell is one the task
  accounts for (a `region`) and carries only the formats the product gives it (typing
  `$4,200` implies a currency format; bold, italics, fills and other number formats must be
  asked for). Formula cells elsewhere whose stored value the product recomputed are claimed
  as derived. The workbook's `updated_at` stamp and its history rows follow.
- `live(...)`: inside a check, proves a formula follows its inputs on an in-memory fork.

`nothing_else()` then catches everything the task did not account for, in any app.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.apps.sheets.engine.values import CellError, Value, parse_input
from officegym.tasks.expect import Claims, Expectation
from officegym.tasks.protocol import EpisodeContext

from ._model import Book

Check = Callable[[Book], tuple[bool, str]]
_VALUES = frozenset({"value_type", "value_num", "value_text"})
_STYLE = ("bold", "italic", "fill")


@dataclass(frozen=True)
class Formats:
    """Formats a task asks for on its region: a number format for cells (None: only what
    typing implies), and whether bold/italic/fill may change."""

    number_format: str | None = None
    bold: bool | None = None
    italic: bool | None = None
    fill: str | None = None


def region(*texts: str) -> tuple[refs.Range, ...]:
    """Ranges from A1 text (`"B2:B40"`, `"D12"`, `"E:E"`)."""
    return tuple(refs.parse_range(t) for t in texts)


def _inside(ranges: Collection[refs.Range] | None, row: int, col: int) -> bool:
    return ranges is None or any(r.contains(row, col) for r in ranges)


def _implied(raw: str | None) -> str | None:
    if not raw:
        return None
    return parse_input(raw).implied_format


class _Sheet(Expectation):
    def __init__(
        self,
        workbook_id: int,
        sheet: str,
        check: Check,
        ranges: Collection[refs.Range] | None,
        formats: Formats,
        name: str,
        weight: float,
        required: bool,
        core: bool,
    ) -> None:
        super().__init__(name, weight, required, core)
        self.workbook_id, self.sheet, self.check_book = workbook_id, sheet, check
        self.ranges, self.formats = ranges, formats

    def _format_ok(self, row: Mapping[str, Any], before: Mapping[str, Any] | None) -> str:
        """What is wrong with a changed cell's formats ('' when nothing)."""
        want = self.formats
        problems = []
        old = before or {}
        for column in _STYLE:
            asked = getattr(want, column)
            new, was = row.get(column), old.get(column)
            if asked is not None and new == asked:
                continue
            if bool(new) != bool(was) and (new or was):
                problems.append(f"{column}={new!r}")
        fmt, was_fmt = row.get("number_format"), old.get("number_format")
        if fmt != was_fmt and fmt not in (None, want.number_format, _implied(row.get("raw"))):
            problems.append(f"number_format={fmt!r}")
        return ", ".join(problems)

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        conn = ctx.db()
        try:
            today = ctx.world_today()
            found = conn.execute(
                "SELECT id FROM sheets_sheet WHERE workbook_id = ? AND name = ?",
                (self.workbook_id, self.sheet),
            ).fetchone()
            if found is None:
                return False, f"sheet {self.sheet!r} is not in workbook #{self.workbook_id}"
            sheet_id = found[0]
            book = Book.load(conn, self.workbook_id, today)
            passed, detail = self.check_book(book)
            stray = self._claim(ctx, claims, sheet_id)
        finally:
            conn.close()
        if stray:
            return False, f"{detail}; not asked for: {stray}"
        return passed, detail

    def _claim(self, ctx: EpisodeContext, claims: Claims, sheet_id: int) -> str:
        changes = ctx.diff.table("sheets_cell")
        stray: list[str] = []
        workbook_sheets = set()
        conn = ctx.db()
        try:
            workbook_sheets = {
                i
                for (i,) in conn.execute(
                    "SELECT id FROM sheets_sheet WHERE workbook_id = ?", (self.workbook_id,)
                )
            }
        finally:
            conn.close()
        touched = False
        for pk, row in changes.inserted.items():
            if row.get("sheet_id") != sheet_id or not _inside(self.ranges, row["row"], row["col"]):
                continue
            problem = self._format_ok(row, None)
            if problem:
                stray.append(f"{refs.address(row['row'], row['col'])} {problem}")
                continue
            claims.inserted.add(("sheets_cell", pk))
            touched = True
        for pk, row in changes.deleted.items():
            if row.get("sheet_id") == sheet_id and _inside(self.ranges, row["row"], row["col"]):
                claims.deleted.add(("sheets_cell", pk))
                touched = True
        for pk, update in changes.updated.items():
            row = update.row
            if row.get("sheet_id") not in workbook_sheets:
                continue
            changed = set(update.changes)
            if changed <= _VALUES and str(row.get("raw", "")).startswith("="):
                # The product recomputed a formula that reads a changed cell.
                claims.updated.setdefault(("sheets_cell", pk), set()).update(changed)
                continue
            if row.get("sheet_id") != sheet_id or not _inside(self.ranges, row["row"], row["col"]):
                continue
            before = {c: old for c, (old, _new) in update.changes.items()}
            before = {**row, **before}
            problem = self._format_ok(row, before)
            if problem:
                stray.append(f"{refs.address(row['row'], row['col'])} {problem}")
                continue
            claims.updated.setdefault(("sheets_cell", pk), set()).update(changed)
            touched = True
        if touched and self.workbook_id in ctx.diff.table("sheets_workbook").updated:
            claims.updated.setdefault(("sheets_workbook", self.workbook_id), set()).add(
                "updated_at"
            )
        return "; ".join(stray[:4])


def sheet(
    workbook_id: int,
    sheet_name: str,
    check: Check,
    within: Iterable[str] | None = None,
    formats: Formats = Formats(),
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = True,
) -> Expectation:
    """The workbook (recomputed) meets `check`; changed cells of `sheet_name` inside `within`
    (A1 ranges; None: the whole sheet) with the product's formats are claimed."""
    ranges = None if within is None else region(*within)
    return _Sheet(
        workbook_id, sheet_name, check, ranges, formats, name or f"sheet {sheet_name!r}", weight,
        required, core,
    )  # fmt: skip


def same(value: Value, want: Any, tolerance: float = 1e-6) -> bool:
    """A computed value equals `want` (numbers within `tolerance`, text trimmed, case kept)."""
    if isinstance(want, CellError) or isinstance(value, CellError):
        return isinstance(value, CellError) and isinstance(want, CellError) and value == want
    if isinstance(want, bool) or isinstance(value, bool):
        return value is want
    if isinstance(want, int | float):
        return isinstance(value, int | float) and abs(
            float(value) - float(want)
        ) <= tolerance * max(1.0, abs(float(want)))
    if want is None:
        return value is None or value == ""
    return isinstance(value, str) and " ".join(value.split()) == " ".join(str(want).split())


def live(
    book: Book,
    sheet_name: str,
    output: str,
    inputs: Mapping[str, str],
    want: Callable[[Value], bool],
) -> tuple[bool, str]:
    """Whether `output` is a formula that follows its inputs: on a fork of the final workbook
    with `inputs` typed (address -> raw), `want(new value of output)` holds."""
    raw = book.raw_at(sheet_name, output)
    if not raw.startswith("="):
        return False, f"{output} holds {raw!r}, not a formula"
    fork = book
    for address, text in inputs.items():
        fork = fork.fork(sheet_name, address, text)
    after = fork.value(sheet_name, output)
    changed = ", ".join(f"{a}={t}" for a, t in inputs.items())
    if want(after):
        return True, f"{output} follows its inputs (with {changed} it is {after!r})"
    return False, f"{output} does not follow its inputs (with {changed} it is {after!r})"


__all__ = ["Formats", "live", "region", "same", "sheet"]
