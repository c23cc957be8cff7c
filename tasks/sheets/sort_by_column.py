"""sheets.sort_by_column — sort a sheet's data rows by one column, A→Z or Z→A.

The header row stays on top and the rows under the table (Total, Average) stay where they are;
the Sort range page sorts a typed range by a chosen column ("Data has a header row"), while
the page's default range (the whole used area) would drag the Total row into the data. The
verifier recomputes the workbook: the data rows must be the original rows (whole rows of
computed values, so formulas still compute their own row) in the asked order, ties in any
order, with the header and the rows below untouched, and every stored value what its input
computes. Tables of at most 40 data rows (see `MAX_ROWS`). One instance in six is asked by
someone who may only view the workbook: the right move is `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Mapping
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.apps.sheets.engine.values import CellError, Value
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import Table, editors, tables, unique_workbook, viewers
from ._model import Book
from ._stored_values import forged
from .base import SheetsTemplate
from .ui import fill_form, open_sheet, open_tool, open_workbook, submit

# The product's sort rewrites every cell of the range and takes seconds for a few dozen rows
# (about 10 s for 115 on a busy machine), longer than a page is waited for.
MAX_ROWS = 41
ORDERS = {"asc": "A → Z (smallest first)", "desc": "Z → A (largest first)"}
# How people say the order, by what the column holds.
_WORDS = {
    ("text", "asc"): ("A to Z", "alphabetically"),
    ("text", "desc"): ("Z to A", "in reverse alphabetical order"),
    ("number", "asc"): ("smallest first", "ascending"),
    ("number", "desc"): ("largest first", "descending"),
    ("date", "asc"): ("oldest first", "earliest first"),
    ("date", "desc"): ("newest first", "latest first"),
}
_KEEP = {
    True: "Keep the header row on top and the Total row at the bottom.",
    False: "Keep the header row on top.",
}
_PHRASINGS = (
    "Sort the {sheet} sheet of “{workbook}” by {header}, {word}. {keep}",
    "Could you put the rows of {sheet} in “{workbook}” in {header} order, {word}? {keep}",
    "In “{workbook}”, reorder the data on the {sheet} sheet by the {header} column ({word}). "
    "{keep}",
)


def _key(value: Value) -> tuple[int, float, str]:
    """How the product orders a value: numbers, then text (any case), then blanks."""
    if value is None or value == "":
        return (2, 0.0, "")
    if isinstance(value, bool | int | float):
        return (0, float(value), "")
    return (1, 0.0, str(value).casefold())


def _in_order(keys: list[tuple[int, float, str]], order: str) -> bool:
    pairs = zip(keys, keys[1:], strict=False)
    return all(a <= b for a, b in pairs) if order == "asc" else all(a >= b for a, b in pairs)


def _cell(value: Value) -> Any:
    """A computed value made comparable across workbooks (floats rounded, errors by code)."""
    if isinstance(value, CellError):
        return ("error", value.code)
    if isinstance(value, float):
        return round(value, 9)
    return value


def _row(book: Book, sheet: str, row: int, width: int) -> tuple[Any, ...]:
    return tuple(_cell(book.values.get((sheet, row, col))) for col in range(1, width + 1))


def _block_width(world: sqlite3.Connection, table: Table) -> int:
    """How many columns the table has: the header cells from A with no gap."""
    cols = {c for (c,) in world.execute(
        "SELECT col FROM sheets_cell WHERE sheet_id = ? AND row = 1 AND raw != ''",
        (table.sheet_id,),
    )}  # fmt: skip
    width = 0
    while width + 1 in cols:
        width += 1
    return width


def _column(world: sqlite3.Connection, table: Table, col: int) -> list[Value]:
    values: list[Value] = []
    for kind, num, text in world.execute(
        "SELECT value_type, value_num, value_text FROM sheets_cell WHERE sheet_id = ? AND col = ? "
        "AND row BETWEEN 2 AND ? ORDER BY row",
        (table.sheet_id, col, table.last),
    ):
        values.append(num if kind == "number" else text if kind == "text" else None)
    return values


def _sortable(world: sqlite3.Connection, table: Table, col: int) -> bool:
    """Every data row has a value in the column, all numbers or all text, several distinct."""
    values = _column(world, table, col)
    kinds = {_key(v)[0] for v in values}
    return len(values) == table.last - 1 and kinds in ({0}, {1}) and len(set(values)) >= 3


def _kind(world: sqlite3.Connection, table: Table, col: int) -> str:
    """Whether a sortable column holds text, dates or other numbers."""
    (fmt, kind) = world.execute(
        "SELECT number_format, value_type FROM sheets_cell WHERE sheet_id = ? AND col = ? "
        "AND row = 2",
        (table.sheet_id, col),
    ).fetchone()
    if kind == "text":
        return "text"
    return "date" if fmt and "yy" in fmt else "number"


@register
class SortByColumn(SheetsTemplate):
    id = "sheets.sort_by_column"
    difficulty = 2
    difficulty_reason = (
        "the Sort range page with the range retyped to leave out the Total row, a column "
        "picked by letter and header, and the order"
    )
    impossible_instances = True
    tags = ("sort-filter", "navigation")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world):
            if not 5 <= table.last <= MAX_ROWS or not unique_workbook(world, table.workbook):
                continue
            width = _block_width(world, table)
            for col in range(1, width + 1):
                if not _sortable(world, table, col):
                    continue
                keys = [_key(v) for v in _column(world, table, col)]
                for order in ("asc", "desc"):
                    if not _in_order(keys, order):
                        options.append((table, width, col, order))
        table, width, col, order = rng.choice(options)
        feasible = rng.random() >= 1 / 6
        people = (
            editors(world, table.workbook_id) if feasible else viewers(world, table.workbook_id)
        )
        if not people:
            feasible, people = True, editors(world, table.workbook_id)
        _, email = rng.choice(people)
        end = refs.column_letters(width)
        decoy = None
        if feasible:
            # Sorting the same rows by another column, when that does not happen to put the
            # asked column in order too.
            others = []
            for other in range(1, width + 1):
                if other == col or not _sortable(world, table, other):
                    continue
                pairs = list(
                    zip(_column(world, table, other), _column(world, table, col), strict=True)
                )
                pairs.sort(key=lambda p: _key(p[0]), reverse=order == "desc")
                if not _in_order([_key(v) for _o, v in pairs], order):
                    others.append(other)
            if others:
                wrong = rng.choice(others)
                decoy = {
                    "letter": refs.column_letters(wrong),
                    "header": table.headers[wrong - 1],
                }
        return {
            "user": email,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "sheet": table.sheet,
            "header": table.headers[col - 1],
            "col": col,
            "letter": refs.column_letters(col),
            "width": width,
            "last": table.last,
            "total_row": table.total_row,
            "kind": _kind(world, table, col),
            "range": f"A1:{end}{table.last}",
            "order": order,
            "feasible": feasible,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        word = rng.choice(_WORDS[params["kind"], params["order"]])
        keep = _KEEP[params["total_row"] > 0]
        return rng.choice(_PHRASINGS).format(word=word, keep=keep, **params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, params["sheet"])
        if not params["feasible"]:
            actions.report_infeasible(
                f"“{params['workbook']}” is shared with me as view only, so I can't sort it."
            )
            return
        open_tool(actions, "Sort range")
        fill_form(actions, {"Range": params["range"]})
        submit(actions, "Use this range")
        fill_form(
            actions,
            {
                "Sort by": f"Column {params['letter']} ({params['header']})",
                "Order": ORDERS[params["order"]],
            },
        )
        submit(actions, "Sort")
        actions.send_msg_to_user(
            f"Sorted {params['sheet']} by {params['header']} ({params['range']})."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        sheet, width, last = params["sheet"], params["width"], params["last"]
        conn = ctx.golden_db()
        try:
            before = Book.load(conn, params["workbook_id"], ctx.world_today())
        finally:
            conn.close()
        end = refs.column_letters(width)

        def sorted_rows(book: Book) -> tuple[bool, str]:
            rows = [_row(book, sheet, r, width) for r in range(2, last + 1)]
            if Counter(rows) != Counter(_row(before, sheet, r, width) for r in range(2, last + 1)):
                return False, f"rows 2-{last} are not the original rows, each once and whole"
            keys = [_key(book.values.get((sheet, r, params["col"]))) for r in range(2, last + 1)]
            if not _in_order(keys, params["order"]):
                return False, f"rows 2-{last} are not in {params['header']} order"
            for (name, row, col), raw in before.raw.items():
                key = (name, row, col)
                kept = book.raw.get(key) == raw and _cell(book.values.get(key)) == _cell(
                    before.values.get(key)
                )
                if name == sheet and (row == 1 or row > last) and not kept:
                    where = refs.address(row, col)
                    return False, f"{where} changed; the header and the rows below stay"
            conn = ctx.db()
            try:
                bad = forged(conn, book, sheet)
            finally:
                conn.close()
            if bad:
                return False, bad
            return True, f"rows 2-{last} sorted by {params['header']} ({params['order']})"

        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], sheet, sorted_rows, within=[f"A2:{end}{last}"],
                name=f"{sheet} sorted by {params['header']}",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["SortByColumn"]
