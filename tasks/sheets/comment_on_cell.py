"""sheets.comment_on_cell — leave a comment on one deal's Amount cell of a pipeline workbook
(test split).

Anyone who can see a workbook may comment on it, viewers too, so the verifier wants one new
comment on the Pipeline sheet at the deal's Amount cell, by the user, holding the asked words
(in any case, within the free-text bound), and nothing else. One instance in six is asked by
someone the workbook is not shared with at all: they cannot open it, so the right move is
`report_infeasible`. The wrong-record probe comments on another deal's Amount.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.match import contains
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import editors, outsiders, tables, unique_workbook, viewers
from .base import SheetsTemplate
from .ui import fill_form, go_to, open_sheet, open_workbook, submit

SHEET = "Pipeline"
DEAL, AMOUNT = 1, 5
NOTES = (
    "Please double-check this amount against the signed order form.",
    "Confirmed with the customer on today's call.",
    "Discount still under review, so this may change.",
    "Matches the CRM as of this morning.",
    "Finance asked for the final quote before we count this.",
    "Includes the implementation fee; check if that should be split out.",
)
_PHRASINGS = (
    "In “{workbook}”, leave a comment on the Amount cell of “{deal}” saying: {note}",
    "Could you add a comment to the Amount of “{deal}” on the Pipeline sheet of "
    "“{workbook}”? It should read: {note}",
    "Please comment on the Amount of the “{deal}” deal in “{workbook}” with this note: {note}",
)


@register
class CommentOnCell(SheetsTemplate):
    id = "sheets.comment_on_cell"
    difficulty = 1
    difficulty_reason = "one workbook and one deal named in full; select its Amount and comment"
    split = "test"
    impossible_instances = True
    tags = ("form", "navigation")
    max_steps = 16

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world, SHEET):
            if not unique_workbook(world, table.workbook):
                continue
            rows = world.execute(
                "SELECT n.row, n.value_text FROM sheets_cell n JOIN sheets_cell a "
                "ON a.sheet_id = n.sheet_id AND a.row = n.row AND a.col = ? "
                "WHERE n.sheet_id = ? AND n.col = ? AND n.row BETWEEN 2 AND ? ORDER BY n.row",
                (AMOUNT, table.sheet_id, DEAL, table.last),
            ).fetchall()
            named = Counter(name for _r, name in rows)
            deals = [(r, name) for r, name in rows if named[name] == 1]
            options += [(table, deals, r, name) for r, name in deals]
        table, deals, row, deal = rng.choice(options)
        feasible = rng.random() >= 1 / 6
        if feasible:
            people = editors(world, table.workbook_id) + viewers(world, table.workbook_id)
        else:
            people = outsiders(world, table.workbook_id)
        user_id, email = rng.choice(people)
        others = [(r, name) for r, name in deals if r != row]
        decoy = None
        if feasible and others:
            wrong_row, wrong_deal = rng.choice(others)
            decoy = {"deal": wrong_deal, "row": wrong_row}
        return {
            "user": email,
            "user_id": user_id,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "sheet_id": table.sheet_id,
            "deal": deal,
            "row": row,
            "note": rng.choice(NOTES),
            "feasible": feasible,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            actions.goto("/sheets/")
            box = actions.find("searchbox", "Search workbooks", exact=True)
            actions.fill(box, params["workbook"])
            actions.press(box, "Enter")
            actions.report_infeasible(
                f"“{params['workbook']}” isn't shared with me, so I can't open it to comment."
            )
            return
        open_workbook(actions, params["workbook"])
        open_sheet(actions, SHEET)
        cell = f"E{params['row']}"
        go_to(actions, cell)
        # The link says how many comments the sheet has ("Comments (2)").
        actions.click(actions.find("link", "Comments"))
        fill_form(actions, {"Cell": cell, "Comment": params["note"]})
        submit(actions, "Add comment")
        actions.send_msg_to_user(f"Commented on {params['deal']}'s Amount ({cell}).")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.inserted(
                "sheets_comment",
                sheet_id=params["sheet_id"],
                row=params["row"],
                col=AMOUNT,
                author_id=params["user_id"],
                body=contains(params["note"]),
                name=f"a comment on {params['deal']}'s Amount",
            ),
            checks.stamped(params["workbook_id"]),
            expect.nothing_else(),
        )


__all__ = ["CommentOnCell"]
