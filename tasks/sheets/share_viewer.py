"""sheets.share_viewer — share a named workbook with a named colleague, view only (test split).

The user owns the workbook or may edit it (both may share); the colleague has no access yet.
The verifier expects one new share of that workbook for that person with view permission, the
workbook recording the act, and nothing else. One instance in six is asked by someone the
workbook is shared with for viewing only: the Share page lists who has access but offers no
form, so the right move is `report_infeasible`. The wrong-record probe gives edit access.
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
from ._books import editors, outsiders, unique_workbook, viewers
from .base import SheetsTemplate
from .ui import open_workbook, share_workbook

VIEW, EDIT = "Can view", "Can edit"
_PHRASINGS = (
    "Please share “{workbook}” with {person} so they can view it (view only, no editing).",
    "Could you give {person} read-only access to the workbook “{workbook}”?",
    "{person} needs to see “{workbook}”. Share it with them as a viewer.",
)
INFEASIBLE_SHARE = 1 / 6


@register
class ShareViewer(SheetsTemplate):
    id = "sheets.share_viewer"
    difficulty = 1
    difficulty_reason = "one named workbook, its Share page and a person lookup"
    split = "test"
    impossible_instances = True
    tags = ("sharing", "form")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        names = dict(world.execute("SELECT id, display_name FROM people_employee"))
        unique = {
            n for (n,) in world.execute(
                "SELECT display_name FROM people_employee GROUP BY display_name HAVING count(*) = 1"
            )
        }  # fmt: skip
        books = [
            (i, n)
            for i, n in world.execute(
                "SELECT id, name FROM sheets_workbook WHERE trashed_at IS NULL ORDER BY id"
            )
            if unique_workbook(world, n)
        ]
        workbook_id, workbook = rng.choice(books)
        feasible = rng.random() >= INFEASIBLE_SHARE
        people = editors(world, workbook_id) if feasible else viewers(world, workbook_id)
        if not people:
            feasible, people = True, editors(world, workbook_id)
        _, user = rng.choice(people)
        person_id, _ = rng.choice(
            [o for o in outsiders(world, workbook_id) if names[o[0]] in unique]
        )
        return {
            "user": user,
            "feasible": feasible,
            "workbook_id": workbook_id,
            "workbook": workbook,
            "person_id": person_id,
            "person": names[person_id],
            "access": VIEW,
            "decoy": {"access": EDIT} if feasible else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        if not params["feasible"]:
            actions.click(actions.find("link", "Share", exact=True))
            actions.report_infeasible(
                f"“{params['workbook']}” is shared with me as view only, so I can't share it "
                "with anyone."
            )
            return
        share_workbook(actions, params["person"], params["access"])
        actions.send_msg_to_user(
            f"Shared “{params['workbook']}” with {params['person']} (view only)."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.inserted(
                "sheets_share",
                workbook_id=params["workbook_id"],
                employee_id=params["person_id"],
                permission="view",
                name=f"“{params['workbook']}” shared with {params['person']} to view",
            ),
            checks.stamped(params["workbook_id"]),
            expect.nothing_else(),
        )


__all__ = ["ShareViewer"]
