"""sheets.count_over_threshold — count the deals above an amount with COUNTIF, under the table.

A pipeline workbook's Pipeline sheet lists deals (Amount in E) and ends with a Total row. The
agent puts, in a named cell two rows under the Total (column E), a formula counting the deals
whose Amount is above a threshold. The threshold is one of the amounts in the sheet, so a
deal priced exactly at it tells `>` from `>=`; and a whole-column range (`E:E`) would count
the Total too. A label typed in column A of the same row is welcome, nothing else.

The verifier recomputes the workbook: the cell holds the count, and on a fork with a deal below
the threshold raised above it, the count goes up by one (a typed-in number fails). Workbooks
with planted mess (amounts typed as text, a duplicated row) are left out. One instance in six
is asked by someone who may only view the workbook, or cannot open it: `report_infeasible`.
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
from ._books import column_values, tables, unique_workbook
from ._formulas import ask, messy_sheets, report_no_access, stored_as_computed
from .base import SheetsTemplate
from .ui import open_workbook, type_cell

SHEET = "Pipeline"
_PHRASINGS = (
    "In “{workbook}”, put a formula in {cell} (under the Total) that counts the deals with an "
    "Amount over ${threshold:,}.",
    "How many deals in “{workbook}” are above ${threshold:,}? Add a COUNTIF in {cell} on the "
    "Pipeline sheet so the number stays current.",
    "Could you add a live count of deals bigger than ${threshold:,} to “{workbook}”? Cell "
    "{cell}, please — amounts exactly ${threshold:,} don't count.",
)


@register
class CountOverThreshold(SheetsTemplate):
    id = "sheets.count_over_threshold"
    difficulty = 3
    difficulty_reason = (
        "COUNTIF with a quoted comparison criterion over exactly the data rows (not the whole "
        "column, which holds the Total), a strict `>` against an amount present in the sheet"
    )
    impossible_instances = True
    tags = ("formula", "navigation")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        messy = messy_sheets(world)
        options = []
        for table in tables(world, SHEET):
            if table.sheet_id in messy or not table.total_row:
                continue
            if not unique_workbook(world, table.workbook):
                continue
            cells = column_values(world, table, 5)
            amounts = [v for _r, kind, v in cells if kind == "number"]
            if len(amounts) != len(cells) or len(amounts) < 4:
                continue
            free = world.execute(
                "SELECT 1 FROM sheets_cell WHERE sheet_id = ? AND row > ?",
                (table.sheet_id, table.total_row),
            ).fetchone()
            thresholds = sorted({a for a in amounts if min(amounts) < a < max(amounts)})
            if thresholds and not free:
                options.append((table, cells, thresholds))
        if not options:
            raise TaskError(f"{self.id}: the world has no clean pipeline to count")
        table, cells, thresholds = rng.choice(options)
        threshold = rng.choice(thresholds)
        below = [r for r, _k, v in cells if v < threshold]
        count = sum(1 for _r, _k, v in cells if v > threshold)
        who = ask(world, table.workbook_id, rng)
        cell = f"E{table.total_row + 2}"
        criterion = f'">{threshold:g}"'
        return {
            **who,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "threshold": int(threshold),
            "cell": cell,
            "label": f"A{table.total_row + 2}",
            "range": f"E2:E{table.last}",
            "formula": f"=COUNTIF(E2:E{table.last},{criterion})",
            "count": count,
            "probe_row": rng.choice(below),
            # The wrong-record probe counts the deals at the threshold too.
            "decoy": (
                {"formula": f'=COUNTIF(E2:E{table.last},">={threshold:g}")'}
                if who["feasible"]
                else None
            ),
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
            f"{params['cell']} now counts the deals over ${params['threshold']:,}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        cell, count, probe = params["cell"], params["count"], params["probe_row"]
        threshold = params["threshold"]

        def counted(book) -> tuple[bool, str]:
            value = book.value(SHEET, cell)
            if not checks.same(value, count):
                return False, f"{cell} is {value!r}, expected {count} deals over ${threshold:,}"
            label = book.value(SHEET, params["label"])
            if label is not None and not isinstance(label, str):
                return False, f"{params['label']} holds {label!r}, not a label"
            return checks.live(
                book, SHEET, cell, {f"E{probe}": str(threshold + 1000)},
                lambda after: checks.same(after, count + 1),
            )  # fmt: skip

        counted = stored_as_computed(ctx, SHEET, counted)
        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], SHEET, counted, within=[cell, params["label"]],
                name=f"{cell} counts deals over ${threshold:,}",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["CountOverThreshold"]
