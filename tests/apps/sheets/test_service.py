"""Sheets' acts as a user performs them through the app: typing into cells and the live
recompute, structural edits and the references that follow them, sorting, filtering, find and
replace, undo and redo, the change history, pivot tables and charts. Every test acts through
the real app (JSON API or page) on a fresh tiny world and asserts on the world file."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import date

import pytest

from officegym.apps.sheets.engine.values import from_date

from .conftest import call, cell, cells, one, rows, sheet_path, value

# -- helpers -----------------------------------------------------------------------------------


def put(client, facts, ref: str, values: list[list[object]], sheet: int | None = None):
    """Type a block of inputs from `ref` through the API; asserts it was accepted."""
    response = call(
        client, "PUT", f"{sheet_path(facts, sheet)}/range", {"ref": ref, "values": values}
    )
    assert response.status_code == 200, response.get_json()
    return response


def act(client, facts, name: str, body: dict, sheet: int | None = None, status: int = 200):
    response = call(client, "POST", f"{sheet_path(facts, sheet)}/{name}", body)
    assert response.status_code == status, response.get_json()
    return response


def new_sheet(client, facts, name: str) -> int:
    response = call(client, "POST", f"/workbooks/{facts.workbook}/sheets", {"name": name})
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def book_cells(store, world, facts) -> dict[int, dict]:
    """The full cell state of every sheet of the workbook."""
    sheet_ids = [
        r[0]
        for r in rows(
            store, world, "SELECT id FROM sheets_sheet WHERE workbook_id = ?", (facts.workbook,)
        )
    ]
    return {s: cells(store, world, s) for s in sheet_ids}


def undo(client, facts, status: int = 200):
    response = call(client, "POST", f"/workbooks/{facts.workbook}/undo")
    assert response.status_code == status, response.get_json()
    return response


def redo(client, facts, status: int = 200):
    response = call(client, "POST", f"/workbooks/{facts.workbook}/redo")
    assert response.status_code == status, response.get_json()
    return response


# -- typing into cells -------------------------------------------------------------------------


def test_typing_a_number_stores_it_as_a_number_without_a_format(owner, facts, store, world):
    put(owner, facts, "J2", [["4200"]])
    assert cell(store, world, facts.sheet, "J2") == ("4200", "number", 4200.0, None, None)


def test_typing_text_stores_it_as_text(owner, facts, store, world):
    put(owner, facts, "J2", [["Acme Corp"]])
    assert cell(store, world, facts.sheet, "J2") == ("Acme Corp", "text", None, "Acme Corp", None)


def test_typing_a_date_stores_its_serial_number_and_a_date_format(owner, facts, store, world):
    put(owner, facts, "J2", [["2025-03-01"]])
    serial = from_date(date(2025, 3, 1))
    assert cell(store, world, facts.sheet, "J2") == (
        "2025-03-01",
        "number",
        serial,
        None,
        "yyyy-mm-dd",
    )


def test_typing_a_percent_stores_the_fraction_and_a_percent_format(owner, facts, store, world):
    put(owner, facts, "J2", [["12.5%"]])
    assert cell(store, world, facts.sheet, "J2") == ("12.5%", "number", 0.125, None, "0.0%")


def test_typing_an_amount_stores_the_number_and_a_currency_format(owner, facts, store, world):
    put(owner, facts, "J2", [["$4,200.50"]])
    assert cell(store, world, facts.sheet, "J2") == (
        "$4,200.50",
        "number",
        4200.5,
        None,
        "$#,##0.00",
    )


def test_a_leading_apostrophe_keeps_a_number_as_text(owner, facts, store, world):
    put(owner, facts, "J2", [["'0042"]])
    assert cell(store, world, facts.sheet, "J2")[1:4] == ("text", None, "0042")


def test_a_formula_stores_its_computed_value(owner, facts, store, world):
    put(owner, facts, "J2", [["=E2+E3"]])
    total = value(store, world, facts.sheet, "E2") + value(store, world, facts.sheet, "E3")
    assert cell(store, world, facts.sheet, "J2")[:3] == ("=E2+E3", "number", total)


def test_editing_an_input_recomputes_its_dependents(owner, facts, store, world):
    put(owner, facts, "E2", [["30000"]])
    probability = value(store, world, facts.sheet, "G2")
    assert value(store, world, facts.sheet, "H2") == 30000 * probability / 100
    e3, e4 = value(store, world, facts.sheet, "E3"), value(store, world, facts.sheet, "E4")
    assert value(store, world, facts.sheet, "E5") == 30000 + e3 + e4


def test_editing_an_input_leaves_formulas_that_do_not_read_it_alone(owner, facts, store, world):
    # A stale value planted in an unrelated formula survives: only dependents are evaluated.
    conn = sqlite3.connect(store.world_path(world))
    with conn:
        conn.execute(
            "UPDATE sheets_cell SET value_num = -1 WHERE sheet_id = ? AND row = 3 AND col = 8",
            (facts.sheet,),
        )
    conn.close()
    put(owner, facts, "E2", [["30000"]])
    assert value(store, world, facts.sheet, "H3") == -1
    assert value(store, world, facts.sheet, "H2") != -1


def test_a_circular_reference_is_worth_ref_error(owner, facts, store, world):
    put(owner, facts, "J2", [["=K2+1", "=J2+1"]])
    assert value(store, world, facts.sheet, "J2") == "#REF!"
    assert value(store, world, facts.sheet, "K2") == "#REF!"


def test_breaking_a_circular_reference_recovers_its_values(owner, facts, store, world):
    put(owner, facts, "J2", [["=K2+1", "=J2+1"]])
    put(owner, facts, "K2", [["5"]])
    assert value(store, world, facts.sheet, "J2") == 6


@pytest.mark.parametrize(
    ("formula", "code"),
    [
        ("=1/0", "#DIV/0!"),
        ("=E2/J9", "#DIV/0!"),
        ("=NOSUCHFUNCTION(1)", "#NAME?"),
        ('=VLOOKUP("Nobody",C1:D4,2,FALSE)', "#N/A"),
        ("=1+", "#ERROR!"),
    ],
)
def test_a_formula_that_fails_stores_its_error_code(owner, facts, store, world, formula, code):
    put(owner, facts, "J2", [[formula]])
    assert cell(store, world, facts.sheet, "J2")[:2] == (formula, "error")
    assert value(store, world, facts.sheet, "J2") == code


def test_an_error_flows_into_the_formulas_that_read_it(owner, facts, store, world):
    put(owner, facts, "J2", [["=1/0"], ["=J2*2"]])
    assert value(store, world, facts.sheet, "J3") == "#DIV/0!"


def test_a_reference_to_a_sheet_with_a_space_in_its_name_reads_that_sheet(
    owner, facts, store, world
):
    assert " " in facts.second_sheet_name
    put(owner, facts, "J2", [[f"='{facts.second_sheet_name}'!B2*10"]])
    assert value(store, world, facts.sheet, "J2") == 10 * value(
        store, world, facts.second_sheet, "B2"
    )


def test_editing_a_cell_recomputes_formulas_on_other_sheets(owner, facts, store, world):
    put(owner, facts, "J2", [[f"='{facts.second_sheet_name}'!B2*10"]])
    put(owner, facts, "B2", [["7"]], sheet=facts.second_sheet)
    assert value(store, world, facts.sheet, "J2") == 70


def test_a_reference_to_a_missing_sheet_is_a_ref_error(owner, facts, store, world):
    put(owner, facts, "J2", [["='No Such Sheet'!A1"]])
    assert value(store, world, facts.sheet, "J2") == "#REF!"


def test_today_is_the_world_date_not_the_machines(owner, facts, store, world):
    now = one(store, world, "SELECT now FROM world_meta")
    put(owner, facts, "J2", [["=TODAY()"]])
    assert value(store, world, facts.sheet, "J2") == from_date(date.fromisoformat(now[:10]))


def test_clearing_a_cell_keeps_its_format_and_empties_its_value(owner, facts, store, world):
    act(owner, facts, "clear", {"ref": "E2"})
    assert cell(store, world, facts.sheet, "E2") == ("", "empty", None, None, "$#,##0")
    assert value(store, world, facts.sheet, "H2") == 0


def test_clearing_with_formats_removes_the_cell(owner, facts, store, world):
    act(owner, facts, "clear", {"ref": "E2", "formats": True})
    assert cell(store, world, facts.sheet, "E2") is None


def test_formatting_sets_number_format_bold_italic_and_fill(owner, facts, store, world):
    act(
        owner,
        facts,
        "format",
        {"ref": "E2:E3", "number_format": "#,##0.00", "bold": True, "fill": "#fff2cc"},
    )
    state = cells(store, world, facts.sheet)
    assert state["E2"][4:] == ("#,##0.00", 1, 0, "#FFF2CC")
    assert state["E3"][4:] == ("#,##0.00", 1, 0, "#FFF2CC")
    assert state["E4"][4:] == ("$#,##0", 0, 0, None)


# -- rows, columns and ranges ------------------------------------------------------------------


def test_inserting_rows_moves_cells_down_and_widens_the_ranges_that_span_them(
    owner, facts, store, world
):
    before = cells(store, world, facts.sheet)
    act(owner, facts, "insert", {"axis": "row", "at": 3, "count": 2})
    after = cells(store, world, facts.sheet)
    assert after["A2"] == before["A2"]
    assert after["A5"] == before["A3"]
    assert "A3" not in after and "A4" not in after
    assert after["E7"][0] == "=SUM(E2:E6)"
    assert after["E7"][2] == before["E5"][2]
    assert after["H5"][0] == "=E5*G5/100"


def test_inserting_a_column_rewrites_references_from_other_sheets(owner, facts, store, world):
    put(owner, facts, "A6", [[f"={facts.sheet_name}!E5"]], sheet=facts.second_sheet)
    total = value(store, world, facts.sheet, "E5")
    act(owner, facts, "insert", {"axis": "col", "at": "C"})
    assert cell(store, world, facts.second_sheet, "A6")[0] == f"={facts.sheet_name}!F5"
    assert value(store, world, facts.second_sheet, "A6") == total
    assert cell(store, world, facts.sheet, "F5")[0] == "=SUM(F2:F4)"


def test_inserting_moves_comments_and_column_widths_with_their_cells(owner, facts, store, world):
    call(owner, "POST", f"{sheet_path(facts)}/comments", {"cell": "E2", "body": "Check"})
    widths = "SELECT col, width FROM sheets_column WHERE sheet_id = ? ORDER BY col"
    before = rows(store, world, widths, (facts.sheet,))
    act(owner, facts, "insert", {"axis": "col", "at": 2})
    comments = "SELECT row, col FROM sheets_comment WHERE sheet_id = ?"
    assert rows(store, world, comments, (facts.sheet,)) == [(2, 6)]
    assert rows(store, world, widths, (facts.sheet,)) == [
        (col + 1 if col >= 2 else col, width) for col, width in before
    ]


def test_deleting_a_referenced_column_turns_references_into_ref_errors(owner, facts, store, world):
    put(owner, facts, "A6", [[f"={facts.sheet_name}!G2"]], sheet=facts.second_sheet)
    act(owner, facts, "delete", {"axis": "col", "at": "G"})
    assert cell(store, world, facts.second_sheet, "A6")[0] == f"={facts.sheet_name}!#REF!"
    assert value(store, world, facts.second_sheet, "A6") == "#REF!"
    # The weighted column moved left into G and lost its probability factor.
    assert "#REF!" in cell(store, world, facts.sheet, "G2")[0]
    assert value(store, world, facts.sheet, "G2") == "#REF!"


def test_deleting_rows_shrinks_the_ranges_over_them(owner, facts, store, world):
    e2 = value(store, world, facts.sheet, "E2")
    e4 = value(store, world, facts.sheet, "E4")
    act(owner, facts, "delete", {"axis": "row", "at": 3})
    assert cell(store, world, facts.sheet, "E4")[0] == "=SUM(E2:E3)"
    assert value(store, world, facts.sheet, "E4") == e2 + e4


def test_fill_down_shifts_relative_references_and_keeps_absolute_ones(owner, facts, store, world):
    put(owner, facts, "J2", [["=E2*$G$2"]])
    act(owner, facts, "fill", {"ref": "J2:J4", "direction": "down"})
    assert cell(store, world, facts.sheet, "J3")[0] == "=E3*$G$2"
    assert cell(store, world, facts.sheet, "J4")[0] == "=E4*$G$2"
    g2 = value(store, world, facts.sheet, "G2")
    assert value(store, world, facts.sheet, "J4") == value(store, world, facts.sheet, "E4") * g2


def test_fill_right_shifts_columns(owner, facts, store, world):
    put(owner, facts, "J2", [["=E2"]])
    act(owner, facts, "fill", {"ref": "J2:L2", "direction": "right"})
    assert cell(store, world, facts.sheet, "L2")[0] == "=G2"


def test_fill_copies_formats_with_inputs(owner, facts, store, world):
    act(owner, facts, "fill", {"ref": "E2:E3", "direction": "down"})
    assert cell(store, world, facts.sheet, "E3") == cell(store, world, facts.sheet, "E2")


def test_paste_shifts_formulas_by_the_distance_moved(owner, facts, store, world):
    act(owner, facts, "paste", {"source": "H2:H3", "target": "J7"})
    assert cell(store, world, facts.sheet, "J7")[0] == "=G7*I7/100"
    assert cell(store, world, facts.sheet, "J8")[0] == "=G8*I8/100"
    assert cell(store, world, facts.sheet, "J7")[4] == "$#,##0"
    assert cell(store, world, facts.sheet, "H2")[0] == "=E2*G2/100"


def test_cut_and_paste_moves_cells_without_shifting_them(owner, facts, store, world):
    before = cell(store, world, facts.sheet, "H2")
    act(owner, facts, "paste", {"source": "H2", "target": "J7", "cut": True})
    assert cell(store, world, facts.sheet, "H2") is None
    assert cell(store, world, facts.sheet, "J7") == before


def test_paste_from_another_sheet_of_the_workbook(owner, facts, store, world):
    act(
        owner,
        facts,
        "paste",
        {"source": "A2:C2", "target": "J2", "source_sheet_id": facts.second_sheet},
    )
    assert cell(store, world, facts.sheet, "J2") == cell(store, world, facts.second_sheet, "A2")
    assert value(store, world, facts.sheet, "L2") == value(store, world, facts.second_sheet, "C2")


@pytest.fixture
def sort_sheet(owner, facts):
    """A sheet with a header, a mixed column (numbers, text, a blank) and formulas on it."""
    sheet = new_sheet(owner, facts, "Sorting")
    put(
        owner,
        facts,
        "A1",
        [
            ["Key", "Double", "Tag"],
            ["b", "=A2&A2", "r2"],
            ["3", "=A3*2", "r3"],
            [None, "=A4", "r4"],
            ["a", "=A5&A5", "r5"],
            ["1", "=A6*2", "r6"],
        ],
        sheet=sheet,
    )
    return sheet


def test_sort_puts_numbers_before_text_and_blanks_last(owner, facts, store, world, sort_sheet):
    act(owner, facts, "sort", {"ref": "A1:C6", "by": "A"}, sheet=sort_sheet)
    state = cells(store, world, sort_sheet)
    assert [state.get(f"A{r}", ("",))[0] for r in range(1, 7)] == ["Key", "1", "3", "a", "b", ""]
    assert [state[f"C{r}"][0] for r in range(2, 7)] == ["r6", "r3", "r5", "r2", "r4"]


def test_sort_moves_formulas_with_their_rows(owner, facts, store, world, sort_sheet):
    act(owner, facts, "sort", {"ref": "A1:C6", "by": "A"}, sheet=sort_sheet)
    state = cells(store, world, sort_sheet)
    assert state["B2"][:3] == ("=A2*2", "number", 2.0)
    assert state["B3"][:3] == ("=A3*2", "number", 6.0)
    assert state["B4"][:4] == ("=A4&A4", "text", None, "aa")


def test_sort_descending_keeps_blanks_last(owner, facts, store, world, sort_sheet):
    act(owner, facts, "sort", {"ref": "A1:C6", "by": 1, "descending": True}, sheet=sort_sheet)
    state = cells(store, world, sort_sheet)
    assert [state[f"C{r}"][0] for r in range(2, 7)] == ["r2", "r5", "r3", "r6", "r4"]


def visible_rows(client, facts, sheet: int | None = None) -> list[int]:
    html = client.get(
        f"/sheets/w/{facts.workbook}/s/{sheet or facts.sheet}/rows?start=1&count=10"
    ).get_data(as_text=True)
    return [int(n) for n in re.findall(r'data-row="(\d+)"', html)]


def test_a_filter_hides_rows_whose_value_is_not_shown(owner, facts, store, world):
    act(owner, facts, "filter", {"ref": "A1:H5", "shown": {"D": ["Negotiation"]}})
    assert (
        one(store, world, "SELECT filter_range FROM sheets_sheet WHERE id = ?", (facts.sheet,))
        == "A1:H5"
    )
    shown = visible_rows(owner, facts)
    assert 4 not in shown and 5 not in shown
    assert {1, 2, 3, 6} <= set(shown)


def test_turning_a_filter_off_shows_every_row(owner, facts, store, world):
    act(owner, facts, "filter", {"ref": "A1:H5", "shown": {"D": ["Negotiation"]}})
    response = call(owner, "DELETE", f"{sheet_path(facts)}/filter")
    assert response.status_code == 200
    assert visible_rows(owner, facts)[:6] == [1, 2, 3, 4, 5, 6]
    assert (
        one(store, world, "SELECT filter_range FROM sheets_sheet WHERE id = ?", (facts.sheet,))
        is None
    )


def find(client, facts, q: str, **options) -> list[str]:
    params = {"q": q, **{k: "1" for k, v in options.items() if v}}
    response = client.get(f"/sheets/api/workbooks/{facts.workbook}/find", query_string=params)
    assert response.status_code == 200, response.get_json()
    return [f"{hit['sheet']}!{hit['address']}" for hit in response.get_json()]


def test_find_matches_shown_values(owner, facts):
    assert find(owner, facts, "$20,000") == [f"{facts.sheet_name}!E2"]


def test_find_ignores_case_unless_asked(owner, facts):
    assert f"{facts.sheet_name}!A5" in find(owner, facts, "total")
    assert find(owner, facts, "total", match_case=True) == []


def test_find_whole_cell_only(owner, facts):
    partial = find(owner, facts, "Negotiation")
    whole = find(owner, facts, "Negotiation", whole=True)
    assert f"{facts.sheet_name}!D2" in whole
    assert set(whole) <= set(partial)
    assert not any(hit.endswith("!A2") for hit in whole)


def test_find_looks_into_formulas_only_when_asked(owner, facts):
    assert find(owner, facts, "SUM(") == []
    assert f"{facts.sheet_name}!E5" in find(owner, facts, "SUM(", in_formulas=True)


def replace(client, facts, body: dict):
    response = call(client, "POST", f"/workbooks/{facts.workbook}/replace", body)
    assert response.status_code == 200, response.get_json()
    return response.get_json()["replaced"]


def test_replace_changes_matching_inputs_and_counts_them(owner, facts, store, world):
    count = replace(owner, facts, {"find": "negotiation", "replace": "Closing"})
    negotiations = [a for a, c in cells(store, world, facts.sheet).items() if c[0] == "Closing"] + [
        a for a, c in cells(store, world, facts.second_sheet).items() if c[0] == "Closing"
    ]
    assert count == len(negotiations) >= 2


def test_replace_with_match_case_skips_other_cases(owner, facts, store, world):
    assert replace(owner, facts, {"find": "negotiation", "replace": "X", "match_case": True}) == 0


def test_replace_leaves_formulas_alone_unless_asked(owner, facts, store, world):
    assert replace(owner, facts, {"find": "SUM", "replace": "MAX", "sheet_id": facts.sheet}) == 0
    assert cell(store, world, facts.sheet, "E5")[0] == "=SUM(E2:E4)"
    replace(
        owner,
        facts,
        {"find": "SUM", "replace": "MAX", "sheet_id": facts.sheet, "in_formulas": True},
    )
    assert cell(store, world, facts.sheet, "E5")[0] == "=MAX(E2:E4)"
    assert value(store, world, facts.sheet, "E5") == max(
        value(store, world, facts.sheet, f"E{r}") for r in (2, 3, 4)
    )


def test_renaming_a_sheet_rewrites_formulas_that_name_it(owner, facts, store, world):
    put(owner, facts, "J2", [[f"='{facts.second_sheet_name}'!C4"]])
    response = call(
        owner, "PATCH", sheet_path(facts, facts.second_sheet), {"name": "Stage Totals 2025"}
    )
    assert response.status_code == 200, response.get_json()
    assert cell(store, world, facts.sheet, "J2")[0] == "='Stage Totals 2025'!C4"
    assert value(store, world, facts.sheet, "J2") == value(store, world, facts.second_sheet, "C4")


def test_deleting_a_sheet_makes_formulas_that_read_it_ref_errors(owner, facts, store, world):
    put(owner, facts, "J2", [[f"='{facts.second_sheet_name}'!C4"]])
    response = call(owner, "DELETE", sheet_path(facts, facts.second_sheet))
    assert response.status_code == 200, response.get_json()
    assert value(store, world, facts.sheet, "J2") == "#REF!"
    assert (
        rows(store, world, "SELECT 1 FROM sheets_cell WHERE sheet_id = ?", (facts.second_sheet,))
        == []
    )


def test_the_last_sheet_of_a_workbook_cannot_be_deleted(owner, facts, store, world):
    assert call(owner, "DELETE", sheet_path(facts, facts.second_sheet)).status_code == 200
    response = call(owner, "DELETE", sheet_path(facts))
    assert response.status_code == 409
    assert "at least one sheet" in response.get_json()["error"]["message"]
    assert (
        one(
            store,
            world,
            "SELECT count(*) FROM sheets_sheet WHERE workbook_id = ?",
            (facts.workbook,),
        )
        == 1
    )


def test_adding_a_sheet_with_a_taken_name_is_refused(owner, facts, store, world):
    response = call(
        owner, "POST", f"/workbooks/{facts.workbook}/sheets", {"name": facts.sheet_name.upper()}
    )
    assert response.status_code == 422
    assert "already a sheet" in response.get_json()["error"]["message"]


def test_moving_a_sheet_reorders_the_tabs(owner, facts, store, world):
    response = call(owner, "PATCH", sheet_path(facts, facts.second_sheet), {"position": 0})
    assert response.status_code == 200
    order = rows(
        store,
        world,
        "SELECT id FROM sheets_sheet WHERE workbook_id = ? ORDER BY position",
        (facts.workbook,),
    )
    assert [r[0] for r in order] == [facts.second_sheet, facts.sheet]


# -- undo and redo -----------------------------------------------------------------------------


def test_undo_takes_back_a_cell_edit_and_its_recompute(owner, facts, store, world):
    before = book_cells(store, world, facts)
    put(owner, facts, "E2", [["99999"]])
    assert undo(owner, facts).get_json() == {"undid": "Edited E2"}
    assert book_cells(store, world, facts) == before


def test_undo_takes_back_a_fill(owner, facts, store, world):
    before = book_cells(store, world, facts)
    act(owner, facts, "fill", {"ref": "H2:H6", "direction": "down"})
    undo(owner, facts)
    assert book_cells(store, world, facts) == before


def test_undo_takes_back_an_insert_and_its_reference_changes(owner, facts, store, world):
    put(owner, facts, "A6", [[f"={facts.sheet_name}!E5"]], sheet=facts.second_sheet)
    before = book_cells(store, world, facts)
    act(owner, facts, "insert", {"axis": "row", "at": 3, "count": 2})
    undo(owner, facts)
    assert book_cells(store, world, facts) == before


def test_undo_takes_back_a_column_insert(owner, facts, store, world):
    put(owner, facts, "A6", [[f"={facts.sheet_name}!H5"]], sheet=facts.second_sheet)
    before = book_cells(store, world, facts)
    act(owner, facts, "insert", {"axis": "col", "at": "B"})
    undo(owner, facts)
    assert book_cells(store, world, facts) == before


def test_undo_takes_back_a_delete_and_restores_the_references(owner, facts, store, world):
    put(owner, facts, "A6", [[f"={facts.sheet_name}!G2"]], sheet=facts.second_sheet)
    before = book_cells(store, world, facts)
    act(owner, facts, "delete", {"axis": "col", "at": "G"})
    undo(owner, facts)
    assert book_cells(store, world, facts) == before


def test_undo_takes_back_a_row_delete(owner, facts, store, world):
    before = book_cells(store, world, facts)
    act(owner, facts, "delete", {"axis": "row", "at": 2, "count": 2})
    undo(owner, facts)
    assert book_cells(store, world, facts) == before


def test_undo_takes_back_a_sort(owner, facts, store, world):
    before = book_cells(store, world, facts)
    act(owner, facts, "sort", {"ref": "A1:H4", "by": "E", "descending": True})
    assert book_cells(store, world, facts) != before
    undo(owner, facts)
    assert book_cells(store, world, facts) == before


def test_redo_does_an_undone_act_again(owner, facts, store, world):
    act(owner, facts, "insert", {"axis": "row", "at": 3})
    after = book_cells(store, world, facts)
    undo(owner, facts)
    assert redo(owner, facts).get_json() == {"redid": "Inserted row 3"}
    assert book_cells(store, world, facts) == after


def test_redo_of_a_cell_edit_restores_its_value(owner, facts, store, world):
    put(owner, facts, "E2", [["99999"]])
    after = book_cells(store, world, facts)
    undo(owner, facts)
    redo(owner, facts)
    assert book_cells(store, world, facts) == after


def test_redo_is_refused_after_a_new_edit(owner, facts, store, world):
    put(owner, facts, "E2", [["99999"]])
    undo(owner, facts)
    put(owner, facts, "J2", [["new"]])
    before = book_cells(store, world, facts)
    redo(owner, facts, status=409)
    assert book_cells(store, world, facts) == before


def test_undo_twice_walks_back_two_acts(owner, facts, store, world):
    before = book_cells(store, world, facts)
    put(owner, facts, "E2", [["1"]])
    put(owner, facts, "E3", [["2"]])
    undo(owner, facts)
    undo(owner, facts)
    assert book_cells(store, world, facts) == before


def test_undo_takes_back_only_the_actors_own_act(owner, editor, facts, store, world):
    put(owner, facts, "J2", [["mine"]])
    put(editor, facts, "J3", [["theirs"]])
    undo(owner, facts)
    assert cell(store, world, facts.sheet, "J2") is None
    assert cell(store, world, facts.sheet, "J3")[0] == "theirs"


def test_undo_with_nothing_of_ones_own_is_refused(owner, editor, facts, store, world):
    put(owner, facts, "J2", [["mine"]])
    response = undo(editor, facts, status=409)
    assert "nothing of yours" in response.get_json()["error"]["message"]
    assert cell(store, world, facts.sheet, "J2")[0] == "mine"


def test_undo_marks_the_edit_undone_and_redo_clears_it(owner, facts, store, world):
    put(owner, facts, "J2", [["x"]])
    last = "SELECT undone FROM sheets_edit WHERE workbook_id = ? ORDER BY id DESC LIMIT 1"
    undo(owner, facts)
    assert one(store, world, last, (facts.workbook,)) == 1
    redo(owner, facts)
    assert one(store, world, last, (facts.workbook,)) == 0


# -- history -----------------------------------------------------------------------------------


def edits(store, world, facts) -> list[tuple]:
    return rows(
        store,
        world,
        "SELECT id, employee_id, at, summary, cells_json FROM sheets_edit WHERE workbook_id = ? "
        "ORDER BY id",
        (facts.workbook,),
    )


def test_an_act_writes_one_history_row_with_who_when_what_and_cells(owner, facts, store, world):
    before = edits(store, world, facts)
    now = one(store, world, "SELECT now FROM world_meta")
    put(owner, facts, "E2", [["25000"]])
    after = edits(store, world, facts)
    assert len(after) == len(before) + 1
    _, who, at, summary, cells_json = after[-1]
    assert who == facts.owner.id
    assert at > now and at[:10] == now[:10]  # stamped from the world clock, not the machine's
    assert summary == "Edited E2"
    assert json.loads(cells_json) == [[facts.sheet_name, "E2", "20000", "25000"]]


def test_the_workbook_is_stamped_with_the_time_of_its_last_act(owner, facts, store, world):
    put(owner, facts, "E2", [["25000"]])
    at = edits(store, world, facts)[-1][2]
    assert (
        one(store, world, "SELECT updated_at FROM sheets_workbook WHERE id = ?", (facts.workbook,))
        == at
    )


@pytest.mark.parametrize(
    ("name", "body", "summary"),
    [
        ("clear", {"ref": "A2"}, "Cleared A2"),
        ("format", {"ref": "A2", "bold": True}, "Formatted A2"),
        ("fill", {"ref": "A2:A3"}, "Filled down A2:A3"),
        ("paste", {"source": "A2", "target": "J2"}, "Pasted A2 to J2"),
        ("insert", {"axis": "row", "at": 2}, "Inserted row 2"),
        ("delete", {"axis": "col", "at": 10}, "Deleted column J"),
        ("sort", {"ref": "A1:H4", "by": "A"}, "Sorted A1:H4 by column A A→Z"),
        ("filter", {"ref": "A1:H5"}, None),
    ],
)
def test_each_sheet_act_writes_exactly_one_history_row(
    owner, facts, store, world, name, body, summary
):
    before = len(edits(store, world, facts))
    act(owner, facts, name, body)
    after = edits(store, world, facts)
    assert len(after) == before + 1
    assert after[-1][1] == facts.owner.id
    if summary:
        assert after[-1][3] == summary


def test_the_history_api_lists_acts_newest_first(owner, facts):
    put(owner, facts, "J2", [["first"]])
    put(owner, facts, "J3", [["second"]])
    response = owner.get(f"/sheets/api/workbooks/{facts.workbook}/history")
    assert response.status_code == 200
    listed = response.get_json()
    assert [e["summary"] for e in listed[:2]] == ["Edited J3", "Edited J2"]
    assert listed[0]["who"] == facts.owner.name
    assert listed[0]["cells"] == [[facts.sheet_name, "J3", "", "second"]]


def test_the_history_page_lists_acts_with_their_author(owner, facts):
    put(owner, facts, "J2", [["hello history"]])
    html = owner.get(f"/sheets/w/{facts.workbook}/history").get_data(as_text=True)
    assert "Edited J2" in html
    assert f"{facts.sheet_name}!J2: (empty) → hello history" in html
    assert facts.owner.name in html


# -- pivot tables ------------------------------------------------------------------------------


def make_pivot(client, facts, body: dict, status: int = 201):
    response = call(client, "POST", f"{sheet_path(facts)}/pivots", body)
    assert response.status_code == status, response.get_json()
    return response.get_json()


def grid(store, world, sheet_id: int) -> list[list[object]]:
    """A sheet's stored values as rows (None for empty cells)."""
    found = rows(
        store,
        world,
        "SELECT row, col, value_type, value_num, value_text FROM sheets_cell WHERE sheet_id = ?",
        (sheet_id,),
    )
    last_row, last_col = max(r for r, *_ in found), max(c for _, c, *_ in found)
    out: list[list[object]] = [[None] * last_col for _ in range(last_row)]
    for r, c, kind, num, text in found:
        out[r - 1][c - 1] = num if kind == "number" else text
    return out


