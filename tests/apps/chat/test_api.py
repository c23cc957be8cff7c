"""The JSON API: every route's status codes, the error shape, sign-in, the CSRF header rule and
the OpenAPI document, through the real app and a test client."""

from __future__ import annotations

import io
import re

import pytest

from .conftest import API, API_HEADERS, ChatFacts, csrf_token, login, rows

JSON_ERROR_KEYS = {"status", "title", "message"}


def call(client, method: str, path: str, json=None, headers=API_HEADERS, **kwargs):
    return client.open(f"{API}{path}", method=method, json=json, headers=headers, **kwargs)


def assert_error(response, status: int, field: str | None = None) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    error = response.get_json()["error"]
    assert set(error) >= JSON_ERROR_KEYS and error["status"] == status
    if field is not None:
        assert error["field"] == field
    return error


def api_rules(app):
    """(OpenAPI path, method) of every route registered from the chat API blueprint."""
    out = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint.split(".")[-2:-1] != ["chat_api"]:
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        assert path.startswith(API)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            out.add((path[len(API) :], method.lower()))
    return out


@pytest.fixture
def member(client, facts: ChatFacts):
    login(client, facts.public_member.email)
    return client


# -- auth and CSRF -------------------------------------------------------------------------


def test_every_route_needs_sign_in(app, client):
    for path, method in sorted(api_rules(app)):
        if path == "/openapi.json":
            continue
        concrete = re.sub(r"\{[a-z_]+\}", "1", path)
        response = call(client, method.upper(), concrete, json={})
        assert_error(response, 401)


def test_writes_without_the_api_header_are_refused(member, store, world, facts: ChatFacts):
    before = rows(store, world, "SELECT count(*) FROM chat_message")
    response = call(
        member, "POST", f"/channels/{facts.public_id}/messages", json={"body": "x"}, headers={}
    )
    error = assert_error(response, 403)
    assert "X-Requested-With" in error["message"]
    assert rows(store, world, "SELECT count(*) FROM chat_message") == before


def test_writes_with_a_forged_csrf_token_are_refused(member, facts: ChatFacts):
    response = call(
        member,
        "POST",
        f"/channels/{facts.public_id}/messages",
        json={"body": "x"},
        headers={"X-CSRFToken": "forged"},
    )
    assert_error(response, 403)


