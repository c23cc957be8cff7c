"""The CRM JSON API: the same services as the pages, JSON errors, CSRF header, OpenAPI."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import API, API_HEADERS, one, rows, token


@pytest.fixture
def rep(as_person, facts):
    return as_person(facts.rep)


def test_api_needs_a_session(client):
    response = client.get(f"{API}/opportunities")
    assert response.status_code == 401
    assert response.get_json()["error"]["status"] == 401


def test_list_with_a_saved_view_and_filters(rep, facts):
    body = rep.get(f"{API}/opportunities?view=my_open&amount_min=1&sort=amount&dir=desc").get_json()
    assert body["view"] == "my_open" and body["total"] == len(body["rows"])
    assert {r["owner_id"] for r in body["rows"]} == {facts.rep.id}
    amounts = [r["amount"] for r in body["rows"]]
    assert amounts == sorted(amounts, reverse=True)


def test_bad_list_parameters_are_422_with_fields(rep):
    response = rep.get(f"{API}/opportunities?close_from=soon")
    assert response.status_code == 422
    assert "close_from" in response.get_json()["error"]["fields"]


def test_record_has_values_related_lists_and_history(rep, facts):
    body = rep.get(f"{API}/accounts/{facts.rep_account}").get_json()
    assert body["object"] == "accounts" and body["can_edit"] is True
    assert body["values"]["owner_id"] == facts.rep.id
    assert {r["object"] for r in body["related"]} >= {"contacts", "opportunities"}
    assert body["history"][-1]["field"] == "created"


def test_create_patch_and_delete(rep, store, world):
    created = rep.post(
        f"{API}/leads",
        json={
            "first_name": "Api",
            "last_name": "Lead",
            "company": "Api Co",
            "email": "api@lead.example",
        },
        headers=API_HEADERS,
    )
    assert created.status_code == 201, created.get_json()
    lead = created.get_json()
    assert lead["values"]["status"] == "New"
    patched = rep.patch(
        f"{API}/leads/{lead['id']}", json={"status": "Working"}, headers=API_HEADERS
    ).get_json()
    assert patched["changed"] == ["status"]
    history = rep.get(f"{API}/leads/{lead['id']}/history").get_json()
    assert [h["field"] for h in history] == ["status", "created"]
    assert rep.delete(f"{API}/leads/{lead['id']}", headers=API_HEADERS).status_code == 204
    assert rows(store, world, "SELECT id FROM crm_lead WHERE id=?", (lead["id"],)) == []


def test_validation_errors_name_each_field(rep, facts, store, world):
    response = rep.patch(
        f"{API}/opportunities/{facts.rep_opportunity}",
        json={"amount": -1, "stage": "Done", "close_date": "2020-01-01"},
        headers=API_HEADERS,
    )
    assert response.status_code == 422
    fields = response.get_json()["error"]["fields"]
    assert set(fields) == {"amount", "stage", "close_date"}
    assert not store.diff(world)


def test_unknown_fields_are_refused(rep, facts):
    response = rep.patch(
        f"{API}/opportunities/{facts.rep_opportunity}", json={"secret": 1}, headers=API_HEADERS
    )
    assert response.status_code == 422
    assert response.get_json()["error"]["field"] == "secret"


def test_writes_need_the_csrf_header(rep, facts, store, world):
    response = rep.patch(f"{API}/opportunities/{facts.rep_opportunity}", json={"amount": 5})
    assert response.status_code == 403
    assert "X-Requested-With" in response.get_json()["error"]["message"]
    assert not store.diff(world)


def test_forbidden_edit_is_403_json(rep, facts, store, world):
    response = rep.post(
        f"{API}/opportunities/{facts.other_opportunity}/stage",
        json={"stage": "Negotiation"},
        headers=API_HEADERS,
    )
    assert response.status_code == 403
    assert facts.other_rep.name in response.get_json()["error"]["message"]
    assert not store.diff(world)


def test_bulk_and_stage_moves(rep, facts, store, world):
    ids = list(facts.rep_opportunities[:2])
    body = rep.post(
        f"{API}/opportunities/bulk",
        json={"ids": ids, "field": "stage", "value": "Needs Analysis"},
        headers=API_HEADERS,
    ).get_json()
    assert body == {"changed": 2}
    moved = rep.post(
        f"{API}/opportunities/{ids[0]}/stage", json={"stage": "Closed Won"}, headers=API_HEADERS
    ).get_json()
    assert moved["values"]["stage"] == "Closed Won" and moved["values"]["probability"] == 100


# Composer on a record page -> the activity kind it makes.
COMPOSED_KINDS = {"call": "call", "email": "email", "task": "task", "event": "meeting"}


@pytest.mark.parametrize("composer", sorted(COMPOSED_KINDS))
def test_an_activity_logged_through_the_api_is_stored_like_one_logged_on_the_page(
    rep, facts, store, world, composer
):
    kind = COMPOSED_KINDS[composer]
    page = rep.post(
        f"/crm/contacts/{facts.rep_contact}/log/{composer}",
        data={"subject": "From the page", "csrf_token": token(rep)},
    )
    assert page.status_code == 302, page.get_data(as_text=True)[:500]
    api = rep.post(
        f"{API}/activities",
        json={"kind": kind, "subject": "From the API", "contact_id": facts.rep_contact},
        headers=API_HEADERS,
    )
    assert api.status_code == 201, api.get_json()
    stored = dict(
        rows(
            store,
            world,
            "SELECT subject, status || ' ' || (completed_at IS NOT NULL) FROM crm_activity "
            "WHERE subject IN ('From the page', 'From the API')",
        )
    )
    expected = "Completed 1" if kind in ("call", "email") else "Open 0"
    assert stored["From the page"] == stored["From the API"] == expected


def test_duplicate_create_is_409_with_candidates(rep, facts, store, world):
    name = one(
        store, world, "SELECT name FROM crm_account WHERE id=?", (facts.duplicate_accounts[0],)
    )
    response = rep.post(f"{API}/accounts", json={"name": name}, headers=API_HEADERS)
    assert response.status_code == 409
    assert facts.duplicate_accounts[0] in [
        d["id"] for d in response.get_json()["error"]["duplicates"]
    ]


def test_convert_and_merge(as_person, facts, store, world):
    owner = as_person(facts.lead_owner)
    result = owner.post(
        f"{API}/leads/{facts.rep_lead}/convert",
        json={"allow_duplicate": True, "opportunity_name": "From the API"},
        headers=API_HEADERS,
    )
    assert result.status_code == 201, result.get_json()
    assert result.get_json()["opportunity_id"]
    admin = as_person(facts.admin)
    original, duplicate = facts.duplicate_contacts
    groups = admin.get(f"{API}/duplicates/contacts").get_json()
    assert any({original, duplicate} <= {r["id"] for r in g["records"]} for g in groups)
    merged = admin.post(
        f"{API}/contacts/merge",
        json={"ids": [original, duplicate], "master_id": original, "picks": {"phone": duplicate}},
        headers=API_HEADERS,
    )
    assert merged.status_code == 200, merged.get_json()
    assert rows(store, world, "SELECT id FROM crm_contact WHERE id=?", (duplicate,)) == []


def test_import_dry_run_then_import(rep, store, world):
    text = "First Name,Last Name,Email\nAda,Byron,ada@byron.example\nBad,Row,not-an-email\n"
    dry = rep.post(
        f"{API}/contacts/import", json={"csv": text, "dry_run": True}, headers=API_HEADERS
    ).get_json()
    assert dry["valid"] == 1 and dry["rejected"][0]["line"] == 3
    assert not store.diff(world).without("world_meta")
    done = rep.post(f"{API}/contacts/import", json={"csv": text}, headers=API_HEADERS)
    assert done.status_code == 201
    assert done.get_json()["imported"] == 1


def test_pipeline_report(rep):
    body = rep.get(f"{API}/reports/pipeline").get_json()
    assert body["total"]["count"] == sum(fig["count"] for _, fig in body["stages"])


def test_objects_describe_fields_and_views(rep):
    objects = {o["object"]: o for o in rep.get(f"{API}/objects").get_json()}
    stage = next(f for f in objects["opportunities"]["fields"] if f["name"] == "stage")
    assert "Closed Won" in stage["choices"]
    assert "my_open" in [v["key"] for v in objects["opportunities"]["views"]]


def test_openapi_documents_every_api_route(app, client):
    doc = client.get(f"{API}/openapi.json").get_json()
    assert doc["openapi"] == "3.1.0"
    documented = set()
    for path, ops in doc["paths"].items():
        for method in ops:
            documented.add((method.upper(), path))
    routes = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(API + "/"):
            continue
        path = rule.rule[len(API) :]
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            for variant in _expand(path):
                routes.add((method, variant))
    assert routes <= documented, sorted(routes - documented)


def _expand(path: str) -> list[str]:
    """Flask rule -> OpenAPI paths: `<any(a,b):key>` becomes one path per value."""
    import re

    match = re.search(r"<any\(([^)]*)\):\w+>", path)
    if match:
        return [
            p
            for value in match.group(1).split(",")
            for p in _expand(path[: match.start()] + value + path[match.end() :])
        ]
    return [re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", path)]


def _rep_activity(store, world, facts) -> int:
    """An activity `rep` owns, its description emptied as a quarter of the world's are."""
    (activity,) = rows(
        store,
        world,
        "SELECT id FROM crm_activity WHERE owner_id = ? AND account_id IS NOT NULL ORDER BY id",
        (facts.rep.id,),
    )[0]
    conn = sqlite3.connect(store.world_path(world))
    with conn:
        conn.execute("UPDATE crm_activity SET description = '' WHERE id = ?", (activity,))
    conn.close()
    return activity


