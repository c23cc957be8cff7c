"""Addresses, and the references in formula text: found, filled, moved by inserts and deletes,
and renamed with their sheet, the way Excel rewrites them."""

from __future__ import annotations

import pytest

from officegym.apps.sheets.engine.refs import (
    MAX_COLS,
    MAX_ROWS,
    Range,
    address,
    column_letters,
    column_number,
    delete,
    insert,
    parse_address,
    parse_range,
    quote_sheet,
    references,
    rename_sheet,
    shift,
)

# -- addresses ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "letters"),
    [(1, "A"), (26, "Z"), (27, "AA"), (52, "AZ"), (703, "AAA"), (16384, "XFD")],
)
def test_column_letters_and_numbers_are_inverse_in_base_26_without_zero(number, letters):
    # 27 = 1*26 + 1 → "AA"; 703 = 1*26^2 + 1*26 + 1 → "AAA"; 16384 is Excel's last, XFD.
    assert column_letters(number) == letters
    assert column_number(letters) == number


def test_column_number_accepts_lower_case():
    assert column_number("ab") == 28  # 1*26 + 2


def test_parse_address_gives_row_then_column_and_ignores_dollars():
    assert parse_address("B12") == (12, 2)
    assert parse_address("$B$12") == (12, 2)


def test_parse_address_rejects_text_that_is_not_an_address():
    with pytest.raises(ValueError, match="not a cell address"):
        parse_address("12B")


def test_address_writes_column_letters_then_row():
    assert address(12, 2) == "B12"
    assert address(1, 27) == "AA1"


def test_parse_range_normalises_corners_and_lists_cells_row_by_row():
    rng = parse_range("B3:A1")
    assert rng == Range(1, 1, 3, 2)
    assert rng.address == "A1:B3"
    assert list(parse_range("A1:B2").cells()) == [(1, 1), (1, 2), (2, 1), (2, 2)]


def test_parse_range_of_one_cell_is_a_one_by_one_range():
    rng = parse_range("C4")
    assert rng == Range(4, 3, 4, 3)
    assert rng.address == "C4"


def test_whole_columns_and_rows_span_the_grid():
    assert parse_range("B:C") == Range(1, 2, MAX_ROWS, 3)
    assert parse_range("B:C").address == "B:C"
    assert parse_range("3:5") == Range(3, 1, 5, MAX_COLS)
    assert parse_range("3:5").address == "3:5"


# -- references ---------------------------------------------------------------------------


def test_references_find_cells_and_ranges_on_the_formulas_own_sheet():
    assert references("=A1+SUM(B2:C3)", "Sheet1") == [
        ("Sheet1", Range(1, 1, 1, 1)),
        ("Sheet1", Range(2, 2, 3, 3)),
    ]


def test_references_keep_the_sheet_of_qualified_references():
    assert references("=SUM('Q3 Pipeline'!B2:B40)+Sheet2!A1", "Summary") == [
        ("Q3 Pipeline", Range(2, 2, 40, 2)),
        ("Sheet2", Range(1, 1, 1, 1)),
    ]


def test_a_quoted_sheet_name_may_hold_an_escaped_apostrophe():
    assert references("='Bob''s data'!A1", "S") == [("Bob's data", Range(1, 1, 1, 1))]


def test_string_literals_are_not_references():
    assert references('="A1"&B2', "S") == [("S", Range(2, 2, 2, 2))]
    assert references('="say ""C3"" twice"', "S") == []


def test_function_names_numbers_and_names_are_not_references():
    # LOG10( is a call, 1E3 a number, TRUE and "total" names: only A1 is a reference.
    assert references("=LOG10(A1)+1E3+TRUE+total", "S") == [("S", Range(1, 1, 1, 1))]


def test_error_literals_are_not_references():
    assert references("=B5*#REF!+Sheet2!#REF!", "S") == [("S", Range(5, 2, 5, 2))]


def test_a_value_that_is_not_a_formula_has_no_references():
    assert references("A1", "S") == []


# -- shift (fill and copy) ----------------------------------------------------------------


def test_shift_moves_relative_references_by_the_offset():
    assert shift("=A1*B1", 1, 0) == "=A2*B2"
    assert shift("=A1*B1", 0, 2) == "=C1*D1"


def test_shift_keeps_dollar_anchored_parts_in_place():
    # $B$2 stays; B$3 moves its column only; $C4 moves its row only.
    assert shift("=A1+$B$2+B$3+$C4", 1, 1) == "=B2+$B$2+C$3+$C5"


def test_shift_moves_both_ends_of_a_range():
    assert shift("=SUM(A$1:A5)", 3, 0) == "=SUM(A$1:A8)"


def test_shift_off_the_grid_gives_ref_error():
    assert shift("=A1+B2", -1, 0) == "=#REF!+B1"
    assert shift("=SUM(A1:A3)", 0, -1) == "=SUM(#REF!)"


def test_shift_keeps_the_sheet_of_a_qualified_reference():
    assert shift("='Q3 Pipeline'!B2*2", 2, 0) == "='Q3 Pipeline'!B4*2"


