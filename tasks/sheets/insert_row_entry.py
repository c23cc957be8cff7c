"""sheets.insert_row_entry — insert a new deal as a row inside a pipeline, above a named deal.

A pipeline workbook's Pipeline sheet lists deals in close-date order (Opportunity, Account,
Owner, Stage, Amount, Close Date, Probability (%), Weighted = E*G/100) and ends with a Total
row summing Amount and Weighted. The agent inserts a row just above a named deal (never the
first data row or the Total row, so the Total's SUM ranges grow over it), types the new deal's
values, and gives it the Weighted formula of the other rows.

The verifier grades the recomputed workbook against the one at reset: the new row holds the
values asked for and a live Weighted formula; every deal from the insert point down moved one
row down unchanged; the Total row (one row lower) adds the new deal's Amount and Weighted, and
follows a change of the new Amount. The rewritten rows of the sheet from the insert point to
the Total are claimed; comments on moved rows move with them. One instance in six is asked by
someone who may only view the workbook, or cannot open it: `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date
from typing import Any

from officegym.apps.crm.fields import OPEN_STAGES, STAGE_PROBABILITY
from officegym.apps.sheets.engine.values import from_date
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext, TaskError
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import tables, unique_workbook
from ._formulas import ask, messy_sheets, report_no_access, stored_as_computed
from ._model import Book
from .base import SheetsTemplate
from .ui import go_to, open_workbook, tool, type_cells

SHEET = "Pipeline"
MONEY = "$#,##0"
_PHRASINGS = (
    "Please add a deal to “{workbook}”: insert a row just above “{before}” (row {at}) and "
    "enter {deal} — account {account}, owner {owner}, stage {stage}, amount ${amount:,}, "
    "closing {close}, probability {probability}% — with the Weighted formula like the other "
    "rows.",
    "New deal for the pipeline in “{workbook}”, to go in close-date order right above "
    "“{before}” (row {at}): {deal} | {account} | {owner} | {stage} | ${amount:,} | {close} | "
    "{probability}%. Give it the usual Weighted formula so the totals pick it up.",
    "Could you slot {deal} ({account}, owned by {owner}) into “{workbook}” as a new row above "
    "row {at} (“{before}”)? Stage {stage}, ${amount:,}, close date {close}, {probability}% "
    "probability, and Weighted = Amount × Probability / 100 like the rows around it.",
)


def _new_name(world: sqlite3.Connection, rng: random.Random, account: str, taken: set[str]) -> str:
    """A deal name in the CRM's style (`Account — Product kind`) that no deal has yet."""
    suffixes = sorted(
        {
            name.split(" — ", 1)[1]
            for (name,) in world.execute("SELECT name FROM crm_opportunity")
            if " — " in name
        }
    )
    for _ in range(50):
        name = f"{account} — {rng.choice(suffixes)}"
        if name not in taken:
            return name
    raise TaskError(f"no free deal name for {account}")