def test_a_pivot_table_sums_values_by_row_field_on_a_new_sheet(owner, facts, store, world):
    made = make_pivot(
        owner,
        facts,
        {"source": "A1:H4", "rows": ["Stage"], "values": [{"field": "Amount", "function": "SUM"}]},
    )
    target = made["sheet_id"]
    name = one(store, world, "SELECT name FROM sheets_sheet WHERE id = ?", (target,))
    assert name == "Pivot Table 1"
    data = grid(store, world, target)
    assert data[0] == ["Stage", "SUM of Amount"]
    assert data[1:] == [
        ["Negotiation", 62500.0],
        ["Qualification", 77500.0],
        ["Grand Total", 140000.0],
    ]


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        ("COUNT", [2.0, 1.0, 3.0]),
        ("AVERAGE", [31250.0, 77500.0, 140000 / 3]),
        ("MIN", [20000.0, 77500.0, 20000.0]),
        ("MAX", [42500.0, 77500.0, 77500.0]),
    ],
)
def test_a_pivot_table_summarises_by_each_function(owner, facts, store, world, function, expected):
    made = make_pivot(
        owner,
        facts,
        {
            "source": "A1:H4",
            "rows": ["Stage"],
            "values": [{"field": "Amount", "function": function}],
        },
    )
    data = grid(store, world, made["sheet_id"])
    assert [row[1] for row in data[1:]] == pytest.approx(expected)


