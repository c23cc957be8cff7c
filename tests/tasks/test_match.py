"""Column matchers: plain values, and each matcher's yes, no and description."""

from __future__ import annotations

import pytest

from officegym.tasks.match import (
    any_of,
    approx,
    ci,
    contains,
    describe,
    is_null,
    is_set,
    matches,
    one_of_ids,
    squash,
)


def test_plain_strings_ignore_whitespace_runs_and_ends_only():
    assert matches("Ship it on Friday", "  Ship it\n on   Friday ")
    assert not matches("Ship it on Friday", "ship it on friday")
    assert not matches("Ship it on Friday", "Ship it on Friday!")
    assert squash(" a \t b\n") == "a b"


def test_plain_values_booleans_and_null():
    assert matches(True, 1) and matches(False, 0) and not matches(True, 0)
    assert not matches(True, "1")
    assert matches(None, None) and not matches(None, 0) and not matches(0, None)
    assert matches(3, 3) and matches(3, 3.0) and not matches(3, 4)
    assert not matches("3", 3)


def test_contains_needs_every_part_and_is_case_insensitive_by_default():
    m = contains("budget", "Friday")
    assert m.matches("The BUDGET is due friday")
    assert not m.matches("The budget is due Monday")
    assert not m.matches(None) and not m.matches(42)
    assert not contains("Budget", case=True).matches("budget")
    assert contains("two  words").matches("two\nwords here")
    with pytest.raises(ValueError):
        contains()
    assert "budget" in m.describe() and "Friday" in m.describe()


def test_ci_is_whole_value_equality_ignoring_case_and_spacing():
    assert ci("Q3 Forecast").matches("q3  forecast")
    assert not ci("Q3 Forecast").matches("q3 forecast v2")
    assert not ci("x").matches(None)


def test_any_of_accepts_plain_values_and_matchers():
    m = any_of("open", contains("won"))
    assert m.matches("open") and m.matches("Closed Won") and not m.matches("lost")
    with pytest.raises(ValueError):
        any_of()


def test_approx_relative_and_absolute_tolerance():
    assert approx(100, rel=0.01).matches(100.9)
    assert not approx(100, rel=0.01).matches(101.5)
    assert approx(0, abs=0.5).matches(-0.4)
    # Numbers stored as text (a sheet cell) are read as numbers; other text never matches.
    assert approx(10).matches("10.0") and not approx(10).matches("ten")
    assert not approx(10).matches(None)
    assert not approx(1).matches(True)


def test_one_of_ids_is_set_and_is_null():
    assert one_of_ids([3, 5]).matches(5) and not one_of_ids([3, 5]).matches(4)
    assert not one_of_ids([1]).matches(True)
    assert is_set().matches("2025-01-01") and not is_set().matches(None)
    assert is_null().matches(None) and not is_null().matches("")


def test_descriptions_name_the_expected_value():
    assert describe("x") == "'x'"
    assert "3" in describe(one_of_ids([3])) and "5" in describe(approx(5))


def test_states_reads_each_fact_like_an_answer_one_candidate_each():
    from datetime import date

    from officegym.tasks.match import fact, states

    stages = ["Prospecting", "Qualification", "Negotiation", "Closed Won"]
    summary = states(
        fact("Negotiation", "text", distractors=[s for s in stages if s != "Negotiation"]),
        fact(41500, "money"),
        fact(date(2025, 9, 30), "date"),
        today=date(2025, 9, 17),
    )
    assert summary.matches("Acme is in Negotiation, $41,500, closing Sep 30, 2025.")
    assert summary.matches("Negotiation · 41.5k · 09/30/2025")
    assert not summary.matches("Negotiation or Closed Won, $41,500, Sep 30, 2025")
    assert not summary.matches(", ".join(stages) + ", $41,500, $38,000, Sep 30, 2025")
    assert not summary.matches("Negotiation, $41,500, Sep 30 or Oct 1, 2025")
    assert not summary.matches("Negotiation, $41,500, Sep 30, 2025 @Dana Diaz")


def test_free_text_allows_links_and_mentions_only_when_asked():
    from officegym.tasks.match import text_excess

    assert text_excess("see /chat/m/12 please", ["/chat/m/12"]) == ""
    assert "links" in text_excess("see /chat/m/12 and /chat/m/13", ["/chat/m/12"])
    assert text_excess("@Dana Diaz approved", ["@Dana Diaz approved"]) == ""
    assert "mentions" in text_excess("approved @Bo", ["approved"])
    assert text_excess("mail dana@example.com", ["mail"]) == ""


def test_states_lets_a_message_mention_the_person_a_fact_names():
    from officegym.tasks.match import fact, states

    owner = states(fact("Kim Smith", "name", distractors=["Sam Ode"]))
    assert owner.matches("@Kim Smith will take the next step.")
    assert not owner.matches("@Sam Ode and Kim Smith will take it.")


def test_verbatim_is_the_text_itself_bare_or_in_the_request_quotes():
    from officegym.tasks.match import verbatim

    asked = verbatim("Q3 numbers are final")
    for body in ("q3 numbers  are final", '"Q3 numbers are final"', "“Q3 numbers are final”"):
        assert asked.matches(body), body
    for body in ("Q3 numbers are final!!! @Dana", "Q3 numbers", '"Q3 numbers are final'):
        assert not asked.matches(body), body
