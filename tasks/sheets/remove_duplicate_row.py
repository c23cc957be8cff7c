"""sheets.remove_duplicate_row — delete the deal row pasted twice into a pipeline workbook, so
its totals match the CRM.

The world plants one such row (`world_oddity` kind `sheet_duplicate_row`): a copy of an
earlier deal pasted under the last deal, which the Total row then counts twice. Deleting
either copy is right: the verifier recomputes the workbook and wants every other deal row
once, whole and in its order, with the Total row right under them summing to what the CRM
says those deals are worth (a live SUM, not a typed number). Clearing the row's contents
leaves a gap in the table and fails. One instance in six is asked by someone who may only
view the workbook: the right move is `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.apps.sheets.engine.values import CellError, Value
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext, TaskError
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import editors, viewers
from ._honest_use import comments_follow
from ._model import Book
from ._stored_values import forged
from .base import SheetsTemplate
from .ui import go_to, open_sheet, open_workbook, tool

WIDTH = 8  # Opportunity .. Weighted
AMOUNT, WEIGHTED = 5, 8
_PHRASINGS = (
    "Someone pasted a deal twice into the {sheet} sheet of “{workbook}”, so the totals are "
    "too high. Please delete the duplicate row.",
    "The Total row of “{workbook}” doesn't match the CRM: one deal appears twice on "
    "{sheet}. Could you remove the extra row?",
    "“{workbook}” has the same opportunity listed twice on {sheet}. Delete the duplicate "
    "row so the totals come out right.",
    "A deal is listed twice on {sheet} in “{workbook}”, inflating the totals. Please delete "
    "the extra row.",
    "Can you clean up “{workbook}”? One opportunity appears twice on the {sheet} sheet; "
    "remove the duplicate row.",
    "The totals in “{workbook}” are off because of a repeated deal row on {sheet}. Delete "
    "that duplicate.",
    "Please remove the duplicated deal row from the {sheet} sheet of “{workbook}” so the "
    "totals match the CRM.",
    "“{workbook}” ({sheet}) has one row pasted twice. Delete the copy so the numbers are right.",
    "Before the forecast call, get rid of the duplicate opportunity row on {sheet} in "
    "“{workbook}”.",
    "One deal shows up twice on {sheet} in “{workbook}”. Delete the duplicate row, please.",
)


def _cell(value: Value) -> Any:
    if isinstance(value, CellError):
        return ("error", value.code)
    if isinstance(value, float):
        return round(value, 9)
    return value


def _row(book: Book, sheet: str, row: int) -> tuple[Any, ...]:
    return tuple(_cell(book.values.get((sheet, row, col))) for col in range(1, WIDTH + 1))


@register
class RemoveDuplicateRow(SheetsTemplate):
    id = "sheets.remove_duplicate_row"
    difficulty = 3
    difficulty_reason = (
        "spot which of a few dozen deal rows repeats another (the copy sits out of date "
        "order under the last deal) and delete the whole row, not just its contents"
    )
    impossible_instances = True
    cardinality = (
        3,
        "the world plants one duplicated row in one workbook; instances differ in who asks",
    )
    tags = ("cleanup", "navigation")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        planted = world.execute(
            """
            SELECT c.sheet_id, c.row, o.row, s.name, w.id, w.name
            FROM world_oddity d
            JOIN sheets_cell c ON c.id = d.row_id JOIN sheets_cell o ON o.id = d.other_id
            JOIN sheets_sheet s ON s.id = c.sheet_id JOIN sheets_workbook w ON w.id = s.workbook_id
            WHERE d.kind = 'sheet_duplicate_row' AND w.trashed_at IS NULL ORDER BY d.id
            """
        ).fetchall()
        if not planted:
            raise TaskError("this world plants no duplicated sheet row")
        sheet_id, row, original, sheet, workbook_id, workbook = rng.choice(planted)
        (total_row,) = world.execute(
            "SELECT row FROM sheets_cell WHERE sheet_id = ? AND col = 1 AND raw = 'Total'",
            (sheet_id,),
        ).fetchone()
        deals = world.execute(
            "SELECT n.value_text, a.value_num FROM sheets_cell n JOIN sheets_cell a "
            "ON a.sheet_id = n.sheet_id AND a.row = n.row AND a.col = ? "
            "WHERE n.sheet_id = ? AND n.col = 1 AND n.row BETWEEN 2 AND ? AND n.row != ?",
            (AMOUNT, sheet_id, total_row - 1, row),
        ).fetchall()
        crm_total = 0.0
        for name, shown in deals:
            # What the CRM says the deal is worth (the sheet's figure if the name is ambiguous).
            found = world.execute(
                "SELECT amount FROM crm_opportunity WHERE name = ?", (name,)
            ).fetchall()
            crm_total += float(found[0][0]) if len(found) == 1 else float(shown or 0)
        feasible = rng.random() >= 1 / 6
        people = editors(world, workbook_id) if feasible else viewers(world, workbook_id)
        if not people:
            feasible, people = True, editors(world, workbook_id)
        _, email = rng.choice(people)
        others = [r for r in range(2, total_row) if r not in (row, original)]
        return {
            "user": email,
            "workbook_id": workbook_id,
            "workbook": workbook,
            "sheet_id": sheet_id,
            "sheet": sheet,
            "row": row,
            "original": original,
            "total_row": total_row,
            "crm_total": crm_total,
            "feasible": feasible,
            "decoy": {"row": rng.choice(others)} if feasible and others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, params["sheet"])
        if not params["feasible"]:
            actions.report_infeasible(
                f"“{params['workbook']}” is shared with me as view only, so I can't delete the row."
            )
            return
        go_to(actions, f"A{params['row']}")
        tool(actions, "Delete row")
        actions.send_msg_to_user(f"Deleted row {params['row']}, the repeated deal.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        sheet, total_row = params["sheet"], params["total_row"]
        conn = ctx.golden_db()
        try:
            before = Book.load(conn, params["workbook_id"], ctx.world_today())
        finally:
            conn.close()
        rows = [_row(before, sheet, r) for r in range(2, total_row)]
        # Either copy may go: the rows left are the same either way.
        kept = [rows[: gone - 2] + rows[gone - 1 :] for gone in (params["row"], params["original"])]
        total = params["crm_total"]

        def deduplicated(book: Book) -> tuple[bool, str]:
            new_total = total_row - 1
            if book.raw_at(sheet, f"A{new_total}") != "Total":
                return False, f"the Total row is not right under the deals (row {new_total})"
            left = [_row(book, sheet, r) for r in range(2, new_total)]
            if left not in kept:
                return False, "the deal rows are not the original ones with the copy taken out"
            amount, weighted = (
                book.value(sheet, refs.address(new_total, c)) for c in (AMOUNT, WEIGHTED)
            )
            if not checks.same(amount, total):
                return False, f"the Amount total is {amount!r}; the CRM says {total:,.0f}"
            want = sum(float(r[WEIGHTED - 1] or 0) for r in left)
            if not checks.same(weighted, want):
                return False, f"the Weighted total is {weighted!r}, expected {want:,.2f}"
            conn = ctx.db()
            try:
                bad = forged(conn, book, sheet)
            finally:
                conn.close()
            if bad:
                return False, bad
            last = f"{refs.column_letters(AMOUNT)}{new_total - 1}"
            raised = float(book.value(sheet, last) or 0) + 1000
            return checks.live(
                book, sheet, refs.address(new_total, AMOUNT), {last: str(raised)},
                lambda after: checks.same(after, total + 1000),
            )  # fmt: skip

        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], sheet, deduplicated, name="the duplicated deal row is gone"
            ),
            comments_follow(params["sheet_id"], (params["row"], params["original"])),
            expect.nothing_else(),
        )


__all__ = ["RemoveDuplicateRow"]
