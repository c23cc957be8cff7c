"""Fixtures for the CRM: a fresh tiny world per test, a service session on it, the people and
records the tests act on (picked by rule from the golden, never by generated name), and the
web app with signed-in clients.

The session-scoped `store` (tests/conftest.py) builds the tiny seed-0 golden once per process;
`world` copies it for each test and drops it afterwards.

`db` holds a write transaction (BEGIN IMMEDIATE) for the whole test: don't use it together with
`client` in one test (the app would wait for the lock); read state after HTTP requests with
`rows(...)` or `store.diff(world)` instead.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.schema import Employee
from officegym.seed_data.store import WorldStore
from tests.conftest import csrf_token as csrf_token  # re-exported for the CRM tests
from tests.conftest import login as sign_in_form

API = "/crm/api"
API_HEADERS = {"X-Requested-With": "officegym"}
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    email: str


@dataclass(frozen=True)
class CrmFacts:
    """People and records of the tiny seed-0 world, picked by the rules the tests need."""

    rep: Person  # a member who owns open deals
    other_rep: Person  # another member who owns deals, not managed by `rep`
    manager: Person  # a manager with `rep` among their (indirect) reports
    outside_manager: Person  # a manager without `rep` or `other_rep` below them
    admin: Person
    bystander: Person  # an active member who owns no CRM records
    inactive: Person
    rep_opportunity: int  # an open deal owned by `rep`
    rep_opportunities: tuple[int, ...]  # every open deal owned by `rep`
    other_opportunity: int  # an open deal owned by `other_rep`
    rep_account: int  # an account owned by `rep`
    rep_contact: int  # a contact owned by `rep`
    other_contact: int  # a contact owned by `other_rep`
    rep_lead: int  # an unconverted lead owned by `rep` (or by `other_rep` if rep has none)
    lead_owner: Person
    converted_lead: int
    duplicate_contacts: tuple[int, int]  # (original, duplicate)
    duplicate_accounts: tuple[int, int]  # (original, duplicate)
    stale_opportunity: int


def _person(conn: sqlite3.Connection, emp_id: int) -> Person:
    row = conn.execute(
        "SELECT id, display_name, email FROM people_employee WHERE id = ?", (emp_id,)
    ).fetchone()
    return Person(*row)


def _below(conn: sqlite3.Connection, manager_id: int) -> set[int]:
    found: set[int] = set()
    frontier = [manager_id]
    while frontier:
        ids = [
            r[0]
            for r in conn.execute(
                f"SELECT id FROM people_employee WHERE manager_id IN ({','.join('?' * len(frontier))})",
                frontier,
            )
        ]
        frontier = [i for i in ids if i not in found]
        found.update(frontier)
    return found


def read_facts(path: Path | str) -> CrmFacts:
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        open_stage = "stage NOT IN ('Closed Won', 'Closed Lost')"
        owners = [
            r[0]
            for r in conn.execute(
                f"SELECT o.owner_id FROM crm_opportunity o JOIN people_employee e "
                f"ON e.id = o.owner_id WHERE {open_stage} AND e.role = 'member' AND e.is_active "
                "GROUP BY o.owner_id ORDER BY count(*) DESC, o.owner_id"
            )
        ]
        rep, other = owners[0], owners[1]
        managers = [
            r[0]
            for r in conn.execute(
                "SELECT id FROM people_employee WHERE role = 'manager' AND is_active ORDER BY id"
            )
        ]
        manager = next(m for m in managers if rep in _below(conn, m))
        outside = next(
            m for m in managers if not ({rep, other} & _below(conn, m)) and m not in (rep, other)
        )
        admin = conn.execute(
            "SELECT id FROM people_employee WHERE role = 'admin' AND is_active ORDER BY id"
        ).fetchone()[0]
        owning = set()
        for table in ("crm_account", "crm_contact", "crm_lead", "crm_opportunity", "crm_activity"):
            owning |= {r[0] for r in conn.execute(f"SELECT DISTINCT owner_id FROM {table}")}
        owning |= {r[0] for r in conn.execute("SELECT DISTINCT author_id FROM crm_note")}
        bystander = conn.execute(
            f"SELECT id FROM people_employee WHERE role = 'member' AND is_active "
            f"AND id NOT IN ({','.join(map(str, owning))}) ORDER BY id"
        ).fetchone()[0]
        inactive = conn.execute(
            "SELECT id FROM people_employee WHERE NOT is_active ORDER BY id"
        ).fetchone()[0]

        def ids(sql: str, *params) -> list[int]:
            return [r[0] for r in conn.execute(sql, params)]

        rep_opps = ids(
            f"SELECT id FROM crm_opportunity WHERE owner_id = ? AND {open_stage} ORDER BY id", rep
        )
        other_opp = ids(
            f"SELECT id FROM crm_opportunity WHERE owner_id = ? AND {open_stage} ORDER BY id", other
        )[0]
        rep_account = ids("SELECT id FROM crm_account WHERE owner_id = ? ORDER BY id", rep)[0]
        rep_contact = ids("SELECT id FROM crm_contact WHERE owner_id = ? ORDER BY id", rep)[0]
        other_contact = ids("SELECT id FROM crm_contact WHERE owner_id = ? ORDER BY id", other)[0]
        lead = conn.execute(
            "SELECT id, owner_id FROM crm_lead WHERE status NOT IN ('Converted') "
            "ORDER BY owner_id != ?, id LIMIT 1",
            (rep,),
        ).fetchone()
        converted = ids("SELECT id FROM crm_lead WHERE status = 'Converted' ORDER BY id")[0]
        dup_contact = conn.execute(
            "SELECT other_id, row_id FROM world_oddity WHERE kind = 'duplicate_contact' "
            "ORDER BY id LIMIT 1"
        ).fetchone()
        dup_account = conn.execute(
            "SELECT other_id, row_id FROM world_oddity WHERE kind = 'duplicate_account' "
            "ORDER BY id LIMIT 1"
        ).fetchone()
        stale = ids("SELECT row_id FROM world_oddity WHERE kind = 'stale_deal' ORDER BY id")[0]
        return CrmFacts(
            rep=_person(conn, rep),
            other_rep=_person(conn, other),
            manager=_person(conn, manager),
            outside_manager=_person(conn, outside),
            admin=_person(conn, admin),
            bystander=_person(conn, bystander),
            inactive=_person(conn, inactive),
            rep_opportunity=rep_opps[0],
            rep_opportunities=tuple(rep_opps),
            other_opportunity=other_opp,
            rep_account=rep_account,
            rep_contact=rep_contact,
            other_contact=other_contact,
            rep_lead=lead[0],
            lead_owner=_person(conn, lead[1]),
            converted_lead=converted,
            duplicate_contacts=tuple(dup_contact),
            duplicate_accounts=tuple(dup_account),
            stale_opportunity=stale,
        )
    finally:
        conn.close()


@pytest.fixture(scope="session")
def facts(store: WorldStore) -> CrmFacts:
    return read_facts(store.golden(0, "tiny"))


@pytest.fixture
def db(store: WorldStore, world: str) -> Iterator[Session]:
    """A write session on the test's fresh world, like a request's (nothing commits itself)."""
    engine = make_engine(store.world_path(world), create=False)
    session = Session(writer(engine))
    yield session
    session.close()
    engine.dispose()


def employee(db: Session, person: Person | int) -> Employee:
    """The Employee row to act as."""
    return db.get(Employee, person if isinstance(person, int) else person.id)


def rows(store: WorldStore, world: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Query a world file directly (read-only), e.g. to assert on state after HTTP requests."""
    conn = sqlite3.connect(f"file:{store.world_path(world).resolve()}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def one(store: WorldStore, world: str, sql: str, params: tuple = ()):
    found = rows(store, world, sql, params)
    assert len(found) == 1, found
    return found[0][0] if len(found[0]) == 1 else found[0]


# -- web --------------------------------------------------------------------------------------


@pytest.fixture
def app(store: WorldStore, world: str):
    """The whole web app serving the test's world by default."""
    from officegym.apps.web import create_app

    flask_app = create_app({"WORLD_STORE": store, "DEFAULT_WORLD": world, "SECRET_KEY": "t"})
    flask_app.config["TESTING"] = True
    return flask_app


@pytest.fixture
def client(app):
    return app.test_client()


def login(client, email: str, password: str = DEMO_PASSWORD):
    """Sign `client` in through the real login form."""
    response = sign_in_form(client, email, password)
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    return response


@pytest.fixture
def as_person(app):
    """`as_person(person)` -> a test client signed in as that person."""

    def make(person: Person):
        c = app.test_client()
        login(c, person.email)
        return c

    return make


def token(client, path: str = "/crm/accounts/new") -> str:
    """A CSRF token from a CRM form page."""
    match = CSRF_FIELD.search(client.get(path).get_data(as_text=True))
    assert match, f"no csrf_token on {path}"
    return match.group(1)


# -- UI fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ui_world(store: WorldStore) -> Iterator[str]:
    """A fresh tiny world shared by one browser test module (tests pick their own records)."""
    from tests.conftest import new_world_id

    world_id = new_world_id("crmui")
    store.create(world_id, 0, "tiny")
    yield world_id
    store.drop(world_id)


@pytest.fixture(scope="module")
def live_server(store: WorldStore, ui_world: str):
    """The whole app on a real waitress server on a free port, one per test module."""
    from officegym.apps.web import start_background_server

    server = start_background_server(store, config={"SECRET_KEY": "crm-ui"})
    yield server
    server.stop()


@pytest.fixture
def sign_in(browser, live_server, ui_world):
    """`sign_in(email)` -> a page signed in to the module's world (contexts closed after)."""
    from officegym.apps.web import WORLD_HEADER

    contexts = []

    def open_page(email: str):
        context = browser.new_context(
            extra_http_headers={WORLD_HEADER: ui_world},
            viewport={"width": 1360, "height": 900},
            accept_downloads=True,
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_server.url}/login")
        page.fill("#email", email)
        page.fill("#password", DEMO_PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        return page

    yield open_page
    for context in contexts:
        context.close()
