"""Load for the reliability probes of the real server: a signed-in HTTP client, a world's
scene (where its main pages point, who may write there) and the writes made through every app,
threads that run bounded loops, percentiles, and a world file's health check.

    client = Client(server.url, "w1", "amy.schmidt@example.com")
    client.get("/chat/c/3").status                       # 200
    client.form("/chat/c/3/post", {"body": "hi"}).status  # 302 (redirects are not followed)
    client.api("PATCH", "/crm/api/opportunities/38", {"next_step": "Call"}).status  # 200
"""

from __future__ import annotations

import http.client
import http.cookiejar
import itertools
import json
import re
import sqlite3
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from datetime import time as dtime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from officegym.apps.registry import MainPage, main_pages
from officegym.apps.web import WORLD_HEADER
from officegym.apps.web.jsonapi import CSRF_HEADER, CSRF_HEADER_VALUE
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.search_index import FTS_TABLE
from tests.conftest import CSRF_FIELD

TIMEOUT = 30


@dataclass(frozen=True)
class Reply:
    """One answer of the server: its status, body text and where a redirect points."""

    status: int
    body: str
    location: str = ""

    def json(self) -> Any:
        return json.loads(self.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Client:
    """A browser-like client of one world on a live server: a cookie jar, the world header,
    the form CSRF token, and no redirect following (each reply is the request's own)."""

    def __init__(self, url: str, world: str | None, email: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.world = world
        self.email = email
        self._opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect()
        )
        self._opener.addheaders = [(WORLD_HEADER, world)] if world is not None else []
        self.csrf = ""
        if email is not None:
            self.sign_in(email)

    def sign_in(self, email: str) -> None:
        """Post the real login form, then keep the session's CSRF token for later forms."""
        token = self._token("/login")
        reply = self.request(
            "POST", "/login", form={"email": email, "password": DEMO_PASSWORD, "csrf_token": token}
        )
        assert 300 <= reply.status < 400, f"signing in as {email} answered {reply.status}"
        self.csrf = self._token("/")

    def _token(self, path: str) -> str:
        reply = self.get(path)
        match = CSRF_FIELD.search(reply.body)
        assert match, f"no csrf_token on {path} (status {reply.status})"
        return match.group(1)

    def request(
        self,
        method: str,
        path: str,
        *,
        form: dict[str, str] | None = None,
        payload: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        data = None
        sent = dict(headers or {})
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        elif payload is not None:
            data = json.dumps(payload).encode()
            sent["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
        try:
            with self._opener.open(req, timeout=TIMEOUT) as response:
                return Reply(response.status, response.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as answer:
            body = answer.read().decode("utf-8", "replace")
            return Reply(answer.code, body, answer.headers.get("Location", ""))

    def get(self, path: str) -> Reply:
        return self.request("GET", path)

    def form(self, path: str, fields: dict[str, str]) -> Reply:
        """Submit a page's form (with the CSRF token) the way a browser does."""
        return self.request("POST", path, form={**fields, "csrf_token": self.csrf})

    def api(self, method: str, path: str, payload: Any = None) -> Reply:
        """Call an app's JSON API with the header that unsafe API requests need."""
        return self.request(method, path, payload=payload, headers={CSRF_HEADER: CSRF_HEADER_VALUE})


def raw_get(host: str, port: int, path: str, headers: list[tuple[str, bytes]]) -> tuple[int, str]:
    """GET `path` with exactly these header lines, bytes as given (http.client, no
    normalisation); returns (status, body)."""
    conn = http.client.HTTPConnection(host, port, timeout=TIMEOUT)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        for name, value in headers:
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def run_threads(targets: Iterable[Callable[[], None]]) -> list[BaseException]:
    """Run each target in its own thread until all return; the exceptions they raised."""
    errors: list[BaseException] = []
    lock = threading.Lock()

    def guarded(target: Callable[[], None]) -> None:
        try:
            target()
        except BaseException as exc:  # reported to the caller, which asserts on it
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(t,), daemon=True) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def timed(call: Callable[[], Any]) -> float:
    """Seconds `call()` took."""
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def percentile(values: Iterable[float], q: float) -> float:
    """The nearest-rank `q`-th percentile (0-100) of `values`."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def summary_ms(values: Iterable[float]) -> str:
    """'p50 … ms, p95 … ms, max … ms (n=…)' of durations given in seconds."""
    values = list(values)
    p50, p95 = percentile(values, 50) * 1e3, percentile(values, 95) * 1e3
    return f"p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(values) * 1e3:.1f} ms (n={len(values)})"


# -- a world's scene: where its main pages point and who writes there -----------------------


@dataclass(frozen=True)
class Scene:
    """Where the main pages point in a world, and who may write there."""

    pages: list[MainPage]
    channel: int
    thread: int
    reader: str  # the chat pages' user
    poster: str  # another active member of that channel
    crm_user: str
    deal: int
    sheets_user: str
    workbook: int
    sheet: int
    rooms_user: str
    room: int
    timezone: str
    today: date


def _page(pages: list[MainPage], app: str, name: str) -> MainPage:
    return next(p for p in pages if p.app == app and p.name == name)


def _number(pattern: str, text: str) -> int:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in {text!r}"
    return int(match.group(1))


def read_scene(path: Path) -> Scene:
    """The scene of the world file `path`, read from its main pages and its rows."""
    pages = main_pages(path)
    channel_page = _page(pages, "chat", "channel")
    sheet_page = _page(pages, "sheets", "sheet")
    rooms_page = _page(pages, "booking", "book a room")
    deal_page = _page(pages, "crm", "opportunity record")
    channel = _number(r"/chat/c/(\d+)", channel_page.path)
    room = _number(r"room=(\d+)", rooms_page.path)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        (poster,) = conn.execute(
            "SELECT e.email FROM chat_membership m JOIN people_employee e ON e.id = m.employee_id "
            "WHERE m.channel_id = ? AND e.is_active AND e.email != ? ORDER BY e.id LIMIT 1",
            (channel, channel_page.user),
        ).fetchone()
        (timezone,) = conn.execute(
            "SELECT o.timezone FROM booking_resource r JOIN booking_property p "
            "ON p.id = r.property_id JOIN people_office o ON o.id = p.office_id WHERE r.id = ?",
            (room,),
        ).fetchone()
        (now,) = conn.execute("SELECT now FROM world_meta WHERE id = 1").fetchone()
    finally:
        conn.close()
    return Scene(
        pages=pages,
        channel=channel,
        thread=_number(r"/chat/t/(\d+)", _page(pages, "chat", "thread").path),
        reader=channel_page.user,
        poster=poster,
        crm_user=deal_page.user,
        deal=_number(r"/crm/opportunities/(\d+)", deal_page.path),
        sheets_user=sheet_page.user,
        workbook=_number(r"/sheets/w/(\d+)", sheet_page.path),
        sheet=_number(r"/s/(\d+)", sheet_page.path),
        rooms_user=rooms_page.user,
        room=room,
        timezone=timezone,
        today=datetime.fromisoformat(str(now)).date(),
    )


class Clients:
    """One signed-in client per user, made on first use (shared by threads, like open tabs)."""

    def __init__(self, url: str, world: str) -> None:
        self.url, self.world = url, world
        self._clients: dict[str, Client] = {}
        self._lock = threading.Lock()

    def __getitem__(self, email: str) -> Client:
        with self._lock:
            if email not in self._clients:
                self._clients[email] = Client(self.url, self.world, email)
            return self._clients[email]


_READ_MARK = re.compile(r'data-read-url="([^"]+)" data-read-upto="(\d+)"')


def load_as_browser(client: Client, path: str) -> list[tuple[str, Reply]]:
    """GET a page, then the read marker its script posts as it loads (if the page has one)."""
    page = client.get(path)
    replies = [(path, page)]
    mark = _READ_MARK.search(page.body)
    if mark:
        url, upto = mark.groups()
        replies.append((url, client.api("POST", url, {"message_id": int(upto)})))
    return replies


def room_slots(scene: Scene) -> Iterator[tuple[str, str]]:
    """15-minute meetings in the room's office hours, one after another from a week ahead."""
    zone = ZoneInfo(scene.timezone)
    for day in itertools.count(7):
        on = scene.today + timedelta(days=day)
        for quarter in range(8 * 4, 19 * 4):
            start = datetime.combine(on, dtime(quarter // 4, quarter % 4 * 15), zone)
            yield start.isoformat(), (start + timedelta(minutes=15)).isoformat()


Write = Callable[[int], list[tuple[str, Reply]]]


def writes(scene: Scene, clients: Clients) -> list[tuple[str, Write]]:
    """Every kind of write the load makes through the apps, as (kind, make the n-th write);
    a write answers (what, reply) pairs, two for a room booked and then cancelled."""
    slots = room_slots(scene)
    slot_lock = threading.Lock()

    def post_form(n: int) -> list[tuple[str, Reply]]:
        form = {"body": f"Load check post {n}"}
        reply = clients[scene.poster].form(f"/chat/c/{scene.channel}/post", form)
        return [("chat post (form)", reply)]

    def post_api(n: int) -> list[tuple[str, Reply]]:
        path = f"/chat/api/channels/{scene.channel}/messages"
        reply = clients[scene.poster].api("POST", path, {"body": f"Load check message {n}"})
        return [("chat post (api)", reply)]

    def reply_form(n: int) -> list[tuple[str, Reply]]:
        form = {"body": f"Load check reply {n}"}
        reply = clients[scene.poster].form(f"/chat/t/{scene.thread}/reply", form)
        return [("chat reply (form)", reply)]

    def reply_api(n: int) -> list[tuple[str, Reply]]:
        path = f"/chat/api/messages/{scene.thread}/replies"
        reply = clients[scene.poster].api("POST", path, {"body": f"Load check answer {n}"})
        return [("chat reply (api)", reply)]

    def mark_read(n: int) -> list[tuple[str, Reply]]:
        path = f"/chat/api/channels/{scene.channel}/read"
        return [("chat mark read", clients[scene.reader].api("POST", path, {}))]

    def edit_deal(n: int) -> list[tuple[str, Reply]]:
        path = f"/crm/api/opportunities/{scene.deal}"
        reply = clients[scene.crm_user].api("PATCH", path, {"next_step": f"Follow-up call {n}"})
        return [("crm edit deal", reply)]

    def set_cell(n: int) -> list[tuple[str, Reply]]:
        path = f"/sheets/api/workbooks/{scene.workbook}/sheets/{scene.sheet}/range"
        payload = {"ref": f"H{n % 40 + 1}", "values": [[str(n)]]}
        return [("sheets set cell", clients[scene.sheets_user].api("PUT", path, payload))]

    def book_room(n: int) -> list[tuple[str, Reply]]:
        client = clients[scene.rooms_user]
        for _ in range(50):  # past slots the world's own meetings hold (409)
            with slot_lock:
                start, end = next(slots)
            made = client.api(
                "POST",
                f"/booking/api/rooms/{scene.room}/bookings",
                {"start": start, "end": end, "title": f"Load check {n}"},
            )
            if made.status != 409:
                break
        if made.status != 201:
            return [("booking book room", made)]
        path = f"/booking/api/room-bookings/{made.json()['id']}/cancel"
        return [("booking book room", made), ("booking cancel room", client.api("POST", path))]

    return [
        ("chat post (form)", post_form),
        ("crm edit deal", edit_deal),
        ("chat reply (api)", reply_api),
        ("sheets set cell", set_cell),
        ("chat post (api)", post_api),
        ("booking book room", book_room),
        ("chat reply (form)", reply_form),
        ("chat mark read", mark_read),
    ]


def report(title: str, statuses: Counter) -> str:
    """A table of (what, status) counts, for the test's output."""
    lines = [title]
    for (what, status), count in sorted(statuses.items()):
        lines.append(f"  {what:<40} {status}: {count}")
    return "\n".join(lines)


# -- a world file's health ------------------------------------------------------------------


def world_file_problems(path: Path) -> list[str]:
    """What is wrong with the world file `path`: SQLite's integrity check, foreign keys, and the
    chat message index checked against its messages (FTS5 'integrity-check' with rank 1)."""
    conn = sqlite3.connect(path, isolation_level=None)
    problems: list[str] = []
    try:
        integrity = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        if integrity != ["ok"]:
            problems.append(f"integrity_check: {integrity[:5]}")
        keys = conn.execute("PRAGMA foreign_key_check").fetchall()
        if keys:
            problems.append(f"foreign_key_check: {keys[:5]}")
        try:
            conn.execute(
                f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)"
            )
        except sqlite3.DatabaseError as error:
            problems.append(f"{FTS_TABLE} integrity-check: {error}")
    finally:
        conn.close()
    return problems
