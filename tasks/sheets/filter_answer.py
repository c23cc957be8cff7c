"""sheets.filter_answer — filter a Trips sheet to one traveller or one hotel and say what those
trips cost in total (test split).

The answer is the sum of the Cost column over the rows whose Traveller (or Hotel) is the one
named. The filter may be left on or turned off: nothing may change but the sheet's filter.
Plausible wrong answers: the whole sheet's total, the sum of those trips' nightly rates (the
cost without the nights), the most recent of those trips alone, and another traveller's (or
hotel's) total.
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

SHEET = "Trips"
TRAVELLER, HOTEL, RATE, COST = 2, 3, 7, 8
_PHRASINGS = {
    TRAVELLER: (
        "Filter “{workbook}” (Trips tab) to {who}'s trips and tell me their total cost.",
        "How much did {who}'s trips cost altogether? They're on the Trips tab of "
        "“{workbook}”; filtering on Traveller is quickest.",
        "In “{workbook}”, narrow Trips down to the traveller {who} and report what those "
        "rows' Cost adds up to.",
    ),
    HOTEL: (
        "Filter “{workbook}” (Trips tab) to stays at {who} and tell me what they cost in total.",
        "What did we spend in total on stays at {who}? Filter the Trips tab of “{workbook}” "
        "by Hotel and add up Cost.",
        "In “{workbook}”, narrow Trips down to the hotel {who} and report what those rows' "
        "Cost adds up to.",
    ),
}


def _rows(world: sqlite3.Connection, sheet_id: int, last: int) -> list[dict[int, Any]]:
    cells: dict[int, dict[int, Any]] = defaultdict(dict)
    for row, col, kind, num, text in world.execute(
        "SELECT row, col, value_type, value_num, value_text FROM sheets_cell WHERE sheet_id = ? "
        "AND col IN (?, ?, ?, ?) AND row BETWEEN 2 AND ?",
        (sheet_id, TRAVELLER, HOTEL, RATE, COST, last),
    ):
        cells[row][col] = num if kind == "number" else text
    return [
        c
        for _row, c in sorted(cells.items())
        if all(isinstance(c.get(k), str) for k in (TRAVELLER, HOTEL))
        and all(isinstance(c.get(k), float) for k in (RATE, COST))
    ]


def _dollars(value: float) -> str:
    return f"${value:,.0f}" if float(value).is_integer() else f"${value:,.2f}"


@register
class FilterAnswer(SheetsTemplate):
    id = "sheets.filter_answer"
    difficulty = 3
    difficulty_reason = (
        "a filter on one of dozens of travellers or hotels (or a careful read of a long "
        "sheet), then a sum of the rows it leaves"
    )
    split = "test"
    tags = ("answer", "sort-filter", "navigation")
    max_steps = 30

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world, SHEET):
            if not unique_workbook(world, table.workbook):
                continue
            rows = _rows(world, table.sheet_id, table.last)
            for col in (TRAVELLER, HOTEL):
                groups: dict[str, list[dict[int, Any]]] = defaultdict(list)
                for row in rows:
                    groups[row[col]].append(row)
                for who, picked in sorted(groups.items()):
                    if len(picked) >= 2 and len(groups) >= 3:
                        options.append((table, rows, col, groups, who))
        table, rows, col, groups, who = rng.choice(options)
        picked = groups[who]
        total = sum(r[COST] for r in picked)
        others = sorted(w for w in groups if w != who)
        near = [
            sum(r[COST] for r in rows),
            sum(r[RATE] for r in picked),
            picked[-1][COST],
            *(sum(r[COST] for r in groups[w]) for w in rng.sample(others, min(3, len(others)))),
        ]
        candidates = [_dollars(total)] + [_dollars(v) for v in near if abs(v - total) >= 0.5]
        people = editors(world, table.workbook_id) + viewers(world, table.workbook_id)
        _, email = rng.choice(people)
        decoys = [w for w in others if len(groups[w]) >= 2]
        return {
            "user": email,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "last": table.last,
            "col": col,
            "who": who,
            "trips": len(picked),
            "total": total,
            "candidates": list(dict.fromkeys(candidates)),
            "decoy": {"who": rng.choice(decoys)} if decoys else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS[params["col"]]).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, SHEET)
        rows = read_rows(actions, params["last"])
        total = sum(
            amount(cells[COST])
            for row, cells in rows.items()
            if 2 <= row <= params["last"] and cells.get(params["col"]) == params["who"]
        )
        actions.send_msg_to_user(_dollars(total))

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(params["total"], kind="money", distractors=params["candidates"][1:]),
            filter_use(params["workbook_id"]),
            expect.nothing_else(),
        )


__all__ = ["FilterAnswer"]
