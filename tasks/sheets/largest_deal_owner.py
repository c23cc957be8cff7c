"""sheets.largest_deal_owner — who owns the largest deal of a team's pipeline workbook (test
split).

The largest deal is the Pipeline row with the biggest Amount (an amount stored as text counts
for what it says); the answer is its Owner's name. Every other owner on the sheet is a wrong
candidate, among them the owner of the largest weighted amount. Nothing may change but a
filter set or cleared while reading; the wrong-record probe answers for another pipeline.
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._books import editors, tables, unique_workbook, viewers
from ._honest_use import filter_use
from ._shown_cells import amount, read_rows
from .base import SheetsTemplate
from .ui import open_sheet, open_workbook

SHEET = "Pipeline"
DEAL, OWNER, AMOUNT = 1, 3, 5
_PHRASINGS = (
    "In “{workbook}”, who owns the largest deal?",
    "Quick one: whose deal is the biggest by amount in “{workbook}”? Just the owner's name.",
    "Looking at the Pipeline sheet of “{workbook}”, which rep owns the deal with the highest "
    "Amount?",
)


def _number(kind: str, num: float | None, text: str | None) -> float | None:
    """An amount as it reads: a number, or text that spells one ('38500 typed as text)."""
    if kind == "number":
        return num
    try:
        return float(str(text).replace(",", "").replace("$", ""))
    except ValueError:
        return None


def deals(world: sqlite3.Connection, sheet_id: int, last: int) -> list[tuple[str, str, float]]:
    """(deal, owner, amount) of each Pipeline data row."""
    cells: dict[int, dict[int, Any]] = defaultdict(dict)
    for row, col, kind, num, text in world.execute(
        "SELECT row, col, value_type, value_num, value_text FROM sheets_cell WHERE sheet_id = ? "
        "AND col IN (?, ?, ?) AND row BETWEEN 2 AND ?",
        (sheet_id, DEAL, OWNER, AMOUNT, last),
    ):
        cells[row][col] = _number(kind, num, text) if col == AMOUNT else text
    return [
        (c[DEAL], c[OWNER], c[AMOUNT])
        for _row, c in sorted(cells.items())
        if isinstance(c.get(OWNER), str) and isinstance(c.get(AMOUNT), float)
    ]


def _largest(rows: list[tuple[str, str, float]]) -> str | None:
    """The owner of the largest amount, or None when the largest is shared by two owners."""
    top = max(a for _d, _o, a in rows)
    owners = {o for _d, o, a in rows if a == top}
    return owners.pop() if len(owners) == 1 else None


@register
class LargestDealOwner(SheetsTemplate):
    id = "sheets.largest_deal_owner"
    difficulty = 3
    difficulty_reason = (
        "find the largest Amount among dozens of rows (sorting would change the sheet, so "
        "read or filter), one amount stored as text, then read its Owner"
    )
    split = "test"
    tags = ("answer", "navigation")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world, SHEET):
            if not unique_workbook(world, table.workbook):
                continue
            rows = deals(world, table.sheet_id, table.last)
            owners = sorted({o for _d, o, _a in rows})
            owner = _largest(rows) if rows else None
            if owner is not None and len(owners) >= 3:
                options.append((table, rows, owners, owner))
        # The answer first, then one of its workbooks: a few reps own most of the big deals.
        answer = rng.choice(sorted({o[3] for o in options}))
        table, rows, owners, owner = rng.choice([o for o in options if o[3] == answer])
        deal = next(d for d, o, a in rows if o == owner and a == max(x for *_y, x in rows))
        # Someone who can read the workbook, but not the answer itself (they would say "me").
        people = [
            (i, e)
            for i, e in editors(world, table.workbook_id) + viewers(world, table.workbook_id)
            if world.execute(
                "SELECT display_name FROM people_employee WHERE id = ?", (i,)
            ).fetchone()[0]
            != owner
        ]
        _, email = rng.choice(people)
        decoys = [t for t, _r, _o, answer in options if answer != owner]
        return {
            "user": email,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "last": table.last,
            "owner": owner,
            "deal": deal,
            "candidates": [owner] + [o for o in owners if o != owner],
            "decoy": (
                {"workbook": (d := rng.choice(decoys)).workbook, "last": d.last} if decoys else None
            ),
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, SHEET)
        rows = read_rows(actions, params["last"])
        data = [
            (amount(cells[AMOUNT]), cells[OWNER])
            for row, cells in sorted(rows.items())
            if 2 <= row <= params["last"] and AMOUNT in cells and OWNER in cells
        ]
        _top, owner = max(data, key=lambda pair: pair[0])
        actions.send_msg_to_user(owner)

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(params["owner"], kind="name", distractors=params["candidates"][1:]),
            filter_use(params["workbook_id"]),
            expect.nothing_else(),
        )


__all__ = ["LargestDealOwner", "deals"]
