"""Every write route of every app refuses who it must, and the refused request changes nothing.

The matrix (`routes.matrix`) holds one probe per write route of `app.url_map` (HTML forms and
JSON APIs of chat, CRM, sheets and booking); a new write route without a probe fails
`test_every_write_route_has_a_probe`. Each probe is sent three ways on one tiny seed-0 world:
by a visitor who is not signed in (401 from the API, a redirect to sign-in from a form), signed
in without the CSRF token or API header (400 from a form, 403 from the API), and by each
employee the product must refuse (a private channel they are not in, a record someone else
owns, a workbook shared view-only or not at all, someone else's trip). After every request the
world's change log against the snapshot taken before must be empty.

A control proves each refusal is about who asks: the same request by an employee allowed to
make it changes the world. Counts (the same at both depths, the matrix is exhaustive): 123
write rules, 172 routes once `any()` parts are expanded (170 probed, 2 sign-in routes), about
670 requests (170 anonymous, 170 without a token, 186 refused, 129 controls, 14 more).
"""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from officegym.apps.web import WORLD_HEADER, create_app
from officegym.seed_data.diff import WorldDiff
from officegym.seed_data.store import WorldStore
from tests.conftest import CSRF_FIELD, login, new_world_id
from tests.reliability.routes import CRM_TABLES, Facts, Probe, arrangement, matrix, write_routes

API_HEADER = {"X-Requested-With": "officegym"}
# Sign-in and sign-out change only the session cookie, never the world.
SIGN_IN_ROUTES = {"auth.login", "auth.logout"}


@dataclass
class Bench:
    """One world with its snapshot, the app serving it, and a signed-in client per actor."""

    store: WorldStore
    world: str
    app: object
    probes: dict[str, Probe]
    baseline: object = None
    clients: dict[int, object] = field(default_factory=dict)
    tokens: dict[int, str] = field(default_factory=dict)
    requests: int = 0
    watch: sqlite3.Connection | None = None
    seen: int = -1

    def headers(self, extra: dict | None = None) -> dict[str, str]:
        return {WORLD_HEADER: self.world, **(extra or {})}

    def sign_in(self, actor: int, email: str) -> None:
        client = self.app.test_client()
        response = login(client, email, world=self.world)
        assert response.status_code == 302, f"{email} could not sign in"
        self.clients[actor] = client
        self.tokens[actor] = token_of(client, "/", self.headers())

    def send(self, client, probe: Probe, *, token: str | None, api_header: bool):
        """Send `probe` (with the CSRF token in the form, the header on the API, if given)."""
        headers = self.headers(API_HEADER if api_header else None)
        self.requests += 1
        if probe.kind == "json":
            return client.open(probe.path, method=probe.method, json=probe.body, headers=headers)
        data: dict = {}
        for name, value in probe.body.items():
            if isinstance(value, tuple):
                filename, content = value
                data[name] = (io.BytesIO(content), filename)
            else:
                data[name] = value
        if token is not None:
            data["csrf_token"] = token
        return client.open(probe.path, method=probe.method, data=data, headers=headers)

    def changes(self) -> WorldDiff:
        """What changed since the snapshot; the world is put back if anything did.

        SQLite's `data_version` moves only when another connection commits to the file, so
        an unmoved version proves an empty diff without reading the change log."""
        if self.version() == self.seen:
            return WorldDiff()
        changed = self.store.diff(self.world, since=self.baseline)
        if changed:
            self.store.restore(self.world, self.baseline)
        self.seen = self.version()
        return changed

    def version(self) -> int:
        return self.watch.execute("PRAGMA data_version").fetchone()[0]


def token_of(client, path: str, headers: dict) -> str:
    page = client.get(path, headers=headers)
    match = CSRF_FIELD.search(page.get_data(as_text=True))
    assert match, f"no csrf_token field on {path}"
    return match.group(1)


def emails(store: WorldStore, world: str) -> dict[int, str]:
    conn = sqlite3.connect(f"file:{store.world_path(world)}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT id, email FROM people_employee"))
    finally:
        conn.close()


@pytest.fixture(scope="module")
def bench(store: WorldStore) -> Iterator[Bench]:
    """The tiny seed-0 world plus what the probes target that the seed lacks (a comment and a
    pivot by a workbook's owner), every refused actor signed in, then a snapshot."""
    world = new_world_id("authz")
    store.create(world, 0, "tiny")
    app = create_app({"WORLD_STORE": store, "SECRET_KEY": "authorization"})
    path = store.world_path(world)
    owner, owner_email, calls = arrangement(path)
    arranging = Bench(store, world, app, {})
    arranging.sign_in(owner, owner_email)
    for api, body in calls:
        client = arranging.clients[owner]
        method = client.put if api.endswith("/range") else client.post
        made = method(api, json=body, headers=arranging.headers(API_HEADER))
        assert made.status_code in (200, 201), (api, made.get_data(as_text=True))
    bench = Bench(store, world, app, matrix(path))
    people = emails(store, world)
    actors = {r.actor for p in bench.probes.values() for r in p.refusals}
    actors |= {p.allowed for p in bench.probes.values() if p.allowed is not None}
    for actor in sorted(actors):
        bench.sign_in(actor, people[actor])
    bench.baseline = store.snapshot(world)
    bench.watch = sqlite3.connect(path)
    bench.seen = bench.version()
    yield bench
    bench.watch.close()
    store.drop(world)


def describe(name: str, probe: Probe, status: int, changed: WorldDiff) -> str:
    text = f"{name}: {probe.method} {probe.path} -> {status}"
    if changed:
        text += f", changed {changed.counts()}"
    return text


