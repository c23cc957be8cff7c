"""People pickers: the new channel, new message and add-people forms offer people as one types
(chat's own lookup of the people one may pick) instead of listing everyone, and a name typed
without choosing stands for the one person of that name, or is a form error that says why."""

from __future__ import annotations

import re
import sqlite3

import pytest

from .conftest import csrf_token, login, rows

PEOPLE = "/chat/lookup/people"


@pytest.fixture
def member(client, facts):
    """A client signed in as a member of the public channel."""
    login(client, facts.public_member.email)
    return client


def token(client) -> str:
    return csrf_token(client, "/chat/browse")


def members_of(store, world, channel_id: int) -> set[int]:
    sql = "SELECT employee_id FROM chat_membership WHERE channel_id=?"
    return {r[0] for r in rows(store, world, sql, (channel_id,))}


def rename(store, world, employee_id: int, name: str) -> None:
    """Give an employee another display name, straight in the world file (test setup)."""
    conn = sqlite3.connect(store.world_path(world))
    with conn:
        conn.execute("UPDATE people_employee SET display_name=? WHERE id=?", (name, employee_id))
    conn.close()


# -- the forms ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/chat/new", "/chat/dm/new"])
def test_forms_that_pick_people_list_no_one_until_asked(member, facts, path):
    html = member.get(path).get_data(as_text=True)
    assert 'role="combobox"' in html and f'data-source="{PEOPLE}"' in html
    assert facts.public_non_member.name not in html
    assert 'type="checkbox" name="employee_ids"' not in html


def test_the_add_people_picker_leaves_out_the_channels_members(member, facts):
    html = member.get(f"/chat/c/{facts.public_id}/details").get_data(as_text=True)
    assert f'data-source="{PEOPLE}?channel={facts.public_id}"' in html
    assert 'type="checkbox" name="employee_ids"' not in html


# -- the lookup ------------------------------------------------------------------------------


def test_the_lookup_offers_people_by_part_of_their_name_with_their_title(
    member, facts, store, world
):
    person = facts.public_non_member
    (title,) = rows(store, world, "SELECT title FROM people_employee WHERE id=?", (person.id,))[0]
    found = member.get(PEOPLE, query_string={"q": person.name.split()[-1].lower()}).get_json()
    assert {"id": person.id, "label": person.name, "detail": title} in found


def test_the_lookup_never_offers_the_reader_or_people_who_left(member, facts):
    for person in (facts.public_member, facts.inactive):
        found = member.get(PEOPLE, query_string={"q": person.name}).get_json()
        assert person.id not in {p["id"] for p in found}


def test_the_lookup_for_a_channel_leaves_out_its_members(member, facts, store, world):
    other, name = rows(
        store,
        world,
        "SELECT e.id, e.display_name FROM chat_membership m JOIN people_employee e "
        "ON e.id = m.employee_id WHERE m.channel_id=? AND e.is_active AND e.id != ? "
        "ORDER BY e.id",
        (facts.public_id, facts.public_member.id),
    )[0]
    offered = member.get(PEOPLE, query_string={"q": name}).get_json()
    assert other in {p["id"] for p in offered}
    inviting = member.get(PEOPLE, query_string={"q": name, "channel": facts.public_id}).get_json()
    assert other not in {p["id"] for p in inviting}


def test_the_lookup_of_a_channel_one_cannot_see_is_not_found(client, facts):
    login(client, facts.private_non_member.email)
    response = client.get(PEOPLE, query_string={"q": "a", "channel": facts.private_id})
    assert response.status_code == 404


def test_an_empty_lookup_offers_no_one(member):
    assert member.get(PEOPLE, query_string={"q": "  "}).get_json() == []


# -- typed names ------------------------------------------------------------------------------


def test_a_name_typed_without_choosing_adds_that_person(member, facts, store, world):
    response = member.post(
        f"/chat/c/{facts.public_id}/invite",
        data={
            "employee_ids_text": facts.public_non_member.name.upper(),
            "csrf_token": token(member),
        },
    )
    assert response.status_code == 302
    assert facts.public_non_member.id in members_of(store, world, facts.public_id)


