"""Chat's pages over HTTP: every route's status, permissions, CSRF, and form re-renders.

Writes are asserted on the world file (`rows`); a refused write leaves the table unchanged.
"""

from __future__ import annotations

import re

import pytest

from .conftest import csrf_token, login, rows

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
def member(client, facts):
    """A client signed in as a member of the public channel."""
    login(client, facts.public_member.email)
    return client


def token(client, path: str = "/chat/browse") -> str:
    return csrf_token(client, path)


def count(store, world, table: str) -> int:
    return rows(store, world, f"SELECT count(*) FROM {table}")[0][0]


def latest_message(store, world):
    return rows(
        store, world, "SELECT id, channel_id, author_id, body FROM chat_message ORDER BY id DESC"
    )[0]


# -- sign-in and reading -------------------------------------------------------------------


def test_chat_pages_send_visitors_to_sign_in(client):
    response = client.get("/chat/")
    assert response.status_code == 302
    assert "/login" in response.location


def test_index_opens_general(member, facts):
    response = member.get("/chat/")
    assert response.status_code == 302
    assert response.location.endswith(f"/chat/c/{facts.general_id}")


@pytest.mark.parametrize(
    "path",
    [
        "/chat/browse",
        "/chat/browse?q=a&archived=1",
        "/chat/new",
        "/chat/dm/new",
        "/chat/dm/new?q=a",
        "/chat/search",
        "/chat/search?q=the",
        "/chat/search?q=from:@nobody-at-all",
        "/chat/people",
        "/chat/people?q=a",
        "/chat/activity",
        "/chat/saved",
        "/chat/status",
    ],
)
def test_list_pages_render(member, path):
    response = member.get(path)
    assert response.status_code == 200
    assert b'<nav class="chat-sidebar"' in response.data


