"""Fixtures for Sheets: a fresh tiny world per test, the workbook the tests act on and the
people around it (picked by rule from the golden, never by generated name), the web app with
signed-in clients, and helpers that read state straight from the world file.

The session-scoped `store` (tests/conftest.py) builds the tiny seed-0 golden once per process;
`world` copies it for each test (always under one id) and drops it afterwards.

The golden shares workbooks for viewing only, so `editor` first gets edit access from the
owner through the service (one `sheets_edit` row, like any share). `db` holds a write
transaction for the whole test: don't use it together with a client in one test; read state
after HTTP requests with `rows(...)`, `cells(...)` or `dump(...)` instead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.schema import Employee
from officegym.seed_data.store import WorldStore
from tests.conftest import dump as dump_file
from tests.conftest import login as sign_in_form

API = "/sheets/api"
HEADERS = {"X-Requested-With": "officegym"}


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    email: str


@dataclass(frozen=True)
class SheetsFacts:
    """The workbook the tests act on and the people around it, from the tiny seed-0 golden."""

    workbook: int  # the lowest-id live workbook with two or more sheets and two or more shares
    name: str
    sheet: int  # its first sheet (a header row, data below, formulas)
    sheet_name: str
    second_sheet: int
    second_sheet_name: str
    owner: Person
    viewer: Person  # the first person it is shared with (view)
    editor: Person  # the second person it is shared with (given edit access by `editor`)
    stranger: Person  # an active member with no access to it
    other_workbook: int  # a workbook of someone else that the owner cannot see


def _person(conn: sqlite3.Connection, emp_id: int) -> Person:
    row = conn.execute(
        "SELECT id, display_name, email FROM people_employee WHERE id = ?", (emp_id,)
    ).fetchone()
    return Person(*row)


def read_facts(path: Path | str) -> SheetsFacts:
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        book, name, owner = conn.execute(
            "SELECT w.id, w.name, w.owner_id FROM sheets_workbook w "
            "JOIN people_employee e ON e.id = w.owner_id "
            "WHERE e.is_active AND w.trashed_at IS NULL "
            "AND (SELECT count(*) FROM sheets_sheet s WHERE s.workbook_id = w.id) >= 2 "
            "AND (SELECT count(*) FROM sheets_share h JOIN people_employee p "
            "     ON p.id = h.employee_id WHERE h.workbook_id = w.id AND p.is_active) >= 2 "
            "ORDER BY w.id LIMIT 1"
        ).fetchone()
        (first, first_name), (second, second_name) = conn.execute(
            "SELECT id, name FROM sheets_sheet WHERE workbook_id = ? ORDER BY position, id LIMIT 2",
            (book,),
        ).fetchall()
        shared = [
            r[0]
            for r in conn.execute(
                "SELECT h.employee_id FROM sheets_share h JOIN people_employee p "
                "ON p.id = h.employee_id WHERE h.workbook_id = ? AND p.is_active "
                "ORDER BY h.employee_id",
                (book,),
            )
        ]
        stranger = conn.execute(
            "SELECT id FROM people_employee WHERE is_active AND role = 'member' AND id != ? "
            "AND id NOT IN (SELECT employee_id FROM sheets_share WHERE workbook_id = ?) "
            "ORDER BY id LIMIT 1",
            (owner, book),
        ).fetchone()[0]
        other = conn.execute(
            "SELECT id FROM sheets_workbook WHERE owner_id != ? AND id NOT IN "
            "(SELECT workbook_id FROM sheets_share WHERE employee_id = ?) ORDER BY id LIMIT 1",
            (owner, owner),
        ).fetchone()[0]
        return SheetsFacts(
            workbook=book,
            name=name,
            sheet=first,
            sheet_name=first_name,
            second_sheet=second,
            second_sheet_name=second_name,
            owner=_person(conn, owner),
            viewer=_person(conn, shared[0]),
            editor=_person(conn, shared[1]),
            stranger=_person(conn, stranger),
            other_workbook=other,
        )
    finally:
        conn.close()


@pytest.fixture(scope="session")
def facts(store: WorldStore) -> SheetsFacts:
    return read_facts(store.golden(0, "tiny"))


WORLD = "sheets-test"


@pytest.fixture(scope="session")
def _one_world(store: WorldStore) -> Iterator[str]:
    store.create(WORLD, 0, "tiny", replace=True)
    yield WORLD
    store.drop(WORLD)


@pytest.fixture
def world(store: WorldStore, _one_world: str) -> Iterator[str]:
    """The live world (tiny, seed 0) reset to its golden for each test. It is one world file
    for the whole run, so a session cookie (bound to its world file) stays valid from one test
    to the next."""
    store.reset(_one_world)
    yield _one_world


# -- reading state -----------------------------------------------------------------------------


def rows(store: WorldStore, world: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Query a world file directly (read-only), e.g. to assert on state after HTTP requests."""
    conn = sqlite3.connect(f"file:{store.world_path(world).resolve()}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def one(store: WorldStore, world: str, sql: str, params: tuple = ()) -> Any:
    found = rows(store, world, sql, params)
    assert len(found) == 1, found
    return found[0][0] if len(found[0]) == 1 else found[0]


def cells(store: WorldStore, world: str, sheet_id: int) -> dict[str, tuple]:
    """A sheet's cells by address: (raw, value_type, value_num, value_text, number_format,
    bold, italic, fill) — the whole state of the sheet, to compare before and after."""
    from officegym.apps.sheets.engine.refs import address

    return {
        address(r, c): tuple(rest)
        for r, c, *rest in rows(
            store,
            world,
            "SELECT row, col, raw, value_type, value_num, value_text, number_format, bold, "
            "italic, fill FROM sheets_cell WHERE sheet_id = ? ORDER BY row, col",
            (sheet_id,),
        )
    }


def cell(store: WorldStore, world: str, sheet_id: int, address: str) -> tuple | None:
    """(raw, value_type, value_num, value_text, number_format) of one cell, None if empty."""
    from officegym.apps.sheets.engine.refs import parse_address

    r, c = parse_address(address)
    found = rows(
        store,
        world,
        "SELECT raw, value_type, value_num, value_text, number_format FROM sheets_cell "
        "WHERE sheet_id = ? AND row = ? AND col = ?",
        (sheet_id, r, c),
    )
    return found[0] if found else None


def value(store: WorldStore, world: str, sheet_id: int, address: str) -> Any:
    """A cell's stored value: a float, text, an error code, or None when empty."""
    found = cell(store, world, sheet_id, address)
    if found is None or found[1] == "empty":
        return None
    return found[2] if found[1] in ("number", "bool") else found[3]


def dump(store: WorldStore, world: str) -> dict[str, list[tuple]]:
    """Every table of the world, to show that a refused request changed nothing."""
    return dump_file(store.world_path(world))


# -- acting ------------------------------------------------------------------------------------


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


def grant_edit(store: WorldStore, world: str, facts: SheetsFacts) -> None:
    """The owner gives `facts.editor` edit access, committed."""
    from officegym.apps.sheets import service

    engine = make_engine(store.world_path(world), create=False)
    try:
        with Session(writer(engine)) as session:
            service.share(
                session,
                employee(session, facts.owner),
                facts.workbook,
                facts.editor.id,
                "edit",
            )
            session.commit()
    finally:
        engine.dispose()


# -- web ---------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def web_app(store: WorldStore):
    """One web app per test process (building one, with its templates, costs ~0.3 s);
    `app` points it at the test's world."""
    from officegym.apps.web import create_app

    flask_app = create_app({"WORLD_STORE": store, "DEFAULT_WORLD": WORLD, "SECRET_KEY": "t"})
    flask_app.config["TESTING"] = True
    return flask_app


@pytest.fixture
def app(web_app, world: str):
    """The whole web app serving the test's world by default."""
    web_app.config["DEFAULT_WORLD"] = world
    return web_app


@pytest.fixture
def client(app):
    """A client that is not signed in."""
    return app.test_client()


def login(client, email: str):
    """Sign `client` in through the real login form."""
    response = sign_in_form(client, email)
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    return client


@pytest.fixture(scope="session")
def session_cookies() -> dict[str, str]:
    """Session cookies by email, kept from each person's first sign-in (see `as_person`)."""
    return {}


@pytest.fixture
def as_person(app, session_cookies):
    """`as_person(person)` -> a test client signed in as that person.

    The first time a person is asked for, the client signs in through the real login form;
    later clients get the same session cookie, which stays valid because every test's world
    is the same world file, reset (see `world`).
    """
    name = app.config["SESSION_COOKIE_NAME"]

    def make(person: Person):
        client = app.test_client()
        cookie = session_cookies.get(person.email)
        if cookie is None:
            login(client, person.email)
            session_cookies[person.email] = client.get_cookie(name).value
        else:
            client.set_cookie(name, cookie)
        return client

    return make


@pytest.fixture
def owner(as_person, facts):
    return as_person(facts.owner)


@pytest.fixture
def editor(as_person, facts, store, world):
    grant_edit(store, world, facts)
    return as_person(facts.editor)


@pytest.fixture
def viewer(as_person, facts):
    return as_person(facts.viewer)


@pytest.fixture
def stranger(as_person, facts):
    return as_person(facts.stranger)


def call(client, method: str, path: str, body: Any = None, **kwargs):
    """An API request (path under /sheets/api) with the CSRF header and a JSON body."""
    if body is not None:
        kwargs["json"] = body
    return client.open(f"{API}{path}", method=method, headers=HEADERS, **kwargs)


def sheet_path(facts: SheetsFacts, sheet_id: int | None = None) -> str:
    """The API path of a sheet of the facts' workbook."""
    return f"/workbooks/{facts.workbook}/sheets/{sheet_id or facts.sheet}"


CSRF_MARK = 'name="csrf_token" value="'
_tokens: dict[str, str] = {}


def form_token(client, path: str = "/sheets/") -> str:
    """The CSRF token of a form on the page at `path`. The token belongs to the session, so
    it is read once per session cookie."""
    cookie = client.get_cookie("officegym_session")
    if cookie is not None and cookie.value in _tokens:
        return _tokens[cookie.value]
    html = client.get(path).get_data(as_text=True)
    start = html.find(CSRF_MARK)
    assert start >= 0, f"no csrf_token on {path}"
    start += len(CSRF_MARK)
    token = html[start : html.index('"', start)]
    cookie = client.get_cookie("officegym_session")
    if cookie is not None:
        _tokens[cookie.value] = token
    return token
