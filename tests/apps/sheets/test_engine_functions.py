"""Formulas evaluate to what Excel shows for them.

Expected values are worked out by hand from the little workbook below (openpyxl cannot
compute formulas); each comment says how.
"""

from __future__ import annotations

import datetime as dt

import pytest

from officegym.apps.sheets.engine.evaluate import FormulaSyntaxError, check, evaluate
from officegym.apps.sheets.engine.refs import Range
from officegym.apps.sheets.engine.values import CellError, Value

WORLD_DAY = dt.date(2031, 5, 6)  # serial 47974; far from the machine clock on purpose

# Sales: A region, B rep, C amount, D close date (serials), E an error cell.
SALES: dict[tuple[int, int], Value] = {
    (1, 1): "East", (1, 2): "Ann", (1, 3): 100.0, (1, 4): 45900.0,  # 2025-08-31
    (2, 1): "West", (2, 2): "Bob", (2, 3): 250.0, (2, 4): 45914.0,  # 2025-09-14
    (3, 1): "East", (3, 2): "Cid", (3, 3): 75.0, (3, 4): 45930.0,  # 2025-09-30
    (4, 1): "North", (4, 2): "Dee", (4, 3): "300", (4, 4): 45940.0,  # amount typed as text
    (5, 1): "West", (5, 2): "Eve", (5, 3): True,
    (1, 5): CellError("#N/A"),
}  # fmt: skip
PIPELINE: dict[tuple[int, int], Value] = {
    (1, 1): 5.0, (2, 1): 7.0, (1, 2): 10.0, (2, 2): 20.0, (3, 2): 30.0,
}  # fmt: skip
WORKBOOK = {"Sales": SALES, "Q3 Pipeline": PIPELINE, "Bob's Q3-Plan": {(1, 1): 9.0}}


def resolve(sheet: str, rng: Range) -> list[list[Value]]:
    by_name = {name.casefold(): cells for name, cells in WORKBOOK.items()}
    cells = by_name[sheet.casefold()]
    last_row = min(rng.r2, 10)
    return [
        [cells.get((r, c)) for c in range(rng.c1, rng.c2 + 1)] for r in range(rng.r1, last_row + 1)
    ]


def ev(raw: str, at: tuple[int, int] | None = None, today: dt.date = WORLD_DAY) -> Value:
    return evaluate(raw, "Sales", resolve, today, at=at)


# -- operators ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("=1+2*3", 7.0),
        ("=10/4", 2.5),
        ("=2^3^2", 64.0),  # Excel's ^ is left-associative: (2^3)^2
        ("=-2^2", 4.0),  # unary minus binds tighter than ^: (-2)^2
        ("=C1-C3", 25.0),  # 100 - 75
        ("=50%", 0.5),
    ],
)
def test_arithmetic(raw, value):
    assert ev(raw) == value


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("=C1<C2", True),  # 100 < 250
        ("=C1>=100", True),
        ("=1<>1", False),
        ('="a"="A"', True),  # text compares without case
        ("=C3=75", True),
    ],
)
def test_comparisons(raw, value):
    assert ev(raw) is value


def test_ampersand_joins_text_and_numbers():
    assert ev('="Total: "&C2') == "Total: 250"


def test_numbers_turn_into_text_with_fifteen_digits():
    assert ev('=0.1+0.2&""') == "0.3"  # not 0.30000000000000004


def test_text_that_looks_like_a_number_counts_in_arithmetic():
    assert ev('="3"+1') == 4.0
    assert ev("=C4+1") == 301.0  # C4 holds the text "300"


def test_booleans_count_as_one_and_zero_in_arithmetic():
    assert ev("=TRUE+1") == 2.0


def test_an_empty_cell_is_zero_in_arithmetic_and_empty_text_when_joined():
    assert ev("=F1") == 0.0
    assert ev('=F1&"x"') == "x"


def test_a_formula_returning_a_range_shows_its_top_left_value():
    assert ev("=C1:C3") == 100.0


# -- aggregates ---------------------------------------------------------------------------


def test_sum_skips_text_and_booleans_in_a_range():
    # 100 + 250 + 75; the text "300" and TRUE are skipped.
    assert ev("=SUM(C1:C5)") == 425.0


def test_sum_coerces_values_given_directly():
    assert ev('=SUM("3",1,TRUE)') == 5.0


def test_sum_of_a_whole_column():
    assert ev("=SUM(C:C)") == 425.0


def test_average_divides_by_the_count_of_numbers():
    assert ev("=AVERAGE(C1:C5)") == pytest.approx(425.0 / 3)


def test_count_counts_numbers_and_counta_counts_non_empty_cells():
    assert ev("=COUNT(C1:C5)") == 3.0
    assert ev("=COUNTA(C1:C5)") == 5.0
    assert ev("=COUNTA(D1:D5)") == 4.0  # D5 is empty


