"""sheets.replace_city_name — rename one city in a Trips sheet's City column with Find and
replace.

The travel team now writes some cities differently ("Munich" as "München", "Chicago" as
"Chicago, IL"). Every City cell that says the old name must say the new one; hotel names and
purposes that contain the city keep their wording, so a plain Replace all (which replaces
inside every cell) fails and "Match entire cell contents" is the way, or typing each cell.
The verifier compares every typed input of the sheet with the one at reset. One instance in
six is asked by someone who may only view the workbook: the right move is
`report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.sheets.engine import refs
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from ._books import editors, tables, unique_workbook, viewers
from ._model import Book
from ._stored_values import forged
from .base import SheetsTemplate
from .ui import fill_form, open_sheet, open_tool, open_workbook, submit

SHEET = "Trips"
CITY = 4
# How the travel team now writes each city the world's hotels are in.
RENAMED = {
    "Amsterdam": "Amsterdam, NL",
    "Atlanta": "Atlanta, GA",
    "Austin": "Austin, TX",
    "Berlin": "Berlin, DE",
    "Boston": "Boston, MA",
    "Chicago": "Chicago, IL",
    "Dallas": "Dallas, TX",
    "Denver": "Denver, CO",
    "Dublin": "Dublin, IE",
    "London": "London, UK",
    "Los Angeles": "Los Angeles, CA",
    "Madrid": "Madrid, ES",
    "Manchester": "Manchester, UK",
    "Melbourne": "Melbourne, AU",
    "Miami": "Miami, FL",
    "Minneapolis": "Minneapolis, MN",
    "Munich": "München",
    "New York": "New York City",
    "Paris": "Paris, FR",
    "Philadelphia": "Philadelphia, PA",
    "San Francisco": "San Francisco, CA",
    "Seattle": "Seattle, WA",
    "Singapore": "Singapore, SG",
    "Stockholm": "Stockholm, SE",
    "Sydney": "Sydney, AU",
    "Tokyo": "Tokyo, JP",
    "Toronto": "Toronto, ON",
    "Vancouver": "Vancouver, BC",
    "Zurich": "Zürich",
}
_PHRASINGS = (
    "In the Trips sheet of “{workbook}”, replace the city name {old} with “{new}” in the City "
    "column. Hotel names and purposes keep their wording.",
    "We now write {old} as “{new}”. Please update every City entry that says {old} on the "
    "Trips sheet of “{workbook}” (leave the hotel names and purposes alone).",
    "Could you use Find and replace on Trips in “{workbook}” so that each City cell reading "
    "{old} reads “{new}” instead? Only whole City entries; hotel names and purposes stay as "
    "they are.",
)


@register
class ReplaceCityName(SheetsTemplate):
    id = "sheets.replace_city_name"
    difficulty = 2
    difficulty_reason = (
        "Find and replace with 'Match entire cell contents', since a plain Replace all also "
        "rewrites hotel names and purposes that contain the city"
    )
    impossible_instances = True
    tags = ("search", "cleanup")
    max_steps = 18

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        options = []
        for table in tables(world, SHEET):
            if not unique_workbook(world, table.workbook):
                continue
            cities = world.execute(
                "SELECT value_text, count(*) FROM sheets_cell WHERE sheet_id = ? AND col = ? "
                "AND row BETWEEN 2 AND ? GROUP BY value_text ORDER BY value_text",
                (table.sheet_id, CITY, table.last),
            ).fetchall()
            for city, count in cities:
                if city in RENAMED and count >= 2:
                    options.append((table, city, count))
        table, old, count = rng.choice(options)
        feasible = rng.random() >= 1 / 6
        people = (
            editors(world, table.workbook_id) if feasible else viewers(world, table.workbook_id)
        )
        if not people:
            feasible, people = True, editors(world, table.workbook_id)
        _, email = rng.choice(people)
        decoy = None
        if feasible:
            # The same city in another travel workbook, else another city of this one.
            elsewhere = [
                t for t, c, _n in options if c == old and t.workbook_id != table.workbook_id
            ]
            here = [c for t, c, _n in options if t.workbook_id == table.workbook_id and c != old]
            if elsewhere:
                decoy = {"workbook": rng.choice(elsewhere).workbook}
            elif here:
                other = rng.choice(here)
                decoy = {"old": other, "new": RENAMED[other]}
        return {
            "user": email,
            "workbook_id": table.workbook_id,
            "workbook": table.workbook,
            "last": table.last,
            "old": old,
            "new": RENAMED[old],
            "cells": count,
            "feasible": feasible,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_workbook(actions, params["workbook"])
        open_sheet(actions, SHEET)
        if not params["feasible"]:
            actions.report_infeasible(
                f"“{params['workbook']}” is shared with me as view only, so I can't edit it."
            )
            return
        open_tool(actions, "Find and replace")
        fill_form(actions, {"Find": params["old"], "Replace with": params["new"]})
        actions.check(actions.find("checkbox", "Match entire cell contents", exact=True))
        submit(actions, "Replace all")
        actions.send_msg_to_user(f"Replaced {params['old']} with {params['new']} in Trips.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        old, new, last = params["old"], params["new"], params["last"]
        conn = ctx.golden_db()
        try:
            before = Book.load(conn, params["workbook_id"], ctx.world_today())
        finally:
            conn.close()

        def renamed(book: Book) -> tuple[bool, str]:
            keys = {k for k in (*before.raw, *book.raw) if k[0] == SHEET}
            for key in sorted(keys, key=lambda k: (k[1], k[2])):
                _sheet, row, col = key
                was = before.raw.get(key, "")
                want = new if (col == CITY and 2 <= row <= last and was == old) else was
                have = book.raw.get(key, "")
                if have != want:
                    where = refs.address(row, col)
                    return False, f"{where} holds {have!r}, expected {want!r}"
            conn = ctx.db()
            try:
                bad = forged(conn, book, SHEET)
            finally:
                conn.close()
            if bad:
                return False, bad
            return True, f"every City cell that said {old} says {new}; nothing else changed"

        return expect.grade(
            ctx,
            checks.sheet(
                params["workbook_id"], SHEET, renamed, within=[f"D2:D{last}"],
                name=f"{old} renamed {new} in the City column",
            ),
            expect.nothing_else(),
        )  # fmt: skip


__all__ = ["RENAMED", "ReplaceCityName"]