def test_a_pivot_table_with_a_column_field_and_a_filter(owner, facts, store, world):
    made = make_pivot(
        owner,
        facts,
        {
            "source": "A1:H4",
            "rows": ["Owner"],
            "columns": ["Stage"],
            "values": [{"field": "Amount", "function": "SUM"}],
            "filters": {"Stage": ["Negotiation"]},
            "name": "Owners",
        },
    )
    data = grid(store, world, made["sheet_id"])
    assert (
        one(store, world, "SELECT name FROM sheets_sheet WHERE id = ?", (made["sheet_id"],))
        == "Owners"
    )
    flat = [x for row in data for x in row]
    assert "Qualification" not in flat
    assert "Negotiation · SUM of Amount" in data[0]
    assert 62500.0 in flat


def test_refreshing_a_pivot_table_reads_the_source_again(owner, facts, store, world):
    made = make_pivot(
        owner,
        facts,
        {"source": "A1:H4", "rows": ["Stage"], "values": [{"field": "Amount", "function": "SUM"}]},
    )
    put(owner, facts, "E2", [["30000"]])
    response = call(owner, "POST", f"/workbooks/{facts.workbook}/pivots/{made['id']}/refresh")
    assert response.status_code == 200, response.get_json()
    data = grid(store, world, made["sheet_id"])
    assert data[1] == ["Negotiation", 72500.0]
    assert data[-1] == ["Grand Total", 150000.0]


