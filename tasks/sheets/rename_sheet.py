"""sheets.rename_sheet — rename one sheet (tab) of a named workbook.

The verifier expects the tab's name changed to the one asked (as the product keeps names:
whitespace squashed, case ignored), formulas that name the sheet rewritten by the product,
and every cell of the workbook computing what it did before. One instance in six is asked by
someone who may only view the workbook, or who cannot open it: the right move is
`report_infeasible`. The wrong-record probe renames the same-named sheet of another workbook.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import editors, unique_workbook
from ._formulas import ask, report_no_access
from .base import SheetsTemplate
from .ui import open_sheet, open_workbook, rename_this_sheet

_PHRASINGS = (
    "In “{workbook}”, rename the “{sheet}” sheet to “{name}”.",
    "Could you change the name of the {sheet} tab in “{workbook}” to “{name}”?",
    "The “{sheet}” tab of “{workbook}” should be called “{name}” from now on. Please rename it.",
)
# A sheet's name -> names a colleague might want instead.
_NAMES = {
    "Pipeline": ("Deals", "Open Deals", "Deal List"),
    "By Stage": ("Stage Totals", "Stage Summary"),
    "Trips": ("Hotel Stays", "Trip Log"),
    "By Team": ("Teams", "Team Headcount"),
    "Roster": ("Staff List", "Directory"),
    "Departments": ("By Department", "Department Budgets"),
    "Accounts": ("Top 40", "Largest Accounts"),
    "Plan": ("Hiring", "Headcount Plan"),
}


@register
class RenameSheet(SheetsTemplate):
    id = "sheets.rename_sheet"
    difficulty = 1
    difficulty_reason = "one named workbook and tab, then the sheet's settings page and one field"
    impossible_instances = True
    tags = ("navigation", "form")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        sheets = [
            (sheet_id, sheet, workbook_id, workbook)
            for sheet_id, sheet, workbook_id, workbook in world.execute(
                "SELECT s.id, s.name, w.id, w.name FROM sheets_sheet s JOIN sheets_workbook w "
                "ON w.id = s.workbook_id WHERE w.trashed_at IS NULL ORDER BY s.id"
            )
            if sheet in _NAMES and unique_workbook(world, workbook)
        ]
        sheet_id, sheet, workbook_id, workbook = rng.choice(sheets)
        who = ask(world, workbook_id, rng)
        taken = {
            n.casefold()
            for (n,) in world.execute(
                "SELECT name FROM sheets_sheet WHERE workbook_id = ?", (workbook_id,)
            )
        }
        name = rng.choice([n for n in _NAMES[sheet] if n.casefold() not in taken])
        decoy = None
        if who["feasible"]:
            user_id = world.execute(
                "SELECT id FROM people_employee WHERE email = ?", (who["user"],)
            ).fetchone()[0]
            others = [
                s
                for s in sheets
                if s[1] == sheet
                and s[2] != workbook_id
                and user_id in {i for i, _ in editors(world, s[2])}
            ]
            if others:
                decoy = {"workbook": rng.choice(others)[3]}
        return {
            **who,
            "workbook_id": workbook_id,
            "workbook": workbook,
            "sheet_id": sheet_id,
            "sheet": sheet,
            "name": name,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        open_workbook(actions, params["workbook"])
        open_sheet(actions, params["sheet"])
        rename_this_sheet(actions, params["name"])
        actions.send_msg_to_user(f"Renamed “{params['sheet']}” to “{params['name']}”.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            checks.renamed_sheet(
                params["workbook_id"], params["sheet_id"], params["sheet"], params["name"]
            ),
            expect.nothing_else(),
        )


__all__ = ["RenameSheet"]