@pytest.mark.parametrize("empty", ["", None, "   "])
def test_an_empty_activity_description_saves_as_empty(rep, store, world, facts, empty):
    activity = _rep_activity(store, world, facts)
    response = rep.patch(
        f"{API}/activities/{activity}",
        json={"description": empty, "subject": "Called back"},
        headers=API_HEADERS,
    )
    assert response.status_code == 200, response.get_json()
    assert one(
        store, world, "SELECT description, subject FROM crm_activity WHERE id = ?", (activity,)
    ) == ("", "Called back")


@pytest.mark.parametrize("link", ["account_id", "contact_id", "opportunity_id"])
def test_an_activity_links_cannot_be_changed_through_the_api(rep, store, world, facts, link):
    activity = _rep_activity(store, world, facts)
    before = rows(store, world, "SELECT * FROM crm_activity WHERE id = ?", (activity,))
    other = facts.rep_account if link == "account_id" else None
    moved = rep.patch(f"{API}/activities/{activity}", json={link: other}, headers=API_HEADERS)
    current = rep.get(f"{API}/activities/{activity}").get_json()["values"][link]
    if current == other:  # the same value sent back is no change
        assert moved.status_code == 200
    else:
        assert moved.status_code == 422
        assert moved.get_json()["error"]["field"] == link
    assert rows(store, world, "SELECT * FROM crm_activity WHERE id = ?", (activity,)) == before
    unchanged = rep.patch(f"{API}/activities/{activity}", json={link: current}, headers=API_HEADERS)
    assert unchanged.status_code == 200
