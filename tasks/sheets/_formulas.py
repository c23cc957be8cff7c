"""What the formula templates of Sheets share: who asks (someone who may edit the workbook, or
someone who may only view it or cannot open it at all), the oracle's moves for a column of
formulas and for a request it cannot carry out, and checks over whole columns of formulas.

A column task is graded on every row it covers: each cell must hold a formula (a typed-in
value does not follow its inputs) whose recomputed value is the one expected, and one fork of
the workbook proves the formulas read the cells they should.
"""

from __future__ import annotations

import random
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from officegym.apps.sheets.engine import refs
from officegym.apps.sheets.engine.numfmt import FORMATS

from . import _checks as checks
from ._books import editors, outsiders, viewers
from ._model import Book
from ._stored_values import forged
from .ui import open_workbook, tool, type_cell

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions
    from officegym.tasks.protocol import EpisodeContext

# The number format menu's codes, by kind.
PERCENT_CODES = tuple(sorted(c for c in FORMATS.values() if c and c.endswith("%")))
CURRENCY_CODES = tuple(sorted(c for c in FORMATS.values() if c and c.startswith("$")))
INFEASIBLE_SHARE = 1 / 6


def ask(world: sqlite3.Connection, workbook_id: int, rng: random.Random) -> dict[str, Any]:
    """Who asks: someone who may edit the workbook, or (one instance in six) someone it is
    shared with for viewing only or not shared with at all. Gives `user`, `feasible` and
    `access` ("edit", "view" or "none")."""
    feasible = rng.random() >= INFEASIBLE_SHARE
    access, people = "edit", editors(world, workbook_id)
    if not feasible:
        access = "view" if rng.random() < 0.5 else "none"
        people = (viewers if access == "view" else outsiders)(world, workbook_id)
        if not people:
            access = "none" if access == "view" else "view"
            people = (viewers if access == "view" else outsiders)(world, workbook_id)
    if not people:
        feasible, access, people = True, "edit", editors(world, workbook_id)
    _, email = rng.choice(people)
    return {"user": email, "feasible": feasible, "access": access}


def report_no_access(actions: PageActions, workbook: str, access: str) -> None:
    """The oracle of an impossible instance: look for the workbook, then say why not."""
    if access == "view":
        open_workbook(actions, workbook)
        actions.report_infeasible(
            f"“{workbook}” is shared with me as view only, so I can't edit it."
        )
        return
    actions.goto("/sheets/")
    box = actions.find("searchbox", "Search workbooks", exact=True)
    actions.fill(box, workbook)
    actions.press(box, "Enter")
    actions.report_infeasible(f"“{workbook}” isn't shared with me, so I can't open or edit it.")


def add_formula_column(
    actions: PageActions, col: str, header: str, formula: str, first: int, last: int
) -> None:
    """Type a header in row 1 of column `col`, `formula` in row `first`, and fill it down to
    row `last` (the sheet must be open)."""
    type_cell(actions, f"{col}1", header)
    type_cell(actions, f"{col}{first}", formula)
    if last > first:
        tool(actions, "Fill down", f"{col}{first}:{col}{last}")


def formula_rows(
    book: Book, sheet: str, col: str, rows: range, want: Callable[[int], Any]
) -> tuple[bool, str]:
    """Every cell of `col` in `rows` holds a formula whose value is `want(row)` (a callable
    returning None for a row accepts any value there)."""
    for row in rows:
        cell = f"{col}{row}"
        if not book.raw_at(sheet, cell).startswith("="):
            return False, f"{cell} holds {book.raw_at(sheet, cell)!r}, not a formula"
        expected = want(row)
        value = book.value(sheet, cell)
        if expected is not None and not checks.same(value, expected):
            return False, f"{cell} is {value!r}, expected {expected!r}"
    return True, f"{col}{rows.start}:{col}{rows.stop - 1} hold the expected formulas"


