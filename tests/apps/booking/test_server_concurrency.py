"""Many people booking the same thing at the same moment, against the real multi-threaded
server over real HTTP: the last unit of a stay and one meeting-room slot each go to exactly one
request; every other request gets a clear 409, and the world holds exactly one booking.

Each person has their own signed-in session (cookie jar). The requests of a round are released
together by a barrier, and several rounds run on fresh dates or times.
"""

from __future__ import annotations

import http.cookiejar
import json
import sqlite3
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.orm import Session

from officegym.apps.booking import availability
from officegym.apps.web import WORLD_HEADER, start_background_server
from officegym.seed_data.clock import now_of
from officegym.seed_data.connect import make_engine
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore
from tests.conftest import CSRF_FIELD

WORLD = "booking-race"
PEOPLE = 6
ROUNDS = 4
API_HEADERS = {"X-Requested-With": "officegym", "Content-Type": "application/json"}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@dataclass(frozen=True)
class Reply:
    status: int
    body: str

    def json(self) -> dict:
        return json.loads(self.body)


class Person:
    """One signed-in browser session, over real HTTP."""

    def __init__(self, url: str, email: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect()
        )
        self.opener.addheaders = [(WORLD_HEADER, WORLD)]
        token = self.token("/login")
        signed_in = self.send(
            "POST",
            "/login",
            urllib.parse.urlencode(
                {"email": email, "password": DEMO_PASSWORD, "csrf_token": token}
            ).encode(),
        )
        assert signed_in.status == 302, signed_in.body[:300]

    def send(self, method: str, path: str, data: bytes | None = None, headers=None) -> Reply:
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers=headers or {}
        )
        try:
            with self.opener.open(request, timeout=30) as response:
                return Reply(response.status, response.read().decode())
        except urllib.error.HTTPError as error:
            return Reply(error.code, error.read().decode())

    def token(self, path: str) -> str:
        return CSRF_FIELD.search(self.send("GET", path).body).group(1)

    def api(self, path: str, body: dict) -> Reply:
        return self.send("POST", "/booking/api" + path, json.dumps(body).encode(), API_HEADERS)


@dataclass(frozen=True)
class Race:
    """What the people race for: a one-unit stay and free dates for it, and a room with a
    free day, in the room's office time zone."""

    stay: int
    stay_dates: tuple[tuple[date, date], ...]  # one free window per round
    room: int
    room_day: date
    timezone: str


def _free_windows(db: Session, resource_id: int, today: date) -> list[tuple[date, date]]:
    windows = []
    check_in = today + timedelta(days=30)
    while len(windows) < ROUNDS + 1 and check_in < today + timedelta(days=400):
        check_out = check_in + timedelta(days=2)
        if availability.units_left(db, resource_id, check_in, check_out) == 1:
            windows.append((check_in, check_out))
        check_in += timedelta(days=7)
    return windows


def _race(path) -> Race:
    today = now_of(path).date()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    engine = make_engine(path, create=False)
    try:
        homes = [
            r
            for (r,) in conn.execute(
                "SELECT id FROM booking_resource WHERE kind IN ('home', 'hotel_room') "
                "AND units = 1 AND min_nights <= 2 AND capacity >= 1 ORDER BY id"
            )
        ]
        with Session(engine) as db:
            stay, windows = next(
                (h, w) for h in homes if len(w := _free_windows(db, h, today)) >= ROUNDS
            )
        room, timezone = conn.execute(
            "SELECT r.id, o.timezone FROM booking_resource r JOIN booking_property p "
            "ON p.id = r.property_id JOIN people_office o ON o.id = p.office_id "
            "WHERE r.kind = 'meeting_room' ORDER BY r.id LIMIT 1"
        ).fetchone()
        held = {
            datetime.fromisoformat(s).replace(tzinfo=UTC).astimezone(ZoneInfo(timezone)).date()
            for (s,) in conn.execute(
                "SELECT start_at FROM booking_reservation WHERE resource_id = ?", (room,)
            )
        }
        closed = conn.execute(
            "SELECT start_date, end_date FROM booking_availability WHERE resource_id = ?",
            (room,),
        ).fetchall()
    finally:
        conn.close()
        engine.dispose()
    day = today + timedelta(days=8)
    while (
        day.weekday() >= 5
        or day in held
        or any(date.fromisoformat(a) <= day <= date.fromisoformat(b) for a, b in closed)
    ):
        day += timedelta(days=1)
    return Race(stay, tuple(windows[:ROUNDS]), room, day, timezone)


