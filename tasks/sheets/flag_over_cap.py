"""sheets.flag_over_cap — flag the trips whose nightly rate is above the travel policy's cap.

A "Travel Expenses — …" workbook lists hotel stays on its Trips sheet (…, Nights, Nightly Rate
in G, Cost, Purpose). The agent adds a column in the next free column (J), headed as asked,
whose cell on every trip row is an IF formula saying "Over" when the Nightly Rate is above the
cap and "OK" otherwise. The cap is one of the rates in the sheet, neither the lowest nor the
highest, so both outcomes occur and a trip priced exactly at the cap ("OK": not above it)
tells `>` from `>=`.

The verifier recomputes the workbook: every trip row's cell is a formula with the right flag,
and on forks one trip within the cap raised above it turns "Over" and one over it lowered turns
"OK" (a typed-in column fails). One instance in six is asked by someone who may only view the
workbook, or cannot open it: `report_infeasible`.
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
from ._formulas import (
    add_formula_column,
    ask,
    follows,
    formula_rows,
    free_column,
    has_header,
    report_no_access,
    stored_as_computed,
)
from .base import SheetsTemplate
from .ui import open_workbook

SHEET = "Trips"
_HEADERS = ("Over Cap?", "Rate Check", "Policy Check", "Over Policy")
_PHRASINGS = (
    "Our hotel cap is ${cap:,} a night. In “{workbook}”, add a column {col} headed “{header}” "
    "that says Over when the Nightly Rate is above ${cap:,} and OK otherwise — an IF formula on "
    "every trip row.",
    "Can you flag the trips over the ${cap:,}/night policy in “{workbook}”? Put “{header}” in "
    "{col}1 and, for each trip, a formula giving “Over” if the Nightly Rate is more than "
    "${cap:,}, else “OK”.",
    "Finance wants every stay in “{workbook}” checked against the ${cap:,} nightly cap: new "
    "column {col} (“{header}”) with =IF(...) per trip row showing Over or OK.",
)


def flag(rate: Any, cap: float) -> str:
    return "Over" if isinstance(rate, int | float) and rate > cap else "OK"


@register
class FlagOverCap(SheetsTemplate):
    id = "sheets.flag_over_cap"
    difficulty = 4
    difficulty_reason = (
        "an IF formula with text results, a strict comparison (a trip priced at the cap is "
        "OK), a header, and a fill down over every trip row up to the Total"
    )
    impossible_instances = True
    tags = ("formula", "navigation")
    max_steps = 25

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world, SHEET):
            if not table.workbook.startswith("Travel Expenses") or not unique_workbook(
                world, table.workbook
            ):
                continue
            rates = [
                v
                for (v,) in world.execute(
                    "SELECT value_num FROM sheets_cell WHERE sheet_id = ? AND col = 7 "
                    "AND row BETWEEN 2 AND ? AND value_type = 'number'",
                    (table.sheet_id, table.last),
                )
            ]
            if len(rates) != table.last - 1 or len(rates) < 5:
                continue
            caps = sorted({r for r in rates if min(rates) < r < max(rates) and r % 5 == 0})
            if caps:
                options.append((table, caps))
        if not options:
            raise TaskError(f"{self.id}: the world has no Trips sheet with varied rates")
        table, caps = rng.choice(options)
        cap = int(rng.choice(caps))
        col = refs.column_letters(free_column(world, table.sheet_id))
        rates = dict(
            world.execute(
                "SELECT row, value_num FROM sheets_cell WHERE sheet_id = ? AND col = 7 "
                "AND row BETWEEN 2 AND ? ORDER BY row",
                (table.sheet_id, table.last),
            ).fetchall()
        )
        within = [r for r, v in rates.items() if v <= cap]
        over = [r for r, v in rates.items() if v > cap]
        who = ask(world, table.workbook_id, rng)
        return {
            **who,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "cap": cap,
            "col": col,
            "header": rng.choice(_HEADERS),
            "last": table.last,
            "formula": f'=IF(G2>{cap},"Over","OK")',
            "ok_row": rng.choice(within),
            "over_row": rng.choice(over),
            # The wrong-record probe flags trips at the cap too (>= instead of >).
            "decoy": {"formula": f'=IF(G2>={cap},"Over","OK")'} if who["feasible"] else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        open_workbook(actions, params["workbook"])
        add_formula_column(
            actions, params["col"], params["header"], params["formula"], 2, params["last"]
        )
        actions.send_msg_to_user(
            f"Added “{params['header']}” in column {params['col']}: Over above "
            f"${params['cap']:,} a night, OK otherwise."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        col, last, cap = params["col"], params["last"], params["cap"]
        ok_row, over_row = params["ok_row"], params["over_row"]

        def flagged(book) -> tuple[bool, str]:
            ok, detail = has_header(book, SHEET, f"{col}1", params["header"])
            if not ok:
                return ok, detail
            ok, detail = formula_rows(
                book,
                SHEET,
                col,
                range(2, last + 1),
                lambda r: flag(book.value(SHEET, f"G{r}"), cap),
            )
            if not ok:
                return ok, detail
            # One trip within the cap raised above it, one over it lowered under it.
            return follows(
                book,
                {(SHEET, f"G{ok_row}"): str(cap + 50), (SHEET, f"G{over_row}"): str(cap - 50)},
                SHEET,
                {f"{col}{ok_row}": "Over", f"{col}{over_row}": "OK"},
            )

        flagged = stored_as_computed(ctx, SHEET, flagged)
        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], SHEET, flagged, within=[f"{col}1:{col}{last}"],
                name=f"“{params['header']}” in {col} flags rates over ${cap:,}",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["FlagOverCap"]
