"""Nothing to guess: pages show people's and records' names where a person reads them, never
ids, and every choice on a page has a name of its own."""

from __future__ import annotations

import re

import pytest

from .conftest import API, API_HEADERS, one, rows, token


@pytest.fixture
def admin(as_person, facts):
    return as_person(facts.admin)


def _radio_names(html: str, name: str) -> list[str]:
    """The text of the labels wrapping the radios called `name`."""
    found = re.findall(
        rf'<label class="choice"><input type="radio" name="{name}"[^>]*>(.*?)</label>', html, re.S
    )
    return [" ".join(re.sub(r"<[^>]+>", "", f).split()) for f in found]


def _contact(client, first: str, last: str) -> int:
    created = client.post(
        f"{API}/contacts",
        json={"first_name": first, "last_name": last, "allow_duplicate": True},
        headers=API_HEADERS,
    )
    assert created.status_code == 201, created.get_json()
    return created.get_json()["id"]


def test_the_merge_page_names_each_record_to_keep(admin, facts, store, world):
    original, duplicate = facts.duplicate_contacts
    titles = dict(
        rows(
            store,
            world,
            "SELECT id, first_name || ' ' || last_name FROM crm_contact WHERE id IN (?, ?)",
            (original, duplicate),
        )
    )
    html = admin.get(f"/crm/contacts/merge?ids={original}&ids={duplicate}").get_data(as_text=True)
    names = _radio_names(html, "master_id")
    assert len(names) == 2 and len(set(names)) == 2
    assert names[0].startswith(f"Keep {titles[original]}")
    assert names[1].startswith(f"Keep {titles[duplicate]}")


def test_records_of_one_name_are_told_apart_on_the_merge_page(admin):
    first = _contact(admin, "Sam", "Samename")
    second = _contact(admin, "Sam", "Samename")
    html = admin.get(f"/crm/contacts/merge?ids={first}&ids={second}").get_data(as_text=True)
    names = _radio_names(html, "master_id")
    assert len(set(names)) == 2, names
    assert all(n.startswith("Keep Sam Samename") for n in names)


def test_lead_history_names_the_account_the_lead_became(as_person, facts, store, world):
    owner = as_person(facts.lead_owner)
    response = owner.post(
        f"/crm/leads/{facts.rep_lead}/convert",
        data={
            "account_choice": "new",
            "account_name": "Historic Names Ltd",
            "contact_choice": "new",
            "allow_duplicate": "1",
            "csrf_token": token(owner),
        },
    )
    assert response.status_code == 302
    account = one(
        store, world, "SELECT converted_account_id FROM crm_lead WHERE id=?", (facts.rep_lead,)
    )
    html = owner.get(f"/crm/leads/{facts.rep_lead}").get_data(as_text=True)
    history = html[html.index('id="history"') :]
    converted = re.search(r"<td>Converted</td>.*?</tr>", history, re.S).group(0)
    assert "Historic Names Ltd" in converted
    assert f">{account}<" not in converted


def test_merged_history_names_the_records_merged_in_without_their_ids(admin, facts):
    original, duplicate = facts.duplicate_contacts
    response = admin.post(
        "/crm/contacts/merge",
        data={
            "ids": [str(original), str(duplicate)],
            "master_id": str(original),
            "csrf_token": token(admin),
        },
    )
    assert response.status_code == 302
    html = admin.get(f"/crm/contacts/{original}").get_data(as_text=True)
    merged = re.search(r"<td>Merged</td>.*?</tr>", html, re.S).group(0)
    assert f"#{duplicate}" not in merged


def test_the_import_preview_shows_account_names_not_ids(as_person, facts, store, world):
    rep = as_person(facts.rep)
    account_id, name = rows(
        store, world, "SELECT id, name FROM crm_account WHERE name NOT LIKE '%,%' ORDER BY id"
    )[0]
    text = f"First Name,Last Name,Email,Account\nPia,Preview,pia@preview.example,{name}\n"
    response = rep.post(
        "/crm/import/preview",
        data={"csv_text": text, "csrf_token": token(rep, "/crm/import")},
    )
    html = response.get_data(as_text=True)
    rows_shown = html[html.index("First rows to import") :]
    assert f"<td>{name}</td>" in rows_shown.replace("&amp;", "&").replace("&#39;", "'")
    assert f"<td>{account_id}</td>" not in rows_shown


def test_duplicate_groups_name_the_group_on_each_compare_link(as_person, facts):
    html = as_person(facts.rep).get("/crm/duplicates?object=contacts").get_data(as_text=True)
    links = re.findall(r">Compare and merge(.*?)</a>", html)
    names = [re.sub(r"<[^>]+>", "", link).strip() for link in links]
    assert len(names) > 1 and len(set(names)) == len(names)
    assert all(names)


def test_the_activity_composers_have_save_buttons_of_their_own(as_person, facts):
    html = (
        as_person(facts.rep)
        .get(f"/crm/opportunities/{facts.rep_opportunity}")
        .get_data(as_text=True)
    )
    saves = re.findall(
        r'<button class="button button--primary button--small" type="submit">(Save.*?)</button>',
        html,
    )
    names = [re.sub(r"<[^>]+>", "", s) for s in saves]
    assert names == ["Save call", "Save task", "Save event", "Save email", "Save note"]