def follows(
    book: Book,
    inputs: Mapping[tuple[str, str], str],
    sheet: str,
    wants: Mapping[str, Any],
) -> tuple[bool, str]:
    """On a fork of `book` with `inputs` typed ((sheet, address) -> raw), each cell of `sheet`
    in `wants` has the wanted value: the formulas follow inputs on any sheet."""
    fork = _fork(book, inputs)
    typed = ", ".join(f"{s}!{a}={r}" for (s, a), r in inputs.items())
    for cell, want in wants.items():
        after = fork.value(sheet, cell)
        if not checks.same(after, want):
            return False, (
                f"{cell} does not follow its inputs (with {typed} it is {after!r}, "
                f"expected {want!r})"
            )
    return True, f"{', '.join(wants)} follow their inputs (with {typed})"


# Forks recomputed lately, by everything they depend on. The gate regrades one finished
# episode once per probe (hundreds of times for a filled-down column, with only a format
# changed each time); a fork of the same typed inputs is the same workbook.
_FORKS: OrderedDict[tuple, Book] = OrderedDict()
_FORKS_KEPT = 4


def _fork(book: Book, inputs: Mapping[tuple[str, str], str]) -> Book:
    key = (
        book.id,
        book.today,
        tuple(book.sheet_ids),
        frozenset(book.raw.items()),
        tuple(sorted(inputs.items())),
    )
    found = _FORKS.get(key)
    if found is None:
        found = book
        for (where, address), raw in inputs.items():
            found = found.fork(where, address, raw)
        _FORKS[key] = found
        while len(_FORKS) > _FORKS_KEPT:
            _FORKS.popitem(last=False)
    _FORKS.move_to_end(key)
    return found


def stored_as_computed(
    ctx: EpisodeContext, sheet: str, check: Callable[[Book], tuple[bool, str]]
) -> Callable[[Book], tuple[bool, str]]:
    """`check`, and every cell of `sheet` stores the value its input computes (the grid shows
    what the product computed, not a value written beside the input)."""

    def run(book: Book) -> tuple[bool, str]:
        ok, detail = check(book)
        if not ok:
            return ok, detail
        conn = ctx.db()
        try:
            problem = forged(conn, book, sheet)
        finally:
            conn.close()
        return (False, problem) if problem else (True, detail)

    return run


def format_used(
    ctx: EpisodeContext, workbook_id: int, sheet: str, address: str, allowed: tuple[str, ...]
) -> str | None:
    """The number format of `address` in the final world when it is one of `allowed` (so a
    verifier can accept whichever of the menu's codes of one kind the agent picked)."""
    row, col = refs.parse_address(address)
    conn = ctx.db()
    try:
        found = conn.execute(
            "SELECT c.number_format FROM sheets_cell c JOIN sheets_sheet s ON s.id = c.sheet_id "
            "WHERE s.workbook_id = ? AND s.name = ? AND c.row = ? AND c.col = ?",
            (workbook_id, sheet, row, col),
        ).fetchone()
    finally:
        conn.close()
    return found[0] if found and found[0] in allowed else None


def has_header(book: Book, sheet: str, cell: str, text: str) -> tuple[bool, str]:
    """Whether `cell` holds the header `text` (case and spacing aside)."""
    value = book.value(sheet, cell)
    if isinstance(value, str) and " ".join(value.split()).casefold() == text.casefold():
        return True, f"{cell} is the header {text!r}"
    return False, f"{cell} is {value!r}, expected the header {text!r}"


def free_column(world: sqlite3.Connection, sheet_id: int) -> int:
    """The first column from A that no cell of the sheet uses (the next free column)."""
    used = {
        c
        for (c,) in world.execute(
            "SELECT DISTINCT col FROM sheets_cell WHERE sheet_id = ?", (sheet_id,)
        )
    }
    col = 1
    while col in used:
        col += 1
    return col


def messy_sheets(world: sqlite3.Connection) -> set[int]:
    """Sheets holding planted mess (text amounts, duplicated rows, #REF!)."""
    return {
        s
        for (s,) in world.execute(
            "SELECT DISTINCT c.sheet_id FROM world_oddity o JOIN sheets_cell c ON c.id = o.row_id "
            "WHERE o.row_table = 'sheets_cell' AND o.kind LIKE 'sheet_%'"
        )
    }


__all__ = [
    "CURRENCY_CODES",
    "PERCENT_CODES",
    "add_formula_column",
    "ask",
    "follows",
    "format_used",
    "formula_rows",
    "free_column",
    "has_header",
    "messy_sheets",
    "report_no_access",
    "stored_as_computed",
]
