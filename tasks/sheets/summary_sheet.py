"""sheets.summary_sheet — add a "Summary" sheet to a workbook with a label and a formula that
brings in a figure from another sheet (`='Pipeline'!E41`, `=SUM(Pipeline!E2:E40)`...).

The figure is one a colleague would name: a pipeline's total or weighted amount, a travel
quarter's total cost, the budget's total Budget or Actual, the top accounts' total or average
revenue, the hiring plan's planned hires or target headcount, the total headcount. The verifier
recomputes the workbook: the new sheet must hold the label in A1 and, in B1, a formula whose
value is the figure; on a fork with one of the figure's inputs on the source sheet raised (by
1,000, or doubled when larger), B1 must still equal the figure (a typed-in number fails).
Nothing else may be on the new sheet. One instance in six is asked by someone who may only
view the workbook, or who cannot open it: the right move is `report_infeasible`. The
wrong-record probe summarises the same figure of another workbook.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import tables, unique_workbook
from ._formulas import ask, report_no_access
from ._model import Book
from .base import SheetsTemplate
from .ui import add_sheet, open_workbook, type_cell

SUMMARY = "Summary"
_PHRASINGS = (
    "In “{workbook}”, add a sheet named “{summary}”. Put the label “{label}” in A1 and, in "
    "B1, a formula that pulls in the {what} from the {sheet} sheet so it stays up to date.",
    "Could you give “{workbook}” a “{summary}” sheet? A1 should say “{label}” and B1 should "
    "reference the {what} on the {sheet} sheet with a formula (not a typed number).",
    "Please add a new tab called “{summary}” to “{workbook}” with “{label}” in A1 and a live "
    "formula in B1 showing the {what} from {sheet}.",
)

# Sheet name -> figures: (label, what the figure is, its column, rows below the Total row,
# the column of an input that feeds it).
_FIGURES = {
    "Pipeline": (
        ("Total pipeline", "total Amount of the deals", "E", 0, "E"),
        ("Weighted pipeline", "total Weighted amount", "H", 0, "E"),
    ),
    "Trips": (("Total travel cost", "total Cost of the trips", "H", 0, "G"),),
    "Departments": (
        ("Total budget", "total Budget", "B", 0, "B"),
        ("Total actual", "total Actual spend", "C", 0, "C"),
    ),
    "Accounts": (
        ("Total revenue", "total Annual Revenue", "E", 0, "E"),
        ("Average revenue", "average Annual Revenue", "E", 1, "E"),
    ),
    "Plan": (
        ("Planned hires", "total of Planned Hires", "C", 0, "C"),
        ("Target headcount", "total Target headcount", "D", 0, "C"),
    ),
    "By Team": (("Total headcount", "total Headcount", "C", 0, "C"),),
}


def _today(world: sqlite3.Connection) -> date:
    (now,) = world.execute("SELECT now FROM world_meta").fetchone()
    return date.fromisoformat(str(now)[:10])


@per_golden
def _options(world: sqlite3.Connection) -> list[dict[str, Any]]:
    today = _today(world)
    options = []
    for table in tables(world):
        if table.sheet not in _FIGURES or not table.total_row:
            continue
        if not unique_workbook(world, table.workbook):
            continue
        taken = world.execute(
            "SELECT 1 FROM sheets_sheet WHERE workbook_id = ? AND lower(name) = lower(?)",
            (table.workbook_id, SUMMARY),
        ).fetchone()
        if taken:
            continue
        book = Book.load(world, table.workbook_id, today)
        for label, what, col, below, input_col in _FIGURES[table.sheet]:
            cell = f"{col}{table.total_row + below}"
            value = book.value(table.sheet, cell)
            if not isinstance(value, float) or not book.raw_at(table.sheet, cell).startswith("="):
                continue
            for row in range(2, table.last + 1):
                given = book.value(table.sheet, f"{input_col}{row}")
                if not isinstance(given, float):
                    continue
                raised = _typed(given + max(1000.0, abs(given)))
                after = book.fork(table.sheet, f"{input_col}{row}", raised).value(table.sheet, cell)
                if isinstance(after, float) and not checks.same(after, value):
                    options.append({
                        "workbook_id": table.workbook_id, "workbook": table.workbook,
                        "sheet": table.sheet, "label": label, "what": what, "cell": cell,
                        "figure": value, "input": f"{input_col}{row}", "raised": raised,
                    })  # fmt: skip
                    break
    return options


def _typed(value: float) -> str:
    """A number as a user types it (`4200`, `0.5`)."""
    return str(int(value)) if value == int(value) else repr(value)


def _label_matches(value: object, label: str) -> bool:
    return isinstance(value, str) and checks.same_name(value.rstrip().rstrip(":"), label)


@register
class SummarySheet(SheetsTemplate):
    id = "sheets.summary_sheet"
    difficulty = 3
    difficulty_reason = (
        "add a sheet and rename it, then write a cross-sheet reference to a figure the agent "
        "must locate on another sheet"
    )
    impossible_instances = True
    tags = ("formula", "navigation", "multi-step")
    max_steps = 18

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = _options(world)
        pick = rng.choice(options)
        who = ask(world, pick["workbook_id"], rng)
        others = [
            o
            for o in options
            if o["label"] == pick["label"] and o["workbook_id"] != pick["workbook_id"]
        ]
        decoy = None
        if who["feasible"] and others:
            other = rng.choice(others)
            decoy = {"workbook": other["workbook"], "cell": other["cell"]}
        return {**who, **pick, "summary": SUMMARY, "decoy": decoy}

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        open_workbook(actions, params["workbook"])
        add_sheet(actions, params["summary"])
        type_cell(actions, "A1", params["label"])
        type_cell(actions, "B1", f"={refs.quote_sheet(params['sheet'])}!{params['cell']}")
        actions.send_msg_to_user(
            f"Added the “{params['summary']}” sheet: {params['label']} in B1 follows "
            f"{params['sheet']}!{params['cell']}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        summary = params["summary"]

        def figure(book: Book) -> tuple[bool, str]:
            label = book.value(summary, "A1")
            if not _label_matches(label, params["label"]):
                return False, f"A1 is {label!r}, expected {params['label']!r}"
            value = book.value(summary, "B1")
            if not checks.same(value, params["figure"]):
                return False, f"B1 is {value!r}, expected the {params['what']} {params['figure']:g}"
            fork = book.fork(params["sheet"], params["input"], params["raised"])
            after = fork.value(summary, "B1")
            typed = f"{params['sheet']}!{params['input']}={params['raised']}"
            if not book.raw_at(summary, "B1").startswith("="):
                return False, f"B1 holds {book.raw_at(summary, 'B1')!r}, not a formula"
            if not checks.same(after, fork.value(params["sheet"], params["cell"])):
                return False, f"B1 does not follow {params['sheet']} (with {typed} it is {after!r})"
            return (
                True,
                f"B1 shows the {params['what']} and follows {params['sheet']} (with {typed})",
            )

        return expect.grade(
            ctx,
            checks.new_sheet(params["workbook_id"], summary, figure, within=["A1:B1"]),
            expect.nothing_else(),
        )


__all__ = ["SummarySheet"]
