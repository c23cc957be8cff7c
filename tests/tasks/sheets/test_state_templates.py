"""The Sheets templates that sort, clean up, format, comment, find and replace, and answer from
a sheet, without a browser: instances on the small seed-0 world, and each verifier on final
worlds made through the Sheets service (the product's own writes), right and wrong: the wrong
range, column or row, a cell forged beside its input, a stray edit, a typed total instead of a
live one, and an edit by someone who may not make it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.sheets import service
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.sheets import Sheet
from officegym.tasks import registry
from officegym.tasks.sheets._books import editors, outsiders, viewers
from officegym.tasks.sheets.sort_by_column import _key as _sort_key
from officegym.tasks.verdict import Verdict
from tests.tasks.episodes import played

IDS = (
    "sheets.sort_by_column",
    "sheets.average_rate_answer",
    "sheets.filter_answer",
    "sheets.largest_deal_owner",
    "sheets.remove_duplicate_row",
    "sheets.freeze_and_currency",
    "sheets.comment_on_cell",
    "sheets.replace_city_name",
)
SEEDS = range(30)
# Templates whose impossible instances are asked by a viewer (the others by an outsider).
EDITS = {
    "sheets.sort_by_column",
    "sheets.remove_duplicate_row",
    "sheets.freeze_and_currency",
    "sheets.replace_city_name",
}


@pytest.fixture(scope="module")
def golden(store) -> Path:
    return store.golden(0, "small")


@pytest.fixture(scope="module")
def world(golden):
    conn = sqlite3.connect(f"file:{golden}?mode=ro", uri=True)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def instances(golden):
    return {tid: [registry.get(tid).instance(golden, s) for s in SEEDS] for tid in IDS}


@dataclass
class Hands:
    """Acts on one workbook through the Sheets service, as the instance's user."""

    db: Session
    actor: Employee
    workbook: int

    def sheet(self, name: str) -> int:
        return self.db.scalar(
            select(Sheet.id).where(Sheet.workbook_id == self.workbook, Sheet.name == name)
        )

    def type(self, sheet: str, address: str, raw: str) -> None:
        service.set_cell(self.db, self.actor, self.workbook, self.sheet(sheet), address, raw)


Act = Callable[[Hands], None]


def play(
    store,
    golden: Path,
    tid: str,
    params: Mapping[str, Any],
    *acts: Act,
    answer: str | None = None,
    infeasible: str | None = None,
    forge: tuple[str, tuple] | None = None,
) -> Verdict:
    """The verdict on a fresh world where the user did `acts` (each committed), then `forge`
    (a raw SQL edit of the world file, as no product act would make) ran."""

    def hands(db: Session) -> Hands:
        actor = db.scalar(select(Employee).where(Employee.email == params["user"]))
        return Hands(db, actor, params["workbook_id"])

    steps = [lambda db, act=act: act(hands(db)) for act in acts]
    return played(
        store, golden, tid, params, steps,
        answer=answer, infeasible=infeasible, forge=forge, prefix="state",
    )  # fmt: skip


def pick(instances, tid: str, feasible: bool = True, when=lambda p: True) -> dict[str, Any]:
    found = [
        t.params
        for t in instances[tid]
        if t.params.get("feasible", True) is feasible and when(t.params)
    ]
    assert found, f"no {'feasible' if feasible else 'impossible'} instance of {tid} in {SEEDS}"
    return dict(found[0])


# -- instances ---------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_name_a_real_workbook_the_user_can_reach(
    golden, world, instances, tid
):
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, again.params) == (task.goal, task.params)
        p = task.params
        (name,) = world.execute(
            "SELECT name FROM sheets_workbook WHERE id = ?", (p["workbook_id"],)
        ).fetchone()
        assert name == p["workbook"] and f"“{name}”" in task.goal
        can_edit = {e for _i, e in editors(world, p["workbook_id"])}
        can_view = {e for _i, e in viewers(world, p["workbook_id"])}
        if p.get("feasible", True):
            assert p["user"] in (can_edit if tid in EDITS else can_edit | can_view)
        elif tid in EDITS:
            assert p["user"] in can_view
        else:
            assert p["user"] in {e for _i, e in outsiders(world, p["workbook_id"])}


