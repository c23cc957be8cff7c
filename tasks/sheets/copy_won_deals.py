"""sheets.copy_won_deals — copy a rep's Closed Won deals of this quarter (or this year) from
the CRM into a new sheet of a workbook, one deal per row, with a live total (test split).

Two apps: the opportunities list filtered by owner, stage and close date gives the deals; the
user then adds a sheet to a workbook they may edit (one of the rep's pipeline workbooks when
they may edit one) and types a header row (Opportunity, Amount), the deals' names and amounts,
and a Total row whose Amount is a formula. The verifier recomputes the new sheet: the set of
(name, amount) rows must be exactly the CRM's, in any order, and the total their sum and live
(on a fork with the first amount raised by 1,000 it follows). Nothing else may change. The
wrong-record probe copies another rep's deals.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from datetime import date
from typing import Any

from officegym.tasks import expect
from officegym.tasks.crm.ui import filter_list, list_rows, open_list
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import editors, unique_workbook
from ._model import Book
from .base import SheetsTemplate
from .ui import add_sheet, open_workbook, type_down

NAME, AMOUNT, TOTAL = "Opportunity", "Amount", "Total"
_PERIODS = {"quarter": "this quarter", "year": "this year"}
_PHRASINGS = (
    "Copy {rep}'s Closed Won deals from {period} out of the CRM into a new sheet called "
    "“{sheet}” in “{workbook}”: a header row ({name} | {amount}), then one deal per row with "
    "its name in column A and amount in column B, and a {total} row right below them whose "
    "amount is a SUM formula.",
    "For “{workbook}”, add a sheet named “{sheet}” listing every opportunity {rep} closed as "
    "won {period} according to the CRM. Columns: {name} (A) and {amount} (B) under a header "
    "row, one deal per row, then a “{total}” row totalling the amounts with a formula.",
    "I'd like {rep}'s wins for {period} in a spreadsheet. Please put them on a new sheet "
    "“{sheet}” of “{workbook}”: header {name} / {amount} in row 1, each Closed Won deal (name, "
    "amount) on its own row, and a {total} line underneath that sums the amounts live.",
)
_SHEETS = ("Won deals", "Closed Won", "Wins")


def _quarter(today: date) -> tuple[date, date]:
    first = date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)
    after = date(first.year + (first.month == 10), 1 if first.month == 10 else first.month + 3, 1)
    return first, date.fromordinal(after.toordinal() - 1)


def _won(world: sqlite3.Connection, start: date, end: date) -> dict[int, list[list[Any]]]:
    """Rep id -> [name, amount] of their Closed Won deals closing between start and end."""
    found: dict[int, list[list[Any]]] = {}
    for owner, name, amount in world.execute(
        "SELECT owner_id, name, amount FROM crm_opportunity WHERE stage = 'Closed Won' "
        "AND close_date BETWEEN ? AND ? AND amount IS NOT NULL ORDER BY close_date, id",
        (start.isoformat(), end.isoformat()),
    ):
        found.setdefault(owner, []).append([name, float(amount)])
    return found


def _workbooks(world: sqlite3.Connection, rep: str) -> list[tuple[int, str]]:
    """Pipeline workbooks whose deals list `rep` as an owner, then every other workbook."""
    mine = [
        (i, n)
        for i, n in world.execute(
            "SELECT DISTINCT w.id, w.name FROM sheets_workbook w "
            "JOIN sheets_sheet s ON s.workbook_id = w.id JOIN sheets_cell c ON c.sheet_id = s.id "
            "WHERE s.name = 'Pipeline' AND c.col = 3 AND c.raw = ? AND w.trashed_at IS NULL "
            "ORDER BY w.id",
            (rep,),
        )
    ]
    rest = world.execute(
        "SELECT id, name FROM sheets_workbook WHERE trashed_at IS NULL ORDER BY id"
    ).fetchall()
    return mine + [b for b in rest if b not in mine]


@register
class CopyWonDeals(SheetsTemplate):
    id = "sheets.copy_won_deals"
    apps = ("crm", "sheets")
    difficulty = 5
    difficulty_reason = (
        "two apps: filter the CRM's opportunities by owner, stage and close date, then add and "
        "name a sheet, type every deal's name and amount under a header and finish with a live "
        "SUM total"
    )
    split = "test"
    tags = ("cross-app", "formula", "multi-step")
    max_steps = 70

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        (now,) = world.execute("SELECT now FROM world_meta").fetchone()
        today = date.fromisoformat(str(now)[:10])
        windows = {
            "quarter": _won(world, *_quarter(today)),
            "year": _won(world, date(today.year, 1, 1), date(today.year, 12, 31)),
        }
        names = dict(
            world.execute(
                "SELECT id, display_name FROM people_employee WHERE is_active AND display_name IN "
                "(SELECT display_name FROM people_employee GROUP BY display_name "
                "HAVING count(*) = 1)"
            )
        )
        options = [
            (period, rep_id)
            for period, won in windows.items()
            for rep_id in sorted(won)
            if rep_id in names and (period == "quarter" or len(won[rep_id]) >= 2)
        ]
        period, rep_id = rng.choice(options)
        rep = names[rep_id]
        for workbook_id, workbook in _workbooks(world, rep):
            people = editors(world, workbook_id)
            if people and unique_workbook(world, workbook):
                break
        _, user = rng.choice(people)
        others = sorted(names[r] for r in windows[period] if r in names and r != rep_id)
        return {
            "user": user,
            "rep": rep,
            "rep_id": rep_id,
            "period": period,
            "deals": windows[period][rep_id],
            "total": sum(amount for _, amount in windows[period][rep_id]),
            "workbook_id": workbook_id,
            "workbook": workbook,
            "sheet": rng.choice(_SHEETS),
            "decoy": {"rep": rng.choice(others)} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        fields = {**params, "period": _PERIODS[params["period"]]}
        fields |= {"name": NAME, "amount": AMOUNT, "total": TOTAL}
        return rng.choice(_PHRASINGS).format(**fields)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        actions.goto("/crm/")
        if params["period"] == "quarter":
            open_list(actions, "Opportunities", "Won this quarter")
            filter_list(actions, {"Owner": params["rep"]})
        else:
            open_list(actions, "Opportunities", "All opportunities")
            filter_list(
                actions, {"Owner": params["rep"], "Stage": "Closed Won", "Close date": "This year"}
            )
        deals = [
            (row.columns["Opportunity name"], re.sub(r"[^\d.]", "", row.columns["Amount"]))
            for row in list_rows(actions)
        ]
        open_workbook(actions, params["workbook"])
        add_sheet(actions, params["sheet"])
        last = len(deals) + 1
        type_down(actions, "A1", [NAME, *[name for name, _ in deals], TOTAL])
        type_down(actions, "B1", [AMOUNT, *[amount for _, amount in deals], f"=SUM(B2:B{last})"])
        actions.send_msg_to_user(
            f"Copied {len(deals)} Closed Won deal(s) of {params['rep']} to “{params['sheet']}”, "
            f"with a total in B{last + 1}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        sheet, deals = params["sheet"], params["deals"]
        total_row = len(deals) + 2

        def copied(book: Book) -> tuple[bool, str]:
            for cell, want in (("A1", NAME), ("B1", AMOUNT), (f"A{total_row}", TOTAL)):
                have = book.value(sheet, cell)
                if not checks.same_name(have, want):
                    return False, f"{cell} is {have!r}, expected {want!r}"
            rows = sorted(
                (
                    (book.value(sheet, f"A{r}"), book.value(sheet, f"B{r}"))
                    for r in range(2, total_row)
                ),
                key=repr,
            )
            want = sorted(((name, amount) for name, amount in deals), key=repr)
            if len(rows) != len(want) or not all(
                checks.same(h[0], w[0]) and checks.same(h[1], w[1])
                for h, w in zip(rows, want, strict=True)
            ):
                return False, f"the deal rows are {rows!r}, expected {want!r}"
            cell = f"B{total_row}"
            if not checks.same(book.value(sheet, cell), params["total"]):
                return False, f"{cell} is {book.value(sheet, cell)!r}, expected {params['total']:g}"
            first = book.value(sheet, "B2")
            return checks.live(
                book, sheet, cell, {"B2": str(float(first or 0) + 1000)},
                lambda after: checks.same(after, params["total"] + 1000),
            )  # fmt: skip

        return expect.grade(
            ctx,
            checks.new_sheet(
                params["workbook_id"], sheet, copied, within=[f"A1:B{total_row}"],
                name=f"{params['rep']}'s Closed Won deals on “{sheet}”",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["CopyWonDeals"]