def test_min_and_max_over_numbers_only():
    assert ev("=MIN(C1:C5)") == 75.0
    assert ev("=MAX(C1:C5)") == 250.0


def test_countif_matches_text_without_case():
    assert ev('=COUNTIF(A1:A5,"east")') == 2.0


def test_countif_with_wildcards():
    assert ev('=COUNTIF(B1:B5,"*e*")') == 2.0  # Dee, Eve


def test_countif_with_an_operator_counts_only_numbers():
    # 100 and 250 exceed 80; the text "300" is not a number to compare.
    assert ev('=COUNTIF(C1:C5,">80")') == 2.0


def test_countifs_requires_every_criterion():
    # West rows are Bob (250) and Eve (TRUE); only 250 is a number above 1.
    assert ev('=COUNTIFS(A1:A5,"West",C1:C5,">1")') == 1.0


def test_countifs_with_ranges_of_different_sizes_is_value_error():
    assert ev('=COUNTIFS(A1:A5,"West",C1:C4,">1")') == CellError("#VALUE!")


def test_sumif_adds_the_sum_range_where_the_criterion_holds():
    assert ev('=SUMIF(A1:A5,"East",C1:C5)') == 175.0  # 100 + 75


def test_sumifs_adds_where_all_criteria_hold():
    assert ev('=SUMIFS(C1:C5,A1:A5,"East",C1:C5,">80")') == 100.0


def test_averageif_and_averageifs():
    assert ev('=AVERAGEIF(A1:A5,"East",C1:C5)') == 87.5  # (100 + 75) / 2
    assert ev('=AVERAGEIFS(C1:C5,A1:A5,"West")') == 250.0  # Eve's TRUE is not a number


def test_criteria_can_be_built_from_a_date():
    # Closing on or after 2025-09-14: Bob, Cid, Dee.
    assert ev('=COUNTIF(D1:D5,">="&DATE(2025,9,14))') == 3.0


def test_an_error_in_a_summed_range_propagates():
    assert ev("=SUM(E1:E2)") == CellError("#N/A")


# -- rounding and logic -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("=ROUND(2.5,0)", 3.0),  # half away from zero
        ("=ROUND(-2.5,0)", -3.0),
        ("=ROUND(1234.567,-2)", 1200.0),
        ("=ROUND(2.675,2)", 2.68),
    ],
)
def test_round(raw, value):
    assert ev(raw) == value


def test_if_chooses_a_branch():
    assert ev('=IF(C1>C2,"more","less")') == "less"


def test_if_without_an_else_gives_false():
    assert ev("=IF(C1>C2,1)") is False


def test_iferror_replaces_an_error():
    assert ev('=IFERROR(1/0,"none")') == "none"
    assert ev('=IFERROR(C1,"none")') == 100.0


def test_and_or_not():
    assert ev("=AND(C1>50,C2>50)") is True
    assert ev("=OR(C1>500,C2>500)") is False
    assert ev("=NOT(C1>500)") is True


# -- lookups ------------------------------------------------------------------------------


def test_vlookup_exact_match():
    assert ev('=VLOOKUP("Cid",B1:C5,2,FALSE)') == 75.0


def test_vlookup_miss_is_na():
    assert ev('=VLOOKUP("Zed",B1:C5,2,FALSE)') == CellError("#N/A")


def test_xlookup_finds_the_matching_return_value():
    assert ev('=XLOOKUP("Bob",B1:B5,A1:A5)') == "West"


def test_xlookup_not_found_is_na():
    assert ev('=XLOOKUP("Zed",B1:B5,A1:A5)') == CellError("#N/A")


def test_xlookup_not_found_gives_the_fallback_when_one_is_given():
    assert ev('=XLOOKUP("Zed",B1:B5,A1:A5,"nobody")') == "nobody"


def test_index_and_match():
    assert ev("=INDEX(A1:C5,3,2)") == "Cid"
    assert ev('=MATCH("Dee",B1:B5,0)') == 4.0
    assert ev('=INDEX(C1:C5,MATCH("Bob",B1:B5,0))') == 250.0


# -- text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ('=TEXT(1234.5,"$#,##0.00")', "$1,234.50"),
        ('=TEXT(45914,"mmm d, yyyy")', "Sep 14, 2025"),
        ('=TEXT(45914,"yyyy-mm-dd")', "2025-09-14"),
        ('=TEXT(0.256,"0.0%")', "25.6%"),
        ('=TEXT(2.5,"0")', "3"),  # half away from zero
        ('=TEXT(-1200,"$#,##0")', "-$1,200"),
    ],
)
def test_text_formats_a_number(raw, value):
    assert ev(raw) == value


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ('=CONCAT("a",1,TRUE)', "a1TRUE"),
        ("=CONCAT(B1:B2)", "AnnBob"),
        ('=LEFT("hello",2)', "he"),
        ('=RIGHT("hello",3)', "llo"),
        ('=MID("hello",2,3)', "ell"),
        ('=LEN("hello")', 5.0),
        ('=TRIM("  a   b  ")', "a b"),  # inner runs collapse to one space
        ('=UPPER("aBc")', "ABC"),
        ('=LOWER("AbC")', "abc"),
    ],
)
def test_text_functions(raw, value):
    assert ev(raw) == value