def test_a_pivot_table_on_an_unknown_field_is_refused(owner, facts, store, world):
    before = rows(store, world, "SELECT count(*) FROM sheets_sheet")
    response = call(
        owner,
        "POST",
        f"{sheet_path(facts)}/pivots",
        {"source": "A1:H4", "rows": ["Nope"], "values": [{"field": "Amount"}]},
    )
    assert response.status_code == 422
    assert rows(store, world, "SELECT count(*) FROM sheets_sheet") == before


# -- charts ------------------------------------------------------------------------------------


def test_adding_a_chart_stores_its_kind_range_and_anchor(owner, facts, store, world):
    response = call(
        owner,
        "POST",
        f"{sheet_path(facts, facts.second_sheet)}/charts",
        {"kind": "bar", "source": "A1:C3", "title": "Pipeline by stage"},
    )
    assert response.status_code == 201, response.get_json()
    chart = response.get_json()
    assert chart["anchor"] == "E1"
    assert one(
        store,
        world,
        "SELECT kind, title, source_range FROM sheets_chart WHERE id = ?",
        (chart["id"],),
    ) == ("bar", "Pipeline by stage", "A1:C3")


def test_deleting_a_chart_removes_it(owner, facts, store, world):
    chart = call(
        owner,
        "POST",
        f"{sheet_path(facts, facts.second_sheet)}/charts",
        {"kind": "pie", "source": "A1:B3"},
    ).get_json()
    response = call(owner, "DELETE", f"/workbooks/{facts.workbook}/charts/{chart['id']}")
    assert response.status_code == 200
    assert rows(store, world, "SELECT 1 FROM sheets_chart WHERE id = ?", (chart["id"],)) == []


