"""The type-ahead helpers every app's pickers share: query words, literal LIKE patterns, and the
directory match with its order (exact name, then name prefix, then by name)."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.web.typeahead import escape_like, matching_people, query_words
from officegym.seed_data.connect import make_engine
from officegym.seed_data.schema import Employee

from .conftest import WORLD_A


def test_a_query_is_squashed_and_cut_to_its_first_six_words():
    assert query_words("  Dana \t  Diaz ") == ["Dana", "Diaz"]
    assert query_words(None) == [] and query_words("   ") == []
    assert query_words("a b c d e f g h") == ["a", "b", "c", "d", "e", "f"]
    assert query_words("x" * 500) == ["x" * 100]


def test_like_wildcards_are_taken_literally():
    assert escape_like(r"50%_off\now") == r"50\%\_off\\now"


@pytest.fixture
def db(web_store):
    engine = make_engine(web_store.world_path(WORLD_A), create=False)
    with Session(engine) as session:
        yield session
    engine.dispose()


def test_people_match_every_word_in_name_or_email_exact_names_first(db):
    everyone = select(Employee)
    someone = db.scalars(everyone.order_by(Employee.id)).first()
    first, last = someone.display_name.split(" ", 1)
    found = matching_people(db, everyone, f"{last} {first.lower()}", 10)
    assert someone in found
    assert all(
        all(w.lower() in f"{e.display_name} {e.email}".lower() for w in (first, last))
        for e in found
    )
    assert matching_people(db, everyone, someone.display_name.upper(), 10)[0] == someone
    by_email = matching_people(db, everyone, someone.email.split("@")[0], 10)
    assert someone in by_email
    assert matching_people(db, everyone, "%", 10) == []
    assert len(matching_people(db, everyone, "a", 3)) == 3
    assert matching_people(db, everyone.where(Employee.id != someone.id), someone.email, 10) == []
