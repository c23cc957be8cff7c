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

Acts that make rows are claimed whole, each by one expectation that fails on anything it did
not ask for (a format, a frozen row, a second chart): `new_sheet` (the tab and its cells, graded
like `sheet`), `new_workbook` (a workbook owned by the user with its sheets, cells, widths and
charts; optionally a faithful copy of another), `chart` (its kind, title, place, and the labels
and series its range shows in the final world, so any equivalent range passes), `pivot` (the
pivot, its new sheet and that sheet's grid, which must be the pivot of the data as asked),
`renamed_sheet` (a tab's new name, formulas following it, every value as before) and
`stamped` (an act recorded on a workbook: its last-modified time and history row).

`nothing_else()` then catches everything the task did not account for, in any app.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from officegym.apps.sheets import charts
from officegym.apps.sheets import pivot as pivots
from officegym.apps.sheets.book import number_text
from officegym.apps.sheets.cells import loaded
from officegym.apps.sheets.engine import refs
from officegym.apps.sheets.engine.values import CellError, Value, parse_input
from officegym.tasks.expect import BLANKS, Claims, Expectation, is_blank
from officegym.tasks.match import squash
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


def _format_problems(
    want: Formats, row: Mapping[str, Any], before: Mapping[str, Any] | None
) -> str:
    """What is wrong with a changed cell's formats given what the task asks (`want`): '' when
    nothing."""
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
        return _format_problems(self.formats, row, before)

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


# ---- acts that make rows: a new sheet, a new workbook, a chart, a pivot table ---------------

_COPIED_SHEET = ("name", "position", "frozen_rows", "filter_range", "filter_json")
_COPIED_CELL = ("raw", "number_format", "bold", "italic", "fill")


def same_name(have: object, want: str) -> bool:
    """Whether a name the user typed is `want` as the product keeps names: whitespace
    squashed, case ignored (as sheet references and the search box ignore it)."""
    return isinstance(have, str) and squash(have).casefold() == squash(want).casefold()


def _filled(table: str, row: Mapping[str, Any]) -> list[str]:
    """Columns of a new row that the product leaves blank but the user filled in."""
    return [
        f"{column}={row[column]!r}"
        for column in sorted(BLANKS.get(table, {}))
        if column in row and not is_blank(table, column, row[column])
    ]


def _claim_stamp(ctx: EpisodeContext, claims: Claims, workbook_id: int) -> bool:
    """Claim the workbook's last-modified stamp (its history rows follow); whether it moved."""
    update = ctx.diff.table("sheets_workbook").updated.get(workbook_id)
    if update is None or "updated_at" not in update.changes:
        return False
    claims.updated.setdefault(("sheets_workbook", workbook_id), set()).add("updated_at")
    return True


def _claim_recomputed(ctx: EpisodeContext, claims: Claims, sheet_ids: Collection[int]) -> None:
    """Claim formula cells of `sheet_ids` whose stored value alone the product recomputed."""
    for pk, update in ctx.diff.table("sheets_cell").updated.items():
        row = update.row
        changed = set(update.changes)
        if (
            row.get("sheet_id") in sheet_ids
            and changed <= _VALUES
            and str(row.get("raw", "")).startswith("=")
        ):
            claims.updated.setdefault(("sheets_cell", pk), set()).update(changed)


def _sheet_ids(conn: sqlite3.Connection, workbook_id: int) -> dict[str, int]:
    return dict(
        conn.execute("SELECT name, id FROM sheets_sheet WHERE workbook_id = ?", (workbook_id,))
    )


def _renamed(book: Book, have: str, want: str) -> Book:
    """`book` with its sheet `have` called `want` (a check reads sheets by the names it asked
    for; the user may have typed another case)."""
    if have == want:
        return book

    def key(k: tuple[str, int, int]) -> tuple[str, int, int]:
        return (want, k[1], k[2]) if k[0] == have else k

    return Book(
        book.id,
        book.name,
        book.today,
        {(want if n == have else n): i for n, i in book.sheet_ids.items()},
        {key(k): v for k, v in book.raw.items()},
        {key(k): v for k, v in book.formats.items()},
        {key(k): v for k, v in book.values.items()},
    )


def grid(book: Book, sheet_name: str, rng: refs.Range) -> list[list[Value]]:
    """The values of `rng` on a sheet as the product reads a range for a chart or a pivot
    table: clipped to the sheet's used area, errors read as empty."""
    used = [(r, c) for (s, r, c) in book.formats if s == sheet_name]
    last_row = max((r for r, _ in used), default=0)
    last_col = max((c for _, c in used), default=0)
    rows = []
    for r in range(rng.r1, min(rng.r2, last_row) + 1):
        row = []
        for c in range(rng.c1, min(rng.c2, last_col) + 1):
            value = book.values.get((sheet_name, r, c))
            row.append(None if isinstance(value, CellError) else value)
        rows.append(row)
    return rows


def _stored_problems(book: Book, rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Cells (diff rows) whose stored value is not what their input computes: a value the
    grid shows that the product did not compute."""
    names = {i: n for n, i in book.sheet_ids.items()}
    problems = []
    for row in rows:
        key = (names.get(row.get("sheet_id"), ""), row.get("row"), row.get("col"))
        shown = loaded(str(row.get("value_type")), row.get("value_num"), row.get("value_text"))
        if not same(shown, book.values.get(key)):
            problems.append(f"{refs.address(key[1], key[2])} shows {shown!r}, not what it computes")
    return problems


class _NewSheet(Expectation):
    def __init__(self, workbook_id, sheet, check, ranges, formats, name, weight, required, core):
        super().__init__(name, weight, required, core)
        self.workbook_id, self.sheet, self.check_book = workbook_id, sheet, check
        self.ranges, self.formats = ranges, formats

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        new = ctx.diff.table("sheets_sheet").inserted
        mine = {
            pk: row for pk, row in sorted(new.items()) if row.get("workbook_id") == self.workbook_id
        }
        made = [pk for pk, row in mine.items() if same_name(row.get("name"), self.sheet)]
        if not made:
            others = ", ".join(repr(row.get("name")) for row in mine.values())
            return False, (
                f"no new sheet named {self.sheet!r} in workbook #{self.workbook_id}"
                + (f"; new sheets: {others}" if others else "")
            )
        pk = made[0]
        real = mine[pk]["name"]
        claims.inserted.add(("sheets_sheet", pk))
        _claim_stamp(ctx, claims, self.workbook_id)
        inner = _Sheet(
            self.workbook_id, real, lambda book: self.check_book(_renamed(book, real, self.sheet)),
            self.ranges, self.formats, self.name, self.weight, self.required, self.core,
        )  # fmt: skip
        passed, detail = inner.evaluate(ctx, claims)
        problems = [f"sheet {f}" for f in _filled("sheets_sheet", mine[pk])]
        cells = [
            c for c in ctx.diff.table("sheets_cell").inserted.values() if c.get("sheet_id") == pk
        ]
        if cells:
            conn = ctx.db()
            try:
                book = Book.load(conn, self.workbook_id, ctx.world_today())
            finally:
                conn.close()
            problems += _stored_problems(book, cells)
        if problems:
            return False, f"{detail}; not as asked: {'; '.join(problems[:4])}"
        return passed, detail


def new_sheet(
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
    """A sheet called `sheet_name` was added to the workbook and, recomputed, the workbook meets
    `check` (which reads the sheet by that name). The new tab is claimed with its cells inside
    `within` (A1 ranges; None: all) that carry only the formats typing implies or `formats`
    asks for; a frozen row or a filter on it, or a cell elsewhere, is not claimed."""
    ranges = None if within is None else region(*within)
    return _NewSheet(
        workbook_id, sheet_name, check, ranges, formats, name or f"new sheet {sheet_name!r}",
        weight, required, core,
    )  # fmt: skip


def _rows(conn: sqlite3.Connection, sql: str, workbook_id: int) -> list[tuple]:
    return sorted(conn.execute(sql, (workbook_id,)).fetchall(), key=repr)


def _copy_problems(conn: sqlite3.Connection, source: int, copy: int) -> list[str]:
    """How workbook `copy` differs from workbook `source` in its sheets, cells, column widths
    and charts (empty when it is a faithful copy)."""
    columns = ", ".join(f"s.{c}" for c in _COPIED_SHEET)
    queries = {
        "sheets": f"SELECT {columns} FROM sheets_sheet s WHERE s.workbook_id = ?",
        "cells": "SELECT s.name, c.row, c.col, "
        + ", ".join(f"c.{c}" for c in _COPIED_CELL)
        + " FROM sheets_cell c JOIN sheets_sheet s ON s.id = c.sheet_id WHERE s.workbook_id = ?",
        "column widths": "SELECT s.name, w.col, w.width FROM sheets_column w "
        "JOIN sheets_sheet s ON s.id = w.sheet_id WHERE s.workbook_id = ?",
        "charts": "SELECT s.name, c.kind, c.title, c.source_range, c.anchor FROM sheets_chart c "
        "JOIN sheets_sheet s ON s.id = c.sheet_id WHERE s.workbook_id = ?",
    }
    problems = []
    for what, sql in queries.items():
        want, have = _rows(conn, sql, source), _rows(conn, sql, copy)
        if want != have:
            missing = [r for r in want if r not in have]
            extra = [r for r in have if r not in want]
            shown = "; ".join(
                [f"missing {r!r}" for r in missing[:2]] + [f"extra {r!r}" for r in extra[:2]]
            )
            problems.append(f"{what} differ from the original ({shown})")
    return problems


class _NewWorkbook(Expectation):
    def __init__(self, owner_id, workbook, check, like, formats, name, weight, required, core):
        super().__init__(name, weight, required, core)
        self.owner_id, self.workbook, self.check_book = owner_id, workbook, check
        self.like, self.formats = like, formats

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        books = ctx.diff.table("sheets_workbook").inserted
        made = sorted(
            pk
            for pk, row in books.items()
            if row.get("owner_id") == self.owner_id and same_name(row.get("name"), self.workbook)
        )
        if len(made) != 1:
            others = ", ".join(repr(row.get("name")) for row in books.values())
            return False, (
                f"expected one new workbook named {self.workbook!r} owned by the user; found "
                f"{len(made)}" + (f" (new workbooks: {others})" if others else "")
            )
        pk = made[0]
        claims.inserted.add(("sheets_workbook", pk))
        problems = _filled("sheets_workbook", books[pk])
        sheets = {
            spk: row
            for spk, row in ctx.diff.table("sheets_sheet").inserted.items()
            if row.get("workbook_id") == pk
        }
        claims.inserted.update(("sheets_sheet", spk) for spk in sheets)
        for table in ("sheets_cell", "sheets_column", "sheets_chart"):
            for cpk, row in ctx.diff.table(table).inserted.items():
                if row.get("sheet_id") not in sheets:
                    continue
                claims.inserted.add((table, cpk))
                if table == "sheets_cell" and self.like is None:
                    problem = _format_problems(self.formats, row, None)
                    if problem:
                        problems.append(f"{refs.address(row['row'], row['col'])} {problem}")
        if self.like is None:
            problems += [
                f"sheet {row.get('name')!r} {', '.join(f)}"
                for row in sheets.values()
                if (f := _filled("sheets_sheet", row))
            ]
        conn = ctx.db()
        try:
            if self.like is not None:
                problems += _copy_problems(conn, self.like, pk)
            book = Book.load(conn, pk, ctx.world_today())
            passed, detail = self.check_book(book)
            problems += _stored_problems(
                book,
                (
                    c
                    for c in ctx.diff.table("sheets_cell").inserted.values()
                    if c.get("sheet_id") in sheets
                ),
            )
        finally:
            conn.close()
        detail = f"workbook #{pk} {books[pk].get('name')!r}: {detail}"
        if problems:
            return False, f"{detail}; not as asked: {'; '.join(problems[:4])}"
        return passed, detail


def new_workbook(
    owner_id: int,
    workbook: str,
    check: Check,
    like: int | None = None,
    formats: Formats = Formats(),
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = True,
) -> Expectation:
    """One new workbook called `workbook`, owned by `owner_id`, whose recomputed model meets
    `check`; it is claimed with its sheets, cells, column widths and charts (its first history
    row follows it). With `like`, it must be a faithful copy of that workbook (every sheet,
    cell, format, width and chart); otherwise its cells carry only the formats typing implies
    (or `formats` asks for) and its sheets no frozen rows or filters."""
    return _NewWorkbook(
        owner_id, workbook, check, like, formats, name or f"new workbook {workbook!r}", weight,
        required, core,
    )  # fmt: skip


def _series_problem(
    have: tuple[list[str], list[tuple[str, list[float | None]]]],
    labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
) -> str:
    got_labels, got_series = have
    if [squash(x) for x in got_labels] != [squash(str(x)) for x in labels]:
        return f"labels {got_labels!r}, expected {list(labels)!r}"
    got = {squash(n).casefold(): values for n, values in got_series}
    want = {squash(n).casefold(): values for n, values in series.items()}
    if set(got) != set(want):
        return f"series {[n for n, _ in got_series]!r}, expected {list(series)!r}"
    for key, values in want.items():
        if len(got[key]) != len(values) or not all(
            same(g, w) if w is not None else g is None
            for g, w in zip(got[key], values, strict=False)
        ):
            return f"series {key!r} is {got[key]!r}, expected {list(values)!r}"
    return ""


class _Chart(Expectation):
    def __init__(
        self, workbook_id, sheet, kind, labels, series, title, anchor, name, weight, required, core
    ):
        super().__init__(name, weight, required, core)
        self.workbook_id, self.sheet, self.kind = workbook_id, sheet, kind
        self.labels, self.series, self.title, self.anchor = (
            list(labels),
            dict(series),
            title,
            anchor,
        )

    def _problems(self, book: Book, row: Mapping[str, Any]) -> list[str]:
        problems = []
        if row.get("kind") != self.kind:
            problems.append(f"kind={row.get('kind')!r}")
        if self.title is not None and not same_name(row.get("title"), self.title):
            problems.append(f"title={row.get('title')!r}")
        if self.anchor is not None and str(row.get("anchor", "")).upper() != self.anchor.upper():
            problems.append(f"anchor={row.get('anchor')!r}")
        source = str(row.get("source_range", ""))
        try:
            found = charts.series_from_range(grid(book, self.sheet, refs.parse_range(source)))
        except (ValueError, KeyError, charts.ChartError):
            problems.append(f"range {source} holds no chart data")
        else:
            problem = _series_problem(found, self.labels, self.series)
            if problem:
                problems.append(f"range {source} shows {problem}")
        return problems

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        conn = ctx.db()
        try:
            sheet_id = _sheet_ids(conn, self.workbook_id).get(self.sheet)
            book = Book.load(conn, self.workbook_id, ctx.world_today()) if sheet_id else None
        finally:
            conn.close()
        if sheet_id is None or book is None:
            return False, f"sheet {self.sheet!r} is not in workbook #{self.workbook_id}"
        made = {
            pk: row
            for pk, row in sorted(ctx.diff.table("sheets_chart").inserted.items())
            if row.get("sheet_id") == sheet_id
        }
        if not made:
            return False, f"no new chart on {self.sheet!r}"
        first = ""
        for pk, row in made.items():
            problems = self._problems(book, row)
            if not problems:
                claims.inserted.add(("sheets_chart", pk))
                _claim_stamp(ctx, claims, self.workbook_id)
                return True, (
                    f"{self.kind} chart #{pk} of {row.get('source_range')} on {self.sheet!r} "
                    "shows the data asked for"
                )
            first = first or f"chart #{pk}: {', '.join(problems)}"
        return False, first


def chart(
    workbook_id: int,
    sheet_name: str,
    kind: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    title: str | None = None,
    anchor: str | None = None,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = True,
) -> Expectation:
    """A new `kind` chart on the sheet whose range, read in the final world the way the
    product reads it (labels down the first column, series across the first row), shows
    exactly `labels` and `series` (name -> values); with `title` and `anchor` (the "Place at
    cell") as asked. Any range that shows the same data passes."""
    return _Chart(
        workbook_id, sheet_name, kind, labels, series, title, anchor,
        name or f"{kind} chart on {sheet_name!r}", weight, required, core,
    )  # fmt: skip


def _header(values: Sequence[Value]) -> list[str]:
    return ["" if v is None else number_text(v) if isinstance(v, float) else str(v) for v in values]


class _Pivot(Expectation):
    def __init__(
        self,
        workbook_id,
        source,
        data,
        target,
        rows,
        columns,
        values,
        filters,
        check,
        name,
        weight,
        required,
        core,
    ):
        super().__init__(name, weight, required, core)
        self.workbook_id, self.source, self.data, self.target = workbook_id, source, data, target
        self.rows, self.columns = list(rows), list(columns)
        self.values = [{"field": f, "function": fn.upper()} for f, fn in values]
        self.filters = {k: sorted(str(x) for x in v) for k, v in (filters or {}).items()}
        self.check_book = check

    def _expected(self, book: Book) -> dict[tuple[int, int], Value]:
        data = grid(book, self.source, refs.parse_range(self.data))
        table = pivots.pivot(
            _header(data[0]), data[1:], self.rows, self.columns,
            [(v["field"], v["function"]) for v in self.values],
            {k: set(v) for k, v in self.filters.items()},
        )  # fmt: skip
        return {
            (r, c): value
            for r, line in enumerate(table, start=1)
            for c, value in enumerate(line, start=1)
            if value is not None and value != ""
        }

    def _definition(self, row: Mapping[str, Any]) -> list[str]:
        problems = []
        try:
            have = {
                "rows": json.loads(row.get("rows_json") or "null"),
                "columns": json.loads(row.get("columns_json") or "null"),
                "values": json.loads(row.get("values_json") or "null"),
                "filters": json.loads(row.get("filters_json") or "null"),
            }
        except ValueError:
            return ["its definition is not readable"]
        want = {
            "rows": self.rows,
            "columns": self.columns,
            "values": self.values,
            "filters": self.filters,
        }
        for key, wanted in want.items():
            if have[key] != wanted:
                problems.append(f"{key}={have[key]!r} (asked {wanted!r})")
        return problems

    def _grid_problems(
        self, book: Book, sheet: str, want: Mapping[tuple[int, int], Value]
    ) -> list[str]:
        have = {
            (r, c): v
            for (s, r, c), v in book.values.items()
            if s == sheet and book.raw.get((s, r, c))
        }
        problems = []
        for key in sorted(set(want) | set(have)):
            if key not in have or key not in want or not same(have[key], want[key]):
                problems.append(
                    f"{refs.address(*key)} is {have.get(key)!r}, expected {want.get(key)!r}"
                )
        return problems

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        conn = ctx.db()
        try:
            ids = _sheet_ids(conn, self.workbook_id)
            book = Book.load(conn, self.workbook_id, ctx.world_today()) if ids else None
        finally:
            conn.close()
        source_id = ids.get(self.source)
        if source_id is None or book is None:
            return False, f"sheet {self.source!r} is not in workbook #{self.workbook_id}"
        made = {
            pk: row
            for pk, row in sorted(ctx.diff.table("sheets_pivot").inserted.items())
            if row.get("source_sheet_id") == source_id
        }
        if not made:
            return False, f"no new pivot table of {self.source!r}"
        try:
            want = self._expected(book)
        except (ValueError, IndexError) as error:
            return False, f"the data asked for cannot be pivoted: {error}"
        new_sheets = ctx.diff.table("sheets_sheet").inserted
        cells = ctx.diff.table("sheets_cell").inserted
        first = ""
        for pk, row in made.items():
            target_id = row.get("target_sheet_id")
            target = new_sheets.get(target_id)
            if target is None or target.get("workbook_id") != self.workbook_id:
                first = first or f"pivot #{pk} is not on a new sheet of the workbook"
                continue
            real = target["name"]
            problems = self._definition(row)
            if not same_name(real, self.target):
                problems.append(f"its sheet is named {real!r}, not {self.target!r}")
            problems += [f"sheet {f}" for f in _filled("sheets_sheet", target)]
            mine = {cpk: c for cpk, c in cells.items() if c.get("sheet_id") == target_id}
            for c in mine.values():
                wanted = {
                    "number_format": None,
                    "bold": c["row"] == 1,
                    "italic": False,
                    "fill": None,
                }
                if any(bool(c.get(k)) != bool(v) for k, v in wanted.items()):
                    problems.append(f"{refs.address(c['row'], c['col'])} has formats of its own")
                    break
            problems += self._grid_problems(book, real, want)[:3]
            problems += _stored_problems(book, mine.values())[:3]
            if problems:
                first = first or f"pivot #{pk}: {'; '.join(problems[:4])}"
                continue
            claims.inserted.update({("sheets_pivot", pk), ("sheets_sheet", target_id)})
            claims.inserted.update(("sheets_cell", cpk) for cpk in mine)
            _claim_stamp(ctx, claims, self.workbook_id)
            _claim_recomputed(ctx, claims, set(ids.values()))
            passed, detail = self.check_book(_renamed(book, real, self.target))
            return passed, f"pivot #{pk} on {real!r}: {detail}"
        return False, first


def pivot(
    workbook_id: int,
    source_sheet: str,
    data: str,
    target: str,
    rows: Sequence[str],
    columns: Sequence[str],
    values: Sequence[tuple[str, str]],
    check: Check,
    filters: Mapping[str, Iterable[object]] | None = None,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = True,
) -> Expectation:
    """A new pivot table of `source_sheet` on a new sheet called `target`, defined as asked
    (`rows` and `columns` fields, `values` as (field, function), `filters`), whose recomputed
    grid is the pivot of the data range `data` (A1, header row first) in the final world —
    so any range holding the same data passes and one that takes in a Total row does not —
    and meets `check` (the per-group figures the task asks for, read from the sheet `target`).
    The pivot, its sheet and the sheet's cells (a bold header row, nothing else) are claimed."""
    return _Pivot(
        workbook_id, source_sheet, data, target, rows, columns, values, filters, check,
        name or f"pivot table of {source_sheet!r} on {target!r}", weight, required, core,
    )  # fmt: skip


class _RenamedSheet(Expectation):
    def __init__(self, workbook_id, sheet_id, old, new, name, weight, required, core):
        super().__init__(name, weight, required, core)
        self.workbook_id, self.sheet_id, self.old, self.new = workbook_id, sheet_id, old, new

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        update = ctx.diff.table("sheets_sheet").updated.get(self.sheet_id)
        if update is None or "name" not in update.changes:
            return False, f"sheet {self.old!r} was not renamed"
        have = update.changes["name"][1]
        if not same_name(have, self.new):
            return False, f"sheet {self.old!r} was renamed {have!r}, not {self.new!r}"
        claims.updated.setdefault(("sheets_sheet", self.sheet_id), set()).add("name")
        _claim_stamp(ctx, claims, self.workbook_id)
        golden, conn = ctx.golden_db(), ctx.db()
        try:
            sheets = set(_sheet_ids(conn, self.workbook_id).values())
            before = Book.load(golden, self.workbook_id, ctx.world_today())
            after = Book.load(conn, self.workbook_id, ctx.world_today())
        finally:
            golden.close()
            conn.close()
        for pk, cell in ctx.diff.table("sheets_cell").updated.items():
            raw = cell.changes.get("raw")
            if (
                cell.row.get("sheet_id") in sheets
                and raw
                and refs.rename_sheet(raw[0], self.old, have) == raw[1]
            ):
                changed = set(cell.changes) & (_VALUES | {"raw"})
                claims.updated.setdefault(("sheets_cell", pk), set()).update(changed)
        _claim_recomputed(ctx, claims, sheets)
        moved = []
        for (s, r, c), v in sorted(before.values.items(), key=lambda kv: repr(kv[0])):
            now = after.values.get((have if s == self.old else s, r, c))
            if not same(now, v):
                moved.append(f"{s}!{refs.address(r, c)} is {now!r}, was {v!r}")
        if moved:
            return False, f"renamed to {have!r}, but values changed: {'; '.join(moved[:3])}"
        return True, f"sheet {self.old!r} renamed {have!r}; every value computes as before"


def renamed_sheet(
    workbook_id: int,
    sheet_id: int,
    old: str,
    new: str,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = True,
) -> Expectation:
    """Sheet `sheet_id` (called `old` at reset) is now called `new`; formulas that name it were
    rewritten by the product (claimed) and every cell of the workbook computes what it did."""
    return _RenamedSheet(
        workbook_id, sheet_id, old, new, name or f"sheet {old!r} renamed {new!r}", weight,
        required, core,
    )  # fmt: skip


class _Stamped(Expectation):
    def __init__(self, workbook_id, name, weight, required, core):
        super().__init__(name, weight, required, core)
        self.workbook_id = workbook_id

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        if _claim_stamp(ctx, claims, self.workbook_id):
            return True, f"workbook #{self.workbook_id} records the act"
        return False, f"workbook #{self.workbook_id} records no act"


def stamped(
    workbook_id: int,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = False,
) -> Expectation:
    """The workbook records an act (its last-modified time moved; the history row follows):
    claims the stamp that sharing and other acts on a workbook's own rows leave."""
    return _Stamped(workbook_id, name or "the workbook records the act", weight, required, core)


__all__ = [
    "Formats",
    "chart",
    "grid",
    "live",
    "new_sheet",
    "new_workbook",
    "pivot",
    "region",
    "renamed_sheet",
    "same",
    "same_name",
    "sheet",
    "stamped",
]