def test_the_sheet_page_draws_a_chart_as_svg_with_its_data_described(owner, facts):
    call(
        owner,
        "POST",
        f"{sheet_path(facts, facts.second_sheet)}/charts",
        {"kind": "bar", "source": "A1:B3", "title": "Deals by stage"},
    )
    html = owner.get(f"/sheets/w/{facts.workbook}/s/{facts.second_sheet}").get_data(as_text=True)
    start = html.index('<svg xmlns="http://www.w3.org/2000/svg" role="img"')
    svg = html[start : html.index("</svg>", start)]
    assert "Deals by stage" in svg
    assert "Qualification" in svg and "Negotiation" in svg
    assert "<desc" in svg


def test_a_chart_of_a_range_without_numbers_is_refused(owner, facts, store, world):
    response = call(
        owner, "POST", f"{sheet_path(facts)}/charts", {"kind": "bar", "source": "A1:B4"}
    )
    assert response.status_code == 422
    assert rows(store, world, "SELECT count(*) FROM sheets_chart") == [(1,)]


# -- workbooks ---------------------------------------------------------------------------------


def test_creating_a_workbook_gives_it_one_empty_sheet_owned_by_the_creator(
    owner, facts, store, world
):
    response = call(owner, "POST", "/workbooks", {"name": "  Budget   2026 "})
    assert response.status_code == 201
    book = response.get_json()
    assert book["name"] == "Budget 2026"
    assert book["role"] == "owner"
    assert [s["name"] for s in book["sheets"]] == ["Sheet1"]
    assert (
        one(store, world, "SELECT owner_id FROM sheets_workbook WHERE id = ?", (book["id"],))
        == facts.owner.id
    )


