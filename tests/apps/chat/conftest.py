"""Fixtures for chat: a fresh tiny world per test, a service session on it, real entities to act
on, and the web app with a signed-in client.

The session-scoped `store` (tests/conftest.py) builds the tiny seed-0 golden once per process;
`world` copies it into a new live world for each test and drops it afterwards. `facts` reads
the entities once from the golden (every fresh world starts equal to it), so tests never depend
on generated names.

`db` holds a write transaction (BEGIN IMMEDIATE) for the whole test: don't use it together
with `client` in one test (the app would wait for the lock); read state after HTTP requests
with `rows(...)` instead.
"""

from __future__ import annotations

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
from tests.conftest import csrf_token as csrf_token  # re-exported for the chat tests
from tests.conftest import login as sign_in_form

API = "/chat/api"
API_HEADERS = {"X-Requested-With": "officegym"}


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    email: str


@dataclass(frozen=True)
class ChatFacts:
    """Real entities of the tiny seed-0 world, picked by the rules the tests need."""

    general_id: int
    public_id: int  # a public, unarchived channel other than #general
    public_name: str
    public_member: Person
    public_non_member: Person
    private_id: int  # a private, unarchived channel
    private_name: str
    private_member: Person
    private_non_member: Person
    dm_id: int  # a direct message between dm_a and dm_b
    dm_a: Person
    dm_b: Person
    dm_outsider: Person
    archived_id: int
    archived_name: str
    archived_member: Person
    inactive: Person
    attachment_id: int  # a file posted in a public channel
    attachment_channel_id: int
    public_message_id: int  # a top-level message in the public channel
    private_message_id: int  # a top-level message in the private channel
    dm_message_id: int


def _person(conn: sqlite3.Connection, emp_id: int) -> Person:
    row = conn.execute(
        "SELECT id, display_name, email FROM people_employee WHERE id = ?", (emp_id,)
    ).fetchone()
    return Person(*row)


def read_facts(path: Path | str) -> ChatFacts:
    """Pick the entities from a world file (read-only)."""
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        active = [r[0] for r in conn.execute("SELECT id FROM people_employee WHERE is_active")]

        def members(cid: int) -> list[int]:
            rows = conn.execute(
                "SELECT m.employee_id FROM chat_membership m JOIN people_employee e "
                "ON e.id = m.employee_id WHERE m.channel_id = ? AND e.is_active "
                "ORDER BY m.employee_id",
                (cid,),
            )
            return [r[0] for r in rows]

        def outsider(cid: int) -> int:
            inside = set(members(cid))
            return next(e for e in active if e not in inside)

        def first_message(cid: int) -> int:
            return conn.execute(
                "SELECT min(id) FROM chat_message WHERE channel_id = ? "
                "AND thread_parent_id IS NULL",
                (cid,),
            ).fetchone()[0]

        channels = conn.execute(
            "SELECT id, name, kind, is_private, archived_at FROM chat_channel ORDER BY id"
        ).fetchall()
        general = next(c for c in channels if c[1] == "general")
        public = next(
            c
            for c in channels
            if c[2] == "channel"
            and not c[3]
            and c[4] is None
            and c[1] != "general"
            and len(members(c[0])) >= 2
            and first_message(c[0])
            and len(members(c[0])) < len(active)
        )
        private = next(
            c
            for c in channels
            if c[2] == "channel" and c[3] and c[4] is None and first_message(c[0])
        )
        dm = next(c for c in channels if c[2] == "dm" and len(members(c[0])) == 2)
        archived = next(c for c in channels if c[4] is not None and members(c[0]))
        (inactive,) = conn.execute(
            "SELECT id FROM people_employee WHERE NOT is_active ORDER BY id LIMIT 1"
        ).fetchone()
        public_ids = [c[0] for c in channels if c[2] == "channel" and not c[3]]
        marks = ",".join("?" * len(public_ids))
        attachment_id, attachment_channel = conn.execute(
            f"SELECT a.id, m.channel_id FROM chat_attachment a JOIN chat_message m "
            f"ON m.id = a.message_id WHERE m.channel_id IN ({marks}) ORDER BY a.id LIMIT 1",
            public_ids,
        ).fetchone()
        dm_a, dm_b = members(dm[0])
        return ChatFacts(
            general_id=general[0],
            public_id=public[0],
            public_name=public[1],
            public_member=_person(conn, members(public[0])[0]),
            public_non_member=_person(conn, outsider(public[0])),
            private_id=private[0],
            private_name=private[1],
            private_member=_person(conn, members(private[0])[0]),
            private_non_member=_person(conn, outsider(private[0])),
            dm_id=dm[0],
            dm_a=_person(conn, dm_a),
            dm_b=_person(conn, dm_b),
            dm_outsider=_person(conn, outsider(dm[0])),
            archived_id=archived[0],
            archived_name=archived[1],
            archived_member=_person(conn, members(archived[0])[0]),
            inactive=_person(conn, inactive),
            attachment_id=attachment_id,
            attachment_channel_id=attachment_channel,
            public_message_id=first_message(public[0]),
            private_message_id=first_message(private[0]),
            dm_message_id=first_message(dm[0]),
        )
    finally:
        conn.close()


@pytest.fixture(scope="session")
def facts(store: WorldStore) -> ChatFacts:
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


# -- web --------------------------------------------------------------------------------------


@pytest.fixture
def app(store: WorldStore, world: str):
    """The whole web app serving the test's world by default, with the chat API mounted."""
    from officegym.apps.web import create_app

    flask_app = create_app({"WORLD_STORE": store, "DEFAULT_WORLD": world, "SECRET_KEY": "t"})
    if not any(r.rule.startswith(f"{API}/") for r in flask_app.url_map.iter_rules()):
        # The chat app isn't registered (yet): mount the API alone.
        from officegym.apps.chat.api import api_bp

        flask_app.register_blueprint(api_bp, url_prefix=API)
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


# -- UI fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ui_world(store: WorldStore) -> Iterator[str]:
    """A fresh tiny world shared by one browser test module (tests pick their own entities)."""
    from tests.conftest import new_world_id

    world_id = new_world_id("ui")
    store.create(world_id, 0, "tiny")
    yield world_id
    store.drop(world_id)


@pytest.fixture(scope="module")
def live_server(store: WorldStore, ui_world: str):
    """The whole app on a real waitress server on a free port, one per test module."""
    from officegym.apps.web import start_background_server

    server = start_background_server(store, config={"SECRET_KEY": "chat-ui"})
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
            viewport={"width": 1360, "height": 860},
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


@pytest.fixture(scope="module")
def ui_facts(store, ui_world) -> ChatFacts:
    """Facts of the module's browser world."""
    return read_facts(store.world_path(ui_world))


@pytest.fixture
def page(sign_in, ui_facts):
    """Signed in as a member of the public channel."""
    return sign_in(ui_facts.public_member.email)
