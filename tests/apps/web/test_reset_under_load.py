"""A world reset while the real server answers requests: each page shows one world, whole."""

from __future__ import annotations

import http.cookiejar
import threading
import urllib.parse
import urllib.request

from officegym.apps.web import WORLD_HEADER, start_background_server
from officegym.seed_data.connect import connect
from officegym.seed_data.passwords import DEMO_PASSWORD
from tests.apps.web.conftest import world_facts
from tests.conftest import CSRF_FIELD

MARK_COMPANY = "Mixcheck Holdings"
MARK_TITLE = "Mixcheck Officer"


def signed_in_opener(url: str, world: str, email: str) -> urllib.request.OpenerDirector:
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    opener.addheaders = [(WORLD_HEADER, world)]
    page = opener.open(url + "/login", timeout=10).read().decode()
    token = CSRF_FIELD.search(page).group(1)
    form = urllib.parse.urlencode(
        {"email": email, "password": DEMO_PASSWORD, "csrf_token": token}
    ).encode()
    landing = opener.open(url + "/login", data=form, timeout=10)
    assert landing.status == 200 and landing.url.rstrip("/") == url.rstrip("/")
    return opener


def test_requests_during_resets_see_the_old_or_the_new_world_never_an_error_or_a_mix(
    web_store, scratch_world
):
    person = world_facts(web_store, scratch_world).member
    server = start_background_server(web_store, config={"SECRET_KEY": "load"})
    pages: list[tuple[int, bool, bool]] = []
    errors: list[BaseException] = []
    stop = threading.Event()
    served = threading.Condition()

    def wait_for_pages(count: int) -> None:
        """Let readers fetch `count` more pages (bounded) so each state is seen under load."""
        with served:
            target = len(pages) + count
            served.wait_for(lambda: len(pages) >= target or bool(errors), timeout=10)

    try:
        openers = [signed_in_opener(server.url, scratch_world, person.email) for _ in range(3)]

        def read(opener) -> None:
            try:
                while not stop.is_set():
                    response = opener.open(server.url, timeout=10)
                    body = response.read().decode()
                    with served:
                        pages.append((response.status, MARK_COMPANY in body, MARK_TITLE in body))
                        served.notify_all()
            except BaseException as exc:
                with served:
                    errors.append(exc)
                    served.notify_all()

        readers = [threading.Thread(target=read, args=(o,)) for o in openers]
        for r in readers:
            r.start()
        conn = connect(web_store.world_path(scratch_world))
        try:
            for _ in range(30):
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("UPDATE world_meta SET company_name = ?", (MARK_COMPANY,))
                conn.execute(
                    "UPDATE people_employee SET title = ? WHERE id = ?", (MARK_TITLE, person.id)
                )
                conn.execute("COMMIT")
                wait_for_pages(2)
                web_store.reset(scratch_world)
                wait_for_pages(2)
        finally:
            conn.close()
            stop.set()
            for r in readers:
                r.join()
    finally:
        server.stop()
    assert errors == []
    assert pages, "no page was served"
    assert {status for status, _, _ in pages} == {200}
    assert all(company == title for _, company, title in pages), "a page mixed two worlds"
    assert {company for _, company, _ in pages} == {True, False}, "never caught a changed world"
