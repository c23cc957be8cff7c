"""What typing into a cell stores, read as Excel reads an en-US entry."""

from __future__ import annotations

import datetime as dt

import pytest

from officegym.apps.sheets.engine.values import CellError, Parsed, from_date, parse_input, to_date


def test_empty_entry_is_empty():
    assert parse_input("") == Parsed("empty", None)


def test_entry_starting_with_equals_is_a_formula_kept_as_typed():
    assert parse_input("=SUM(A1:A3)") == Parsed("formula", "=SUM(A1:A3)")


def test_leading_apostrophe_keeps_digits_as_text():
    assert parse_input("'0042") == Parsed("text", "0042")


@pytest.mark.parametrize(
    ("raw", "number"),
    [
        ("42", 42.0),
        ("-3.5", -3.5),
        ("1,234.5", 1234.5),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("  7 ", 7.0),
    ],
)
def test_plain_numbers_are_numbers_without_a_format(raw, number):
    assert parse_input(raw) == Parsed("number", number)


def test_currency_without_cents_implies_whole_dollar_format():
    assert parse_input("$4,200") == Parsed("number", 4200.0, "$#,##0")


def test_currency_with_cents_implies_two_decimal_format():
    assert parse_input("$4,200.50") == Parsed("number", 4200.5, "$#,##0.00")


def test_negative_currency_is_negative():
    assert parse_input("-$1,200") == Parsed("number", -1200.0, "$#,##0")


def test_percent_divides_by_100_and_implies_percent_format():
    assert parse_input("12%") == Parsed("number", 0.12, "0%")


def test_percent_keeps_its_typed_decimals_in_the_format():
    assert parse_input("12.5%") == Parsed("number", 0.125, "0.0%")


def test_percent_is_exact_in_decimal():
    # 1.1 / 100 in binary floats is 0.011000000000000001; the entry means 0.011.
    assert parse_input("1.1%").value == 0.011


def test_iso_date_is_a_serial_number_with_iso_format():
    # 2025-09-14 is 45,914 days after 1899-12-30.
    assert parse_input("2025-09-14") == Parsed("number", 45914.0, "yyyy-mm-dd")


def test_us_date_is_a_serial_number_with_us_format():
    assert parse_input("9/14/2025") == Parsed("number", 45914.0, "m/d/yyyy")


def test_impossible_date_stays_text():
    assert parse_input("2025-02-30") == Parsed("text", "2025-02-30")


@pytest.mark.parametrize(("raw", "value"), [("TRUE", True), ("false", False), ("True", True)])
def test_true_and_false_in_any_case_are_booleans(raw, value):
    assert parse_input(raw) == Parsed("bool", value)


def test_anything_else_is_text_exactly_as_typed():
    assert parse_input("Acme  Corp ") == Parsed("text", "Acme  Corp ")
    assert parse_input("1,23") == Parsed("text", "1,23")


def test_to_date_and_from_date_count_days_from_1899_12_30():
    assert from_date(dt.date(2025, 9, 14)) == 45914.0
    assert to_date(45914.0) == dt.date(2025, 9, 14)


def test_to_date_drops_the_time_of_day():
    assert to_date(45914.75) == dt.date(2025, 9, 14)


def test_cell_error_compares_by_code_only():
    assert CellError("#REF!", "Circular dependency detected") == CellError("#REF!")
    assert CellError("#REF!") != CellError("#N/A")
    assert str(CellError("#DIV/0!")) == "#DIV/0!"


def test_cell_error_rejects_an_unknown_code():
    with pytest.raises(ValueError, match="unknown error code"):
        CellError("#OOPS")
