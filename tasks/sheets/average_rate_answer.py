"""sheets.average_rate_answer — the average nightly rate of one city's trips in a travel
workbook (test split).

The answer is the plain average of the Nightly Rate column over the Trips rows whose City is
the one asked for, to the cent (money, within half a cent). Nothing may change but a filter
set or cleared while reading. Plausible wrong answers: the average over every trip, the
city's median rate, another city's average, the sum of the city's rates and the average per
night (cost over nights).
"""

from __future__ import annotations

import random
import sqlite3
import statistics
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._books import editors, tables, unique_workbook, viewers
from ._honest_use import filter_use
from ._shown_cells import amount, money, read_rows
from .base import SheetsTemplate
from .ui import open_sheet, open_workbook

SHEET = "Trips"
CITY, NIGHTS, RATE = 4, 6, 7
_PHRASINGS = (
    "What was the average nightly rate of the trips to {city} in “{workbook}”? I mean the "
    "plain average of the Nightly Rate column over those trips, to the cent.",
    "Looking at the Trips sheet of “{workbook}”: what's the mean Nightly Rate of the {city} "
    "stays? Give it to the cent.",
    "I need the average of the Nightly Rate column for the {city} trips in “{workbook}”, "
    "rounded to the cent.",
)


def trips(world: sqlite3.Connection, sheet_id: int, last: int) -> list[tuple[str, float, float]]:
    """(city, nights, nightly rate) of each data row of a Trips sheet."""
    cells: dict[int, dict[int, Any]] = defaultdict(dict)
    for row, col, kind, num, text in world.execute(
        "SELECT row, col, value_type, value_num, value_text FROM sheets_cell WHERE sheet_id = ? "
        "AND col IN (?, ?, ?) AND row BETWEEN 2 AND ?",
        (sheet_id, CITY, NIGHTS, RATE, last),
    ):
        cells[row][col] = num if kind == "number" else text
    return [
        (c[CITY], float(c[NIGHTS]), float(c[RATE]))
        for _row, c in sorted(cells.items())
        if isinstance(c.get(CITY), str)
        and isinstance(c.get(NIGHTS), float)
        and isinstance(c.get(RATE), float)
    ]


def _cents_tie(value: float) -> bool:
    """Whether rounding to the cent is a coin toss (an exact half cent)."""
    return abs(value * 200 - round(value * 200)) < 1e-9 and round(value * 200) % 2 == 1


@register
class AverageRateAnswer(SheetsTemplate):
    id = "sheets.average_rate_answer"
    difficulty = 2
    difficulty_reason = (
        "pick one city's rows out of a long Trips sheet (a filter or a careful read) and "
        "average one column to the cent"
    )
    split = "test"
    tags = ("answer", "navigation")
    max_steps = 25

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world, SHEET):
            if not unique_workbook(world, table.workbook):
                continue
            rows = trips(world, table.sheet_id, table.last)
            by_city: dict[str, list[tuple[float, float]]] = defaultdict(list)
            for city, nights, rate in rows:
                by_city[city].append((nights, rate))
            for city, stays in sorted(by_city.items()):
                rates = [r for _n, r in stays]
                average = statistics.fmean(rates)
                if len(stays) < 3 or len(set(rates)) < 2 or _cents_tie(average):
                    continue
                options.append((table, rows, by_city, city))
        table, rows, by_city, city = rng.choice(options)
        rates = [r for _n, r in by_city[city]]
        average = statistics.fmean(rates)
        others = sorted(c for c in by_city if c != city)
        near = [
            statistics.fmean(r for _c, _n, r in rows),
            statistics.median(rates),
            sum(rates),
            sum(n * r for n, r in by_city[city]) / sum(n for n, _r in by_city[city]),
            *(statistics.fmean(r for _n, r in by_city[c]) for c in others[:3]),
        ]
        candidates = [money(average)] + [money(v) for v in near if abs(v - average) >= 0.01]
        people = editors(world, table.workbook_id) + viewers(world, table.workbook_id)
        _, email = rng.choice(people)
        decoy_cities = [c for c in others if len(by_city[c]) >= 2]
        return {
            "user": email,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "last": table.last,
            "city": city,
            "trips": len(rates),
            "average": round(average, 6),
            "candidates": list(dict.fromkeys(candidates)),
            "decoy": {"city": rng.choice(decoy_cities)} if decoy_cities else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, SHEET)
        rows = read_rows(actions, params["last"])
        rates = [
            amount(cells[RATE])
            for row, cells in rows.items()
            if 2 <= row <= params["last"] and cells.get(CITY) == params["city"]
        ]
        actions.send_msg_to_user(money(statistics.fmean(rates)))

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(params["average"], kind="money", distractors=params["candidates"][1:]),
            filter_use(params["workbook_id"]),
            expect.nothing_else(),
        )


__all__ = ["AverageRateAnswer", "trips"]
