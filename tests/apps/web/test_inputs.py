"""Hostile input is refused by the web kit with a clear 4xx before it reaches SQLite: ids
beyond 64 bits in paths, queries and JSON, JSON nested too deeply, lone surrogates and query
bytes that are not UTF-8. Never a 500, and never a changed row."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.exceptions import BadRequest

from officegym.apps.web import WORLD_HEADER, create_app
from officegym.apps.web.inputs import MAX_JSON_DEPTH, parse_int
from tests.conftest import dump

from .conftest import login, world_facts

BEYOND_64_BITS = 2**63
API = {"X-Requested-With": "officegym"}


@pytest.fixture
def signed_in(web_store, scratch_world):
    """A test client signed in as the scratch world's CEO, with the world header on every
    request; yields (client, headers, world path)."""
    client = create_app({"WORLD_STORE": web_store, "SECRET_KEY": "inputs"}).test_client()
    headers = {WORLD_HEADER: scratch_world}
    ceo = world_facts(web_store, scratch_world).ceo
    assert login(client, ceo.email, world=scratch_world).status_code in (200, 302)
    return client, headers, web_store.world_path(scratch_world)


@pytest.mark.parametrize("number", [2**63, 2**64])
def test_a_path_id_beyond_64_bits_is_a_404_like_any_unknown_id(signed_in, number):
    client, headers, _ = signed_in
    assert client.get(f"/chat/c/{number}", headers=headers).status_code == 404
    assert client.get(f"/crm/api/accounts/{number}", headers=headers).status_code == 404


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_api_query_integer_beyond_64_bits_counts_as_the_largest_one(signed_in, sign):
    client, headers, _ = signed_in
    response = client.get(
        f"/chat/api/autocomplete/people?limit={sign}{BEYOND_64_BITS}", headers=headers
    )
    assert response.status_code == 200 if not sign else response.status_code < 500


def test_an_api_query_integer_that_is_no_number_is_a_422_naming_the_argument(signed_in):
    client, headers, _ = signed_in
    response = client.get("/chat/api/autocomplete/people?limit=²", headers=headers)
    assert response.status_code == 422
    assert response.get_json()["error"]["field"] == "limit"


def test_a_page_query_integer_beyond_64_bits_is_ignored_like_any_invalid_value(signed_in):
    client, headers, _ = signed_in
    response = client.get(f"/chat/activity?before={BEYOND_64_BITS}", headers=headers)
    assert response.status_code == 200


def test_a_json_id_beyond_64_bits_is_a_422_and_writes_nothing(signed_in):
    client, headers, path = signed_in
    before = dump(path)
    response = client.post(
        "/crm/api/accounts",
        json={"name": "Overflow Holdings", "owner_id": BEYOND_64_BITS},
        headers={**headers, **API},
    )
    assert response.status_code == 422
    assert response.get_json()["error"]["field"] == "owner_id"
    assert dump(path) == before


@pytest.mark.parametrize("levels", [1000, MAX_JSON_DEPTH + 1])
def test_json_nested_too_deeply_is_a_400_and_writes_nothing(signed_in, levels):
    client, headers, path = signed_in
    before = dump(path)
    body = '{"name": ' + "[" * levels + '"x"' + "]" * levels + "}"
    response = client.post(
        "/sheets/api/workbooks",
        data=body,
        content_type="application/json",
        headers={**headers, **API},
    )
    assert response.status_code == 400
    assert "nested too deeply" in response.get_json()["error"]["message"]
    assert dump(path) == before


def test_a_lone_surrogate_in_json_text_is_a_400_and_writes_nothing(signed_in):
    client, headers, path = signed_in
    before = dump(path)
    response = client.post(
        "/sheets/api/workbooks",
        data='{"name": "Plan \\ud800"}',
        content_type="application/json",
        headers={**headers, **API},
    )
    assert response.status_code == 400
    assert "lone surrogate" in response.get_json()["error"]["message"]
    assert dump(path) == before


def test_query_bytes_that_are_not_utf8_are_a_400_before_any_view(signed_in):
    client, headers, _ = signed_in
    # WSGI hands the raw query over as Latin-1 text; these bytes are a UTF-8-encoded surrogate.
    response = client.get(
        "/chat/search", headers=headers, environ_overrides={"QUERY_STRING": "q=\xed\xa0\x80"}
    )
    assert response.status_code == 400
    assert "UTF-8" in response.get_data(as_text=True)


def test_a_lone_surrogate_in_a_form_field_is_refused_before_any_view(app, facts_a):
    # Werkzeug's form parsers never produce a lone surrogate from the wire, so the form is
    # set on the request directly: the kit's check still stands between it and the views.
    with app.test_request_context("/chat/status", method="POST", data={"text": "x"}) as ctx:
        ctx.request.__dict__["form"] = ImmutableMultiDict({"text": "away \ud800"})
        with pytest.raises(BadRequest, match="lone surrogate"):
            app.preprocess_request()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("12", 12), (" 7 ", 7), ("", None), ("-3", None), ("\u00b2", None), ("1e3", None)],
)
def test_parse_int_reads_ascii_digits_only(text, expected):
    assert parse_int(text) == expected


def test_parse_int_treats_a_number_beyond_the_query_bound_as_invalid():
    assert parse_int(str(BEYOND_64_BITS), default=1) == 1
