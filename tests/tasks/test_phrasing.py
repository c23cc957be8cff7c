"""Generated phrasings: every honest one passes the answer contract, every hedge fails it."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from officegym.tasks.answer import judge
from officegym.tasks.phrasing import hedges, phrasings, spell

TODAY = date(2025, 9, 20)

CASES = [
    *[(n, "number", {"unit": "member"}, None) for n in (0, 1, 2, 8, 12, 14, 21, 99, 105, 1234)],
    *[(n, "number", {"unit": "overdue activity"}, None) for n in (0, 3, 40)],
    *[(n, "number", {}, None) for n in (0, 1, 7, 13, 30, 250, 24000)],
    *[(n, "number", {"unit": "mention"}, str(n + 2)) for n in (3, 9)],
    *[(n, "money", {}, None) for n in (0, 1, 99.5, 1200, 41500, 101000, 1500000, 2 * 10**9)],
    (101000, "money", {}, "100000"),
    *[(TODAY - timedelta(days=k), "date", {"today": TODAY}, None) for k in range(0, 60, 3)],
    (TODAY - timedelta(days=1), "date", {"today": TODAY}, "2025-09-18"),
    *[(d, "date", {}, None) for d in (date(2024, 2, 29), date(2025, 1, 1), date(2025, 12, 31))],
    *[
        (p, "phone", {}, None)
        for p in (
            "555-010-2233",
            "+1 415-555-0123",
            "+44 20 7123 4567",
            "+49 30 12345678",
            "+353 1 123 4567",
            "555-010-2233 x12",
        )
    ],
    ("555-010-2233", "phone", {}, "555-010-3910"),
    *[(e, "email", {}, None) for e in ("ann.lee@acme.com", "Bo.Chan+crm@example.co.uk")],
    ("cy@diaz.io", "email", {}, "cy.diaz@diaz.io"),
    *[
        (n, "name", {}, "Bo Chan")
        for n in ("Ann Lee", "José Álvarez", "Orla Ortiz", "Mary Jane Watson", "Andrea Norris")
    ],
    ("Ann Lee", "name", {}, None),
    *[(t, "text", {}, "Closed Lost") for t in ("Closed Won", "Negotiation", "Q3 Planning")],
    (("Proposal", "Proposal/Price Quote"), "text", {}, "Negotiation"),
    *[
        (items, "list", {}, "Di Ek")
        for items in (
            ["Ann Lee", "Bo Chan", "Cy Diaz"],
            ["Research and Development", "Sales"],
            ["Orla Ortiz"],
            ["#general", "#random", "#q3-2025-planning"],
            ["Dana Kim", "Eli Moss", "Fay Wu", "Gus Park", "Hal Ng"],
        )
    ],
    (["Ann Lee", "Bo Chan"], "list", {}, None),
]


def _id(case):
    expected, kind, kw, distractor = case
    return f"{kind}-{expected}-{kw.get('unit', '')}-{distractor}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_every_phrasing_passes(case):
    expected, kind, kw, distractor = case
    distractors = [distractor] if distractor else []
    said = phrasings(expected, kind, rng=random.Random(3), **kw)
    assert len(said) >= 12 and len(set(said)) == len(said)
    wrong = [(t, judge(t, expected, kind, distractors=distractors, **kw)) for t in said]
    wrong = [(t, r) for t, r in wrong if not r.passed]
    assert not wrong, "\n".join(f"{t!r}: {r}" for t, r in wrong)


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_every_hedge_fails(case):
    expected, kind, kw, distractor = case
    distractors = [distractor] if distractor else []
    said = hedges(expected, kind, distractor=distractor, rng=random.Random(3), **kw)
    assert len(said) >= 8
    wrong = [(t, judge(t, expected, kind, distractors=distractors, **kw)) for t in said]
    wrong = [(t, r) for t, r in wrong if r.passed]
    assert not wrong, "\n".join(f"{t!r}: {r}" for t, r in wrong)


@pytest.mark.parametrize("seed", range(20))
def test_phrasings_hold_for_many_seeds(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 5000)
    for kind, kw in (("number", {"unit": "member"}), ("money", {}), ("number", {})):
        for t in phrasings(n, kind, rng=rng, **kw):
            assert judge(t, n, kind, **kw).passed, t
        for t in hedges(n, kind, rng=rng, **kw):
            assert not judge(t, n, kind, **kw).passed, t
    day = TODAY - timedelta(days=rng.randint(0, 400))
    for t in phrasings(day, "date", today=TODAY, rng=rng):
        assert judge(t, day, "date", today=TODAY).passed, t
    for t in hedges(day, "date", today=TODAY, rng=rng):
        assert not judge(t, day, "date", today=TODAY).passed, t


def test_the_same_seed_gives_the_same_phrasings():
    one = phrasings(14, "number", unit="member", rng=random.Random(5))
    two = phrasings(14, "number", unit="member", rng=random.Random(5))
    assert one == two
    assert hedges(14, "number", rng=random.Random(5)) == hedges(14, "number", rng=random.Random(5))


@pytest.mark.parametrize(
    ("n", "words"),
    [(0, "zero"), (21, "twenty-one"), (105, "one hundred five"), (24000, "twenty-four thousand")],
)
def test_spell_writes_numbers_in_words(n, words):
    assert spell(n) == words


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown answer kind"):
        phrasings(1, "vibes", rng=random.Random(0))


@pytest.mark.parametrize(
    ("expected", "kind", "distractor"),
    [
        (14, "number", "14"),
        (14, "number", "fourteen"),
        (101000, "money", "$101,000"),
        (TODAY, "date", TODAY.isoformat()),
        ("555-010-2233", "phone", "(555) 010-2233"),
        ("ann@acme.com", "email", "ANN@acme.com"),
    ],
)
def test_a_distractor_equal_to_the_answer_still_gives_failing_hedges(expected, kind, distractor):
    for t in hedges(expected, kind, distractor=distractor, today=TODAY, rng=random.Random(1)):
        assert not judge(t, expected, kind, today=TODAY).passed, t
