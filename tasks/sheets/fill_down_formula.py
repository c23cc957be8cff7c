"""sheets.fill_down_formula — add a computed column to the biggest Trips sheet and fill it down.

The largest "Travel Expenses — …" Trips sheet (200 trips or more) has Nights in F, Nightly
Rate in G and Cost (=F*G) in H. The agent adds a column in the next free column (J), headed as
asked, computing one figure per trip from those columns — the cost with a tax added, a meal
allowance per night, or the cost plus that allowance — by typing the formula in row 2 and
filling it down to the last trip (not into the Total row).

The verifier recomputes the workbook: every trip row's cell is a formula with the right value,
and on a fork with the Nights of a trip in the middle of the sheet changed, that row's figure
follows (a typed-in column fails). A currency format from the menu on the new cells is fine.
One instance in six is asked by someone who may only view the workbook, or cannot open it:
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
from ._formulas import (
    CURRENCY_CODES,
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
from .ui import open_workbook

SHEET = "Trips"
MIN_TRIPS = 200
# Kind -> (headers, how the goal says it, the oracle's formula in row 2).
_KINDS = {
    "tax": (
        ("Cost incl. Tax", "Cost with Tax"),
        "the trip's Cost plus {rate}% tax",
        "=H2*(1+{rate}/100)",
    ),
    "allowance": (
        ("Meal Allowance", "Per Diem"),
        "a meal allowance of ${amount} per night (Nights × ${amount})",
        "=F2*{amount}",
    ),
    "with_allowance": (
        ("Cost + Per Diem", "Total incl. Meals"),
        "the trip's Cost plus a meal allowance of ${amount} per night",
        "=H2+F2*{amount}",
    ),
}
_RATES = (5, 8, 10, 12, 15, 20)
_AMOUNTS = (35, 40, 45, 50, 55, 60, 65, 75)
_PHRASINGS = (
    "In the Trips sheet of “{workbook}”, add a column {col} headed “{header}” showing {what}. "
    "Put the formula in {col}2 and fill it down to the last trip (row {last}).",
    "Could you add “{header}” to “{workbook}”? Column {col}, one formula per trip for {what}, "
    "filled down from row 2 to row {last} — leave the Total row alone.",
    "For the expense review I need {what} for every trip in “{workbook}”: header “{header}” in "
    "{col}1, a formula in {col}2 filled down through {col}{last}.",
)


def expected(kind: str, nights: Any, cost: Any, rate: int, amount: int) -> float | None:
    if not isinstance(nights, int | float) or not isinstance(cost, int | float):
        return None
    if kind == "tax":
        return cost * (1 + rate / 100)
    if kind == "allowance":
        return nights * amount
    return cost + nights * amount


@register
class FillDownFormula(SheetsTemplate):
    id = "sheets.fill_down_formula"
    difficulty = 3
    difficulty_reason = (
        "one relative formula from the sheet's columns, then a fill down over 200+ rows that "
        "must stop above the Total row"
    )
    impossible_instances = True
    tags = ("formula", "navigation")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        trips = [
            t
            for t in tables(world, SHEET)
            if t.workbook.startswith("Travel Expenses") and unique_workbook(world, t.workbook)
        ]
        if not trips or max(t.last for t in trips) - 1 < MIN_TRIPS:
            raise TaskError(f"{self.id}: the world has no Trips sheet of {MIN_TRIPS}+ trips")
        table = max(trips, key=lambda t: (t.last, -t.workbook_id))
        kind = rng.choice(sorted(_KINDS))
        headers, what, formula = _KINDS[kind]
        rate, amount = rng.choice(_RATES), rng.choice(_AMOUNTS)
        col = refs.column_letters(free_column(world, table.sheet_id))
        who = ask(world, table.workbook_id, rng)
        middle = rng.randint(table.last // 3, 2 * table.last // 3)
        decoy_last = table.last - rng.randint(5, 20)
        return {
            **who,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "kind": kind,
            "rate": rate,
            "amount": amount,
            "what": what.format(rate=rate, amount=amount),
            "header": rng.choice(headers),
            "col": col,
            "last": table.last,
            "fill_to": table.last,
            "formula": formula.format(rate=rate, amount=amount),
            "middle": middle,
            # The wrong-record probe stops the fill short of the last trip.
            "decoy": {"fill_to": decoy_last} if who["feasible"] else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        open_workbook(actions, params["workbook"])
        add_formula_column(
            actions, params["col"], params["header"], params["formula"], 2, params["fill_to"]
        )
        actions.send_msg_to_user(
            f"Added “{params['header']}” in column {params['col']}, filled down to row "
            f"{params['fill_to']}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        col, last, middle = params["col"], params["last"], params["middle"]
        kind, rate, amount = params["kind"], params["rate"], params["amount"]

        def figure(book, row: int, nights: Any = None) -> float | None:
            n = book.value(SHEET, f"F{row}") if nights is None else nights
            cost = book.value(SHEET, f"H{row}")
            if nights is not None and isinstance(cost, int | float):
                cost = nights * book.value(SHEET, f"G{row}")
            return expected(kind, n, cost, rate, amount)

        def filled(book) -> tuple[bool, str]:
            ok, detail = has_header(book, SHEET, f"{col}1", params["header"])
            if not ok:
                return ok, detail
            ok, detail = formula_rows(
                book, SHEET, col, range(2, last + 1), lambda r: figure(book, r)
            )
            if not ok:
                return ok, detail
            nights = book.value(SHEET, f"F{middle}")
            more = (nights if isinstance(nights, int | float) else 0) + 3
            return follows(
                book, {(SHEET, f"F{middle}"): str(more)}, SHEET,
                {f"{col}{middle}": figure(book, middle, more)},
            )  # fmt: skip

        chosen = format_used(ctx, params["workbook_id"], SHEET, f"{col}2", CURRENCY_CODES)
        filled = stored_as_computed(ctx, SHEET, filled)
        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], SHEET, filled, within=[f"{col}1:{col}{last}"],
                formats=checks.Formats(number_format=chosen),
                name=f"“{params['header']}” in {col} for every trip",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["FillDownFormula"]
