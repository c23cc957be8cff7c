"""Duplicate detection finds the duplicates the world planted, and says why."""

from __future__ import annotations

import sqlite3

import pytest

from officegym.apps.crm import duplicates, service
from officegym.seed_data.schema import Contact

from .conftest import employee


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Acme Corp", "ACME Corporation"),
        ("Horizon Advisors Ltd", "HORIZON Advisors Limited"),
        ("Summit Health", "The Summit Health"),
        ("Hall and Sons", "Hall & Sons LLC"),
        ("Vertex Co.", "Vertex Company"),
    ],
)
def test_same_company_written_differently(a, b):
    assert duplicates.company_key(a) == duplicates.company_key(b)


def test_different_companies_stay_apart():
    assert duplicates.company_key("Summit Health") != duplicates.company_key("Summit Energy")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("jon smith", "john smith"),
        ("shannon sanchez", "shannon snachez"),
        ("angelica lee", "angelica le"),
    ],
)
def test_names_that_are_nearly_the_same(a, b):
    assert duplicates.names_alike(a, b)


def test_different_names_are_not_alike():
    assert not duplicates.names_alike("ada lovelace", "grace hopper")


def _planted(store, kind: str) -> list[tuple[int, int]]:
    conn = sqlite3.connect(f"file:{store.golden(0, 'tiny')}?mode=ro", uri=True)
    try:
        return conn.execute(
            "SELECT other_id, row_id FROM world_oddity WHERE kind = ? ORDER BY id", (kind,)
        ).fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("key", "kind"), [("contacts", "duplicate_contact"), ("accounts", "duplicate_account")]
)
def test_every_planted_duplicate_is_in_a_group(db, store, key, kind):
    groups = [set(g.ids) for g in duplicates.duplicate_groups(db, key)]
    for original, duplicate in _planted(store, kind):
        assert any({original, duplicate} <= ids for ids in groups), (original, duplicate)


def test_groups_list_the_oldest_record_first(db):
    for group in duplicates.duplicate_groups(db, "contacts"):
        created = [r.created_at for r in group.records]
        assert created == sorted(created)
        assert group.reason


def test_contact_matches_for_a_new_contact(db, facts):
    original = db.get(Contact, facts.duplicate_contacts[0])
    found = duplicates.contact_matches(
        db, original.first_name, original.last_name[:-1], None, original.account_id
    )
    assert original.id in [c.id for c in found]
    assert found[0].reason.startswith(("Similar name", "Same name"))


def test_leads_group_on_email(db, facts):
    rep = employee(db, facts.rep)
    ids = [
        service.create(
            db,
            rep,
            "leads",
            {
                "first_name": first,
                "last_name": "Twin",
                "company": "Twin Co",
                "email": "t@twin.example",
            },
            allow_duplicate=True,
        )
        for first in ("Tom", "Tim")
    ]
    groups = [set(g.ids) for g in duplicates.duplicate_groups(db, "leads")]
    assert set(ids) in groups
