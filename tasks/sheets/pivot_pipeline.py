"""sheets.pivot_pipeline — a pivot table of a pipeline workbook's deals: Amount summed by
Stage (some instances by Stage down and Owner across), on a new sheet with the name asked.

The Pipeline sheet ends with a Total row, and the "Pivot table" page offers the sheet's whole
used range, Total row included: taken in, it adds a "(blank)" stage and doubles the grand
total. The verifier recomputes the new sheet: its grid must be the pivot of the deals alone
(any range holding the same data passes), and each stage's (or stage and owner's) total must
be the sum of the deals' amounts read from the world at reset. The wrong-record probe pivots
another pipeline workbook.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.sheets import pivot as pivots
from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import Table, editors, tables, unique_workbook
from ._model import Book
from .base import SheetsTemplate
from .ui import open_sheet, open_workbook, pivot_table

SHEET = "Pipeline"
STAGE, OWNER, AMOUNT = "Stage", "Owner", "Amount"
_BY_STAGE = (
    "In “{workbook}”, build a pivot table of the {sheet} sheet: total {amount} by {stage}, on "
    "a new sheet called “{target}”. Use the deals only, not the Total row.",
    "Could you make a pivot of the deals in “{workbook}” ({sheet} sheet) showing the sum of "
    "{amount} for each {stage}? Put it on a new sheet named “{target}”, and leave the Total "
    "row out of the data.",
    "I need revenue by stage for “{workbook}”: a pivot table summing {amount} per {stage} from "
    "the {sheet} sheet, on a new sheet “{target}”, so its grand total matches the sheet's "
    "Total row.",
)
_BY_OWNER = (
    "In “{workbook}”, build a pivot table of the {sheet} sheet with {stage} down the side, "
    "{owner} across the top and the sum of {amount} in the cells, on a new sheet called "
    "“{target}”. Use the deals only, not the Total row.",
    "Could you pivot the deals in “{workbook}” ({sheet} sheet): {stage} as rows, {owner} as "
    "columns, {amount} summed? New sheet named “{target}”, and leave the Total row out.",
    "For “{workbook}”, I'd like a pivot table on a new sheet “{target}” that sums {amount} by "
    "{stage} (rows) and {owner} (columns) from the {sheet} sheet, with a grand total that "
    "matches the sheet's Total row.",
)
_TARGETS = {False: ("Revenue by Stage", "Amount by Stage", "Stage Summary"),
            True: ("Stage by Owner", "Revenue by Stage and Owner", "Owner Breakdown")}  # fmt: skip


def _deals(world: sqlite3.Connection, table: Table) -> list[tuple[str, str, float]] | None:
    """(stage, owner, amount) of every deal row, or None when an amount is not a number."""
    col = {h: i for i, h in enumerate(table.headers, start=1)}
    rows = world.execute(
        "SELECT row, col, value_type, value_num, value_text FROM sheets_cell "
        "WHERE sheet_id = ? AND row BETWEEN 2 AND ? AND col IN (?, ?, ?)",
        (table.sheet_id, table.last, col[STAGE], col[OWNER], col[AMOUNT]),
    ).fetchall()
    by_row: dict[int, dict[int, tuple[str, float | None, str | None]]] = {}
    for row, c, kind, num, text in rows:
        by_row.setdefault(row, {})[c] = (kind, num, text)
    deals = []
    for row in range(2, table.last + 1):
        cells = by_row.get(row, {})
        amount = cells.get(col[AMOUNT])
        stage, owner = cells.get(col[STAGE]), cells.get(col[OWNER])
        if amount is None or amount[0] != "number" or stage is None or owner is None:
            return None
        deals.append((str(stage[2]), str(owner[2]), float(amount[1])))
    return deals


@per_golden
def _pipelines(world: sqlite3.Connection) -> list[tuple[Table, list[tuple[str, str, float]]]]:
    found = []
    for table in tables(world, SHEET):
        if not {STAGE, OWNER, AMOUNT} <= set(table.headers) or not table.total_row:
            continue
        if not unique_workbook(world, table.workbook):
            continue
        deals = _deals(world, table)
        if deals and len({d[0] for d in deals}) >= 2:
            found.append((table, deals))
    return found


def _totals(deals: list[tuple[str, str, float]], by_owner: bool) -> list[list[Any]]:
    """[stage, owner or None, total] per group, adding amounts in row order as the pivot does."""
    sums: dict[tuple[str, str | None], float] = {}
    for stage, owner, amount in deals:
        key = (stage, owner if by_owner else None)
        sums[key] = sums.get(key, 0.0) + amount
    return [[stage, owner, total] for (stage, owner), total in sorted(sums.items(), key=repr)]


@register
class PivotPipeline(SheetsTemplate):
    id = "sheets.pivot_pipeline"
    difficulty = 4
    difficulty_reason = (
        "a multi-field tool page: the data range must be narrowed to leave the Total row out, "
        "then rows, columns, value and function chosen and the new sheet named"
    )
    tags = ("chart-pivot", "form", "multi-step")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = _pipelines(world)
        table, deals = rng.choice(options)
        by_owner = len({d[1] for d in deals}) >= 2 and rng.random() < 0.5
        _, user = rng.choice(editors(world, table.workbook_id))
        letter = chr(ord("A") + len(table.headers) - 1)
        others = [o for o in options if o[0].workbook_id != table.workbook_id]
        same_team = [
            o for o in others if o[0].workbook.split(" — ")[0] == table.workbook.split(" — ")[0]
        ]
        decoy = None
        if others:
            other = rng.choice(same_team or others)[0]
            decoy = {"workbook": other.workbook, "data": f"A1:{letter}{other.last}"}
        return {
            "user": user,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "sheet": SHEET,
            "data": f"A1:{letter}{table.last}",
            "by_owner": by_owner,
            "target": rng.choice(_TARGETS[by_owner]),
            "totals": _totals(deals, by_owner),
            "grand_total": sum(d[2] for d in deals),
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        phrasings = _BY_OWNER if params["by_owner"] else _BY_STAGE
        return rng.choice(phrasings).format(stage=STAGE, owner=OWNER, amount=AMOUNT, **params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, params["sheet"])
        pivot_table(
            actions,
            params["data"],
            rows=[STAGE],
            columns=[OWNER] if params["by_owner"] else [],
            value=AMOUNT,
            function="SUM",
            name=params["target"],
        )
        actions.send_msg_to_user(f"The pivot table is on the new sheet “{params['target']}”.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        target, by_owner = params["target"], params["by_owner"]

        def totals(book: Book) -> tuple[bool, str]:
            cells = {(r, c): v for (s, r, c), v in book.values.items() if s == target}
            head = {c: v for (r, c), v in cells.items() if r == 1}
            rows = {v: r for (r, c), v in cells.items() if c == 1 and r > 1}
            for stage, owner, want in params["totals"]:
                label = (
                    f"{owner}{pivots.SEPARATOR}SUM of {AMOUNT}" if by_owner else f"SUM of {AMOUNT}"
                )
                col = next((c for c, v in head.items() if v == label), None)
                row = rows.get(stage)
                have = cells.get((row, col)) if row and col else None
                if not checks.same(have, want):
                    group = f"{stage} / {owner}" if owner else stage
                    return False, f"{group} totals {have!r}, expected {want:g}"
            grand = rows.get(pivots.GRAND_TOTAL)
            last = max((c for c, v in head.items()), default=0)
            have = cells.get((grand, last)) if grand else None
            if not checks.same(have, params["grand_total"]):
                return False, f"the grand total is {have!r}, expected {params['grand_total']:g}"
            return True, f"{len(params['totals'])} group totals and the grand total match the deals"

        return expect.grade(
            ctx,
            checks.pivot(
                params["workbook_id"], params["sheet"], params["data"], target, [STAGE],
                [OWNER] if by_owner else [], [(AMOUNT, "SUM")], totals,
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["PivotPipeline"]
