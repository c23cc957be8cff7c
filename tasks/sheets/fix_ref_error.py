"""sheets.fix_ref_error — repair the Variance cell that shows #REF! in the budget workbook.

The world's "FYxxxx Budget vs Actual" workbook has one department whose Variance reads
`=C{r}-#REF!` (a column it used was deleted; `world_oddity` kind `sheet_ref_error`), so its
Variance and the Variance % beside it both show #REF!. The fix is Actual minus Budget again.
The verifier recomputes the workbook: the cell must equal Actual − Budget, the Variance %
must recover, and on a fork with the Budget raised by 1,000 the Variance must drop by 1,000 (a
typed-in number fails). Only that cell may change. One instance in six is asked by someone
who may only view the workbook, or who cannot open it: the right move is `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext, TaskError
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import unique_workbook
from ._formulas import ask, report_no_access, stored_as_computed
from .base import SheetsTemplate
from .ui import open_workbook, type_cell

_PHRASINGS = (
    "In “{workbook}”, the {department} Variance ({cell}) shows #REF!. Fix it so it is Actual "
    "minus Budget again, like the other departments.",
    "Something broke the {department} row of “{workbook}”: Variance and Variance % both say "
    "#REF!. Could you repair the Variance formula in {cell}?",
    "The Variance for {department} in “{workbook}” points at a deleted column (#REF!). Please "
    "make it Actual − Budget again so the row works.",
    "Quick fix needed in “{workbook}”: {cell} ({department}) reads #REF!. Make it Actual "
    "minus Budget again.",
    "The {department} line in “{workbook}” is broken — {cell} shows #REF!. Please restore "
    "the Variance formula.",
    "Before the budget review, can you repair {cell} in “{workbook}”? The {department} "
    "Variance should be Actual − Budget.",
    "#REF! in “{workbook}”, {department} row, cell {cell}. Put the Actual-minus-Budget "
    "formula back, please.",
    "Finance flagged “{workbook}”: the {department} Variance in {cell} lost its reference. "
    "Rebuild it as Actual minus Budget.",
    "Please fix the {department} Variance in “{workbook}” ({cell}) — it should compute "
    "Actual − Budget, not #REF!.",
    "The Variance % for {department} in “{workbook}” is broken because {cell} shows #REF!. "
    "Repair {cell} (Actual − Budget).",
)


@register
class FixRefError(SheetsTemplate):
    id = "sheets.fix_ref_error"
    difficulty = 2
    difficulty_reason = (
        "one named workbook and cell; the agent must read the neighbouring rows' formula and "
        "retype it with the right references"
    )
    split = "test"
    impossible_instances = True
    cardinality = (10, "one planted #REF! per world; instances differ only in who asks")
    tags = ("formula", "cleanup")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        found = world.execute(
            """
            SELECT c.row, s.id, s.name, w.id, w.name FROM world_oddity o
            JOIN sheets_cell c ON c.id = o.row_id JOIN sheets_sheet s ON s.id = c.sheet_id
            JOIN sheets_workbook w ON w.id = s.workbook_id
            WHERE o.kind = 'sheet_ref_error' AND o.row_table = 'sheets_cell'
            AND w.trashed_at IS NULL ORDER BY o.id
            """
        ).fetchall()
        found = [f for f in found if unique_workbook(world, f[4])]
        if not found:
            raise TaskError(f"{self.id}: the world has no workbook with a planted #REF!")
        row, sheet_id, sheet, workbook_id, workbook = rng.choice(found)

        def cell(col: int) -> Any:
            got = world.execute(
                "SELECT raw, value_num FROM sheets_cell WHERE sheet_id = ? AND row = ? AND col = ?",
                (sheet_id, row, col),
            ).fetchone()
            return got

        department = cell(1)[0]
        budget, actual = cell(2)[1], cell(3)[1]
        who = ask(world, workbook_id, rng)
        return {
            **who,
            "workbook_id": workbook_id,
            "workbook": workbook,
            "sheet": sheet,
            "department": department,
            "row": row,
            "cell": f"D{row}",
            "formula": f"=C{row}-B{row}",
            "budget": budget,
            "actual": actual,
            # The wrong-record probe types Budget minus Actual: the sign flipped.
            "decoy": {"formula": f"=B{row}-C{row}"} if who["feasible"] else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        open_workbook(actions, params["workbook"])
        type_cell(actions, params["cell"], params["formula"])
        actions.send_msg_to_user(
            f"Fixed {params['cell']}: the {params['department']} Variance is Actual minus "
            "Budget again."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        sheet, row, cell = params["sheet"], params["row"], params["cell"]
        budget, actual = params["budget"], params["actual"]

        def repaired(book) -> tuple[bool, str]:
            value = book.value(sheet, cell)
            if not checks.same(value, actual - budget):
                want = actual - budget
                return False, f"{cell} is {value!r}, expected Actual − Budget = {want:g}"
            share = book.value(sheet, f"E{row}")
            if not checks.same(share, (actual - budget) / budget):
                return (
                    False,
                    f"E{row} (Variance %) is {share!r}, expected {(actual - budget) / budget:g}",
                )
            return checks.live(
                book, sheet, cell, {f"B{row}": str(budget + 1000)},
                lambda after: checks.same(after, actual - budget - 1000),
            )  # fmt: skip

        repaired = stored_as_computed(ctx, sheet, repaired)
        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], sheet, repaired, within=[cell],
                name=f"{cell} is Actual − Budget for {params['department']}",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["FixRefError"]
