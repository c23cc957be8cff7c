"""Reading final answers: numbers, money, dates, phones, names and lists, strictly."""

from __future__ import annotations

from datetime import date

import pytest

from officegym.tasks import answer as a


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("You have 3 unread mentions.", [3]),
        ("It is $1,250,000 in total", [1250000]),
        ("about 1.5m", [1500000]),
        ("$3.5k", [3500]),
        ("twelve members", [12]),
        ("None.", [0]),
        ("-4 degrees", [-4]),
        ("posted on 2025-09-12, 7 replies", [7]),
        ("on March 5, 2025 there were 2", [2]),
    ],
)
def test_numbers_in_reads_formats_people_write(text, numbers):
    assert a.numbers_in(text) == [float(n) for n in numbers]


def test_judge_number_requires_every_stated_number_to_match():
    assert a.judge_number("There are 14 members", 14)[0]
    assert a.judge_number("14", 14.0)[0]
    assert not a.judge_number("13 or 14", 14)[0]
    assert not a.judge_number("I don't know", 14)[0]
    assert a.judge_number("$1.2m", 1_200_000)[0]
    assert a.judge_number("roughly 100.4", 100, abs_tol=0.5)[0]


def test_dates_any_format_and_only_the_expected_one():
    want = date(2025, 9, 12)
    for text in ("2025-09-12", "Sept 12, 2025", "12 September 2025", "on September 12th"):
        assert a.judge_date(text, want)[0], text
    assert not a.judge_date("2025-09-12 or 2025-09-13", want)[0]
    assert not a.judge_date("last Friday", want)[0]


def test_phone_numbers_formatting_ignored_exactly_one_allowed():
    assert a.judge_phone("Call (555) 010-2233", "555.010.2233")[0]
    assert a.judge_phone("+1 555 010 2233", "555-010-2233")[0]
    assert not a.judge_phone("555-010-2233 or 555-010-9999", "555-010-2233")[0]
    assert not a.judge_phone("555-010-9999", "555-010-2233")[0]
    assert a.phone_digits("555-010-2233 x12") == "5550102233"


def test_names_whole_words_accents_and_order():
    spellings = a.name_spellings("José Álvarez")
    assert a.judge_text("It was jose alvarez.", spellings)[0]
    assert a.judge_text("Alvarez, Jose", spellings)[0]
    assert not a.judge_text("Joseph Alvarezson", spellings)[0]
    assert a.mentions("ping @dana!", "@dana") and not a.mentions("Danae", "Dana")


def test_lists_in_any_order_but_no_extra_items():
    want = ["Ann Lee", "Bo Chan", "Cy Diaz"]
    assert a.judge_list("Cy Diaz, Ann Lee and Bo Chan", want)[0]
    assert a.judge_list("- Bo Chan\n- Cy Diaz\n- Ann Lee", want)[0]
    assert not a.judge_list("Ann Lee, Bo Chan", want)[0]
    assert not a.judge_list("Ann Lee, Bo Chan, Cy Diaz, Di Ek", want)[0]


def test_normalize_folds_case_accents_and_punctuation():
    assert a.normalize("  Héllo,   WORLD! ") == "hello world"
    assert a.normalize("a.b@x.com") == "a.b@x.com"