def test_writes_with_the_pages_csrf_token_are_accepted(member, facts: ChatFacts):
    token = csrf_token(member, "/")
    response = call(
        member,
        "POST",
        f"/channels/{facts.public_id}/messages",
        json={"body": "via token"},
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 201


def test_reads_need_no_header(member, facts: ChatFacts):
    assert call(member, "GET", "/sidebar", headers={}).status_code == 200


# -- OpenAPI -------------------------------------------------------------------------------


def test_openapi_document_lists_every_route(app, client):
    response = client.get(f"{API}/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    assert document["openapi"].startswith("3.1")
    documented = {(p, m) for p, ops in document["paths"].items() for m in ops}
    assert documented == api_rules(app)


def test_openapi_references_resolve(client):
    document = client.get(f"{API}/openapi.json").get_json()
    refs = set(
        re.findall(r'"\$ref": "#/components/schemas/([A-Za-z]+)"', str(document).replace("'", '"'))
    )
    assert refs <= set(document["components"]["schemas"])


# -- channels ------------------------------------------------------------------------------


def test_sidebar(member, facts: ChatFacts):
    data = call(member, "GET", "/sidebar").get_json()
    assert facts.public_id in {c["id"] for c in data["channels"]}


def test_browse_and_get_channel(member, facts: ChatFacts):
    found = call(member, "GET", f"/channels?q={facts.public_name}").get_json()
    assert facts.public_id in {c["id"] for c in found}
    detail = call(member, "GET", f"/channels/{facts.public_id}").get_json()
    assert detail["name"] == facts.public_name and detail["is_member"] is True
    assert detail["created_by"]["id"] > 0 and "T" in detail["created_at"]
    by_name = call(member, "GET", f"/channels/by-name/{facts.public_name}")
    assert by_name.get_json()["id"] == facts.public_id


def test_private_channel_is_404_for_outsiders(client, facts: ChatFacts):
    login(client, facts.private_non_member.email)
    error = assert_error(call(client, "GET", f"/channels/{facts.private_id}"), 404)
    assert facts.private_name not in error["message"]
    assert_error(call(client, "GET", f"/channels/by-name/{facts.private_name}"), 404)
    assert_error(call(client, "GET", f"/channels/{facts.private_id}/messages"), 404)
    assert_error(call(client, "GET", f"/channels/{facts.private_id}/members"), 404)
    assert_error(call(client, "GET", f"/messages/{facts.private_message_id}"), 404)


def test_create_channel(member, store, world):
    response = call(
        member, "POST", "/channels", json={"name": "api-made", "is_private": True, "topic": "t"}
    )
    assert response.status_code == 201
    created = response.get_json()
    assert (created["name"], created["is_private"], created["member_count"]) == (
        "api-made",
        True,
        1,
    )
    assert rows(store, world, "SELECT topic FROM chat_channel WHERE name = 'api-made'") == [("t",)]


def test_create_channel_errors(member, facts: ChatFacts):
    assert_error(call(member, "POST", "/channels", json={"name": "Bad Name"}), 422, "name")
    assert_error(call(member, "POST", "/channels", json={"name": facts.public_name}), 409, "name")
    assert_error(call(member, "POST", "/channels", json={}), 422, "name")
    assert_error(call(member, "POST", "/channels", json={"name": 5}), 422, "name")
    bad_json = member.post(
        f"{API}/channels", data="not json", content_type="application/json", headers=API_HEADERS
    )
    assert_error(bad_json, 400)


def test_update_topic_and_description(member, store, world, facts: ChatFacts):
    response = call(
        member, "PATCH", f"/channels/{facts.public_id}", json={"topic": "New", "description": "D"}
    )
    assert response.status_code == 200 and response.get_json()["topic"] == "New"
    assert rows(
        store, world, "SELECT topic, description FROM chat_channel WHERE id = ?", (facts.public_id,)
    ) == [("New", "D")]
    assert_error(call(member, "PATCH", f"/channels/{facts.public_id}", json={}), 422)
    too_long = {"topic": "x" * 251}
    assert_error(call(member, "PATCH", f"/channels/{facts.public_id}", json=too_long), 422, "topic")


def test_join_and_leave(client, facts: ChatFacts):
    login(client, facts.public_non_member.email)
    assert call(client, "POST", f"/channels/{facts.public_id}/join").status_code == 200
    assert_error(call(client, "POST", f"/channels/{facts.public_id}/join"), 409)
    assert call(client, "POST", f"/channels/{facts.public_id}/leave").status_code == 204
    assert_error(call(client, "POST", f"/channels/{facts.general_id}/leave"), 403)


def test_archive_and_unarchive(member, facts: ChatFacts):
    response = call(member, "POST", f"/channels/{facts.public_id}/archive")
    assert response.status_code == 200 and response.get_json()["is_archived"] is True
    posted = call(member, "POST", f"/channels/{facts.public_id}/messages", json={"body": "x"})
    assert_error(posted, 403)
    response = call(member, "POST", f"/channels/{facts.public_id}/unarchive")
    assert response.status_code == 200 and response.get_json()["is_archived"] is False
    assert_error(call(member, "POST", f"/channels/{facts.general_id}/archive"), 403)


def test_members_and_invite(client, store, world, facts: ChatFacts):
    login(client, facts.private_member.email)
    listed = call(client, "GET", f"/channels/{facts.private_id}/members").get_json()
    assert facts.private_member.id in {p["id"] for p in listed}
    body = {"employee_ids": [facts.private_non_member.id]}
    response = call(client, "POST", f"/channels/{facts.private_id}/members", json=body)
    assert response.status_code == 201
    assert_error(call(client, "POST", f"/channels/{facts.private_id}/members", json=body), 409)
    inactive = {"employee_ids": [facts.inactive.id]}
    assert_error(
        call(client, "POST", f"/channels/{facts.private_id}/members", json=inactive),
        422,
        "employee_ids",
    )
    assert_error(
        call(client, "POST", f"/channels/{facts.private_id}/members", json={"employee_ids": "x"}),
        422,
    )


# -- messages ------------------------------------------------------------------------------


def test_history_pages(member, facts: ChatFacts):
    page = call(member, "GET", f"/channels/{facts.public_id}/messages?limit=2").get_json()
    assert len(page["messages"]) == 2 and page["has_older"] is True
    older = call(
        member, "GET", f"/channels/{facts.public_id}/messages?limit=2&before_id={page['oldest_id']}"
    ).get_json()
    assert max(m["id"] for m in older["messages"]) < page["oldest_id"]
    around = call(
        member, "GET", f"/channels/{facts.public_id}/messages?limit=4&around_id={page['oldest_id']}"
    ).get_json()
    around_ids = [m["id"] for m in around["messages"]]
    assert page["oldest_id"] in around_ids and around_ids[-1] == page["messages"][-1]["id"]
    assert around["has_newer"] is False and around["has_older"] is True
    assert_error(call(member, "GET", f"/channels/{facts.public_id}/messages?limit=x"), 422, "limit")


def test_post_edit_delete(member, store, world, facts: ChatFacts):
    response = call(
        member, "POST", f"/channels/{facts.public_id}/messages", json={"body": "**hi** there"}
    )
    assert response.status_code == 201
    posted = response.get_json()
    assert posted["html"] == "<p><strong>hi</strong> there</p>" and posted["is_mine"]
    mid = posted["id"]
    edited = call(member, "PATCH", f"/messages/{mid}", json={"body": "changed"})
    assert edited.status_code == 200 and edited.get_json()["edited_at"]
    assert call(member, "GET", f"/messages/{mid}").get_json()["body"] == "changed"
    assert call(member, "DELETE", f"/messages/{mid}").status_code == 204
    assert rows(store, world, "SELECT count(*) FROM chat_message WHERE id = ?", (mid,)) == [(0,)]
    assert_error(call(member, "GET", f"/messages/{mid}"), 404)


def test_post_errors_write_nothing(member, store, world, facts: ChatFacts):
    before = rows(store, world, "SELECT count(*) FROM chat_message")
    url = f"/channels/{facts.public_id}/messages"
    assert_error(call(member, "POST", url, json={"body": "  "}), 422, "body")
    assert_error(call(member, "POST", url, json={"body": "x" * 40_001}), 422, "body")
    assert_error(call(member, "POST", "/channels/999999/messages", json={"body": "x"}), 404)
    assert_error(call(member, "POST", url, json={"body": "x", "thread_parent_id": "1"}), 422)
    assert rows(store, world, "SELECT count(*) FROM chat_message") == before


def test_editing_someone_elses_message_is_403(member, facts: ChatFacts):
    message = call(member, "GET", f"/messages/{facts.public_message_id}").get_json()
    assert not message["is_mine"]
    patched = call(member, "PATCH", f"/messages/{facts.public_message_id}", json={"body": "x"})
    assert_error(patched, 403)
    assert_error(call(member, "DELETE", f"/messages/{facts.public_message_id}"), 403)


def test_post_with_files_and_download(member, facts: ChatFacts):
    data = {
        "body": "with a file",
        "files": (io.BytesIO(b"a,b\n1,2\n"), "numbers.csv", "text/csv"),
    }
    response = member.post(
        f"{API}/channels/{facts.public_id}/messages",
        data=data,
        content_type="multipart/form-data",
        headers=API_HEADERS,
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    attachment = response.get_json()["attachments"][0]
    assert attachment["filename"] == "numbers.csv" and attachment["size"] == 8
    download = member.get(f"{API}/files/{attachment['id']}")
    assert download.status_code == 200 and download.data == b"a,b\n1,2\n"
    assert download.mimetype == "text/csv"
    assert "attachment" in download.headers["Content-Disposition"]


def test_disallowed_file_is_422(member, facts: ChatFacts):
    data = {"body": "x", "files": (io.BytesIO(b"<script>"), "x.html", "text/html")}
    response = member.post(
        f"{API}/channels/{facts.public_id}/messages",
        data=data,
        content_type="multipart/form-data",
        headers=API_HEADERS,
    )
    assert_error(response, 422, "files")


def test_download_of_a_file_in_a_private_channel_is_404_for_outsiders(client, facts: ChatFacts):
    login(client, facts.private_member.email)
    data = {"body": "secret", "files": (io.BytesIO(b"s"), "s.txt", "text/plain")}
    response = client.post(
        f"{API}/channels/{facts.private_id}/messages",
        data=data,
        content_type="multipart/form-data",
        headers=API_HEADERS,
    )
    attachment_id = response.get_json()["attachments"][0]["id"]
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    login(client, facts.private_non_member.email)
    assert_error(client.get(f"{API}/files/{attachment_id}"), 404)


def test_thread_and_replies(member, facts: ChatFacts):
    parent = call(member, "POST", f"/channels/{facts.public_id}/messages", json={"body": "p"})
    pid = parent.get_json()["id"]
    reply = call(
        member, "POST", f"/messages/{pid}/replies", json={"body": "r", "also_in_channel": True}
    )
    assert reply.status_code == 201 and reply.get_json()["thread_parent_id"] == pid
    thread = call(member, "GET", f"/messages/{pid}/thread").get_json()
    assert thread["parent"]["reply_count"] == 1 and len(thread["replies"]) == 1
    assert thread["channel"]["id"] == facts.public_id
    link = call(member, "GET", f"/messages/{reply.get_json()['id']}/permalink").get_json()
    assert link == {
        "channel_id": facts.public_id,
        "message_id": reply.get_json()["id"],
        "thread_parent_id": pid,
    }


def test_reactions_pins_saves(member, facts: ChatFacts):
    mid = facts.public_message_id
    added = call(member, "POST", f"/messages/{mid}/reactions", json={"emoji": "rocket"})
    assert added.status_code == 200 and added.get_json()["added"] is True
    removed = call(member, "POST", f"/messages/{mid}/reactions", json={"emoji": "rocket"})
    assert removed.get_json()["added"] is False
    assert_error(call(member, "POST", f"/messages/{mid}/reactions", json={"emoji": "nope"}), 422)
    own = call(member, "POST", f"/channels/{facts.public_id}/messages", json={"body": "pin"})
    oid = own.get_json()["id"]
    assert call(member, "PUT", f"/messages/{oid}/pin").get_json()["pinned"] is True
    assert_error(call(member, "PUT", f"/messages/{oid}/pin"), 409)
    pins = call(member, "GET", f"/channels/{facts.public_id}/pins").get_json()
    assert oid in {m["id"] for m in pins}
    assert call(member, "DELETE", f"/messages/{oid}/pin").status_code == 204
    assert call(member, "PUT", f"/messages/{oid}/save").get_json()["saved"] is True
    assert oid in {m["id"] for m in call(member, "GET", "/saved").get_json()}
    assert call(member, "DELETE", f"/messages/{oid}/save").status_code == 204
    assert_error(call(member, "DELETE", f"/messages/{oid}/save"), 409)


def test_mark_read(member, store, world, facts: ChatFacts):
    url = f"/channels/{facts.public_id}/read"
    assert call(member, "POST", url, json={}).status_code == 204
    (last,) = rows(
        store,
        world,
        "SELECT last_read_message_id FROM chat_membership WHERE channel_id = ? AND employee_id = ?",
        (facts.public_id, facts.public_member.id),
    )[0]
    assert last is not None
    assert_error(call(member, "POST", url, json={"message_id": 999_999}), 404)


# -- people, search, DMs, status ------------------------------------------------------------


def test_mentions_route(client, facts: ChatFacts):
    login(client, facts.public_member.email)
    body = {"body": f"hi @{facts.public_non_member.name}"}
    call(client, "POST", f"/channels/{facts.public_id}/messages", json=body)
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    login(client, facts.public_non_member.email)
    found = call(client, "GET", "/mentions?limit=5").get_json()
    assert found[0]["body"] == body["body"]


def test_search_route(member, facts: ChatFacts):
    call(member, "POST", f"/channels/{facts.public_id}/messages", json={"body": "marmoset"})
    results = call(member, "GET", f"/search?q=marmoset in:%23{facts.public_name}").get_json()
    assert results["total"] == 1 and "<mark>marmoset</mark>" in results["hits"][0]["snippet_html"]
    assert results["filters"] == {"in": [f"#{facts.public_name}"]}
    assert_error(call(member, "GET", "/search?q=x&page=abc"), 422, "page")


def test_people_routes(member, facts: ChatFacts):
    people = call(member, "GET", "/people?limit=500").get_json()
    assert facts.public_member.id in {p["id"] for p in people}
    profile = call(member, "GET", f"/people/{facts.public_member.id}").get_json()
    assert profile["employee"]["email"] == facts.public_member.email
    assert_error(call(member, "GET", "/people/999999"), 404)
    prefix = facts.public_member.name[:3]
    found = call(member, "GET", f"/autocomplete/people?prefix={prefix}").get_json()
    assert facts.public_member.id in {p["id"] for p in found}
    channels = call(member, "GET", f"/autocomplete/channels?prefix={facts.public_name[:2]}")
    assert facts.public_id in {c["id"] for c in channels.get_json()}


def test_open_dm_route(client, facts: ChatFacts):
    login(client, facts.dm_a.email)
    response = call(client, "POST", "/dms", json={"employee_ids": [facts.dm_b.id]})
    assert response.status_code == 200 and response.get_json()["id"] == facts.dm_id
    assert_error(call(client, "POST", "/dms", json={"employee_ids": []}), 422)


def test_set_status_route(member, store, world, facts: ChatFacts):
    response = call(member, "PUT", "/me/status", json={"emoji": "coffee", "text": "Back soon"})
    assert response.status_code == 200
    assert rows(
        store,
        world,
        "SELECT status_emoji, status_text FROM people_employee WHERE id = ?",
        (facts.public_member.id,),
    ) == [("coffee", "Back soon")]
    assert_error(call(member, "PUT", "/me/status", json={"emoji": "<b>"}), 422, "emoji")


def test_json_responses_are_inert(member, facts: ChatFacts):
    payload = "<script>alert(1)</script>"
    response = call(member, "POST", f"/channels/{facts.public_id}/messages", json={"body": payload})
    assert response.mimetype == "application/json"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "<script>" not in response.get_json()["html"]
