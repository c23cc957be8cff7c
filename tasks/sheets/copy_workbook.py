"""sheets.copy_workbook — make a copy of a named workbook called "<name> — draft".

Anyone who can open a workbook may copy it (Workbook settings, "Name of the copy", "Make a
copy"); the copy belongs to them. The verifier finds one new workbook of that name owned by
the user and holds it to being a faithful copy: every sheet (name, order, frozen rows,
filter), every cell (input and formats) with the value it computes, every column width and
chart of the original. The wrong-record probe copies a similar workbook under the asked name.
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
from ._books import editors, unique_workbook, viewers
from ._model import Book
from .base import SheetsTemplate
from .ui import copy_workbook, open_workbook

SUFFIX = " — draft"
_PHRASINGS = (
    "Make a copy of “{workbook}” called “{copy}”.",
    "I want to try some changes without touching the original: could you copy “{workbook}” "
    "and name the copy “{copy}”?",
    "Please duplicate the workbook “{workbook}” as “{copy}”.",
)


def _stem(name: str) -> str:
    """What similar workbooks share: the name before its first " — " (`Travel Expenses`)."""
    return name.split(" — ", 1)[0]


@register
class CopyWorkbook(SheetsTemplate):
    id = "sheets.copy_workbook"
    difficulty = 1
    difficulty_reason = "one named workbook, its settings page and one form with the copy's name"
    tags = ("navigation", "form")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        names = {n for (n,) in world.execute("SELECT name FROM sheets_workbook")}
        books = [
            (i, n)
            for i, n in world.execute(
                "SELECT id, name FROM sheets_workbook WHERE trashed_at IS NULL ORDER BY id"
            )
            if unique_workbook(world, n) and n + SUFFIX not in names
        ]
        workbook_id, workbook = rng.choice(books)
        people = editors(world, workbook_id) + viewers(world, workbook_id)
        user_id, user = rng.choice(people)
        seen = {
            i
            for (i,) in world.execute(
                "SELECT id FROM sheets_workbook WHERE owner_id = ? "
                "UNION SELECT workbook_id FROM sheets_share WHERE employee_id = ?",
                (user_id, user_id),
            )
        }
        books = [b for b in books if b[0] in seen]
        similar = [b for b in books if b[0] != workbook_id and _stem(b[1]) == _stem(workbook)]
        others = similar or [b for b in books if b[0] != workbook_id]
        return {
            "user": user,
            "user_id": user_id,
            "workbook_id": workbook_id,
            "workbook": workbook,
            "copy": workbook + SUFFIX,
            "decoy": {"workbook": rng.choice(others)[1]} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        copy_workbook(actions, params["copy"])
        actions.send_msg_to_user(f"Made “{params['copy']}”.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        def sheets(book: Book) -> tuple[bool, str]:
            return True, f"{len(book.sheet_ids)} sheet(s): {', '.join(book.sheet_ids)}"

        return expect.grade(
            ctx,
            checks.new_workbook(
                params["user_id"], params["copy"], sheets, like=params["workbook_id"],
                name=f"a copy of “{params['workbook']}” named “{params['copy']}”",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["CopyWorkbook"]