@register
class InsertRowEntry(SheetsTemplate):
    id = "sheets.insert_row_entry"
    difficulty = 3
    difficulty_reason = (
        "a structural edit (insert row above a given row) then eight cells typed in the right "
        "columns, a date, and a formula copied from the neighbouring rows"
    )
    impossible_instances = True
    tags = ("formula", "multi-step")
    max_steps = 60

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        messy = messy_sheets(world)
        options = [
            t
            for t in tables(world, SHEET)
            if t.sheet_id not in messy
            and t.total_row == t.last + 1
            and t.last >= 4
            and unique_workbook(world, t.workbook)
        ]
        if not options:
            raise TaskError(f"{self.id}: the world has no clean pipeline")
        table = rng.choice(options)
        at = rng.randint(3, table.last)
        rows = {
            (r, c): raw
            for r, c, raw in world.execute(
                "SELECT row, col, raw FROM sheets_cell WHERE sheet_id = ?", (table.sheet_id,)
            )
        }
        owners = sorted({rows[r, 3] for r in range(2, table.last + 1)})
        accounts = [a for (a,) in world.execute("SELECT name FROM crm_account ORDER BY id")]
        taken = {n for (n,) in world.execute("SELECT name FROM crm_opportunity")}
        taken |= {rows[r, 1] for r in range(2, table.last + 1)}
        account = rng.choice(accounts)
        stage = rng.choice(OPEN_STAGES)
        amount = rng.randint(20, 400) * 500
        probability = STAGE_PROBABILITY[stage]
        close = rows[at, 6]
        date.fromisoformat(close)
        comments = world.execute(
            "SELECT id, row FROM sheets_comment WHERE sheet_id = ? AND row >= ? ORDER BY id",
            (table.sheet_id, at),
        ).fetchall()
        who = ask(world, table.workbook_id, rng)
        return {
            **who,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "at": at,
            "before": rows[at, 1],
            "last": table.last,
            "total_row": table.total_row,
            "deal": _new_name(world, rng, account, taken),
            "account": account,
            "owner": rng.choice(owners),
            "stage": stage,
            "amount": amount,
            "close": close,
            "probability": probability,
            "comments": [list(c) for c in comments],
            # The wrong-record probe inserts right above the Total row: outside the SUMs.
            "decoy": {"at": table.total_row} if who["feasible"] else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        at = params["at"]
        open_workbook(actions, params["workbook"])
        go_to(actions, f"A{at}")
        tool(actions, "Insert row above")
        type_cells(
            actions,
            {
                f"A{at}": params["deal"],
                f"B{at}": params["account"],
                f"C{at}": params["owner"],
                f"D{at}": params["stage"],
                f"E{at}": str(params["amount"]),
                f"F{at}": params["close"],
                f"G{at}": str(params["probability"]),
                f"H{at}": f"=E{at}*G{at}/100",
            },
        )
        actions.send_msg_to_user(f"Inserted {params['deal']} as row {at}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        at, total = params["at"], params["total_row"]
        amount, probability = params["amount"], params["probability"]
        weighted = amount * probability / 100
        conn = ctx.golden_db()
        try:
            before = Book.load(conn, params["workbook_id"], ctx.world_today())
        finally:
            conn.close()
        wanted = {
            "A": params["deal"], "B": params["account"], "C": params["owner"],
            "D": params["stage"], "E": amount, "F": from_date(date.fromisoformat(params["close"])),
            "G": probability, "H": weighted,
        }  # fmt: skip

        def inserted(book) -> tuple[bool, str]:
            for letter, want in wanted.items():
                value = book.value(SHEET, f"{letter}{at}")
                if not checks.same(value, want):
                    return False, f"{letter}{at} is {value!r}, expected {want!r}"
            for row in range(at, total):
                for col in range(1, 9):
                    old = before.values.get((SHEET, row, col))
                    new = book.values.get((SHEET, row + 1, col))
                    if not checks.same(new, old):
                        return False, (
                            f"row {row} should have moved to row {row + 1} unchanged; column "
                            f"{col} is {new!r}, was {old!r}"
                        )  # fmt: skip
            for letter, add in (("E", amount), ("H", weighted)):
                cell = f"{letter}{total + 1}"
                old = before.value(SHEET, f"{letter}{total}")
                found = book.value(SHEET, cell)
                if not checks.same(found, old + add):
                    return False, f"the Total {cell} is {found!r}, expected {old + add!r}"
            ok, detail = checks.live(
                book, SHEET, f"H{at}", {f"E{at}": str(amount + 1000)},
                lambda after: checks.same(after, (amount + 1000) * probability / 100),
            )  # fmt: skip
            if not ok:
                return ok, detail
            return checks.live(
                book, SHEET, f"E{total + 1}", {f"E{at}": str(amount + 1000)},
                lambda after: checks.same(after, before.value(SHEET, f"E{total}") + amount + 1000),
            )  # fmt: skip

        moved = [
            expect.updated(
                "sheets_comment", cid, row=row + 1, core=False,
                name=f"the comment on row {row} moved to row {row + 1}",
            )
            for cid, row in params["comments"]
        ]  # fmt: skip
        inserted = stored_as_computed(ctx, SHEET, inserted)
        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], SHEET, inserted, within=[f"{at}:{total + 1}"],
                formats=checks.Formats(number_format=MONEY),
                name=f"{params['deal']} inserted as row {at}, totals include it",
            ),
            *moved,
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["InsertRowEntry"]
