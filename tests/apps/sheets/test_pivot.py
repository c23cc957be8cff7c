"""Pivot tables, checked against sums worked out by hand from a small pipeline."""

from __future__ import annotations

import pytest

from officegym.apps.sheets import book
from officegym.apps.sheets.pivot import PivotError, pivot

HEADER = ["Region", "Stage", "Amount", "Year"]
DEALS = [
    ["East", "Closed Won", 120.0, 2024.0],
    ["West", "Closed Won", 80.0, 2023.0],
    ["East", "Closed Lost", 30.0, 2024.0],
    ["North", "Closed Won", 50.0, 2024.0],
    ["West", "Closed Lost", "n/a", 2024.0],
    ["East", "Closed Won", 10.5, 2023.0],
    ["West", "Prospecting", None, 2023.0],
]


def test_revenue_by_region_sums_each_region_and_the_grand_total():
    assert pivot(HEADER, DEALS, ["Region"], [], [("Amount", "SUM")]) == [
        ["Region", "SUM of Amount"],
        ["East", 160.5],
        ["North", 50.0],
        ["West", 80.0],
        ["Grand Total", 290.5],
    ]


def test_count_counts_non_empty_values_including_text():
    assert pivot(HEADER, DEALS, ["Region"], [], [("Amount", "COUNT")]) == [
        ["Region", "COUNT of Amount"],
        ["East", 3.0],
        ["North", 1.0],
        ["West", 2.0],
        ["Grand Total", 6.0],
    ]


def test_revenue_by_region_and_stage_has_a_column_per_stage_and_totals_both_ways():
    assert pivot(HEADER, DEALS, ["Region"], ["Stage"], [("Amount", "SUM")]) == [
        [
            "Region",
            "Closed Lost · SUM of Amount",
            "Closed Won · SUM of Amount",
            "Prospecting · SUM of Amount",
            "Grand Total",
        ],
        ["East", 30.0, 130.5, None, 160.5],
        ["North", None, 50.0, None, 50.0],
        ["West", 0.0, 80.0, 0.0, 80.0],
        ["Grand Total", 30.0, 260.5, 0.0, 290.5],
    ]


def test_a_combination_without_rows_is_blank_not_zero():
    grid = pivot(HEADER, DEALS, ["Region"], ["Stage"], [("Amount", "COUNT")])
    north = grid[2]
    assert north == ["North", None, 1.0, None, 1.0]


def test_several_values_get_a_column_each_and_a_grand_total_each():
    grid = pivot(HEADER, DEALS, ["Region"], ["Year"], [("Amount", "SUM"), ("Amount", "COUNT")])
    assert grid[0] == [
        "Region",
        "2023 · SUM of Amount",
        "2023 · COUNT of Amount",
        "2024 · SUM of Amount",
        "2024 · COUNT of Amount",
        "Grand Total · SUM of Amount",
        "Grand Total · COUNT of Amount",
    ]
    assert grid[1] == ["East", 10.5, 1.0, 150.0, 2.0, 160.5, 3.0]
    assert grid[-1] == ["Grand Total", 90.5, 2.0, 200.0, 4.0, 290.5, 6.0]


def test_average_min_and_max_read_numbers_only():
    grid = pivot(
        HEADER,
        DEALS,
        ["Region"],
        [],
        [("Amount", "AVERAGE"), ("Amount", "MIN"), ("Amount", "MAX")],
    )
    assert grid == [
        ["Region", "AVERAGE of Amount", "MIN of Amount", "MAX of Amount"],
        ["East", 160.5 / 3, 10.5, 120.0],
        ["North", 50.0, 50.0, 50.0],
        ["West", 80.0, 80.0, 80.0],
        ["Grand Total", 290.5 / 5, 10.5, 120.0],
    ]


def test_a_group_without_numbers_has_no_average_min_or_max_and_sums_to_zero():
    grid = pivot(
        HEADER,
        DEALS,
        ["Stage"],
        [],
        [("Amount", "SUM"), ("Amount", "AVERAGE"), ("Amount", "MIN")],
    )
    assert grid[3] == ["Prospecting", 0.0, None, None]


def test_a_filter_keeps_only_rows_with_the_chosen_values():
    grid = pivot(HEADER, DEALS, ["Region"], [], [("Amount", "SUM")], {"Year": [2024.0]})
    assert grid == [
        ["Region", "SUM of Amount"],
        ["East", 150.0],
        ["North", 50.0],
        ["West", 0.0],
        ["Grand Total", 200.0],
    ]


def test_a_filter_on_a_number_matches_its_shown_text():
    by_number = pivot(HEADER, DEALS, ["Region"], [], [("Amount", "SUM")], {"Year": [2024]})
    by_text = pivot(HEADER, DEALS, ["Region"], [], [("Amount", "SUM")], {"Year": ["2024"]})
    assert by_number == by_text