@pytest.mark.parametrize("tid", sorted(EDITS | {"sheets.comment_on_cell"}))
def test_some_instances_are_impossible_and_the_report_alone_passes(store, golden, instances, tid):
    params = pick(instances, tid, feasible=False)
    assert play(store, golden, tid, params, infeasible="I can't change it").success
    assert not play(store, golden, tid, params).success


# -- sort --------------------------------------------------------------------------------------

SORT = "sheets.sort_by_column"


def small_sort(instances) -> dict[str, Any]:
    return pick(instances, SORT, when=lambda p: p["last"] <= 12 and p["decoy"])


def sorting(params, rng: str | None = None, by: str | None = None, header: bool = True) -> Act:
    def act(h: Hands) -> None:
        service.sort_range(
            h.db, h.actor, h.workbook, h.sheet(params["sheet"]), rng or params["range"],
            by or params["letter"], params["order"] == "desc", header,
        )  # fmt: skip

    return act


def test_sorting_the_table_passes_and_an_untouched_sheet_scores_zero(store, golden, instances):
    params = small_sort(instances)
    verdict = play(store, golden, SORT, params, sorting(params))
    assert verdict.success and verdict.score == 1.0, verdict
    untouched = play(store, golden, SORT, params)
    assert not untouched.success and untouched.score == 0.0


def test_sorting_the_wrong_column_fails(store, golden, instances):
    params = small_sort(instances)
    assert not play(
        store, golden, SORT, params, sorting(params, by=params["decoy"]["letter"])
    ).success


def _moves_the_total_row(world, params) -> bool:
    """Whether sorting the table with its Total row takes that row off the bottom (a blank
    in the sorted column sorts last either way, and then the result is the right one)."""
    if not params["total_row"]:
        return False
    keys = [
        _sort_key(num if kind == "number" else text if kind == "text" else None)
        for kind, num, text in world.execute(
            "SELECT c.value_type, c.value_num, c.value_text FROM sheets_cell c "
            "JOIN sheets_sheet s ON s.id = c.sheet_id WHERE s.workbook_id = ? AND s.name = ? "
            "AND c.col = ? AND c.row BETWEEN 2 AND ? ORDER BY c.row",
            (params["workbook_id"], params["sheet"], params["col"], params["total_row"]),
        )
    ]
    filled = sorted((k for k in keys if k[0] < 2), reverse=params["order"] == "desc")
    ordered = filled + [k for k in keys if k[0] == 2]
    return len(keys) == params["total_row"] - 1 and ordered[-1] != keys[-1]


def test_sorting_the_rows_under_the_table_with_it_fails(store, golden, world, instances):
    params = pick(
        instances, SORT, when=lambda p: p["last"] <= 12 and _moves_the_total_row(world, p)
    )
    end = params["range"].split(":")[1].rstrip("0123456789")
    whole = f"A1:{end}{params['total_row']}"
    assert not play(store, golden, SORT, params, sorting(params, rng=whole)).success


def test_a_sort_with_a_stray_edit_or_a_forged_value_fails(store, golden, instances):
    params = small_sort(instances)
    below = params["last"] + 5

    def stray(h: Hands) -> None:
        h.type(params["sheet"], f"A{below}", "note")

    assert not play(store, golden, SORT, params, sorting(params), stray).success
    forged = (
        "UPDATE sheets_cell SET value_text = value_text || ' (checked)' WHERE sheet_id = "
        "(SELECT id FROM sheets_sheet WHERE workbook_id = ? AND name = ?) AND row = 2 "
        "AND value_type = 'text'",
        (params["workbook_id"], params["sheet"]),
    )
    assert not play(store, golden, SORT, params, sorting(params), forge=forged).success


# -- answers -----------------------------------------------------------------------------------


