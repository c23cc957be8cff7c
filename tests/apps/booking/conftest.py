"""Fixtures for Booking: a fresh generated world per test bound to the web app, clients signed
in as anyone, the people and listings the tests act on (picked by rule from the golden, never
by generated name), and a real server with signed-in Chromium pages.

    world          a fresh tiny seed-0 world for each test, always under the id WORLD
    app            the web app serving `world` by default
    client         a test client that is not signed in
    login          login(person or email) -> a test client signed in as that person
    db             a write session on `world` (don't mix with HTTP requests in one test)
    facts          the people and listings of the tiny seed-0 golden (BookingFacts)
    small_db       a read-only session on the small seed-0 golden (search correctness)
    live           a real server on its own store, and its world reset for each test
    page           a Chromium page signed in as `facts.traveller` on `live`
    browser_login  browser_login(person or email) -> a Chromium page signed in as them

Read state after HTTP requests with `rows(...)`, `one(...)` or `dump(...)`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.web import WORLD_HEADER, start_background_server
from officegym.seed_data.clock import now_of
from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.schema import Employee
from officegym.seed_data.store import WorldStore
from tests.conftest import dump as dump_file
from tests.conftest import login as sign_in_form

WORLD = "booking-test"
LIVE_WORLD = "booking-ui"
BOOKER_TITLES = ("travel coordinator", "office manager", "executive assistant")


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    email: str


@dataclass(frozen=True)
class Stay:
    """A listing and dates on which it is free, with the quote's total for them."""

    resource_id: int
    title: str
    city: str
    check_in: date
    check_out: date
    guests: int
    total_cents: int

    def query(self) -> str:
        return f"check_in={self.check_in}&check_out={self.check_out}&guests={self.guests}"


@dataclass(frozen=True)
class BookingFacts:
    """People and stays of the tiny seed-0 golden, chosen by rule."""

    today: date
    traveller: Person  # active staff with an active manager, who books for nobody else
    manager: Person  # the traveller's manager
    stranger: Person  # active, neither of them, nobody's manager, books for nobody
    approver: Person  # an active manager with a pending request waiting
    pending_approval: int  # that request's id
    in_policy: Stay  # free and within the traveller's policy
    over_policy: Stay  # free and outside the traveller's policy


def _person(db: Session, emp_id: int) -> Person:
    e = db.get(Employee, emp_id)
    return Person(e.id, e.display_name, e.email)


def _books_for_others(title: str) -> bool:
    return any(t in (title or "").lower() for t in BOOKER_TITLES)


def _find_stay(db: Session, actor: Employee, today: date, *, in_policy: bool) -> Stay:
    """The first free listing (by id) and dates whose quote is in (or out of) policy."""
    from officegym.apps.booking import reads, service
    from officegym.seed_data.schema.booking import Resource

    resources = db.scalars(
        select(Resource).where(Resource.kind.in_(("home", "hotel_room"))).order_by(Resource.id)
    ).all()
    for ahead in (21, 35):
        for nights in (2, 3) if in_policy else (12, 6, 3):
            check_in = today + timedelta(days=ahead)
            check_out = check_in + timedelta(days=nights)
            for r in resources:
                if r.min_nights > nights:
                    continue
                quoted = service.quote_stay(
                    db, actor, resource_id=r.id, check_in=check_in, check_out=check_out, guests=1
                )
                if quoted.available and quoted.in_policy == in_policy:
                    _resource, prop = reads.stay_resource(db, r.id)
                    return Stay(
                        r.id,
                        reads.stay_title(r.kind, prop.name, r.name),
                        prop.city,
                        check_in,
                        check_out,
                        1,
                        quoted.total_cents,
                    )
    raise LookupError("no stay found for the facts")


def read_facts(store: WorldStore) -> BookingFacts:
    from officegym.seed_data.schema.booking import Approval, Reservation

    store.create("booking-facts", 0, "tiny", replace=True)
    engine = make_engine(store.world_path("booking-facts"), create=False)
    try:
        with Session(engine) as db:
            today = now_of(store.world_path("booking-facts")).date()
            people = db.scalars(select(Employee).order_by(Employee.id)).all()
            by_id = {p.id: p for p in people}
            managers = {p.manager_id for p in people if p.manager_id}
            traveller = next(
                p
                for p in people
                if p.is_active
                and p.job_level == "staff"
                and p.manager_id
                and by_id[p.manager_id].is_active
                and not _books_for_others(p.title)
                and p.id not in managers
            )
            approval = db.scalars(
                select(Approval)
                .join(Employee, Employee.id == Approval.approver_id)
                .join(Reservation, Reservation.id == Approval.reservation_id)
                .where(
                    Approval.status == "pending",
                    Employee.is_active,
                    Reservation.status == "pending_approval",
                )
                .order_by(Approval.id)
            ).first()
            involved = db.execute(
                select(Reservation.guest_id, Reservation.booked_by_id).where(
                    Reservation.id == approval.reservation_id
                )
            ).one()
            stranger = next(
                p
                for p in people
                if p.is_active
                and p.id not in (traveller.id, traveller.manager_id, *involved)
                and p.manager_id != traveller.manager_id
                and p.id not in managers
                and not _books_for_others(p.title)
            )
            return BookingFacts(
                today=today,
                traveller=_person(db, traveller.id),
                manager=_person(db, traveller.manager_id),
                stranger=_person(db, stranger.id),
                approver=_person(db, approval.approver_id),
                pending_approval=approval.id,
                in_policy=_find_stay(db, traveller, today, in_policy=True),
                over_policy=_find_stay(db, traveller, today, in_policy=False),
            )
    finally:
        engine.dispose()
        store.drop("booking-facts")