def test_filters_on_several_fields_must_all_match():
    grid = pivot(
        HEADER,
        DEALS,
        ["Region"],
        [],
        [("Amount", "SUM")],
        {"Year": [2024.0], "Stage": ["Closed Won"]},
    )
    assert grid == [
        ["Region", "SUM of Amount"],
        ["East", 120.0],
        ["North", 50.0],
        ["Grand Total", 170.0],
    ]


def test_a_numeric_row_field_sorts_as_numbers_and_stays_numbers():
    rows = [[10.0, 1.0], [9.0, 2.0], [100.0, 3.0], [9.0, 4.0]]
    assert pivot(["Size", "Units"], rows, ["Size"], [], [("Units", "SUM")]) == [
        ["Size", "SUM of Units"],
        [9.0, 6.0],
        [10.0, 1.0],
        [100.0, 3.0],
        ["Grand Total", 10.0],
    ]


def test_groups_sort_numbers_then_text_ignoring_case_then_blanks():
    rows = [["b", 1.0], ["A", 1.0], [2.0, 1.0], [None, 1.0], ["a", 1.0], ["", 1.0]]
    grid = pivot(["Key", "N"], rows, ["Key"], [], [("N", "COUNT")])
    assert [row[0] for row in grid[1:]] == [2.0, "A", "a", "b", "(blank)", "Grand Total"]
    assert grid[5] == ["(blank)", 2.0]


def test_several_row_fields_give_one_row_per_combination():
    grid = pivot(HEADER, DEALS, ["Region", "Year"], [], [("Amount", "SUM")])
    assert grid == [
        ["Region", "Year", "SUM of Amount"],
        ["East", 2023.0, 10.5],
        ["East", 2024.0, 150.0],
        ["North", 2024.0, 50.0],
        ["West", 2023.0, 80.0],
        ["West", 2024.0, 0.0],
        ["Grand Total", None, 290.5],
    ]


def test_without_row_fields_only_the_grand_total_row_remains():
    assert pivot(HEADER, DEALS, [], ["Year"], [("Amount", "SUM")]) == [
        ["", "2023 · SUM of Amount", "2024 · SUM of Amount", "Grand Total"],
        ["Grand Total", 90.5, 200.0, 290.5],
    ]


def test_sums_add_in_source_row_order():
    rows = [["x", 0.1], ["x", 0.2], ["x", 0.3]]
    grid = pivot(["K", "V"], rows, ["K"], [], [("V", "SUM")])
    assert grid[1][1] == (0.1 + 0.2) + 0.3
    assert grid[1][1] != 0.6


def test_short_rows_read_as_blank_in_the_missing_columns():
    grid = pivot(HEADER, [["East", "Closed Won"]], ["Region"], [], [("Amount", "COUNT")])
    assert grid[1] == ["East", 0.0]


def test_function_names_ignore_case():
    assert pivot(HEADER, DEALS, [], [], [("Amount", "sum")])[1] == ["Grand Total", 290.5]


def test_no_rows_give_only_the_header_and_a_blank_grand_total():
    assert pivot(HEADER, [], ["Region"], [], [("Amount", "SUM")]) == [
        ["Region", "SUM of Amount"],
        ["Grand Total", None],
    ]


# --- refusals ---------------------------------------------------------------------------------


def test_an_unknown_field_is_refused_naming_the_columns():
    with pytest.raises(PivotError, match="no column named 'Regoin'.*'Region', 'Stage'"):
        pivot(HEADER, DEALS, ["Regoin"], [], [("Amount", "SUM")])


def test_an_unknown_filter_field_is_refused():
    with pytest.raises(PivotError, match="no column named 'Owner'"):
        pivot(HEADER, DEALS, ["Region"], [], [("Amount", "SUM")], {"Owner": ["Ada"]})


def test_an_unknown_function_is_refused_listing_the_functions():
    with pytest.raises(PivotError, match="'MEDIAN' is not a pivot function.*SUM, COUNT"):
        pivot(HEADER, DEALS, ["Region"], [], [("Amount", "MEDIAN")])


def test_a_pivot_without_values_is_refused():
    with pytest.raises(PivotError, match="Add a value"):
        pivot(HEADER, DEALS, ["Region"], [], [])


def test_a_field_two_columns_share_is_refused():
    with pytest.raises(PivotError, match="Two columns are named 'Amount'"):
        pivot(["Amount", "Amount"], [[1.0, 2.0]], [], [], [("Amount", "SUM")])


def test_a_grid_larger_than_a_sheet_is_refused(monkeypatch):
    monkeypatch.setattr(book, "MAX_CELLS", 9)
    with pytest.raises(PivotError, match="would have 10 cells; a sheet holds at most 9"):
        pivot(HEADER, DEALS, ["Region"], [], [("Amount", "SUM")])
