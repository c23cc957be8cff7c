"""sheets.freeze_and_currency — freeze a sheet's header row and show one money column as
currency with cents.

The world's money columns already show whole dollars (`$#,##0`, the menu's "Currency (no
decimals)"), so the asked format is the menu's "Currency" (`$#,##0.00`): accepting either
would let the untouched column pass. The verifier wants the sheet's `frozen_rows` at 1 and
every data cell of the column in `$#,##0.00` (the Total row's cell may keep whole dollars),
every value of the column unchanged, and no other cell touched. One instance in six is asked
by someone who may only view the workbook: the right move is `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.apps.sheets.engine.numfmt import FORMATS
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import editors, tables, unique_workbook, viewers
from ._model import Book
from ._stored_values import forged
from .base import SheetsTemplate
from .ui import number_format, open_sheet, open_workbook, tool

MENU = "Currency"
CENTS = FORMATS[MENU]
WHOLE = FORMATS["Currency (no decimals)"]
_PHRASINGS = (
    "On the {sheet} sheet of “{workbook}”, freeze the header row and format the {header} "
    "column as currency with cents.",
    "Two things in “{workbook}” ({sheet} sheet): keep the header row frozen while scrolling, "
    "and show the {header} figures as currency with two decimals.",
    "Please freeze row 1 of {sheet} in “{workbook}” and switch the {header} column to the "
    "Currency format (dollars and cents).",
)


@register
class FreezeAndCurrency(SheetsTemplate):
    id = "sheets.freeze_and_currency"
    difficulty = 2
    difficulty_reason = (
        "two toolbar acts on one named sheet: freeze the header row, then select the "
        "column's data cells and pick Currency from the number format menu"
    )
    impossible_instances = True
    tags = ("format", "navigation")
    max_steps = 18

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world):
            (frozen,) = world.execute(
                "SELECT frozen_rows FROM sheets_sheet WHERE id = ?", (table.sheet_id,)
            ).fetchone()
            if frozen or not unique_workbook(world, table.workbook):
                continue
            for col, header in enumerate(table.headers, start=1):
                formats = world.execute(
                    "SELECT number_format FROM sheets_cell WHERE sheet_id = ? AND col = ? "
                    "AND row BETWEEN 2 AND ?",
                    (table.sheet_id, col, table.last),
                ).fetchall()
                if len(formats) == table.last - 1 and {f for (f,) in formats} == {WHOLE}:
                    options.append((table, col, header))
        table, col, header = rng.choice(options)
        feasible = rng.random() >= 1 / 6
        people = (
            editors(world, table.workbook_id) if feasible else viewers(world, table.workbook_id)
        )
        if not people:
            feasible, people = True, editors(world, table.workbook_id)
        _, email = rng.choice(people)
        (bottom,) = world.execute(
            "SELECT max(row) FROM sheets_cell WHERE sheet_id = ? AND col = ?",
            (table.sheet_id, col),
        ).fetchone()
        letter = refs.column_letters(col)
        decoys = [
            t
            for t, c, h in options
            if t.workbook_id != table.workbook_id and t.sheet == table.sheet
        ]
        decoy = None
        if feasible and decoys:
            other = rng.choice(decoys)
            decoy = {"workbook": other.workbook}
        return {
            "user": email,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "sheet_id": table.sheet_id,
            "sheet": table.sheet,
            "header": header,
            "col": col,
            "letter": letter,
            "last": table.last,
            "bottom": bottom,
            "feasible": feasible,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, params["sheet"])
        if not params["feasible"]:
            actions.report_infeasible(
                f"“{params['workbook']}” is shared with me as view only, so I can't change it."
            )
            return
        tool(actions, "Freeze header row")
        letter = params["letter"]
        number_format(actions, f"{letter}2:{letter}{params['last']}", MENU)
        actions.send_msg_to_user(
            f"Froze the header row of {params['sheet']} and formatted {params['header']} as "
            "currency."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        sheet, col, last = params["sheet"], params["col"], params["last"]
        conn = ctx.golden_db()
        try:
            before = Book.load(conn, params["workbook_id"], ctx.world_today())
        finally:
            conn.close()

        def in_currency(book: Book) -> tuple[bool, str]:
            for row in range(1, params["bottom"] + 1):
                key = (sheet, row, col)
                where = refs.address(row, col)
                if book.raw.get(key) != before.raw.get(key):
                    return False, f"{where} now holds {book.raw.get(key)!r}; values stay"
                fmt = book.formats.get(key)
                if 2 <= row <= last and fmt != CENTS:
                    return False, f"{where} has the format {fmt!r}, not {CENTS!r}"
                if row > last and key in before.raw and fmt not in (CENTS, WHOLE):
                    return False, f"{where} lost its currency format ({fmt!r})"
            conn = ctx.db()
            try:
                bad = forged(conn, book, sheet)
            finally:
                conn.close()
            if bad:
                return False, bad
            return True, f"{params['header']} rows 2-{last} show {CENTS}"

        letter = params["letter"]
        return expect.grade(
            ctx,
            expect.updated(
                "sheets_sheet", params["sheet_id"], frozen_rows=1,
                name=f"the header row of {sheet} is frozen",
            ),
            checks.sheet(
                params["workbook_id"], sheet, in_currency,
                within=[f"{letter}1:{letter}{params['bottom']}"],
                formats=checks.Formats(number_format=CENTS),
                name=f"{params['header']} shows currency with cents",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["FreezeAndCurrency"]
