"""Fixtures for the web kit: a store with two tiny worlds, apps, clients, a live server, Chromium.

World facts (company, CEO, a member, a deactivated employee) are read straight from the world
files, so the tests never depend on particular generated names.
"""

from __future__ import annotations

import http.client
import itertools
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from officegym.apps.registry import MainPage, main_pages
from officegym.apps.web import WORLD_HEADER, create_app, start_background_server
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore
from tests.conftest import csrf_token as csrf_token  # re-exported for the web tests
from tests.conftest import login as login

WORLD_A = "default"
WORLD_B = "second"
_ids = itertools.count()


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    email: str
    title: str


@dataclass(frozen=True)
class WorldFacts:
    company: str
    ceo: Person
    member: Person


def world_facts(store: WorldStore, world_id: str) -> WorldFacts:
    conn = sqlite3.connect(f"file:{store.world_path(world_id)}?mode=ro", uri=True)
    try:
        (company,) = conn.execute("SELECT company_name FROM world_meta WHERE id = 1").fetchone()
        people = [
            Person(*row)
            for row in conn.execute(
                "SELECT id, display_name, email, title FROM people_employee "
                "WHERE is_active ORDER BY manager_id IS NOT NULL, id"
            )
        ]
    finally:
        conn.close()
    return WorldFacts(company=company, ceo=people[0], member=people[-1])


def deactivate(store: WorldStore, world_id: str, employee_id: int) -> None:
    """Arrange: mark an employee inactive, straight in the world file."""
    conn = sqlite3.connect(store.world_path(world_id))
    try:
        with conn:
            conn.execute("UPDATE people_employee SET is_active = 0 WHERE id = ?", (employee_id,))
    finally:
        conn.close()


def new_world_id(prefix: str = "web") -> str:
    return f"{prefix}{next(_ids)}"


def home_listing(store: WorldStore) -> list[str]:
    """Every path under the store's home, ignoring SQLite's WAL side files of existing worlds
    (they come and go with connections)."""
    worlds = {f"{w}.sqlite" for w in store.worlds()}
    names = []
    for path in sorted(store.home.rglob("*")):
        base, _, suffix = path.name.rpartition("-")
        if suffix in ("wal", "shm") and base in worlds:
            continue
        names.append(str(path.relative_to(store.home)))
    return names


# -- worlds and apps ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def web_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorldStore]:
    """A store with world A (tiny, seed 0) and world B (tiny, seed 1), built once per process."""
    store = WorldStore(tmp_path_factory.mktemp("web-home"))
    store.create(WORLD_A, 0, "tiny")
    store.create(WORLD_B, 1, "tiny")
    yield store
    store.close()


@pytest.fixture(scope="session")
def facts_a(web_store: WorldStore) -> WorldFacts:
    return world_facts(web_store, WORLD_A)


@pytest.fixture(scope="session")
def facts_b(web_store: WorldStore) -> WorldFacts:
    return world_facts(web_store, WORLD_B)


@pytest.fixture
def scratch_world(web_store: WorldStore) -> Iterator[str]:
    """A fresh world (tiny, seed 0) a test may change, dropped afterwards."""
    world_id = new_world_id()
    web_store.create(world_id, 0, "tiny")
    yield world_id
    web_store.drop(world_id)


@pytest.fixture
def app(web_store: WorldStore):
    return create_app({"WORLD_STORE": web_store, "SECRET_KEY": "web-tests"})


@pytest.fixture
def client(app):
    return app.test_client()


# -- a real server ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def live_server(web_store: WorldStore):
    """The app on a real waitress server on a free port, one per test module."""
    server = start_background_server(web_store, config={"SECRET_KEY": "web-tests"})
    yield server
    server.stop()


def raw_get(server, path: str, headers: dict[str, str | bytes] | None = None):
    """GET with exact header bytes (http.client, no normalisation); returns (status, body)."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.putrequest("GET", path)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


# -- a real browser -----------------------------------------------------------------------


# -- every app's main pages on the small world ----------------------------------------------

SMALL_WORLD = "main-pages"


@pytest.fixture(scope="session")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorldStore]:
    """A store with one small seed-0 world, for checks over every app's main pages."""
    store = WorldStore(tmp_path_factory.mktemp("small-home"))
    store.create(SMALL_WORLD, 0, "small")
    yield store
    store.close()


@pytest.fixture(scope="session")
def small_server(small_store: WorldStore):
    server = start_background_server(small_store, config={"SECRET_KEY": "main-pages"})
    yield server
    server.stop()


@pytest.fixture(scope="session")
def main_pages_small(small_store: WorldStore) -> list[MainPage]:
    return main_pages(small_store.world_path(SMALL_WORLD))


def signed_in_page(browser, server, user: str, viewport: tuple[int, int] = (1280, 800)):
    """A new context on `server`'s small world at `viewport`, signed in as `user`."""
    width, height = viewport
    context = browser.new_context(
        base_url=server.url,
        extra_http_headers={WORLD_HEADER: SMALL_WORLD},
        viewport={"width": width, "height": height},
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto("/login")
    page.get_by_label("Work email").fill(user)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(server.url + "/")
    return context, page
