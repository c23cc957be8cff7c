"""World binding: the header picks the world, bad ids are 404s that touch nothing, engines are
cached and refreshed, and each request is one transaction that commits only on success."""

from __future__ import annotations

import os
import shutil
import sqlite3

import pytest
from flask import abort
from sqlalchemy import select, update

from officegym.apps.web import WORLD_HEADER, create_app, get_db
from officegym.apps.web.world import engines
from officegym.seed_data.schema import Employee

from .conftest import WORLD_A, WORLD_B, csrf_token, home_listing, new_world_id

MALFORMED = {
    "dot-dot": "../x",
    "long": "a" * 300,
    "sql": "1; DROP TABLE people_employee",
    "unicode": "wörld",
    "upper": "UPPER",
    "empty": "",
    "slash": "a/b",
    "very-long": "w" * 10_000,
}


def test_request_without_header_uses_the_default_world(client, facts_a):
    assert facts_a.company in client.get("/login").get_data(as_text=True)


def test_header_selects_the_world(client, facts_b):
    page = client.get("/login", headers={WORLD_HEADER: WORLD_B})
    assert facts_b.company in page.get_data(as_text=True)


def test_default_world_is_configurable(web_store, facts_b):
    app = create_app({"WORLD_STORE": web_store, "DEFAULT_WORLD": WORLD_B})
    assert facts_b.company in app.test_client().get("/login").get_data(as_text=True)