# -- dates --------------------------------------------------------------------------------


def test_date_builds_a_serial_and_rolls_over_months():
    assert ev("=DATE(2025,9,14)") == 45914.0
    assert ev("=DATE(2025,13,1)") == 46023.0  # month 13 of 2025 is 2026-01-01


def test_year_and_month_of_a_serial():
    assert ev("=YEAR(D2)") == 2025.0
    assert ev("=MONTH(D2)") == 9.0


def test_eomonth_goes_to_the_end_of_a_month_forward_or_back():
    assert ev("=EOMONTH(D2,0)") == 45930.0  # 2025-09-30
    assert ev("=EOMONTH(D2,-1)") == 45900.0  # 2025-08-31
    assert ev("=EOMONTH(D2,-13)") == 45535.0  # 2024-08-31


def test_networkdays_counts_weekdays_inclusive():
    # September 2025 starts on a Monday: 22 weekdays.
    assert ev("=NETWORKDAYS(DATE(2025,9,1),DATE(2025,9,30))") == 22.0


def test_networkdays_skips_holidays():
    # D1:D3 are 2025-08-31 (a Sunday, not counted anyway), 09-14 (Sunday) and 09-30 (Tuesday).
    assert ev("=NETWORKDAYS(DATE(2025,9,1),DATE(2025,9,30),D1:D3)") == 21.0


def test_today_is_the_world_date_not_the_machine_clock():
    assert ev("=TODAY()") == 47974.0  # 2031-05-06
    assert ev("=TODAY()", today=dt.date(2025, 9, 14)) == 45914.0


def test_now_carries_the_world_time_of_day():
    assert ev("=NOW()", today=dt.datetime(2025, 9, 14, 18, 0)) == 45914.75  # noqa: DTZ001


# -- sheets -------------------------------------------------------------------------------


def test_cross_sheet_references_with_quoted_names_in_any_case():
    assert ev("='Q3 Pipeline'!A1+'q3 pipeline'!A2") == 12.0
    assert ev("=SUM('Q3 Pipeline'!B1:B3)") == 60.0


def test_sheet_names_with_apostrophes_and_dashes():
    assert ev("='bob''s q3-plan'!A1*2") == 18.0


def test_a_reference_to_a_missing_sheet_is_ref_error():
    assert ev("=Nope!A1") == CellError("#REF!")


def test_formulas_filled_from_one_another_evaluate_each_at_its_own_cell():
    assert ev("=C1*2", at=(1, 6)) == 200.0
    assert ev("=C2*2", at=(2, 6)) == 500.0
    assert ev("=SUM(C$1:C2)", at=(2, 6)) == 350.0


# -- errors -------------------------------------------------------------------------------


def test_division_by_zero():
    assert ev("=C1/0") == CellError("#DIV/0!")


def test_unknown_function_is_name_error():
    assert ev("=FOO(1)") == CellError("#NAME?")


def test_unknown_name_is_name_error():
    assert ev("=revenue*2") == CellError("#NAME?")


def test_ref_error_in_the_text_is_ref_error():
    assert ev("=B5*#REF!") == CellError("#REF!")


def test_text_in_arithmetic_is_value_error():
    assert ev('="abc"+1') == CellError("#VALUE!")


def test_impossible_math_is_num_error():
    assert ev("=SQRT(-1)") == CellError("#NUM!")


def test_ranges_that_do_not_intersect_are_null_error():
    assert ev("=A1:A2 C3:C4") == CellError("#NULL!")


def test_an_error_in_a_referenced_cell_propagates():
    assert ev("=E1+1") == CellError("#N/A")


def test_a_formula_that_does_not_parse_is_an_error_value():
    assert ev("=SUM(1,") == CellError("#ERROR!")


def test_check_raises_for_a_formula_that_does_not_parse():
    with pytest.raises(FormulaSyntaxError, match="parse error"):
        check("=(1+2")


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("=--(1>0)", 1.0),  # two minus signs make a number of a boolean, as in Excel
        ("=--TRUE", 1.0),
        ("=SUMPRODUCT(--({1,5,9}>4))", 2.0),  # the counting idiom: 5 and 9
        ("=5--3", 8.0),  # binary minus, then unary minus
        ('=LEN("a--b")', 4.0),  # inside text it is just text
    ],
)
def test_double_negation_makes_numbers(raw, value):
    assert ev(raw) == value