def test_channel_page_shows_header_history_and_composer(member, facts):
    response = member.get(f"/chat/c/{facts.public_id}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert f"#{facts.public_name}" in html or facts.public_name in html
    assert 'name="body"' in html
    assert 'aria-live="polite"' in html
    assert 'class="day"' in html


READ_TARGET = re.compile(r'data-read-url="([^"]+)" data-read-upto="(\d+)"')


def read_marker(store, world, facts) -> int | None:
    return rows(
        store,
        world,
        "SELECT last_read_message_id FROM chat_membership WHERE channel_id=? AND employee_id=?",
        (facts.public_id, facts.public_member.id),
    )[0][0]


def test_channel_page_changes_nothing_and_names_its_newest_message_to_mark_read(
    member, store, world, facts
):
    before = read_marker(store, world, facts)
    html = member.get(f"/chat/c/{facts.public_id}").get_data(as_text=True)
    assert read_marker(store, world, facts) == before
    url, upto = READ_TARGET.search(html).groups()
    shown = [int(m) for m in re.findall(r'id="m-(\d+)"', html)]
    assert int(upto) == max(shown) and int(upto) != before
    response = member.post(
        url, json={"message_id": int(upto)}, headers={"X-Requested-With": "officegym"}
    )
    assert response.status_code == 204
    assert read_marker(store, world, facts) == int(upto)


def active_link(html: str) -> str:
    return re.search(r'<a class="side-link is-active[^"]*"', html).group(0)


def test_the_open_channel_counts_as_read_in_the_sidebar_but_an_older_page_does_not_read_it(
    member, facts
):
    newest = member.get(f"/chat/c/{facts.public_id}").get_data(as_text=True)
    assert "is-unread" not in active_link(newest)
    upto = READ_TARGET.search(newest).group(2)
    older = member.get(f"/chat/c/{facts.public_id}?before={upto}").get_data(as_text=True)
    assert READ_TARGET.search(older) is None
    assert "is-unread" in active_link(older)


def test_channels_alias_redirects_to_the_channel(member, facts):
    response = member.get(f"/chat/channels/{facts.public_id}")
    assert response.status_code == 302
    assert response.location.endswith(f"/chat/c/{facts.public_id}")


def test_older_messages_page_links_back_to_recent(member, facts, store, world):
    newest = rows(
        store,
        world,
        "SELECT max(id) FROM chat_message WHERE channel_id=? AND thread_parent_id IS NULL",
        (facts.general_id,),
    )[0][0]
    response = member.get(f"/chat/c/{facts.general_id}?before={newest}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert f'id="m-{newest}"' not in html
    assert "Jump to recent messages" in html


def test_mark_read_form_moves_the_read_marker(member, facts, store, world):
    response = member.post(f"/chat/c/{facts.public_id}/read", data={"csrf_token": token(member)})
    assert response.status_code == 302
    (read,) = rows(
        store,
        world,
        "SELECT last_read_message_id FROM chat_membership WHERE channel_id=? AND employee_id=?",
        (facts.public_id, facts.public_member.id),
    )[0]
    assert read is not None


@pytest.mark.parametrize(
    "path",
    [
        "/chat/c/{private_id}",
        "/chat/c/{private_id}/details",
        "/chat/c/{private_id}/pins",
        "/chat/c/{dm_id}",
        "/chat/m/{private_message_id}",
        "/chat/t/{private_message_id}",
        "/chat/m/{dm_message_id}",
        "/chat/m/{private_message_id}/react",
        "/chat/c/999999",
        "/chat/m/999999",
        "/chat/people/999999",
    ],
)
def test_private_and_missing_things_are_not_found(client, facts, path):
    login(client, facts.private_non_member.email)
    if facts.private_non_member.id in (facts.dm_a.id, facts.dm_b.id):
        pytest.skip("the picked outsider happens to be in the DM")
    response = client.get(path.format(**facts.__dict__))
    assert response.status_code == 404
    assert facts.private_name not in response.get_data(as_text=True)


def test_private_channel_is_missing_from_non_member_sidebar_and_browse(client, facts):
    login(client, facts.private_non_member.email)
    html = client.get("/chat/browse").get_data(as_text=True)
    assert facts.private_name not in html


def test_member_sees_private_channel(client, facts):
    login(client, facts.private_member.email)
    response = client.get(f"/chat/c/{facts.private_id}")
    assert response.status_code == 200


def test_details_lists_members_and_invite_form(member, facts):
    response = member.get(f"/chat/c/{facts.public_id}/details")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert facts.public_member.name in html
    assert 'name="employee_ids"' in html


def test_permalink_lands_on_the_highlighted_message(member, facts):
    response = member.get(f"/chat/m/{facts.public_message_id}")
    assert response.status_code == 302
    assert f"m={facts.public_message_id}" in response.location
    page = member.get(response.location).get_data(as_text=True)
    assert re.search(rf'class="msg[^"]*is-highlighted[^"]*" id="m-{facts.public_message_id}"', page)


def test_permalink_of_a_thread_reply_opens_the_thread(member, store, world, facts):
    reply = rows(
        store,
        world,
        "SELECT id, thread_parent_id FROM chat_message WHERE thread_parent_id IS NOT NULL "
        "AND also_in_channel = 0 AND channel_id = ?",
        (facts.general_id,),
    )
    if not reply:
        pytest.skip("no thread reply in #general")
    reply_id, parent_id = reply[0]
    response = member.get(f"/chat/m/{reply_id}")
    assert response.status_code == 302
    assert f"/chat/t/{parent_id}" in response.location
    page = member.get(response.location)
    assert page.status_code == 200
    assert f'id="m-{reply_id}"' in page.get_data(as_text=True)


def test_profile_shows_facts_and_message_button(member, facts):
    response = member.get(f"/chat/people/{facts.public_non_member.id}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert facts.public_non_member.email in html
    assert "local time" in html
    assert f"/chat/people/{facts.public_non_member.id}/message" in html


def test_download_sends_the_file_as_an_attachment(client, facts, store, world):
    login(client, facts.public_member.email)
    name, ctype, data = rows(
        store,
        world,
        "SELECT filename, content_type, data FROM chat_attachment WHERE id=?",
        (facts.attachment_id,),
    )[0]
    response = client.get(f"/chat/files/{facts.attachment_id}/{name}")
    assert response.status_code == 200
    assert response.data == data
    assert response.mimetype == ctype
    assert response.headers["Content-Disposition"].startswith("attachment")
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_download_of_a_private_file_is_not_found(client, facts):
    login(client, facts.private_non_member.email)
    assert client.get("/chat/files/999999/x.txt").status_code == 404


# -- posting -------------------------------------------------------------------------------


def test_post_message_redirects_to_it(member, facts, store, world):
    response = member.post(
        f"/chat/c/{facts.public_id}/post",
        data={"body": "Hello from the view tests", "csrf_token": token(member)},
    )
    assert response.status_code == 302
    mid, channel_id, author_id, body = latest_message(store, world)
    assert (channel_id, author_id, body) == (
        facts.public_id,
        facts.public_member.id,
        "Hello from the view tests",
    )
    assert response.location.endswith(f"#m-{mid}")


def test_post_without_csrf_is_refused_and_writes_nothing(member, facts, store, world):
    before = count(store, world, "chat_message")
    response = member.post(f"/chat/c/{facts.public_id}/post", data={"body": "forged"})
    assert response.status_code == 400
    assert "Form expired" in response.get_data(as_text=True)
    assert count(store, world, "chat_message") == before


def test_post_with_a_wrong_csrf_token_is_refused(member, facts, store, world):
    before = count(store, world, "chat_message")
    response = member.post(
        f"/chat/c/{facts.public_id}/post", data={"body": "forged", "csrf_token": "nope"}
    )
    assert response.status_code == 400
    assert count(store, world, "chat_message") == before


@pytest.mark.parametrize("body", ["", "   \n ", "x" * 40_001])
def test_bad_message_rerenders_the_channel_with_a_message(member, facts, store, world, body):
    before = count(store, world, "chat_message")
    response = member.post(
        f"/chat/c/{facts.public_id}/post", data={"body": body, "csrf_token": token(member)}
    )
    html = response.get_data(as_text=True)
    assert response.status_code in (400, 422)
    assert 'class="composer__error"' in html
    assert count(store, world, "chat_message") == before


def test_post_in_a_channel_you_are_not_in_is_forbidden(client, facts, store, world):
    login(client, facts.public_non_member.email)
    before = count(store, world, "chat_message")
    response = client.post(
        f"/chat/c/{facts.public_id}/post", data={"body": "hi", "csrf_token": token(client)}
    )
    assert response.status_code == 403
    assert count(store, world, "chat_message") == before


def test_post_in_an_archived_channel_is_refused(client, facts, store, world):
    login(client, facts.archived_member.email)
    before = count(store, world, "chat_message")
    response = client.post(
        f"/chat/c/{facts.archived_id}/post", data={"body": "hi", "csrf_token": token(client)}
    )
    assert response.status_code in (403, 409, 422)
    assert count(store, world, "chat_message") == before


def test_post_with_a_file_stores_it(member, facts, store, world):
    response = member.post(
        f"/chat/c/{facts.public_id}/post",
        data={
            "body": "the chart",
            "csrf_token": token(member),
            "files": (__import__("io").BytesIO(PNG), "chart.png", "image/png"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 302
    name, data = rows(
        store, world, "SELECT filename, data FROM chat_attachment ORDER BY id DESC LIMIT 1"
    )[0]
    assert (name, data) == ("chart.png", PNG)


def test_disallowed_file_rerenders_with_a_message(member, facts, store, world):
    before = count(store, world, "chat_message")
    response = member.post(
        f"/chat/c/{facts.public_id}/post",
        data={
            "body": "run me",
            "csrf_token": token(member),
            "files": (__import__("io").BytesIO(b"MZ\x90\x00"), "tool.exe", "application/x-exe"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code in (400, 422)
    assert "tool.exe" in response.get_data(as_text=True)
    assert count(store, world, "chat_message") == before
    assert 'value="run me"' not in response.get_data(as_text=True)  # draft lives in the textarea
    assert ">run me</textarea>" in response.get_data(as_text=True)


def test_message_html_is_sanitised(member, facts):
    member.post(
        f"/chat/c/{facts.public_id}/post",
        data={
            "body": "<script>alert(1)</script> <img src=x onerror=alert(2)>",
            "csrf_token": token(member),
        },
    )
    html = member.get(f"/chat/c/{facts.public_id}").get_data(as_text=True)
    assert "<script>alert(1)" not in html
    assert "<img src=x" not in html


# -- threads, edit, delete, reactions, pins, saves ------------------------------------------


def test_reply_in_thread_also_to_channel(member, facts, store, world):
    response = member.post(
        f"/chat/t/{facts.public_message_id}/reply",
        data={"body": "a reply", "also_in_channel": "1", "csrf_token": token(member)},
    )
    assert response.status_code == 302
    assert f"/chat/t/{facts.public_message_id}" in response.location
    parent, also = rows(
        store,
        world,
        "SELECT thread_parent_id, also_in_channel FROM chat_message ORDER BY id DESC LIMIT 1",
    )[0]
    assert (parent, also) == (facts.public_message_id, 1)
    thread = member.get(f"/chat/t/{facts.public_message_id}").get_data(as_text=True)
    assert "a reply" in thread
    assert "Also send to" in thread


def test_empty_reply_rerenders_the_thread(member, facts, store, world):
    before = count(store, world, "chat_message")
    response = member.post(
        f"/chat/t/{facts.public_message_id}/reply",
        data={"body": "", "csrf_token": token(member)},
    )
    assert response.status_code in (400, 422)
    assert 'class="thread"' in response.get_data(as_text=True)
    assert count(store, world, "chat_message") == before


def _post(client, facts, store, world, body="mine") -> int:
    client.post(f"/chat/c/{facts.public_id}/post", data={"body": body, "csrf_token": token(client)})
    return latest_message(store, world)[0]


def test_edit_own_message(member, facts, store, world):
    mid = _post(member, facts, store, world)
    assert member.get(f"/chat/m/{mid}/edit").status_code == 200
    response = member.post(
        f"/chat/m/{mid}/edit", data={"body": "changed", "csrf_token": token(member)}
    )
    assert response.status_code == 302
    body, edited = rows(
        store, world, "SELECT body, edited_at FROM chat_message WHERE id=?", (mid,)
    )[0]
    assert body == "changed" and edited is not None


def test_edit_to_empty_rerenders_with_a_message(member, facts, store, world):
    mid = _post(member, facts, store, world)
    response = member.post(f"/chat/m/{mid}/edit", data={"body": " ", "csrf_token": token(member)})
    assert response.status_code in (400, 422)
    assert 'role="alert"' in response.get_data(as_text=True)
    assert rows(store, world, "SELECT body FROM chat_message WHERE id=?", (mid,))[0][0] == "mine"


def test_editing_or_deleting_someone_elses_message_is_forbidden(member, facts, store, world):
    other = rows(
        store,
        world,
        "SELECT id FROM chat_message WHERE channel_id=? AND author_id<>? AND deleted_at IS NULL",
        (facts.public_id, facts.public_member.id),
    )[0][0]
    assert member.get(f"/chat/m/{other}/edit").status_code == 403
    assert member.get(f"/chat/m/{other}/delete").status_code == 403
    response = member.post(f"/chat/m/{other}/delete", data={"csrf_token": token(member)})
    assert response.status_code == 403
    assert rows(store, world, "SELECT count(*) FROM chat_message WHERE id=?", (other,))[0][0] == 1


def test_delete_own_message_after_confirming(member, facts, store, world):
    mid = _post(member, facts, store, world)
    assert "Delete message" in member.get(f"/chat/m/{mid}/delete").get_data(as_text=True)
    response = member.post(f"/chat/m/{mid}/delete", data={"csrf_token": token(member)})
    assert response.status_code == 302
    left = rows(store, world, "SELECT deleted_at FROM chat_message WHERE id=?", (mid,))
    assert left == [] or left[0][0] is not None


def test_react_toggles_and_returns_to_next(member, facts, store, world):
    mid = facts.public_message_id
    here = f"/chat/c/{facts.public_id}"
    data = {"emoji": "tada", "next": here, "csrf_token": token(member)}
    response = member.post(f"/chat/m/{mid}/react", data=data)
    assert response.status_code == 302
    assert response.location.endswith(f"{here}#m-{mid}")
    sql = "SELECT count(*) FROM chat_reaction WHERE message_id=? AND employee_id=? AND emoji='tada'"
    assert rows(store, world, sql, (mid, facts.public_member.id))[0][0] == 1
    member.post(f"/chat/m/{mid}/react", data=data)
    assert rows(store, world, sql, (mid, facts.public_member.id))[0][0] == 0


def test_react_ignores_an_offsite_next(member, facts):
    response = member.post(
        f"/chat/m/{facts.public_message_id}/react",
        data={"emoji": "tada", "next": "https://evil.example/", "csrf_token": token(member)},
    )
    assert response.status_code == 302
    assert "evil.example" not in response.location


def test_unknown_reaction_is_refused(member, facts, store, world):
    before = count(store, world, "chat_reaction")
    response = member.post(
        f"/chat/m/{facts.public_message_id}/react",
        data={"emoji": "not-an-emoji", "csrf_token": token(member)},
    )
    assert response.status_code in (400, 422)
    assert count(store, world, "chat_reaction") == before


def test_reaction_picker_page_lists_emoji(member, facts):
    response = member.get(f"/chat/m/{facts.public_message_id}/react")
    assert response.status_code == 200
    assert response.get_data(as_text=True).count('name="emoji"') > 20


def test_pin_unpin_save_unsave(member, facts, store, world):
    mid = facts.public_message_id
    for action in ("pin", "save"):
        response = member.post(f"/chat/m/{mid}/{action}", data={"csrf_token": token(member)})
        assert response.status_code == 302
    assert rows(store, world, "SELECT count(*) FROM chat_pin WHERE message_id=?", (mid,))[0][0] == 1
    pins = member.get(f"/chat/c/{facts.public_id}/pins").get_data(as_text=True)
    assert f'id="m-{mid}"' in pins
    assert f'id="m-{mid}"' in member.get("/chat/saved").get_data(as_text=True)
    for action in ("unpin", "unsave"):
        member.post(f"/chat/m/{mid}/{action}", data={"csrf_token": token(member)})
    assert rows(store, world, "SELECT count(*) FROM chat_pin WHERE message_id=?", (mid,))[0][0] == 0
    saved = "SELECT count(*) FROM chat_saved WHERE message_id=? AND employee_id=?"
    assert rows(store, world, saved, (mid, facts.public_member.id))[0][0] == 0


# -- channels ------------------------------------------------------------------------------


def test_create_private_channel_with_members(member, facts, store, world):
    response = member.post(
        "/chat/new",
        data={
            "name": "plan-budget",
            "is_private": "1",
            "topic": "Numbers",
            "employee_ids": [str(facts.public_non_member.id)],
            "csrf_token": token(member),
        },
    )
    assert response.status_code == 302
    cid, private = rows(
        store, world, "SELECT id, is_private FROM chat_channel WHERE name='plan-budget'"
    )[0]
    assert private == 1
    members = {
        r[0]
        for r in rows(
            store, world, "SELECT employee_id FROM chat_membership WHERE channel_id=?", (cid,)
        )
    }
    assert members == {facts.public_member.id, facts.public_non_member.id}


@pytest.mark.parametrize("name", ["Has Spaces", "", "x" * 81, "general"])
def test_bad_channel_name_rerenders_the_form(member, store, world, name):
    before = count(store, world, "chat_channel")
    response = member.post(
        "/chat/new", data={"name": name, "topic": "kept", "csrf_token": token(member)}
    )
    html = response.get_data(as_text=True)
    assert response.status_code in (400, 409, 422)
    assert 'role="alert"' in html
    assert 'value="kept"' in html
    assert count(store, world, "chat_channel") == before


def test_set_topic_and_description(member, facts, store, world):
    t = token(member)
    assert (
        member.post(
            f"/chat/c/{facts.public_id}/topic", data={"topic": "New topic", "csrf_token": t}
        ).status_code
        == 302
    )
    member.post(
        f"/chat/c/{facts.public_id}/description", data={"description": "About", "csrf_token": t}
    )
    assert rows(
        store, world, "SELECT topic, description FROM chat_channel WHERE id=?", (facts.public_id,)
    )[0] == ("New topic", "About")


def test_too_long_topic_rerenders_details(member, facts, store, world):
    response = member.post(
        f"/chat/c/{facts.public_id}/topic", data={"topic": "x" * 300, "csrf_token": token(member)}
    )
    assert response.status_code in (400, 422)
    assert 'role="alert"' in response.get_data(as_text=True)


def test_invite_adds_people(member, facts, store, world):
    response = member.post(
        f"/chat/c/{facts.public_id}/invite",
        data={"employee_ids": [str(facts.public_non_member.id)], "csrf_token": token(member)},
    )
    assert response.status_code == 302
    assert (
        rows(
            store,
            world,
            "SELECT count(*) FROM chat_membership WHERE channel_id=? AND employee_id=?",
            (facts.public_id, facts.public_non_member.id),
        )[0][0]
        == 1
    )


def test_invite_nobody_rerenders_details(member, facts):
    response = member.post(f"/chat/c/{facts.public_id}/invite", data={"csrf_token": token(member)})
    assert response.status_code == 422
    assert "Choose at least one person" in response.get_data(as_text=True)


def test_join_and_leave_public_channel(client, facts, store, world):
    login(client, facts.public_non_member.email)
    sql = "SELECT count(*) FROM chat_membership WHERE channel_id=? AND employee_id=?"
    args = (facts.public_id, facts.public_non_member.id)
    assert (
        client.post(
            f"/chat/c/{facts.public_id}/join", data={"csrf_token": token(client)}
        ).status_code
        == 302
    )
    assert rows(store, world, sql, args)[0][0] == 1
    assert (
        client.post(
            f"/chat/c/{facts.public_id}/leave", data={"csrf_token": token(client)}
        ).status_code
        == 302
    )
    assert rows(store, world, sql, args)[0][0] == 0


def test_join_private_channel_is_not_found(client, facts):
    login(client, facts.private_non_member.email)
    response = client.post(f"/chat/c/{facts.private_id}/join", data={"csrf_token": token(client)})
    assert response.status_code == 404


def test_archive_and_unarchive(member, facts, store, world):
    t = token(member)
    assert (
        member.post(f"/chat/c/{facts.public_id}/archive", data={"csrf_token": t}).status_code == 302
    )
    assert rows(
        store, world, "SELECT archived_at FROM chat_channel WHERE id=?", (facts.public_id,)
    )[0][0]
    page = member.get(f"/chat/c/{facts.public_id}").get_data(as_text=True)
    assert "archived channel" in page
    assert (
        member.post(f"/chat/c/{facts.public_id}/unarchive", data={"csrf_token": t}).status_code
        == 302
    )
    assert (
        rows(store, world, "SELECT archived_at FROM chat_channel WHERE id=?", (facts.public_id,))[
            0
        ][0]
        is None
    )


def test_archiving_general_is_forbidden(member, facts):
    response = member.post(
        f"/chat/c/{facts.general_id}/archive", data={"csrf_token": token(member)}
    )
    assert response.status_code == 403


# -- DMs, people, status, search -------------------------------------------------------------


def test_new_dm_opens_the_conversation(member, facts, store, world):
    response = member.post(
        "/chat/dm/new",
        data={"employee_ids": [str(facts.public_non_member.id)], "csrf_token": token(member)},
    )
    assert response.status_code == 302
    assert "/chat/c/" in response.location
    assert member.get(response.location).status_code == 200


def test_new_dm_without_people_rerenders(member, store, world):
    before = count(store, world, "chat_channel")
    response = member.post("/chat/dm/new", data={"csrf_token": token(member)})
    assert response.status_code == 422
    assert 'role="alert"' in response.get_data(as_text=True)
    assert count(store, world, "chat_channel") == before


def test_message_button_on_profile_opens_dm(member, facts):
    response = member.post(
        f"/chat/people/{facts.public_non_member.id}/message", data={"csrf_token": token(member)}
    )
    assert response.status_code == 302
    assert "/chat/c/" in response.location


def test_set_and_clear_status(member, facts, store, world):
    t = token(member)
    response = member.post(
        "/chat/status", data={"emoji": "palm_tree", "text": "Away", "csrf_token": t}
    )
    assert response.status_code == 302
    sql = "SELECT status_emoji, status_text FROM people_employee WHERE id=?"
    assert rows(store, world, sql, (facts.public_member.id,))[0] == ("palm_tree", "Away")
    member.post("/chat/status", data={"clear": "1", "csrf_token": t})
    assert rows(store, world, sql, (facts.public_member.id,))[0] == ("", "")


def test_too_long_status_rerenders(member, store, world, facts):
    response = member.post("/chat/status", data={"text": "x" * 200, "csrf_token": token(member)})
    assert response.status_code == 422
    assert 'role="alert"' in response.get_data(as_text=True)


def test_search_results_link_to_permalinks(member, facts, store, world):
    _post(member, facts, store, world, body="zebracorn quarterly forecast")
    html = member.get("/chat/search?q=zebracorn").get_data(as_text=True)
    mid = latest_message(store, world)[0]
    assert f"/chat/m/{mid}" in html
    assert "1 result" in html


def test_search_shows_parse_errors(member):
    html = member.get("/chat/search?q=before:notadate").get_data(as_text=True)
    assert 'role="alert"' in html


def test_search_never_shows_private_messages_to_outsiders(client, facts, store, world):
    body = rows(
        store, world, "SELECT body FROM chat_message WHERE id=?", (facts.private_message_id,)
    )[0][0]
    word = max(re.findall(r"[A-Za-z]{6,}", body) or ["zzzzzz"], key=len)
    login(client, facts.private_non_member.email)
    html = client.get(f"/chat/search?q={word}").get_data(as_text=True)
    assert f'/chat/m/{facts.private_message_id}"' not in html


XSS = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def test_script_in_topic_status_and_filename_renders_inert(member, facts):
    t = token(member)
    member.post(f"/chat/c/{facts.public_id}/topic", data={"topic": XSS[:60], "csrf_token": t})
    member.post("/chat/status", data={"emoji": "", "text": XSS[:60], "csrf_token": t})
    member.post(
        f"/chat/c/{facts.public_id}/post",
        data={
            "body": "file",
            "csrf_token": t,
            "files": (__import__("io").BytesIO(b"plain text"), f"{XSS}.txt", "text/plain"),
        },
        content_type="multipart/form-data",
    )
    for path in (f"/chat/c/{facts.public_id}", f"/chat/c/{facts.public_id}/details"):
        html = member.get(path).get_data(as_text=True)
        assert "<script>alert(1)" not in html
        assert "<img src=x" not in html