def test_a_name_typed_as_the_list_shows_it_resolves(member, facts, store, world):
    title = rows(
        store, world, "SELECT title FROM people_employee WHERE id=?", (facts.public_non_member.id,)
    )[0][0]
    response = member.post(
        "/chat/new",
        data={
            "name": "typed-picks",
            "employee_ids_text": f"{facts.public_non_member.name} — {title}",
            "csrf_token": token(member),
        },
    )
    assert response.status_code == 302
    (cid,) = rows(store, world, "SELECT id FROM chat_channel WHERE name='typed-picks'")[0]
    assert members_of(store, world, cid) == {facts.public_member.id, facts.public_non_member.id}


def test_chosen_people_and_a_typed_name_are_all_added(member, facts, store, world):
    response = member.post(
        "/chat/new",
        data={
            "name": "chosen-and-typed",
            "employee_ids": [str(facts.dm_a.id)],
            "employee_ids_text": facts.dm_b.email,
            "csrf_token": token(member),
        },
    )
    assert response.status_code == 302
    (cid,) = rows(store, world, "SELECT id FROM chat_channel WHERE name='chosen-and-typed'")[0]
    assert {facts.dm_a.id, facts.dm_b.id} <= members_of(store, world, cid)


def test_a_new_message_to_a_typed_name_opens_the_conversation(member, facts, store, world):
    response = member.post(
        "/chat/dm/new",
        data={"employee_ids_text": facts.public_non_member.name, "csrf_token": token(member)},
    )
    assert response.status_code == 302
    cid = int(re.search(r"/chat/c/(\d+)", response.location).group(1))
    assert members_of(store, world, cid) == {facts.public_member.id, facts.public_non_member.id}


@pytest.mark.parametrize("typed", ["Nobody Atall", "no.one@example.invalid"])
def test_a_typed_name_of_no_one_is_a_form_error(member, facts, store, world, typed):
    before = members_of(store, world, facts.public_id)
    response = member.post(
        f"/chat/c/{facts.public_id}/invite",
        data={"employee_ids_text": typed, "csrf_token": token(member)},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert f"No one you can add is called “{typed}”" in html
    assert members_of(store, world, facts.public_id) == before


def test_a_typed_name_of_someone_who_left_is_refused(member, facts, store, world):
    count = len(rows(store, world, "SELECT id FROM chat_channel"))
    response = member.post(
        "/chat/dm/new", data={"employee_ids_text": facts.inactive.name, "csrf_token": token(member)}
    )
    assert response.status_code == 422
    assert "No one you can add is called" in response.get_data(as_text=True)
    assert len(rows(store, world, "SELECT id FROM chat_channel")) == count


def test_a_typed_name_several_people_share_asks_to_choose(member, facts, store, world):
    rename(store, world, facts.dm_b.id, facts.dm_a.name)
    response = member.post(
        "/chat/new",
        data={"name": "twins", "employee_ids_text": facts.dm_a.name, "csrf_token": token(member)},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert f"2 people are called “{facts.dm_a.name}”" in html
    assert rows(store, world, "SELECT count(*) FROM chat_channel WHERE name='twins'")[0][0] == 0


def test_a_form_shown_again_keeps_the_people_chosen_by_name(member, facts):
    response = member.post(
        "/chat/new",
        data={
            "name": "Bad Name",
            "employee_ids": [str(facts.dm_a.id), "999999"],
            "csrf_token": token(member),
        },
    )
    html = response.get_data(as_text=True)
    assert response.status_code in (400, 422)
    assert f'aria-label="Remove {facts.dm_a.name}"' in html
    assert 'value="999999"' not in html and ">999999<" not in html


# -- in the browser ---------------------------------------------------------------------------


@pytest.mark.browser
def test_type_ahead_picks_people_for_a_group_message(
    sign_in, live_server, ui_facts, store, ui_world
):
    page = sign_in(ui_facts.public_member.email)
    page.goto(f"{live_server.url}/chat/dm/new")
    box = page.get_by_role("combobox", name="To")
    for person in (ui_facts.dm_a, ui_facts.dm_b):
        box.fill(person.name.split()[0])
        page.get_by_role("option", name=re.compile(rf"^{re.escape(person.name)} — ")).click()
        page.get_by_role("button", name=f"Remove {person.name}").wait_for()
    page.get_by_role("button", name="Open conversation").click()
    page.wait_for_url(re.compile(r"/chat/c/\d+$"))
    cid = int(page.url.rsplit("/", 1)[1])
    expected = {ui_facts.public_member.id, ui_facts.dm_a.id, ui_facts.dm_b.id}
    assert members_of(store, ui_world, cid) == expected