def test_copying_a_workbook_copies_cells_and_charts_but_not_sharing(viewer, facts, store, world):
    response = call(viewer, "POST", f"/workbooks/{facts.workbook}/copy", {})
    assert response.status_code == 201, response.get_json()
    copy = response.get_json()
    assert copy["name"] == f"Copy of {facts.name}"
    assert copy["owner_id"] == facts.viewer.id
    first = copy["sheets"][0]["id"]
    assert cells(store, world, first) == cells(store, world, facts.sheet)
    assert (
        rows(store, world, "SELECT 1 FROM sheets_share WHERE workbook_id = ?", (copy["id"],)) == []
    )


def test_trashing_and_restoring_a_workbook(owner, facts, store, world):
    assert call(owner, "POST", f"/workbooks/{facts.workbook}/trash").status_code == 200
    assert (
        one(
            store,
            world,
            "SELECT trashed_at IS NOT NULL FROM sheets_workbook WHERE id = ?",
            (facts.workbook,),
        )
        == 1
    )
    listed = owner.get("/sheets/api/workbooks?tab=trash").get_json()
    assert [b["id"] for b in listed] == [facts.workbook]
    assert call(owner, "POST", f"/workbooks/{facts.workbook}/restore").status_code == 200
    assert (
        one(store, world, "SELECT trashed_at FROM sheets_workbook WHERE id = ?", (facts.workbook,))
        is None
    )


