"""sheets.clean_text_numbers — turn Amounts typed as text back into numbers so the Total is right.

The world's first pipeline workbook has Amount cells typed as text (`'85500`; `world_oddity`
kind `sheet_text_number`): they show like the others, but the Total's SUM leaves them out, so
it falls short of the CRM. The agent finds them and makes them numbers (retyping the figure is
enough; the cell keeps its currency format).

The verifier recomputes the workbook: each of those cells holds the number it showed as text,
the Total equals the sum of every deal's Amount (what the CRM says for these deals), and
nothing else changed. The goal does not say which rows; the agent must find them. One instance
in six is asked by someone who may only view the workbook, or cannot open it:
`report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext, TaskError
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import tables, unique_workbook
from ._formulas import ask, report_no_access, stored_as_computed
from .base import SheetsTemplate
from .ui import open_workbook, type_cell

SHEET = "Pipeline"
_PHRASINGS = (
    "The Total in “{workbook}” doesn't match the CRM — I think some Amounts are stored as text. "
    "Can you make them real numbers so the Total is right?",
    "A few deal amounts in “{workbook}” were pasted as text and the Amount total leaves them "
    "out. Please fix those cells so they count.",
    "“{workbook}”: the Amount column's Total is too low compared with the CRM because some "
    "amounts are text, not numbers. Could you convert them?",
    "Before the forecast call: some Amount cells in “{workbook}” are text, so the Total "
    "misses them. Turn them into numbers.",
    "The pipeline total in “{workbook}” is short — a couple of Amounts are stored as text. "
    "Fix those cells, please.",
    "Can you clean up “{workbook}”? A few Amounts were typed as text and the Total ignores them.",
    "“{workbook}” undercounts the pipeline: some Amounts are text. Make them numbers so the "
    "Total matches the CRM.",
    "Please convert the Amount cells stored as text in “{workbook}” into numbers so they are "
    "in the Total.",
    "Some deal amounts in “{workbook}” are left-aligned text, not numbers, and the Total "
    "skips them. Could you fix them?",
    "The CRM and “{workbook}” disagree on the pipeline total. I think text Amounts are the "
    "cause — make them real numbers.",
)


@register
class CleanTextNumbers(SheetsTemplate):
    id = "sheets.clean_text_numbers"
    difficulty = 3
    difficulty_reason = (
        "the cells look like every other amount: the agent must find which ones are text (the "
        "formula bar shows a leading apostrophe) and retype them, touching nothing else"
    )
    impossible_instances = True
    cardinality = (10, "one workbook with text amounts per world; instances differ in who asks")
    tags = ("cleanup", "navigation")
    max_steps = 25

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        found = world.execute(
            """
            SELECT s.workbook_id, c.sheet_id, c.row, c.col, c.raw FROM world_oddity o
            JOIN sheets_cell c ON c.id = o.row_id JOIN sheets_sheet s ON s.id = c.sheet_id
            JOIN sheets_workbook w ON w.id = s.workbook_id
            WHERE o.kind = 'sheet_text_number' AND o.row_table = 'sheets_cell'
            AND w.trashed_at IS NULL AND s.name = ? ORDER BY o.id
            """,
            (SHEET,),
        ).fetchall()
        by_sheet: dict[int, list[tuple[int, int, str]]] = {}
        for _workbook_id, sheet_id, row, col, raw in found:
            by_sheet.setdefault(sheet_id, []).append((row, col, raw))
        options = [
            t
            for t in tables(world, SHEET)
            if t.sheet_id in by_sheet and t.total_row and unique_workbook(world, t.workbook)
        ]
        if not options:
            raise TaskError(f"{self.id}: the world has no pipeline with amounts typed as text")
        table = rng.choice(options)
        cells = sorted(by_sheet[table.sheet_id])
        fixes = {refs.address(r, c): raw.removeprefix("'") for r, c, raw in cells}
        amounts = [
            float(raw.removeprefix("'"))
            for (raw,) in world.execute(
                "SELECT raw FROM sheets_cell WHERE sheet_id = ? AND col = 5 "
                "AND row BETWEEN 2 AND ?",
                (table.sheet_id, table.last),
            )
        ]
        who = ask(world, table.workbook_id, rng)
        first = sorted(fixes)[0]
        return {
            **who,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "fixes": fixes,
            "total_cell": f"E{table.total_row}",
            "total": sum(amounts),
            # The wrong-record probe fixes only the first of the text amounts.
            "decoy": {"fixes": {first: fixes[first]}}
            if who["feasible"] and len(fixes) > 1
            else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        open_workbook(actions, params["workbook"])
        for address, number in sorted(params["fixes"].items()):
            type_cell(actions, address, number)
        actions.send_msg_to_user(
            f"Retyped {', '.join(sorted(params['fixes']))} as numbers; the Total now includes them."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        fixes, total_cell, total = params["fixes"], params["total_cell"], params["total"]

        def numbers(book) -> tuple[bool, str]:
            for address, number in sorted(fixes.items()):
                value = book.value(SHEET, address)
                if isinstance(value, bool) or not isinstance(value, int | float):
                    return False, f"{address} holds {value!r}, not a number"
                if not checks.same(value, float(number)):
                    return False, f"{address} is {value!r}, expected {float(number):g}"
            found = book.value(SHEET, total_cell)
            if not checks.same(found, total):
                return False, f"the Total {total_cell} is {found!r}, expected {total:g}"
            return True, f"{', '.join(sorted(fixes))} are numbers; the Total is {total:g}"

        numbers = stored_as_computed(ctx, SHEET, numbers)
        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], SHEET, numbers, within=sorted(fixes),
                name="text amounts are numbers again",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["CleanTextNumbers"]
