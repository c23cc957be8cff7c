"""Type-ahead lookups: the JSON the lookup boxes ask for, and what a form means when only a
name was typed (no JavaScript, or an agent that types and submits)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import one, rows, token

JSON = {"Accept": "application/json"}


@pytest.fixture
def rep(as_person, facts):
    return as_person(facts.rep)


@pytest.fixture
def namesake(store, world, facts):
    """Another active employee given the rep's name (arranged in the world file: no page
    edits the company directory). Returns their id."""
    conn = sqlite3.connect(store.world_path(world))
    try:
        (other,) = conn.execute(
            "SELECT id FROM people_employee WHERE is_active AND id NOT IN (?, ?, ?) ORDER BY id",
            (facts.rep.id, facts.manager.id, facts.admin.id),
        ).fetchone()
        conn.execute(
            "UPDATE people_employee SET display_name = ? WHERE id = ?", (facts.rep.name, other)
        )
        conn.commit()
    finally:
        conn.close()
    return other


def _owner(store, world, table, record_id):
    return one(store, world, f"SELECT owner_id FROM {table} WHERE id = ?", (record_id,))


# -- the JSON the boxes ask for -------------------------------------------------------------


def test_owner_lookup_lists_active_people_whose_name_holds_the_typed_words(rep, facts):
    first, last = facts.rep.name.split(" ", 1)
    found = rep.get(f"/crm/lookup/owners?q={first[:3]} {last[:3]}", headers=JSON).get_json()
    assert found[0] == {"id": facts.rep.id, "label": facts.rep.name, "detail": found[0]["detail"]}
    assert found[0]["detail"]  # the title, to tell people of one name apart
    assert len(found) <= 8
    assert all(first[:3].lower() in c["label"].lower() for c in found)


def test_owner_lookup_leaves_out_people_who_left_but_list_filters_offer_them(rep, facts):
    name = facts.inactive.name
    assigning = rep.get(f"/crm/lookup/owners?q={name}", headers=JSON).get_json()
    filtering = rep.get(f"/crm/lookup/owners?q={name}&filter=1", headers=JSON).get_json()
    assert facts.inactive.id not in [c["id"] for c in assigning]
    left = next(c for c in filtering if c["id"] == facts.inactive.id)
    assert left["detail"].endswith("has left")


def test_owner_lookup_for_list_filters_offers_me_and_my_team_first(rep, facts):
    found = rep.get("/crm/lookup/owners?q=&filter=1", headers=JSON).get_json()
    assert [c["id"] for c in found[:2]] == ["me", "team"]
    assert found[0] == {"id": "me", "label": "Me", "detail": facts.rep.name}


def test_account_lookup_matches_any_word_of_the_name_and_names_the_city(rep, store, world):
    account_id, name, city = rows(
        store,
        world,
        "SELECT id, name, billing_city FROM crm_account WHERE billing_city IS NOT NULL "
        "ORDER BY id LIMIT 1",
    )[0]
    word = name.split()[-1]
    found = rep.get(f"/crm/lookup/accounts?q={word}", headers=JSON).get_json()
    assert {"id": account_id, "label": name, "detail": city} in found
    assert all(word.lower() in c["label"].lower() for c in found)


def test_contact_lookup_puts_the_contacts_of_the_given_account_first(rep, store, world):
    account_id, last_name = rows(
        store,
        world,
        "SELECT account_id, last_name FROM crm_contact WHERE account_id IS NOT NULL "
        "ORDER BY id LIMIT 1",
    )[0]
    found = rep.get(
        f"/crm/lookup/contacts?q={last_name[:2]}&account={account_id}", headers=JSON
    ).get_json()
    theirs = {
        r[0]
        for r in rows(store, world, "SELECT id FROM crm_contact WHERE account_id=?", (account_id,))
    }
    assert found[0]["id"] in theirs


def test_lookups_answer_only_people_signed_in(client):
    for source in ("owners", "accounts", "contacts"):
        assert client.get(f"/crm/lookup/{source}?q=a", headers=JSON).status_code == 401


def test_a_lookup_of_nothing_that_matches_is_an_empty_list(rep):
    assert rep.get("/crm/lookup/accounts?q=zzqqxx%25_", headers=JSON).get_json() == []


def test_people_of_one_name_and_title_are_told_apart_by_email(rep, facts, store, world, namesake):
    conn = sqlite3.connect(store.world_path(world))
    conn.execute(
        "UPDATE people_employee SET title = (SELECT title FROM people_employee WHERE id = ?) "
        "WHERE id = ?",
        (facts.rep.id, namesake),
    )
    conn.commit()
    conn.close()
    found = rep.get(f"/crm/lookup/owners?q={facts.rep.name}", headers=JSON).get_json()
    details = [c["detail"] for c in found if c["label"] == facts.rep.name]
    assert len(details) == 2 and len(set(details)) == 2
    assert facts.rep.email in details[0] + details[1]


# -- names typed without choosing -----------------------------------------------------------


def test_a_typed_owner_name_without_a_choice_saves_that_person(rep, facts, store, world):
    response = rep.post(
        f"/crm/accounts/{facts.rep_account}/field",
        data={
            "field": "owner_id",
            "value": "",
            "value_text": facts.manager.name.upper(),
            "csrf_token": token(rep),
        },
    )
    assert response.status_code == 302
    assert _owner(store, world, "crm_account", facts.rep_account) == facts.manager.id


def test_a_typed_owner_name_nobody_has_is_a_form_error(rep, facts, store, world):
    response = rep.post(
        f"/crm/accounts/{facts.rep_account}/field",
        data={
            "field": "owner_id",
            "value": "",
            "value_text": "Nobody Atall",
            "csrf_token": token(rep),
        },
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "No owner named “Nobody Atall”: pick someone from the list." in html
    assert 'value="Nobody Atall"' in html  # the box keeps what was typed
    assert _owner(store, world, "crm_account", facts.rep_account) == facts.rep.id


def test_a_typed_name_several_people_share_asks_to_pick_one(rep, facts, store, world, namesake):
    response = rep.post(
        f"/crm/accounts/{facts.rep_account}/edit",
        data={
            "name": "Renamed while reassigning",
            "account_type": "Customer",
            "owner_id": "",
            "owner_id_text": facts.rep.name,
            "csrf_token": token(rep),
        },
    )
    assert response.status_code == 422
    assert f"Several people are named “{facts.rep.name}”: pick one from the list." in (
        response.get_data(as_text=True)
    )
    name = one(store, world, "SELECT name FROM crm_account WHERE id=?", (facts.rep_account,))
    assert name != "Renamed while reassigning"


def test_the_chosen_person_wins_over_a_namesake_while_the_box_shows_their_name(
    rep, facts, store, world, namesake
):
    response = rep.post(
        f"/crm/accounts/{facts.rep_account}/field",
        data={
            "field": "owner_id",
            "value": str(namesake),
            "value_text": facts.rep.name,
            "csrf_token": token(rep),
        },
    )
    assert response.status_code == 302
    assert _owner(store, world, "crm_account", facts.rep_account) == namesake


def test_a_name_typed_over_a_stale_choice_is_the_one_used(rep, facts, store, world):
    response = rep.post(
        f"/crm/accounts/{facts.rep_account}/field",
        data={
            "field": "owner_id",
            "value": str(facts.rep.id),
            "value_text": facts.manager.name,
            "csrf_token": token(rep),
        },
    )
    assert response.status_code == 302
    assert _owner(store, world, "crm_account", facts.rep_account) == facts.manager.id


def test_a_typed_account_name_links_a_new_contact(rep, store, world):
    account_id, name = rows(store, world, "SELECT id, name FROM crm_account ORDER BY id LIMIT 1")[0]
    response = rep.post(
        "/crm/contacts/new",
        data={
            "first_name": "Tess",
            "last_name": "Typed",
            "account_id": "",
            "account_id_text": name.lower(),
            "csrf_token": token(rep),
        },
    )
    assert response.status_code == 302
    assert one(store, world, "SELECT account_id FROM crm_contact WHERE last_name='Typed'") == (
        account_id
    )


def test_a_typed_account_name_no_account_has_is_a_form_error(rep, store, world):
    response = rep.post(
        "/crm/contacts/new",
        data={
            "first_name": "Tess",
            "last_name": "Typed",
            "account_id": "",
            "account_id_text": "Imaginary Holdings",
            "csrf_token": token(rep),
        },
    )
    assert response.status_code == 422
    assert "No account named “Imaginary Holdings”" in response.get_data(as_text=True)
    assert rows(store, world, "SELECT id FROM crm_contact WHERE last_name='Typed'") == []


def test_the_bulk_owner_can_be_typed(as_person, facts, store, world):
    manager = as_person(facts.manager)
    deals = facts.rep_opportunities[:2]
    response = manager.post(
        "/crm/opportunities/bulk",
        data={
            "ids": [str(i) for i in deals],
            "field": "owner_id",
            "value_owner_id": "",
            "value_owner_id_text": facts.manager.name,
            "confirm": "yes",
            "csrf_token": token(manager),
        },
    )
    assert response.status_code == 302
    owners = rows(
        store,
        world,
        f"SELECT DISTINCT owner_id FROM crm_opportunity WHERE id IN ({','.join('?' * len(deals))})",
        tuple(deals),
    )
    assert owners == [(facts.manager.id,)]


def test_the_convert_owner_can_be_typed(as_person, facts, store, world):
    owner = as_person(facts.lead_owner)
    response = owner.post(
        f"/crm/leads/{facts.rep_lead}/convert",
        data={
            "account_choice": "new",
            "account_name": "Typed Owner Industries",
            "contact_choice": "new",
            "owner_id": "",
            "owner_id_text": "Someone Unknown",
            "allow_duplicate": "1",
            "csrf_token": token(owner),
        },
    )
    assert response.status_code == 422
    assert "No owner named “Someone Unknown”" in response.get_data(as_text=True)
    assert one(store, world, "SELECT status FROM crm_lead WHERE id=?", (facts.rep_lead,)) != (
        "Converted"
    )


def test_a_list_filtered_by_a_typed_owner_name_lists_their_records(rep, facts):
    html = rep.get(f"/crm/opportunities?owner=&owner_text={facts.rep.name}&per_page=200").get_data(
        as_text=True
    )
    assert f'name="owner" value="{facts.rep.id}"' in html
    assert f'/crm/opportunities/{facts.other_opportunity}"' not in html
    assert f'/crm/opportunities/{facts.rep_opportunity}"' in html


def test_a_list_filtered_by_an_unknown_owner_name_says_so(rep):
    response = rep.get("/crm/opportunities?owner=&owner_text=Nobody+Atall")
    assert response.status_code == 422
    assert "No owner named “Nobody Atall”: pick someone from the list." in (
        response.get_data(as_text=True)
    )


def test_the_pipeline_filtered_by_a_name_several_people_share_asks_to_pick_one(
    rep, facts, namesake
):
    response = rep.get(f"/crm/pipeline?owner=&owner_text={facts.rep.name}")
    assert response.status_code == 422
    assert f"Several people are named “{facts.rep.name}”: pick one from the list." in (
        response.get_data(as_text=True)
    )
