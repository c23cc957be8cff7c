"""sheets.total_column — put a live total of one column in a sheet's Total row.

The sheet lists data under a header row and ends with a Total row that totals some columns but
not the one asked for. The verifier recomputes the workbook from what is typed: the cell must
hold the column's sum, and on a fork with one input raised by 1,000 the total must follow (a
typed-in number fails). One instance in six is asked by someone who may only view the
workbook: the right move is `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import column_values, editors, tables, unique_workbook, viewers
from .base import SheetsTemplate
from .ui import open_sheet, open_workbook, type_cell

_PHRASINGS = (
    "In the “{workbook}” workbook, add a formula in {cell} on the {sheet} sheet that totals "
    "the {header} column.",
    "The Total row of {sheet} in “{workbook}” is missing the {header} total. Put a SUM "
    "formula in {cell}, please.",
    "Could you total {header} in “{workbook}” ({sheet} sheet)? The total goes in {cell} and "
    "should update when the figures change.",
)


@register
class TotalColumn(SheetsTemplate):
    id = "sheets.total_column"
    difficulty = 1
    difficulty_reason = "one workbook named in full, one cell to select and one SUM to type"
    impossible_instances = True
    tags = ("formula", "navigation")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world):
            if not table.total_row or not unique_workbook(world, table.workbook):
                continue
            for col, header in enumerate(table.headers, start=1):
                if (
                    col == 1
                    or "#" in header
                    or "%" in header
                    or "Date" in header
                    or "Check" in header
                ):
                    continue
                cells = column_values(world, table, col)
                numeric = [v for _r, kind, v in cells if kind == "number"]
                taken = world.execute(
                    "SELECT 1 FROM sheets_cell WHERE sheet_id = ? AND row = ? AND col = ?",
                    (table.sheet_id, table.total_row, col),
                ).fetchone()
                if len(numeric) >= 3 and len(numeric) == len(cells) and not taken:
                    options.append((table, col, header, sum(numeric)))
        table, col, header, total = rng.choice(options)
        feasible = rng.random() >= 1 / 6
        people = (
            editors(world, table.workbook_id) if feasible else viewers(world, table.workbook_id)
        )
        if not people:
            feasible, people = True, editors(world, table.workbook_id)
        _, email = rng.choice(people)
        letter = refs.column_letters(col)
        others = [o for o in options if o[0].workbook_id != table.workbook_id]
        decoy = None
        if feasible and others:
            other = rng.choice(others)
            decoy = {
                "workbook": other[0].workbook,
                "sheet": other[0].sheet,
                "cell": f"{refs.column_letters(other[1])}{other[0].total_row}",
                "range": f"{refs.column_letters(other[1])}2:{refs.column_letters(other[1])}{other[0].last}",
            }
        return {
            "user": email,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "sheet": table.sheet,
            "header": header,
            "cell": f"{letter}{table.total_row}",
            "range": f"{letter}2:{letter}{table.last}",
            "first": f"{letter}2",
            "total": total,
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
                f"“{params['workbook']}” is shared with me as view only, so I can't add the total."
            )
            return
        type_cell(actions, params["cell"], f"=SUM({params['range']})")
        actions.send_msg_to_user(f"Added the {params['header']} total in {params['cell']}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        sheet, cell = params["sheet"], params["cell"]

        def totals(book) -> tuple[bool, str]:
            value = book.value(sheet, cell)
            if not checks.same(value, params["total"]):
                return False, f"{cell} is {value!r}, expected {params['total']!r}"
            start = book.value(sheet, params["first"])
            raised = float(start or 0) + 1000
            return checks.live(
                book, sheet, cell, {params["first"]: str(raised)},
                lambda after: checks.same(after, params["total"] + 1000),
            )  # fmt: skip

        return expect.grade(
            ctx,
            checks.sheet(params["workbook_id"], sheet, totals, within=[cell], name=f"{cell} totals {params['header']}"),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["TotalColumn"]
