"""What a cell shows for a value under each number format, as Excel shows it."""

from __future__ import annotations

import pytest

from officegym.apps.sheets.engine.numfmt import FORMATS, display, text
from officegym.apps.sheets.engine.values import CellError


def test_general_shows_integers_without_a_decimal_point():
    assert display(42.0, None) == "42"
    assert display(-1234.0, None) == "-1234"


def test_general_shows_about_ten_significant_digits():
    # 1/3 fills the 11-character cell: "0." and nine 3s; 100/3 keeps eight decimals.
    assert display(1 / 3, None) == "0.333333333"
    assert display(100 / 3, None) == "33.33333333"


def test_general_hides_binary_noise():
    assert display(0.1 + 0.2, None) == "0.3"


def test_general_switches_to_scientific_for_twelve_digit_numbers():
    assert display(123456789012.0, None) == "1.23457E+11"


def test_general_is_the_word_general_too():
    assert display(1234.5, "General") == "1234.5"


@pytest.mark.parametrize(
    ("value", "code", "shown"),
    [
        (2.5, "0", "3"),  # half away from zero, not Python's half-to-even "2"
        (3.5, "0", "4"),
        (-2.5, "0", "-3"),
        (2.675, "0.00", "2.68"),  # 2.675 is 2.67499999... in binary; Excel shows 2.68
        (1234.5, "0.00", "1234.50"),
        (1234567.891, "#,##0", "1,234,568"),
        (1234567.891, "#,##0.00", "1,234,567.89"),
        (999.5, "#,##0", "1,000"),
    ],
)
def test_number_formats_round_half_away_from_zero(value, code, shown):
    assert display(value, code) == shown


def test_currency_formats_put_the_sign_before_the_dollar():
    assert display(1200.0, "$#,##0") == "$1,200"
    assert display(-1200.0, "$#,##0") == "-$1,200"
    assert display(1200.5, "$#,##0.00") == "$1,200.50"


@pytest.mark.parametrize(
    ("value", "code", "shown"),
    [(0.125, "0%", "13%"), (0.125, "0.0%", "12.5%"), (0.12345, "0.00%", "12.35%")],
)
def test_percent_formats_multiply_by_100(value, code, shown):
    assert display(value, code) == shown


@pytest.mark.parametrize(
    ("code", "shown"),
    [("yyyy-mm-dd", "2025-09-14"), ("m/d/yyyy", "9/14/2025"), ("mmm d, yyyy", "Sep 14, 2025")],
)
def test_date_formats_show_the_serial_as_a_calendar_day(code, shown):
    assert display(45914.0, code) == shown  # serial 45914 is 2025-09-14


def test_a_value_rounded_to_zero_loses_its_minus_sign():
    assert display(-0.4, "0") == "0"


def test_booleans_show_in_capitals_whatever_the_format():
    assert display(True, None) == "TRUE"
    assert display(False, "0.00") == "FALSE"


def test_errors_show_their_code():
    assert display(CellError("#DIV/0!"), "0.00") == "#DIV/0!"


def test_text_shows_as_typed_under_a_number_format():
    assert display("Acme", "$#,##0") == "Acme"


def test_empty_shows_nothing():
    assert display(None, "0.00") == ""


def test_unknown_format_codes_fall_back_to_general():
    assert display(42.5, "[>100]0") == "42.5"


def test_sections_choose_by_sign():
    assert display(-5.0, '0;(0);"zero"') == "(5)"
    assert display(0.0, '0;(0);"zero"') == "zero"


def test_literals_between_digit_placeholders_fill_from_the_right():
    assert text(5551234567.0, "(000) 000-0000") == "(555) 123-4567"


def test_time_codes_read_minutes_after_hours():
    # 0.75 of a day is 18:00.
    assert text(45914.75, "h:mm AM/PM") == "6:00 PM"


def test_formats_menu_lists_its_choices_in_order():
    assert list(FORMATS) == [
        "Automatic",
        "Number (2 decimals)",
        "Number (no decimals)",
        "Currency",
        "Currency (no decimals)",
        "Percent",
        "Percent (1 decimal)",
        "Date",
        "Date (m/d/yyyy)",
        "Date (mmm d, yyyy)",
    ]
    assert FORMATS["Automatic"] is None
    assert FORMATS["Currency"] == "$#,##0.00"
    assert FORMATS["Date (mmm d, yyyy)"] == "mmm d, yyyy"