def test_every_write_route_has_a_probe(bench: Bench):
    """A new write route fails here until the matrix says who it must refuse."""
    routes = write_routes(bench.app)
    assert set(routes) - SIGN_IN_ROUTES == set(bench.probes), (
        f"routes without a probe: {sorted(set(routes) - SIGN_IN_ROUTES - set(bench.probes))}; "
        f"probes without a route: {sorted(set(bench.probes) - set(routes))}"
    )
    adapter = bench.app.url_map.bind("localhost")
    for name, probe in bench.probes.items():
        endpoint, args = adapter.match(probe.path, method=probe.method)
        choice = name.partition("[")[2].rstrip("]")
        assert endpoint == name.partition("[")[0], (name, probe.path, endpoint)
        assert not choice or choice in args.values(), (name, probe.path, args)
        assert probe.refusals or probe.open_to_all, f"{name}: say who is refused, or why no one"


def test_write_routes_send_visitors_who_are_not_signed_in_to_sign_in_and_change_nothing(
    bench: Bench,
):
    visitor = bench.app.test_client()
    token = token_of(visitor, "/login", bench.headers())
    wrong = []
    for name, probe in sorted(bench.probes.items()):
        response = bench.send(visitor, probe, token=token, api_header=True)
        changed = bench.changes()
        if probe.is_api:
            refused = response.status_code == 401
        else:
            location = response.headers.get("Location", "")
            refused = response.status_code == 302 and location.startswith("/login")
        if not refused or changed:
            wrong.append(describe(name, probe, response.status_code, changed))
    assert not wrong, "\n".join(wrong)


def test_write_routes_refuse_a_signed_in_request_without_the_csrf_token_and_change_nothing(
    bench: Bench,
):
    """Forms answer 400 without the token; the API answers 403 without its header."""
    wrong = []
    for name, probe in sorted(bench.probes.items()):
        actor = next(iter(bench.clients))
        response = bench.send(bench.clients[actor], probe, token=None, api_header=False)
        changed = bench.changes()
        expected = 403 if probe.is_api else 400
        if response.status_code != expected or changed:
            wrong.append(describe(name, probe, response.status_code, changed))
    assert not wrong, "\n".join(wrong)


def test_write_routes_refuse_employees_without_the_right_and_change_nothing(bench: Bench):
    """Private channels, others' messages and records, unshared or view-only workbooks and
    others' trips: 403, or 404 where the product hides that the thing exists."""
    wrong = []
    for name, probe in sorted(bench.probes.items()):
        for refusal in probe.refusals:
            response = bench.send(
                bench.clients[refusal.actor],
                probe,
                token=bench.tokens[refusal.actor],
                api_header=True,
            )
            changed = bench.changes()
            if response.status_code not in refusal.statuses or changed:
                wrong.append(
                    describe(name, probe, response.status_code, changed)
                    + f" as employee {refusal.actor} ({refusal.why})"
                )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("route", sorted(SIGN_IN_ROUTES))
def test_sign_in_routes_refuse_a_post_without_the_csrf_token(bench: Bench, route: str):
    path = {"auth.login": "/login", "auth.logout": "/logout"}[route]
    client = bench.clients[next(iter(bench.clients))]
    response = client.post(path, data={"email": "x@example.com"}, headers=bench.headers())
    assert response.status_code == 400
    assert not bench.changes()


def test_the_refused_requests_succeed_for_someone_allowed(bench: Bench):
    """The control: each refused request, sent by an employee allowed to make it, changes the
    world, so the refusals above are about who asks and not about a broken request."""
    wrong = []
    for name, probe in sorted(bench.probes.items()):
        if probe.allowed is None:
            continue
        client = bench.clients[probe.allowed]
        response = bench.send(client, probe, token=bench.tokens[probe.allowed], api_header=True)
        changed = bench.changes()
        if response.status_code >= 400 or not changed:
            wrong.append(describe(name, probe, response.status_code, changed) + " (allowed)")
    assert not wrong, "\n".join(wrong)


def test_crm_fields_published_as_not_editable_are_refused_even_to_an_admin(bench: Bench):
    """Every field the CRM's API document publishes with `editable: false` (an activity's or a
    note's account, contact and opportunity) is refused with a 4xx through the API and the
    inline editor, even to an admin who may edit every record, and the record keeps its parent
    (it was once re-parented with a 200)."""
    facts = Facts(bench.store.world_path(bench.world))
    admin = facts.one(
        "SELECT id FROM people_employee WHERE is_active AND role = 'admin' ORDER BY id"
    )
    client, token = bench.clients[admin], bench.tokens[admin]
    objects = client.get("/crm/api/objects", headers=bench.headers()).get_json()
    fixed = [(o["object"], f["name"]) for o in objects for f in o["fields"] if not f["editable"]]
    assert fixed, "the API document publishes no fixed field"
    wrong = []
    for key, name in fixed:
        table = CRM_TABLES[key][0]
        record, value = facts.row(
            f"SELECT id, {name} FROM {table} WHERE {name} IS NOT NULL ORDER BY id"
        )
        other = facts.one(
            f"SELECT {name} FROM {table} WHERE {name} IS NOT NULL AND {name} != ? ORDER BY id",
            value,
        )
        sends = [
            Probe("PATCH", f"/crm/api/{key}/{record}", "json", {name: other}),
            Probe("POST", f"/crm/{key}/{record}/field", "form", {"field": name, "value": other}),
        ]
        for probe in sends:
            response = bench.send(client, probe, token=token, api_header=True)
            changed = bench.changes()
            if not 400 <= response.status_code < 500 or changed:
                wrong.append(describe(f"{key}.{name}", probe, response.status_code, changed))
    facts.close()
    assert not wrong, "\n".join(wrong)