def _people_emails(path) -> list[str]:
    """Active people with an active manager (so a stay out of policy can go for approval)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [
            email
            for (email,) in conn.execute(
                "SELECT e.email FROM people_employee e JOIN people_employee m "
                "ON m.id = e.manager_id WHERE e.is_active AND m.is_active ORDER BY e.id LIMIT ?",
                (PEOPLE,),
            )
        ]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def race_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorldStore]:
    store = WorldStore(tmp_path_factory.mktemp("booking-race-home"))
    store.create(WORLD, 0, "tiny")
    yield store
    store.close()


@pytest.fixture(scope="module")
def server(race_store: WorldStore):
    running = start_background_server(race_store, threads=PEOPLE + 2, config={"SECRET_KEY": "race"})
    yield running
    running.stop()


@pytest.fixture(scope="module")
def race(race_store: WorldStore) -> Race:
    return _race(race_store.world_path(WORLD))


@pytest.fixture(scope="module")
def people(server, race_store: WorldStore) -> list[Person]:
    emails = _people_emails(race_store.world_path(WORLD))
    assert len(emails) == PEOPLE
    return [Person(server.url, email) for email in emails]


def at_once(people: list[Person], act: Callable[[Person], Reply]) -> list[Reply]:
    """Every person's `act`, released together; the replies in people's order."""
    barrier = threading.Barrier(len(people))
    replies: list[Reply | BaseException | None] = [None] * len(people)

    def run(i: int, person: Person) -> None:
        try:
            barrier.wait(timeout=30)
            replies[i] = act(person)
        except BaseException as error:  # reported below, in the test's thread
            replies[i] = error

    threads = [threading.Thread(target=run, args=(i, p)) for i, p in enumerate(people)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for reply in replies:
        if not isinstance(reply, Reply):
            raise AssertionError(f"a request failed: {reply!r}")
    return replies  # type: ignore[return-value]


def holding(store: WorldStore, resource: int, start: datetime, end: datetime) -> list[tuple]:
    conn = sqlite3.connect(f"file:{store.world_path(WORLD)}?mode=ro", uri=True)
    try:
        return conn.execute(
            "SELECT id, guest_id FROM booking_reservation WHERE resource_id = ? "
            "AND status IN ('confirmed', 'pending_approval') AND start_at < ? AND end_at > ?",
            (resource, end.isoformat(" "), start.isoformat(" ")),
        ).fetchall()
    finally:
        conn.close()


def _one_winner(replies: list[Reply], won: int) -> Reply:
    statuses = sorted(r.status for r in replies)
    assert statuses == [won] + [409] * (len(replies) - 1), [(r.status, r.body[:200]) for r in replies]  # fmt: skip
    return next(r for r in replies if r.status == won)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_the_last_unit_of_a_stay_goes_to_exactly_one_request(people, race, race_store, round_):
    check_in, check_out = race.stay_dates[round_]
    body = {
        "resource_id": race.stay,
        "check_in": check_in.isoformat(),
        "check_out": check_out.isoformat(),
        "guests": 1,
        "purpose": f"Race round {round_}",
        "justification": "Meeting the customer on site that week.",
    }
    replies = at_once(people, lambda p: p.api("/reservations", body))
    winner = _one_winner(replies, 201).json()
    for reply in replies:
        if reply.status == 409:
            assert "no longer available" in reply.json()["error"]["message"]
    held = holding(
        race_store,
        race.stay,
        datetime.combine(check_in, time()),
        datetime.combine(check_out, time()),
    )
    assert held == [(winner["id"], winner["guest"]["id"])]


def _slot(race: Race, round_: int) -> tuple[datetime, datetime]:
    zone = ZoneInfo(race.timezone)
    start = datetime.combine(race.room_day, time(8 + 2 * round_), zone)
    return start, start + timedelta(hours=1)


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC).replace(tzinfo=None)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_one_room_slot_goes_to_exactly_one_api_request(people, race, race_store, round_):
    start, end = _slot(race, round_)
    body = {"start": start.isoformat(), "end": end.isoformat(), "title": f"Race {round_}"}
    replies = at_once(people, lambda p: p.api(f"/rooms/{race.room}/bookings", body))
    winner = _one_winner(replies, 201).json()
    for reply in replies:
        if reply.status == 409:
            error = reply.json()["error"]
            assert f"“Race {round_}”" in error["message"]
            assert [c["reservation_id"] for c in error["clashes"]] == [winner["id"]]
    held = holding(race_store, race.room, _utc(start), _utc(end))
    assert [h[0] for h in held] == [winner["id"]]


def test_one_room_slot_goes_to_exactly_one_form_post(people, race, race_store):
    start, end = _slot(race, ROUNDS)
    tokens = {id(p): p.token("/booking/rooms/book") for p in people}

    def book(person: Person) -> Reply:
        form = {
            "csrf_token": tokens[id(person)],
            "room": race.room,
            "date": race.room_day.isoformat(),
            "start": f"{start:%H:%M}",
            "end": f"{end:%H:%M}",
            "title": "Race by form",
            "weeks": "1",
        }
        return person.send("POST", "/booking/rooms/book", urllib.parse.urlencode(form).encode())

    replies = at_once(people, book)
    _one_winner(replies, 302)
    for reply in replies:
        if reply.status == 409:
            assert "“Race by form”" in reply.body
    assert len(holding(race_store, race.room, _utc(start), _utc(end))) == 1