def filtered(params, sheet: str, clear: bool) -> Act:
    def act(h: Hands) -> None:
        sheet_id = h.sheet(sheet)
        service.set_filter(h.db, h.actor, h.workbook, sheet_id, "A1:B3", {"A": []})
        if clear:
            service.clear_filter(h.db, h.actor, h.workbook, sheet_id)

    return act


@pytest.mark.parametrize(
    ("tid", "sheet"),
    [
        ("sheets.average_rate_answer", "Trips"),
        ("sheets.filter_answer", "Trips"),
        ("sheets.largest_deal_owner", "Pipeline"),
    ],
)
def test_the_answer_passes_with_or_without_a_filter_and_a_wrong_one_fails(
    store, golden, world, instances, tid, sheet
):
    # Someone who may edit, so that they may filter too.
    params = pick(
        instances,
        tid,
        when=lambda p: p["user"] in {e for _i, e in editors(world, p["workbook_id"])},
    )
    right = params["candidates"][0]
    assert play(store, golden, tid, params, answer=right).success
    assert play(store, golden, tid, params, filtered(params, sheet, False), answer=right).success
    assert play(store, golden, tid, params, filtered(params, sheet, True), answer=right).success
    for wrong in params["candidates"][1:]:
        assert not play(store, golden, tid, params, answer=wrong).success, wrong
    assert not play(store, golden, tid, params, answer="; ".join(params["candidates"])).success

    def edit(h: Hands) -> None:
        h.type(sheet, "A2", "edited")

    assert not play(store, golden, tid, params, edit, answer=right).success


def test_the_average_is_the_plain_average_of_the_city_rates(world, instances):
    from officegym.tasks.sheets.average_rate_answer import trips

    for task in instances["sheets.average_rate_answer"][:10]:
        p = task.params
        (sheet_id,) = world.execute(
            "SELECT id FROM sheets_sheet WHERE workbook_id = ? AND name = 'Trips'",
            (p["workbook_id"],),
        ).fetchone()
        rates = [r for c, _n, r in trips(world, sheet_id, p["last"]) if c == p["city"]]
        assert len(rates) == p["trips"] >= 3
        assert abs(sum(rates) / len(rates) - p["average"]) < 1e-6
        assert p["city"] in task.goal and "cent" in task.goal


# -- the duplicated row ------------------------------------------------------------------------

DUPLICATE = "sheets.remove_duplicate_row"


def deleting(params, row: int) -> Act:
    def act(h: Hands) -> None:
        service.delete_lines(h.db, h.actor, h.workbook, h.sheet(params["sheet"]), "row", row, 1)

    return act


def test_deleting_either_copy_passes(store, golden, instances):
    params = pick(instances, DUPLICATE)
    for row in (params["row"], params["original"]):
        verdict = play(store, golden, DUPLICATE, params, deleting(params, row))
        assert verdict.success and verdict.score == 1.0, verdict


def test_deleting_another_row_or_clearing_the_copy_fails(store, golden, instances):
    params = pick(instances, DUPLICATE)
    assert not play(
        store, golden, DUPLICATE, params, deleting(params, params["decoy"]["row"])
    ).success

    def clear(h: Hands) -> None:
        service.clear(
            h.db,
            h.actor,
            h.workbook,
            h.sheet(params["sheet"]),
            f"A{params['row']}:H{params['row']}",
        )

    assert not play(store, golden, DUPLICATE, params, clear).success


def test_a_typed_total_instead_of_the_sum_fails(store, golden, instances):
    params = pick(instances, DUPLICATE)
    total = f"E{params['total_row'] - 1}"

    def typed(h: Hands) -> None:
        h.type(params["sheet"], total, str(int(params["crm_total"])))

    verdict = play(store, golden, DUPLICATE, params, deleting(params, params["row"]), typed)
    assert not verdict.success


# -- freeze and currency -----------------------------------------------------------------------

FREEZE = "sheets.freeze_and_currency"


def freezing(params) -> Act:
    def act(h: Hands) -> None:
        service.freeze(h.db, h.actor, h.workbook, h.sheet(params["sheet"]), 1)

    return act