@pytest.mark.parametrize("value", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_world_header_is_404_and_creates_nothing(client, web_store, value):
    client.get("/login")  # warm the default world first
    before = home_listing(web_store)
    for path in ("/", "/login", "/no/such/page"):
        response = client.get(path, headers={WORLD_HEADER: value})
        html = response.get_data(as_text=True)
        assert response.status_code == 404
        assert "No such world" in html
        assert "Traceback" not in html
    post = client.post("/login", headers={WORLD_HEADER: value}, data={"email": "x"})
    assert post.status_code == 404
    assert home_listing(web_store) == before


def test_unknown_world_is_404_and_creates_nothing(client, web_store):
    client.get("/login")
    before = home_listing(web_store)
    response = client.get("/login", headers={WORLD_HEADER: "nosuchworld"})
    assert response.status_code == 404
    assert "No such world" in response.get_data(as_text=True)
    assert not web_store.exists("nosuchworld")
    assert home_listing(web_store) == before


def test_no_such_world_page_does_not_echo_the_id(client):
    html = client.get("/", headers={WORLD_HEADER: "zq9secretworld"}).get_data(as_text=True)
    assert "zq9secretworld" not in html


def test_pages_never_show_the_world_id(client, web_store, facts_a):
    world_id = new_world_id("zq7hidden")
    web_store.create(world_id, 0, "tiny")
    try:
        headers = {WORLD_HEADER: world_id}
        pages = [client.get("/login", headers=headers)]
        data = {"email": facts_a.ceo.email, "password": "wrong"}
        pages.append(client.post("/login", headers=headers, data=data))
        data["password"] = "officegym"
        data["csrf_token"] = csrf_token(client, headers=headers)
        client.post("/login", headers=headers, data=data)
        pages += [client.get(p, headers=headers) for p in ("/", "/missing")]
        assert [p.status_code for p in pages] == [200, 400, 200, 404]
        for page in pages:
            assert world_id not in page.get_data(as_text=True)
            assert world_id not in str(page.headers)
    finally:
        web_store.drop(world_id)


def test_static_files_are_served_whatever_the_header(client):
    response = client.get("/static/css/officegym.css", headers={WORLD_HEADER: "../x"})
    assert response.status_code == 200
    assert "--font" in response.get_data(as_text=True)


def test_engines_are_cached_per_world_and_bounded(web_store):
    app = create_app({"WORLD_STORE": web_store, "WORLD_ENGINE_CACHE": 2})
    client = app.test_client()
    extra = new_world_id()
    web_store.create(extra, 0, "tiny")
    try:
        for world_id in (WORLD_A, WORLD_B, extra, WORLD_B):
            assert client.get("/login", headers={WORLD_HEADER: world_id}).status_code == 200
        assert engines(app).cached() == [extra, WORLD_B]
    finally:
        web_store.drop(extra)


def test_dropped_world_becomes_404(client, web_store):
    world_id = new_world_id()
    web_store.create(world_id, 0, "tiny")
    headers = {WORLD_HEADER: world_id}
    assert client.get("/login", headers=headers).status_code == 200
    web_store.drop(world_id)
    assert client.get("/login", headers=headers).status_code == 404
    assert not web_store.exists(world_id)


def test_world_replaced_through_the_store_is_served_fresh(app, client, web_store, facts_b):
    world_id = new_world_id()
    web_store.create(world_id, 0, "tiny")
    try:
        headers = {WORLD_HEADER: world_id}
        client.get("/login", headers=headers)
        web_store.create(world_id, 1, "tiny", replace=True)
        assert world_id not in engines(app).cached()
        assert facts_b.company in client.get("/login", headers=headers).get_data(as_text=True)
    finally:
        web_store.drop(world_id)


def test_world_file_replaced_behind_the_stores_back_is_detected(client, web_store, facts_b):
    world_id = new_world_id()
    web_store.create(world_id, 0, "tiny")
    try:
        headers = {WORLD_HEADER: world_id}
        client.get("/login", headers=headers)
        path = web_store.world_path(world_id)
        copy = path.with_name("replacement.tmp")
        shutil.copyfile(web_store.world_path(WORLD_B), copy)
        os.replace(copy, path)
        assert facts_b.company in client.get("/login", headers=headers).get_data(as_text=True)
    finally:
        web_store.drop(world_id)


def test_reset_world_is_served_in_its_golden_state(client, web_store, scratch_world, facts_a):
    headers = {WORLD_HEADER: scratch_world}
    client.get("/login", headers=headers)
    conn = sqlite3.connect(web_store.world_path(scratch_world))
    with conn:
        conn.execute("UPDATE world_meta SET company_name = 'Renamed Co' WHERE id = 1")
    conn.close()
    assert "Renamed Co" in client.get("/login", headers=headers).get_data(as_text=True)
    web_store.reset(scratch_world)
    assert facts_a.company in client.get("/login", headers=headers).get_data(as_text=True)


# -- request-scoped sessions -----------------------------------------------------------------


@pytest.fixture
def data_app(web_store):
    """An app with test views that read and write through get_db() (CSRF off: not under test)."""
    app = create_app({"WORLD_STORE": web_store, "WTF_CSRF_ENABLED": False})

    @app.route("/_t/begin", methods=("GET", "POST"))
    def begin_mode():
        return get_db().get_bind().get_execution_options().get("sqlite_begin", "DEFERRED")

    @app.post("/_t/status/<outcome>")
    def set_status(outcome: str):
        db = get_db()
        db.execute(update(Employee).where(Employee.id == 1).values(status_text=outcome))
        if outcome == "raise":
            raise RuntimeError("boom")
        if outcome == "conflict":
            abort(409)
        return "saved"

    @app.get("/_t/status/write")
    def write_in_get():
        db = get_db()
        db.execute(update(Employee).where(Employee.id == 1).values(status_text="from a GET"))
        db.flush()
        return "wrote"

    @app.get("/_t/status")
    def get_status():
        return get_db().scalar(select(Employee.status_text).where(Employee.id == 1))

    return app


def _status(store, world_id) -> str:
    conn = sqlite3.connect(store.world_path(world_id))
    try:
        return conn.execute("SELECT status_text FROM people_employee WHERE id = 1").fetchone()[0]
    finally:
        conn.close()


def test_reads_use_deferred_and_writes_immediate_transactions(data_app):
    client = data_app.test_client()
    assert client.get("/_t/begin").get_data(as_text=True) == "DEFERRED"
    assert client.post("/_t/begin").get_data(as_text=True) == "IMMEDIATE"


def test_a_page_view_cannot_write_to_its_world(data_app, web_store, scratch_world):
    before = _status(web_store, scratch_world)
    client = data_app.test_client()
    response = client.get("/_t/status/write", headers={WORLD_HEADER: scratch_world})
    assert response.status_code == 500
    assert _status(web_store, scratch_world) == before
    # The pooled connection goes back to writing for the next unsafe request.
    assert client.post("/_t/status/saved", headers={WORLD_HEADER: scratch_world}).status_code == 200
    assert _status(web_store, scratch_world) == "saved"


def test_successful_write_request_commits(data_app, web_store, scratch_world):
    client = data_app.test_client()
    headers = {WORLD_HEADER: scratch_world}
    assert client.post("/_t/status/saved", headers=headers).status_code == 200
    assert _status(web_store, scratch_world) == "saved"
    assert client.get("/_t/status", headers=headers).get_data(as_text=True) == "saved"


def test_request_that_raises_rolls_back(data_app, web_store, scratch_world):
    before = _status(web_store, scratch_world)
    client = data_app.test_client()
    response = client.post("/_t/status/raise", headers={WORLD_HEADER: scratch_world})
    assert response.status_code == 500
    assert _status(web_store, scratch_world) == before


def test_request_that_ends_in_an_error_status_rolls_back(data_app, web_store, scratch_world):
    before = _status(web_store, scratch_world)
    client = data_app.test_client()
    response = client.post("/_t/status/conflict", headers={WORLD_HEADER: scratch_world})
    assert response.status_code == 409
    assert _status(web_store, scratch_world) == before


def test_get_db_outside_a_bound_request_is_an_error(app):
    with app.test_request_context("/"), pytest.raises(RuntimeError, match="bound to a world"):
        get_db()
