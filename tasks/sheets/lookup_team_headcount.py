"""sheets.lookup_team_headcount — bring each person's team figure onto the Roster with a lookup.

The "Headcount by Team — …" workbook has a By Team sheet (Department, Team, Headcount,
Managers) and a Roster sheet (Name, Title, Team, Office, Hire Date). The agent adds a column in
the Roster's next free column, headed as asked, that looks up each person's team on By Team
and brings back its headcount, its number of managers or its department (VLOOKUP, XLOOKUP or
INDEX/MATCH across sheets), filled down for every roster row.

The verifier recomputes the workbook: every roster row's cell is a formula equal to its team's
figure on By Team, and on a fork with one team's figure changed on By Team, that team's
members follow while the others keep theirs (a typed-in column fails). One instance in six is
asked by someone who may only view the workbook, or cannot open it: `report_infeasible`.
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
    add_formula_column,
    ask,
    follows,
    formula_rows,
    free_column,
    has_header,
    report_no_access,
    stored_as_computed,
)
from .base import SheetsTemplate
from .ui import open_sheet, open_workbook

TEAMS, ROSTER = "By Team", "Roster"
# What can be looked up: the By Team column, the headers a colleague might want, and the new
# value a fork types into one team's cell to prove the lookup is live.
_FIELDS = {
    "Headcount": ("C", ("Team Headcount", "Team Size"), "the team's headcount"),
    "Managers": ("D", ("Team Managers", "Managers on Team"), "how many managers the team has"),
    "Department": ("A", ("Department", "Team Department"), "the team's department"),
}
_PHRASINGS = (
    "In “{workbook}”, add a column {col} on the Roster sheet headed “{header}” that looks up "
    "{what} from the By Team sheet for each person. Use a lookup formula and fill it down for "
    "every person.",
    "Could you put {what} next to each person on the Roster of “{workbook}”? New column "
    "{col}, header “{header}”, pulled from By Team with a formula (VLOOKUP, XLOOKUP or "
    "INDEX/MATCH) so it stays in sync.",
    "On the Roster tab of “{workbook}”, I need a “{header}” column ({col}) showing {what}, "
    "looked up from By Team by the person's team, for all rows.",
)


def lookup_formula(field: str, last_team: int) -> str:
    """The oracle's formula in row 2 of the new column."""
    teams = f"'{TEAMS}'!$B$2:$B${last_team}"
    if field == "Department":
        return f"=INDEX('{TEAMS}'!$A$2:$A${last_team},MATCH(C2,{teams},0))"
    index = 2 if field == "Headcount" else 3
    return f"=VLOOKUP(C2,'{TEAMS}'!$B$2:$D${last_team},{index},FALSE)"


@register
class LookupTeamHeadcount(SheetsTemplate):
    id = "sheets.lookup_team_headcount"
    difficulty = 4
    difficulty_reason = (
        "a lookup across sheets with absolute references, a header, and a fill down over "
        "~150 rows; the Department variant needs INDEX/MATCH or XLOOKUP (VLOOKUP cannot look left)"
    )
    impossible_instances = True
    tags = ("formula", "multi-step")
    max_steps = 25

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        books = {}
        for table in tables(world):
            if table.workbook.startswith("Headcount by Team") and unique_workbook(
                world, table.workbook
            ):
                books.setdefault(table.workbook_id, {})[table.sheet] = table
        books = {k: v for k, v in books.items() if TEAMS in v and ROSTER in v}
        if not books:
            raise TaskError(f"{self.id}: the world has no headcount workbook")
        sheets = books[rng.choice(sorted(books))]
        teams, roster = sheets[TEAMS], sheets[ROSTER]
        field = rng.choice(sorted(_FIELDS))
        source, headers, what = _FIELDS[field]
        col = refs.column_letters(free_column(world, roster.sheet_id))
        # The fork changes the figure of a team with at least two people on the Roster.
        by_team = world.execute(
            "SELECT raw, row FROM sheets_cell WHERE sheet_id = ? AND col = 2 "
            "AND row BETWEEN 2 AND ?",
            (teams.sheet_id, teams.last),
        ).fetchall()
        members = dict(
            world.execute(
                "SELECT raw, count(*) FROM sheets_cell WHERE sheet_id = ? AND col = 3 "
                "AND row BETWEEN 2 AND ? GROUP BY raw",
                (roster.sheet_id, roster.last),
            ).fetchall()
        )
        probes = sorted((row, team) for team, row in by_team if members.get(team, 0) >= 2)
        probe_row, probe_team = rng.choice(probes)
        who = ask(world, teams.workbook_id, rng)
        other = rng.choice(sorted(f for f in _FIELDS if f != field))
        return {
            **who,
            "workbook_id": teams.workbook_id,
            "workbook": teams.workbook,
            "field": field,
            "source": source,
            "what": what,
            "header": rng.choice(headers),
            "col": col,
            "last": roster.last,
            "last_team": teams.last,
            "formula": lookup_formula(field, teams.last),
            "probe_team": probe_team,
            "probe_row": probe_row,
            # The wrong-record probe looks up another column of By Team.
            "decoy": {"formula": lookup_formula(other, teams.last)} if who["feasible"] else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        if not params["feasible"]:
            report_no_access(actions, params["workbook"], params["access"])
            return
        open_workbook(actions, params["workbook"])
        open_sheet(actions, ROSTER)
        add_formula_column(
            actions, params["col"], params["header"], params["formula"], 2, params["last"]
        )
        actions.send_msg_to_user(
            f"Added “{params['header']}” in column {params['col']} of the Roster, looked up "
            "from By Team for every person."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        col, last, source = params["col"], params["last"], params["source"]
        probe_team, probe_row = params["probe_team"], params["probe_row"]
        rows = range(2, last + 1)

        def looked_up(book) -> tuple[bool, str]:
            ok, detail = has_header(book, ROSTER, f"{col}1", params["header"])
            if not ok:
                return ok, detail
            figures = {
                book.value(TEAMS, f"B{r}"): book.value(TEAMS, f"{source}{r}")
                for r in range(2, params["last_team"] + 1)
            }
            ok, detail = formula_rows(
                book, ROSTER, col, rows, lambda r: figures.get(book.value(ROSTER, f"C{r}"))
            )
            if not ok:
                return ok, detail
            before = figures[probe_team]
            after = f"{before} (renamed)" if isinstance(before, str) else before + 7
            wants = {
                f"{col}{r}": after
                if book.value(ROSTER, f"C{r}") == probe_team
                else book.value(ROSTER, f"{col}{r}")
                for r in rows
            }
            return follows(book, {(TEAMS, f"{source}{probe_row}"): str(after)}, ROSTER, wants)

        looked_up = stored_as_computed(ctx, ROSTER, looked_up)
        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], ROSTER, looked_up, within=[f"{col}1:{col}{last}"],
                name=f"“{params['header']}” in {col} looks up {params['field']} from By Team",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["LookupTeamHeadcount"]
