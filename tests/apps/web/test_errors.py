"""Error pages: one template for every status, JSON for API clients, never a stack trace."""

from __future__ import annotations

import logging

import pytest
from flask import abort

from officegym.apps.web import create_app

STATUSES = [400, 401, 403, 404, 405, 409, 422, 500]


@pytest.fixture
def error_app(web_store):
    app = create_app({"WORLD_STORE": web_store})

    @app.get("/_t/abort/<int:status>")
    @app.get("/api/_t/abort/<int:status>")
    def raise_status(status: int):
        abort(status)

    @app.get("/_t/explain")
    def explain():
        abort(403, "You can't cancel another person's booking.")

    @app.get("/_t/crash")
    @app.get("/api/_t/crash")
    def crash():
        raise RuntimeError("secret internal detail")

    return app


@pytest.mark.parametrize("status", STATUSES)
def test_every_error_status_renders_the_error_page(error_app, status):
    response = error_app.test_client().get(f"/_t/abort/{status}")
    html = response.get_data(as_text=True)
    assert response.status_code == status
    assert response.mimetype == "text/html"
    assert f"Error {status}" in html
    assert '<main id="main"' in html
    assert "Traceback" not in html


@pytest.mark.parametrize("status", STATUSES)
def test_api_errors_are_json(error_app, status):
    response = error_app.test_client().get(f"/api/_t/abort/{status}")
    assert response.status_code == status
    error = response.get_json()["error"]
    assert error["status"] == status
    assert error["title"] and error["message"]


def test_json_is_sent_to_clients_that_prefer_it(error_app):
    response = error_app.test_client().get("/nope", headers={"Accept": "application/json"})
    assert response.status_code == 404
    assert response.get_json()["error"]["title"] == "Page not found"


def test_browsers_get_html(error_app):
    accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    response = error_app.test_client().get("/nope", headers={"Accept": accept})
    assert response.mimetype == "text/html"


def test_unknown_route_is_a_friendly_404(client):
    response = client.get("/definitely/not/here")
    html = response.get_data(as_text=True)
    assert response.status_code == 404
    assert "Page not found" in html
    assert "doesn&#39;t exist" in html


def test_wrong_method_is_405_with_allow_header(client):
    response = client.delete("/login")
    assert response.status_code == 405
    assert "Method not allowed" in response.get_data(as_text=True)
    assert "POST" in response.headers["Allow"]


def test_an_explained_abort_shows_its_message(error_app):
    html = error_app.test_client().get("/_t/explain").get_data(as_text=True)
    assert "You can&#39;t cancel another person&#39;s booking." in html


def test_unhandled_exception_is_a_500_page_without_details_and_is_logged(error_app, caplog):
    with caplog.at_level(logging.ERROR):
        response = error_app.test_client().get("/_t/crash")
    html = response.get_data(as_text=True)
    assert response.status_code == 500
    assert "Something went wrong" in html
    assert "secret internal detail" not in html
    assert "Traceback" not in html
    logged = [r for r in caplog.records if r.exc_info]
    assert logged and "secret internal detail" in str(logged[0].exc_info[1])


def test_unhandled_exception_in_api_is_json_500(error_app):
    response = error_app.test_client().get("/api/_t/crash")
    assert response.status_code == 500
    assert "secret" not in response.get_data(as_text=True)
    assert response.get_json()["error"]["status"] == 500


def test_json_nested_too_deeply_is_a_400_not_a_500(web_store):
    from officegym.apps.web.jsonapi import json_body

    app = create_app({"WORLD_STORE": web_store, "WTF_CSRF_ENABLED": False})

    @app.post("/api/_t/echo")
    def echo():
        return {"keys": sorted(json_body())}

    body = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    response = app.test_client().post("/api/_t/echo", data=body, content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply" in response.get_json()["error"]["message"]