@pytest.fixture(scope="session")
def facts(store: WorldStore) -> BookingFacts:
    return read_facts(store)


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


@pytest.fixture(scope="session")
def small_db(store: WorldStore) -> Iterator[Session]:
    """A read-only session on the small seed-0 golden (built once per test process)."""
    path = store.golden(0, "small")
    engine = make_engine(path, create=False)
    session = Session(engine)
    yield session
    session.close()
    engine.dispose()


# -- reading state -----------------------------------------------------------------------------


def rows(store: WorldStore, world: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Query a world file directly (read-only)."""
    conn = sqlite3.connect(f"file:{store.world_path(world).resolve()}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def one(store: WorldStore, world: str, sql: str, params: tuple = ()) -> Any:
    found = rows(store, world, sql, params)
    assert len(found) == 1, found
    return found[0][0] if len(found[0]) == 1 else found[0]


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


@pytest.fixture(scope="session")
def web_app(store: WorldStore):
    """One web app per test process; `app` points it at the test's world."""
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


@pytest.fixture(scope="session")
def _session_cookies() -> dict[str, str]:
    return {}


def _email(person: Person | str) -> str:
    return person if isinstance(person, str) else person.email


@pytest.fixture
def login(app, _session_cookies) -> Callable[[Person | str], Any]:
    """`login(person)` -> a test client signed in as that person (a Person or an email).

    The first time a person is asked for, the client signs in through the real login form;
    later clients get the same session cookie, valid because every test's world has one id.
    """
    name = app.config["SESSION_COOKIE_NAME"]

    def make(person: Person | str):
        email = _email(person)
        client = app.test_client()
        cookie = _session_cookies.get(email)
        if cookie is None:
            response = sign_in_form(client, email)
            assert response.status_code == 302, response.get_data(as_text=True)[:500]
            # A page with a form puts the CSRF token in the session; keep the cookie after it.
            assert client.get("/booking/trips").status_code == 200
            _session_cookies[email] = client.get_cookie(name).value
        else:
            client.set_cookie(name, cookie)
        return client

    return make


CSRF_MARK = 'name="csrf_token" value="'
_tokens: dict[str, str] = {}


def form_token(client, path: str = "/booking/trips") -> str:
    """The CSRF token of the client's session (read once per session cookie)."""
    cookie = client.get_cookie("officegym_session")
    if cookie is not None and cookie.value in _tokens:
        return _tokens[cookie.value]
    html = client.get(path).get_data(as_text=True)
    start = html.find(CSRF_MARK)
    assert start >= 0, f"no csrf_token on {path}"
    start += len(CSRF_MARK)
    token = html[start : html.index('"', start)]
    if cookie is not None:
        _tokens[cookie.value] = token
    return token


def post(client, path: str, data: dict, **kwargs):
    """POST a form with the session's CSRF token."""
    return client.post(path, data={**data, "csrf_token": form_token(client)}, **kwargs)


# -- a real server and Chromium ----------------------------------------------------------------


@dataclass
class Live:
    """A running server over its own store, serving LIVE_WORLD (reset for each test)."""

    store: WorldStore
    url: str
    world: str = LIVE_WORLD

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return rows(self.store, self.world, sql, params)

    def one(self, sql: str, params: tuple = ()) -> Any:
        return one(self.store, self.world, sql, params)


@pytest.fixture(scope="session")
def _live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    store = WorldStore(tmp_path_factory.mktemp("booking-ui-home"))
    store.create(LIVE_WORLD, 0, "tiny")
    server = start_background_server(store, config={"SECRET_KEY": "booking-ui"})
    yield Live(store, server.url)
    server.stop()
    store.close()


@pytest.fixture
def live(_live_server: Live) -> Live:
    """The real server, its world back to the golden for this test."""
    _live_server.store.reset(LIVE_WORLD)
    return _live_server


@pytest.fixture(scope="session")
def _contexts(browser, _live_server: Live) -> Iterator[dict]:
    """One signed-in browser context per person, kept for the session."""
    made: dict[str, Any] = {}
    yield made
    for context in made.values():
        context.close()


@pytest.fixture
def browser_login(browser, live: Live, _contexts: dict) -> Iterator[Callable]:
    """`browser_login(person)` -> a new Chromium page signed in as that person."""
    pages = []

    def make(person: Person | str):
        email = _email(person)
        context = _contexts.get(email)
        if context is None:
            context = browser.new_context(
                base_url=live.url,
                extra_http_headers={WORLD_HEADER: live.world},
                viewport={"width": 1280, "height": 900},
            )
            context.set_default_timeout(15_000)
            page = context.new_page()
            page.goto("/login")
            page.get_by_label("Work email").fill(email)
            page.get_by_label("Password").fill(DEMO_PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(live.url + "/")
            page.close()
            _contexts[email] = context
        page = context.new_page()
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.close()


@pytest.fixture
def page(browser_login, facts: BookingFacts):
    """A Chromium page signed in as the facts' traveller."""
    return browser_login(facts.traveller)


__all__ = [
    "LIVE_WORLD",
    "WORLD",
    "BookingFacts",
    "Live",
    "Person",
    "Stay",
    "dump",
    "form_token",
    "one",
    "post",
    "rows",
]
