"""sheets.import_csv — import a CSV file handed to the agent as a new workbook with the name
asked.

The file is built from the world: a quarter's Closed Won bookings per office, a quarter's open
pipeline per stage, or the headcount per office and department. The home page's import names
the workbook after the file, so when the name asked differs from the file's the agent renames
it afterwards (Workbook settings). The verifier finds one new workbook of that name owned by
the user whose cells are exactly the file's fields read as typed (numbers as numbers, no
formats of their own), with nothing else. The wrong-record probe leaves the file's name on it.
"""

from __future__ import annotations

import csv
import io
import random
import sqlite3
from collections.abc import Mapping
from datetime import date
from typing import Any

from officegym.apps.sheets.engine.values import parse_input
from officegym.tasks import expect
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._model import Book
from .base import SheetsTemplate
from .ui import import_file, rename_workbook

_PHRASINGS = (
    "Import {file} into Sheets as a new workbook named “{name}”.",
    "I've attached {file}. Could you bring it into Sheets as its own workbook, called “{name}”?",
    "Please load the CSV {file} into a new workbook and make sure the workbook is named “{name}”.",
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip


def _quarters(today: date) -> list[tuple[int, int]]:
    """(year, quarter) of this quarter, the three before it and the next."""
    index = today.year * 4 + (today.month - 1) // 3
    return [((i // 4), i % 4 + 1) for i in range(index - 3, index + 2)]


def _bounds(year: int, q: int) -> tuple[str, str]:
    start = date(year, 3 * q - 2, 1)
    end = date(year + (q == 4), 1 if q == 4 else 3 * q + 1, 1)
    return start.isoformat(), date.fromordinal(end.toordinal() - 1).isoformat()


@per_golden
def _tables(world: sqlite3.Connection, today: date) -> list[dict[str, Any]]:
    """Every file the world can give: its rows (header first), file stem and workbook name."""
    found = []
    for year, q in _quarters(today):
        start, end = _bounds(year, q)
        booked = world.execute(
            """
            SELECT o.name, count(*), sum(p.amount) FROM crm_opportunity p
            JOIN people_employee e ON e.id = p.owner_id JOIN people_office o ON o.id = e.office_id
            WHERE p.stage = 'Closed Won' AND p.close_date BETWEEN ? AND ? AND p.amount IS NOT NULL
            GROUP BY o.name ORDER BY o.name
            """,
            (start, end),
        ).fetchall()
        if len(booked) >= 2:
            found.append({
                "rows": [["Office", "Deals", "Bookings"], *[list(r) for r in booked]],
                "stem": f"bookings_q{q}_{year}", "name": f"Q{q} {year} Bookings by Office",
            })  # fmt: skip
        open_deals = world.execute(
            """
            SELECT stage, count(*), sum(amount) FROM crm_opportunity
            WHERE stage NOT IN ('Closed Won', 'Closed Lost') AND close_date BETWEEN ? AND ?
              AND amount IS NOT NULL
            GROUP BY stage ORDER BY min(probability), stage
            """,
            (start, end),
        ).fetchall()
        if len(open_deals) >= 2:
            found.append({
                "rows": [["Stage", "Deals", "Amount"], *[list(r) for r in open_deals]],
                "stem": f"pipeline_q{q}_{year}", "name": f"Q{q} {year} Open Pipeline by Stage",
            })  # fmt: skip
    people = world.execute(
        """
        SELECT o.name, t.department, count(*) FROM people_employee e
        JOIN people_office o ON o.id = e.office_id JOIN people_team t ON t.id = e.team_id
        WHERE e.is_active GROUP BY o.name, t.department ORDER BY o.name, t.department
        """
    ).fetchall()
    found.append({
        "rows": [["Office", "Department", "Headcount"], *[list(r) for r in people]],
        "stem": "headcount_by_office",
        "name": f"Headcount by Office {_MONTHS[today.month - 1]} {today.year}",
    })  # fmt: skip
    return found


@register
class ImportCsv(SheetsTemplate):
    id = "sheets.import_csv"
    difficulty = 3
    difficulty_reason = (
        "a file upload on the home page, then finding the workbook's settings to rename it "
        "when the name asked is not the file's"
    )
    tags = ("file", "form", "multi-step")
    max_steps = 14

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        (now,) = world.execute("SELECT now FROM world_meta").fetchone()
        today = date.fromisoformat(str(now)[:10])
        taken = {n for (n,) in world.execute("SELECT name FROM sheets_workbook")}
        options = [t for t in _tables(world, today) if t["name"] not in taken]
        table = rng.choice(options)
        keep_name = rng.random() < 1 / 3
        stem = table["name"] if keep_name else table["stem"]
        user_id, user = rng.choice(
            world.execute(
                "SELECT e.id, e.email FROM people_employee e "
                "JOIN people_team t ON t.id = e.team_id WHERE e.is_active "
                "AND t.department IN ('Sales', 'Finance', 'Operations', 'People') ORDER BY e.id"
            ).fetchall()
        )
        rows = [
            [int(v) if isinstance(v, float) and v.is_integer() else v for v in r]
            for r in table["rows"]
        ]
        return {
            "user": user,
            "user_id": user_id,
            "file": f"{stem}.csv",
            "stem": stem,
            "name": table["name"],
            "rows": rows,
            "decoy": None if keep_name else {"name": stem},
        }

    def files(self, params: Mapping[str, Any]) -> Mapping[str, bytes]:
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerows(params["rows"])
        return {params["file"]: out.getvalue().encode("utf-8")}

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        import_file(actions, params["file"])
        if params["name"] != params["stem"]:
            rename_workbook(actions, params["name"])
        actions.send_msg_to_user(f"Imported {params['file']} as “{params['name']}”.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        fields = {
            (r, c): parse_input(str(value)).value
            for r, line in enumerate(params["rows"], start=1)
            for c, value in enumerate(line, start=1)
            if value not in (None, "")
        }

        def contents(book: Book) -> tuple[bool, str]:
            if len(book.sheet_ids) != 1:
                return False, f"{len(book.sheet_ids)} sheets, expected the file's one"
            (sheet,) = book.sheet_ids
            have = {(r, c): book.values.get((s, r, c)) for (s, r, c) in book.raw if s == sheet}
            for key in sorted(set(fields) | set(have)):
                if key not in have or key not in fields or not checks.same(have[key], fields[key]):
                    r, c = key
                    have_text, want_text = repr(have.get(key)), repr(fields.get(key))
                    return False, f"row {r} column {c} is {have_text}, the file has {want_text}"
            return True, f"the {len(params['rows'])} rows of {params['file']} are on {sheet!r}"

        return expect.grade(
            ctx,
            checks.new_workbook(params["user_id"], params["name"], contents),
            expect.nothing_else(),
        )


__all__ = ["ImportCsv"]