def test_freezing_rows_is_recorded_on_the_sheet(owner, facts, store, world):
    response = call(owner, "PATCH", sheet_path(facts), {"frozen_rows": 2})
    assert response.status_code == 200
    assert (
        one(store, world, "SELECT frozen_rows FROM sheets_sheet WHERE id = ?", (facts.sheet,)) == 2
    )


def test_comments_are_added_and_deleted_by_their_author(viewer, facts, store, world):
    response = call(
        viewer, "POST", f"{sheet_path(facts)}/comments", {"cell": "e2", "body": " Why so high? "}
    )
    assert response.status_code == 201, response.get_json()
    comment = response.get_json()
    assert comment["cell"] == "E2" and comment["body"] == "Why so high?"
    response = call(viewer, "DELETE", f"/workbooks/{facts.workbook}/comments/{comment['id']}")
    assert response.status_code == 200
    assert rows(store, world, "SELECT 1 FROM sheets_comment") == []


def test_a_comment_can_not_be_deleted_by_another_viewer(viewer, editor, facts, store, world):
    comment = call(
        editor, "POST", f"{sheet_path(facts)}/comments", {"cell": "E2", "body": "Mine"}
    ).get_json()
    response = call(viewer, "DELETE", f"/workbooks/{facts.workbook}/comments/{comment['id']}")
    assert response.status_code == 403
    assert rows(store, world, "SELECT body FROM sheets_comment") == [("Mine",)]
