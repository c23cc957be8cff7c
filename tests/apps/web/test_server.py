"""The real server: waitress in a background thread, many threads, raw header bytes."""

from __future__ import annotations

import http.client
import os
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.cookiejar import CookieJar

import pytest

from officegym.apps.web import WORLD_HEADER, start_background_server

from .conftest import WORLD_A, WORLD_B, home_listing, raw_get

RAW_MALFORMED = {
    "dot-dot": b"../x",
    "long": b"a" * 300,
    "sql": b"1; DROP TABLE people_employee",
    "unicode-utf8": "wörld".encode(),
    "upper": b"UPPER",
    "percent": b"%2e%2e%2fx",
    "very-long": b"w" * 10_000,
}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _opener(world: str):
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(CookieJar()), _NoRedirect()
    )
    opener.addheaders = [(WORLD_HEADER, world)]
    return opener


def _open(opener, url: str, data: dict | None = None) -> tuple[int, str, dict]:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with opener.open(url, data=body, timeout=10) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def test_server_reports_its_url_and_port(live_server):
    assert live_server.port > 0
    assert live_server.url == f"http://127.0.0.1:{live_server.port}"


def test_login_and_launcher_over_http(live_server, facts_a):
    opener = _opener(WORLD_A)
    status, html, _ = _open(opener, live_server.url + "/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    form = {"email": facts_a.ceo.email, "password": "officegym", "csrf_token": token}
    status, _, headers = _open(opener, live_server.url + "/login", form)
    assert status == 302 and headers["Location"] == "/"
    status, html, headers = _open(opener, live_server.url + "/")
    assert status == 200
    assert facts_a.ceo.name in html
    assert headers["Server"] == "officegym"


def test_csrf_less_post_is_refused_over_http(live_server, facts_a):
    form = {"email": facts_a.ceo.email, "password": "officegym"}
    status, html, _ = _open(_opener(WORLD_A), live_server.url + "/login", form)
    assert status == 400
    assert "security token" in html


@pytest.mark.parametrize("value", RAW_MALFORMED.values(), ids=RAW_MALFORMED.keys())
def test_malformed_header_bytes_are_404_and_create_nothing(live_server, web_store, value):
    raw_get(live_server, "/login")
    before = home_listing(web_store)
    status, body = raw_get(live_server, "/login", {WORLD_HEADER: value})
    assert status == 404
    assert "No such world" in body
    assert home_listing(web_store) == before


def test_header_with_control_bytes_is_rejected_before_the_app(live_server, web_store):
    before = home_listing(web_store)
    status, _ = raw_get(live_server, "/login", {WORLD_HEADER: b"a\x00b"})
    assert status == 400
    assert home_listing(web_store) == before


def test_empty_header_is_404_not_the_default_world(live_server):
    status, body = raw_get(live_server, "/login", {WORLD_HEADER: b""})
    assert status == 404


def test_header_with_underscores_cannot_smuggle_a_world(live_server, facts_a):
    status, body = raw_get(live_server, "/login", {"X_OfficeGym_World": WORLD_B})
    assert status == 200
    assert facts_a.company in body


def test_concurrent_requests_each_see_their_own_world(live_server, facts_a, facts_b):
    expected = {WORLD_A: facts_a.company, WORLD_B: facts_b.company}

    def fetch(i: int) -> bool:
        world = (WORLD_A, WORLD_B)[i % 2]
        status, body = raw_get(live_server, "/login", {WORLD_HEADER: world})
        other = expected[(WORLD_B, WORLD_A)[i % 2]]
        return status == 200 and expected[world] in body and other not in body

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(fetch, range(48)))


def test_stopped_server_refuses_connections(web_store):
    server = start_background_server(web_store)
    assert raw_get(server, "/login")[0] == 200
    server.stop()
    server.stop()  # idempotent
    with pytest.raises(OSError):
        socket.create_connection((server.host, server.port), timeout=2).close()


def test_stop_closes_the_server_when_its_wake_up_pipe_is_gone(web_store):
    server = start_background_server(web_store)
    os.close(server._server.trigger.trigger)  # as if closed under it by someone else
    server._server.trigger._fds = [server._server.trigger._fds[0]]
    server.stop()
    with pytest.raises(OSError):
        socket.create_connection((server.host, server.port), timeout=2).close()


def test_keep_alive_connection_is_closed_by_stop(web_store):
    server = start_background_server(web_store)
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    conn.request("GET", "/login")
    assert conn.getresponse().read()
    server.stop()
    with pytest.raises((OSError, http.client.HTTPException)):
        conn.request("GET", "/login")
        conn.getresponse().read()
    conn.close()
