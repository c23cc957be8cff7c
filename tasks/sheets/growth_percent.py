"""sheets.growth_percent — add a Growth column (Planned Hires ÷ Current) shown as a percent.

The "Hiring Plan …" workbook's Plan sheet lists teams with Current (B), Planned Hires (C) and
Target (D), then a Total row. The agent adds "Growth" in the next free column (E): a formula
Planned Hires / Current on every team row (not the Total row), with a percent format from the
menu ("Percent" or "Percent (1 decimal)").

The verifier recomputes the workbook: every team row's cell is a formula equal to C/B and
carries one of the menu's percent codes, and on a fork with one team's Planned Hires raised its
Growth follows (a typed-in column fails). A team with Current 0 has no growth rate: any formula
is accepted there (#DIV/0! or what an IFERROR gives), and the oracle wraps its formula in
IFERROR only when such a team exists. One instance in six is asked by someone who may only view
the workbook, or cannot open it: `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.apps.sheets.engine.numfmt import FORMATS
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext, TaskError
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import tables, unique_workbook
from ._formulas import (
    PERCENT_CODES,
    add_formula_column,
    ask,
    follows,
    format_used,
    formula_rows,
    free_column,
    has_header,
    report_no_access,
    stored_as_computed,
)
from .base import SheetsTemplate
from .ui import number_format, open_workbook

SHEET = "Plan"
HEADER = "Growth"
_PHRASINGS = (
    "In “{workbook}”, add a “Growth” column ({col}) with Planned Hires ÷ Current for each team "
    "(rows 2–{last}), formatted as a percent.",
    "Could you show how much each team grows in “{workbook}”? New column {col} headed Growth: "
    "Planned Hires divided by Current, as a percentage, one formula per team row.",
    "Add Growth = Planned Hires / Current to the Plan sheet of “{workbook}” in column {col}, "
    "for every team (not the Total row), and give those cells a percent format.",
    "For the hiring review, add column {col} “Growth” to “{workbook}”: Planned Hires ÷ "
    "Current per team, as a percent.",
    "Please add a Growth column in {col} of “{workbook}” — Planned Hires over Current for "
    "each team row, percent format.",
    "In “{workbook}”, put Growth (Planned Hires / Current) in column {col} for rows "
    "2–{last}, shown as percentages.",
    "Can you work out each team's growth in “{workbook}”? Column {col}, header Growth, "
    "Planned Hires divided by Current, as %.",
    "Add a percent-formatted Growth column ({col}) to “{workbook}” computing Planned Hires ÷ "
    "Current for every team.",
    "“{workbook}” needs a Growth column in {col}: one formula per team (rows 2–{last}), "
    "Planned Hires / Current, as a percent.",
    "I'd like to see growth per team in “{workbook}”: column {col} titled Growth = Planned "
    "Hires ÷ Current, in percent.",
)


@register
class GrowthPercent(SheetsTemplate):
    id = "sheets.growth_percent"
    difficulty = 3
    difficulty_reason = (
        "a ratio formula filled down the team rows, stopping above the Total, plus a number "
        "format from the toolbar menu"
    )
    impossible_instances = True
    tags = ("formula", "format")
    max_steps = 25

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        plans = [
            t
            for t in tables(world, SHEET)
            if t.workbook.startswith("Hiring Plan") and unique_workbook(world, t.workbook)
        ]
        if not plans:
            raise TaskError(f"{self.id}: the world has no hiring plan")
        table = rng.choice(plans)
        current = dict(
            world.execute(
                "SELECT row, value_num FROM sheets_cell WHERE sheet_id = ? AND col = 2 "
                "AND row BETWEEN 2 AND ?",
                (table.sheet_id, table.last),
            ).fetchall()
        )
        staffed = sorted(r for r, v in current.items() if v)
        empty = any(not v for v in current.values())
        col = refs.column_letters(free_column(world, table.sheet_id))
        formula = "=IFERROR(C2/B2,0)" if empty else "=C2/B2"
        who = ask(world, table.workbook_id, rng)
        return {
            **who,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "col": col,
            "last": table.last,
            "formula": formula,
            "format": rng.choice([k for k, v in FORMATS.items() if v in PERCENT_CODES]),
            "probe_row": rng.choice(staffed),
            # The wrong-record probe divides by Target instead of Current.
            "decoy": {"formula": formula.replace("B2", "D2")} if who["feasible"] else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        col, last = params["col"], params["last"]
        open_workbook(actions, params["workbook"])
        add_formula_column(actions, col, HEADER, params["formula"], 2, last)
        number_format(actions, f"{col}2:{col}{last}", params["format"])
        actions.send_msg_to_user(f"Added Growth in column {col} as a percent for every team.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        col, last, probe = params["col"], params["last"], params["probe_row"]
        rows = range(2, last + 1)

        def growth(book, row: int) -> float | None:
            current, planned = book.value(SHEET, f"B{row}"), book.value(SHEET, f"C{row}")
            if not isinstance(current, int | float) or not current:
                return None
            return planned / current if isinstance(planned, int | float) else None

        def percent(book) -> tuple[bool, str]:
            ok, detail = has_header(book, SHEET, f"{col}1", HEADER)
            if not ok:
                return ok, detail
            ok, detail = formula_rows(book, SHEET, col, rows, lambda r: growth(book, r))
            if not ok:
                return ok, detail
            for row in rows:
                code = book.formats.get((SHEET, row, refs.column_number(col)))
                if code not in PERCENT_CODES:
                    return False, f"{col}{row} has the number format {code!r}, not a percent"
            planned = book.value(SHEET, f"C{probe}")
            more = (planned if isinstance(planned, int | float) else 0) + 3
            current = book.value(SHEET, f"B{probe}")
            return follows(
                book, {(SHEET, f"C{probe}"): str(more)}, SHEET, {f"{col}{probe}": more / current}
            )

        chosen = format_used(ctx, params["workbook_id"], SHEET, f"{col}2", PERCENT_CODES)
        percent = stored_as_computed(ctx, SHEET, percent)
        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], SHEET, percent, within=[f"{col}1:{col}{last}"],
                formats=checks.Formats(number_format=chosen),
                name=f"Growth in {col} as a percent for every team",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["GrowthPercent"]