def test_shift_leaves_string_literals_alone():
    assert shift('="A1"&A1', 1, 0) == '="A1"&A2'


def test_shift_of_a_non_formula_returns_it_unchanged():
    assert shift("A1", 5, 5) == "A1"


# -- insert -------------------------------------------------------------------------------


def test_insert_rows_moves_references_at_or_after_the_point():
    # Two rows inserted before row 5: A12 → A14; A3 is above and stays.
    assert insert("=A12+A3", "S", "S", "row", 5, 2) == "=A14+A3"


def test_insert_rows_grows_a_range_spanning_the_point():
    assert insert("=SUM(A1:A10)", "S", "S", "row", 5, 2) == "=SUM(A1:A12)"


def test_insert_rows_just_below_a_range_leaves_it_alone():
    # A1:A4 ends above row 5, so it neither moves nor grows.
    assert insert("=SUM(A1:A4)", "S", "S", "row", 5, 2) == "=SUM(A1:A4)"


def test_insert_moves_absolute_references_too():
    assert insert("=$B$5", "S", "S", "row", 5, 1) == "=$B$6"


def test_insert_columns_moves_column_parts():
    assert insert("=C1+SUM(A1:D1)", "S", "S", "col", 2, 1) == "=D1+SUM(A1:E1)"


def test_insert_only_touches_references_into_the_target_sheet():
    # On sheet S, "A5" is S!A5; only Other!A5 points into the sheet that grew.
    assert insert("=Other!A5+A5", "S", "Other", "row", 5, 1) == "=Other!A6+A5"


def test_insert_matches_the_target_sheet_case_insensitively():
    assert insert("=other!A5", "S", "Other", "row", 1, 1) == "=other!A6"


# -- delete -------------------------------------------------------------------------------


def test_delete_column_turns_a_reference_into_it_into_ref_error():
    assert delete("=B5*C5", "S", "S", "col", 3, 1) == "=B5*#REF!"


def test_delete_rows_moves_references_after_the_block_back():
    # Rows 3-4 deleted: A12 → A10; A2 is above and stays.
    assert delete("=A12+A2", "S", "S", "row", 3, 2) == "=A10+A2"


def test_delete_rows_shrinks_a_range_spanning_the_block():
    assert delete("=SUM(A1:A10)", "S", "S", "row", 3, 2) == "=SUM(A1:A8)"


def test_delete_rows_cuts_the_end_of_a_range_reaching_into_the_block():
    # A2:A4 with rows 3-7 gone keeps only A2.
    assert delete("=SUM(A2:A4)", "S", "S", "row", 3, 5) == "=SUM(A2:A2)"


def test_delete_rows_cuts_the_start_of_a_range_beginning_in_the_block():
    # A4:A10 with rows 3-5 gone: its rows 6-10 become 3-7.
    assert delete("=SUM(A4:A10)", "S", "S", "row", 3, 3) == "=SUM(A3:A7)"


def test_delete_of_a_whole_range_gives_ref_error():
    assert delete("=SUM(A3:A4)", "S", "S", "row", 3, 2) == "=SUM(#REF!)"


def test_delete_keeps_the_sheet_prefix_of_a_qualified_reference_it_breaks():
    assert delete("=Other!C1+C1", "S", "Other", "col", 3, 1) == "=Other!#REF!+C1"


def test_delete_columns_shrinks_whole_column_ranges():
    assert delete("=SUM(B:D)+SUM(C:C)", "S", "S", "col", 3, 1) == "=SUM(B:C)+SUM(#REF!)"


def test_delete_rows_leaves_whole_column_ranges_alone():
    assert delete("=SUM(B:B)", "S", "S", "row", 1, 3) == "=SUM(B:B)"


def test_insert_and_delete_reject_an_unknown_axis():
    with pytest.raises(ValueError, match="axis"):
        insert("=A1", "S", "S", "rows", 1, 1)


# -- rename -------------------------------------------------------------------------------


def test_rename_sheet_rewrites_qualified_references_and_quotes_when_needed():
    raw = "=Sheet2!A1+'sheet2'!B1+A1+Other!A1"
    assert rename_sheet(raw, "Sheet2", "Q3 Pipeline") == (
        "='Q3 Pipeline'!A1+'Q3 Pipeline'!B1+A1+Other!A1"
    )


def test_rename_sheet_drops_quotes_the_new_name_does_not_need():
    assert rename_sheet("='Q3 Pipeline'!A1:B2", "Q3 Pipeline", "Data") == "=Data!A1:B2"


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("Sheet1", "Sheet1"),
        ("Q3 Pipeline", "'Q3 Pipeline'"),
        ("Bob's", "'Bob''s'"),
        ("A1", "'A1'"),
        ("2024", "'2024'"),
    ],
)
def test_quote_sheet_quotes_names_that_would_not_read_back_as_a_sheet(name, written):
    assert quote_sheet(name) == written