def formatting(params, code: str = "$#,##0.00", rng: str | None = None) -> Act:
    letter, last = params["letter"], params["last"]

    def act(h: Hands) -> None:
        service.set_format(
            h.db, h.actor, h.workbook, h.sheet(params["sheet"]), rng or f"{letter}2:{letter}{last}",
            number_format=code,
        )  # fmt: skip

    return act


def test_freezing_and_formatting_passes_and_either_alone_fails(store, golden, instances):
    params = pick(instances, FREEZE)
    verdict = play(store, golden, FREEZE, params, freezing(params), formatting(params))
    assert verdict.success and verdict.score == 1.0, verdict
    whole = f"{params['letter']}:{params['letter']}"
    assert play(
        store, golden, FREEZE, params, freezing(params), formatting(params, rng=whole)
    ).success
    assert not play(store, golden, FREEZE, params, formatting(params)).success
    assert not play(store, golden, FREEZE, params, freezing(params)).success


def test_whole_dollars_or_another_column_formatted_fails(store, golden, instances):
    params = pick(instances, FREEZE)
    no_cents = formatting(params, code="$#,##0")
    assert not play(store, golden, FREEZE, params, freezing(params), no_cents).success
    extra = formatting(params, rng=f"A2:A{params['last']}")
    assert not play(
        store, golden, FREEZE, params, freezing(params), formatting(params), extra
    ).success


# -- comment -----------------------------------------------------------------------------------

COMMENT = "sheets.comment_on_cell"


def commenting(params, cell: str | None = None, body: str | None = None) -> Act:
    def act(h: Hands) -> None:
        service.add_comment(
            h.db, h.actor, h.workbook, h.sheet("Pipeline"), cell or f"E{params['row']}",
            body or params["note"],
        )  # fmt: skip

    return act


def test_a_viewer_may_comment_and_the_comment_passes(store, golden, world, instances):
    params = pick(instances, COMMENT, when=lambda p: p["user"] in {
        e for _i, e in viewers(world, p["workbook_id"])
    })  # fmt: skip
    verdict = play(store, golden, COMMENT, params, commenting(params))
    assert verdict.success and verdict.score == 1.0, verdict
    shouted = commenting(params, body=params["note"].upper())
    assert play(store, golden, COMMENT, params, shouted).success


def test_a_comment_on_another_cell_or_saying_something_else_fails(store, golden, instances):
    params = pick(instances, COMMENT)
    assert not play(
        store, golden, COMMENT, params, commenting(params, cell=f"D{params['row']}")
    ).success
    other = commenting(params, body="Looks good to me.")
    assert not play(store, golden, COMMENT, params, other).success
    twice = (commenting(params), commenting(params))
    assert not play(store, golden, COMMENT, params, *twice).success


# -- find and replace --------------------------------------------------------------------------

REPLACE = "sheets.replace_city_name"


def replacing(params, whole: bool = True, new: str | None = None) -> Act:
    def act(h: Hands) -> None:
        service.replace_all(
            h.db, h.actor, h.workbook, params["old"], new or params["new"], h.sheet("Trips"),
            whole=whole,
        )  # fmt: skip

    return act


def test_replacing_whole_city_cells_passes(store, golden, instances):
    params = pick(instances, REPLACE)
    verdict = play(store, golden, REPLACE, params, replacing(params))
    assert verdict.success and verdict.score == 1.0, verdict


def test_a_plain_replace_all_or_another_spelling_fails(store, golden, world, instances):
    params = pick(instances, REPLACE, when=lambda p: world.execute(
        "SELECT count(*) FROM sheets_cell c JOIN sheets_sheet s ON s.id = c.sheet_id "
        "WHERE s.workbook_id = ? AND s.name = 'Trips' AND c.col != 4 AND c.raw LIKE ?",
        (p["workbook_id"], f"%{p['old']}%"),
    ).fetchone()[0] > 0)  # fmt: skip
    assert not play(store, golden, REPLACE, params, replacing(params, whole=False)).success
    typo = replacing(params, new=params["new"].lower())
    assert not play(store, golden, REPLACE, params, typo).success
