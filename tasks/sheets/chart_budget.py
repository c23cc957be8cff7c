"""sheets.chart_budget — insert a chart of a table: Budget and Actual by department from the
"FYxxxx Budget vs Actual" workbook as bars, or a line, bar or pie of another sheet's table
(monthly travel totals, headcount by team, deals by stage, the hiring plan).

The chart is asked for by what it shows, with a title and the cell it is placed at; the
agent picks the data range (labels in its first column, series across its first row). The
verifier reads the new chart's range in the final world the way the product draws it: its
labels and series must be exactly the table's rows and the columns asked for, so any range
showing the same data passes, and one that takes in the Total row or a column too many does
not. The wrong-record probe charts a range one row longer.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import editors, unique_workbook
from .base import SheetsTemplate
from .ui import insert_chart, open_sheet, open_workbook

_PHRASINGS = (
    "In “{workbook}”, add a {kind} chart of {what} on the {sheet} sheet. Title it “{title}” "
    "and place it at {anchor}.",
    "Could you put a {kind} chart on the {sheet} sheet of “{workbook}” showing {what}? Call "
    "it “{title}” and anchor it at cell {anchor}.",
    "I'd like to see {what} as a {kind} chart in “{workbook}” ({sheet} sheet), titled "
    "“{title}”, at {anchor}.",
)


@dataclass(frozen=True)
class _Spec:
    """A chart a table supports: the sheet, the label column, the series columns next to it
    (their headers name them), the first and last data rows, and how to ask for it."""

    sheet: str
    label_col: int
    series: tuple[int, ...]
    first: int
    kinds: tuple[str, ...]
    what: str
    title: str


# Sheet name -> the charts its table supports ({last} is filled from the sheet).
_SPECS = {
    "Departments": (
        _Spec("Departments", 1, (2, 3), 2, ("bar",), "Budget and Actual by department",
              "Budget vs Actual by Department"),
        _Spec("Departments", 1, (2,), 2, ("pie", "bar"), "the Budget of each department",
              "Budget by Department"),
    ),
    "By Team": (
        _Spec("By Team", 2, (3,), 2, ("bar", "pie"), "headcount by team", "Team Headcount"),
        _Spec("By Team", 2, (3, 4), 2, ("bar",), "headcount and managers by team",
              "Headcount and Managers"),
    ),
    "Trips": (
        _Spec("Trips", 11, (12,), 2, ("line", "bar"), "the monthly travel totals (Month and Total)",
              "Travel Spend by Month"),
    ),
    "Plan": (
        _Spec("Plan", 1, (2, 3), 2, ("bar",), "current headcount and planned hires by team",
              "Hiring Plan by Team"),
    ),
    "By Stage": (
        _Spec("By Stage", 1, (2,), 2, ("pie", "bar"), "the number of deals in each stage",
              "Deals by Stage"),
    ),
}  # fmt: skip


def _cells(world: sqlite3.Connection, sheet_id: int) -> dict[tuple[int, int], Any]:
    """The sheet's stored values by (row, col): numbers, text, None for empty."""
    found = {}
    for row, col, kind, num, text in world.execute(
        "SELECT row, col, value_type, value_num, value_text FROM sheets_cell WHERE sheet_id = ?",
        (sheet_id,),
    ):
        found[row, col] = num if kind in ("number", "bool") else text if kind == "text" else None
    return found


@per_golden
def _options(world: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every chart the world's tables support, with the data it must show."""
    options = []
    sheets = world.execute(
        "SELECT s.id, s.name, w.id, w.name FROM sheets_sheet s JOIN sheets_workbook w "
        "ON w.id = s.workbook_id WHERE w.trashed_at IS NULL ORDER BY w.id, s.position"
    ).fetchall()
    for sheet_id, sheet, workbook_id, workbook in sheets:
        if sheet not in _SPECS or not unique_workbook(world, workbook):
            continue
        cells = _cells(world, sheet_id)
        last_col = max(c for _, c in cells)
        anchored = {
            a
            for (a,) in world.execute(
                "SELECT anchor FROM sheets_chart WHERE sheet_id = ?", (sheet_id,)
            )
        }
        for spec in _SPECS[sheet]:
            last = spec.first
            while (
                isinstance(cells.get((last + 1, spec.label_col)), str)
                and cells[last + 1, spec.label_col] != "Total"
            ):
                last += 1
            labels = [cells.get((r, spec.label_col)) for r in range(spec.first, last + 1)]
            series = {
                str(cells.get((1, c))): [cells.get((r, c)) for r in range(spec.first, last + 1)]
                for c in spec.series
            }
            numeric = all(isinstance(v, float) for values in series.values() for v in values)
            if last - spec.first < 1 or not all(isinstance(x, str) for x in labels) or not numeric:
                continue
            top = refs.address(1, spec.label_col)
            source = f"{top}:{refs.address(last, spec.series[-1])}"
            anchor = refs.address(2, last_col + 2)
            if anchor in anchored:
                anchor = refs.address(last + 4, last_col + 2)
            options.append({
                "workbook_id": workbook_id, "workbook": workbook, "sheet": sheet,
                "kinds": list(spec.kinds), "what": spec.what, "title": spec.title,
                "labels": labels, "series": series, "source": source, "anchor": anchor,
                "longer": f"{top}:{refs.address(last + 1, spec.series[-1])}",
            })  # fmt: skip
    return options


@register
class ChartBudget(SheetsTemplate):
    id = "sheets.chart_budget"
    difficulty = 3
    difficulty_reason = (
        "the agent must work out the data range a chart needs (labels first, the asked series "
        "beside them, no Total row) and fill a four-field tool form"
    )
    tags = ("chart-pivot", "form")
    max_steps = 16

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = _options(world)
        budget = [o for o in options if o["sheet"] == "Departments"]
        pick = dict(rng.choice(budget if budget and rng.random() < 0.4 else options))
        kinds, longer = pick.pop("kinds"), pick.pop("longer")
        _, user = rng.choice(editors(world, pick["workbook_id"]))
        return {
            "user": user,
            **pick,
            "kind": rng.choice(kinds),
            "decoy": {"source": longer},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, params["sheet"])
        insert_chart(actions, params["kind"], params["source"], params["title"], params["anchor"])
        actions.send_msg_to_user(f"Added the {params['kind']} chart “{params['title']}”.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            checks.chart(
                params["workbook_id"], params["sheet"], params["kind"], params["labels"],
                params["series"], title=params["title"], anchor=params["anchor"],
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["ChartBudget"]
