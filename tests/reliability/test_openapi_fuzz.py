"""Hostile input against every app through the real server: no request may answer 5xx.

Two probes share one live server and one fresh tiny world per app, signed in as the CEO:

- **The OpenAPI fuzz**: schemathesis generates requests from each app's OpenAPI document
  (`/<app>/api/openapi.json`) and checks `not_a_server_error` on every response. Quick depth:
  `QUICK_EXAMPLES` example per operation and generation mode (positive and negative) over
  the 146 operations of the four apps, 292 requests; full depth (`OFFICEGYM_RELIABILITY=full`):
  ten times as many (2,920). The world is reset after every write so rows never pile up.
- **The hostile-input sweep**: every API operation (from the same documents) and every HTML
  route (from the URL map) gets the inputs that once answered 500: ids of 2^63, 2^64 and
  -2^63-1 in the path, the query and JSON bodies; JSON nested 1,000 deep; lone surrogates in
  JSON strings; bytes that are not UTF-8 in the query; Unicode digits such as "²" where an
  integer is read; and a 20 MB body (413). The sweep is deterministic and the same at both
  depths; its request count is printed with `-s`.
"""

from __future__ import annotations

import json
import re
import socket
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from werkzeug.routing import IntegerConverter

from officegym.apps.web import WORLD_HEADER, start_background_server
from officegym.apps.web.jsonapi import CSRF_HEADER, CSRF_HEADER_VALUE
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore
from tests.apps.web.conftest import world_facts
from tests.conftest import CSRF_FIELD
from tests.reliability.conftest import depth

APPS = ("chat", "crm", "sheets", "booking")
APPS_ROOT = Path(__file__).resolve().parents[2] / "apps"

HOSTILE_INTS = (2**63, 2**64, -(2**63) - 1)
DEEP = 1000
LONE_SURROGATE = "\ud800"
UNICODE_DIGIT = "\u00b2"
NOT_UTF8 = b"\xed\xa0\x80\xff"
OVERSIZED = 20 * 1024 * 1024
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
QUERY_INTS = tuple(("query-int", n) for n in HOSTILE_INTS)
QUERY_DIGITS = (("query-digit", UNICODE_DIGIT),)

# Every query and form name the apps' views and APIs read, found in their source, so that a
# new parameter is swept without anyone listing it here.
_READ_NAME = re.compile(
    r"""(?:request\.(?:args|values|form)\.get(?:list)?\(|request\.(?:args|form)\[|"""
    r"""_int_arg\(|arg_int\()\s*["']([a-z_]+)["']"""
)


def read_names() -> list[str]:
    names = set()
    for path in APPS_ROOT.glob("*/*.py"):
        names.update(_READ_NAME.findall(path.read_text()))
    return sorted(names - {"csrf_token"})


# -- the server, its worlds and signed-in sessions --------------------------------------------


@dataclass
class AppUnderTest:
    slug: str
    world: str
    session: requests.Session
    csrf: str


@dataclass
class Fuzzed:
    """What a probe sent and which answers were server errors."""

    requests: Counter[str] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)

    def record(self, kind: str, method: str, url: str, status: int, body: str = "") -> None:
        self.requests[kind] += 1
        if status >= 500:
            self.server_errors.append(f"{kind}: {status} {method} {url[:160]} {body[:100]!r}")


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorldStore]:
    store = WorldStore(tmp_path_factory.mktemp("fuzz-home"))
    store.golden(0, "tiny")
    yield store
    store.close()


@pytest.fixture(scope="module")
def server(fuzz_store: WorldStore):
    server = start_background_server(fuzz_store, config={"SECRET_KEY": "fuzz"})
    yield server
    server.stop()


def sign_in(url: str, world: str, email: str) -> tuple[requests.Session, str]:
    """A session signed in through the real login form, and its CSRF token."""
    session = requests.Session()
    session.headers[WORLD_HEADER] = world
    token = CSRF_FIELD.search(session.get(url + "/login", timeout=10).text).group(1)
    landing = session.post(
        url + "/login",
        data={"email": email, "password": DEMO_PASSWORD, "csrf_token": token},
        timeout=10,
    )
    assert landing.status_code == 200 and landing.url.rstrip("/") == url.rstrip("/")
    token = CSRF_FIELD.search(landing.text).group(1)
    return session, token


@pytest.fixture(scope="module")
def apps_under_test(fuzz_store: WorldStore, server) -> Iterator[dict[str, AppUnderTest]]:
    """One fresh world per app, each with a session signed in as the CEO."""
    made = {}
    for slug in APPS:
        world = f"fuzz-{slug}"
        fuzz_store.create(world, 0, "tiny")
        session, token = sign_in(server.url, world, world_facts(fuzz_store, world).ceo.email)
        made[slug] = AppUnderTest(slug, world, session, token)
    yield made
    for target in made.values():
        target.session.close()
        fuzz_store.drop(target.world)


def openapi_document(server, target: AppUnderTest) -> dict[str, Any]:
    response = target.session.get(f"{server.url}/{target.slug}/api/openapi.json", timeout=10)
    assert response.status_code == 200
    return response.json()


# -- building hostile requests ------------------------------------------------------------


def resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    for key in ("oneOf", "anyOf", "allOf"):
        if key in schema:
            return resolve(schema[key][0], document)
    return schema


def hostile_value(schema: dict[str, Any], document: dict[str, Any], number: Any, text: Any) -> Any:
    """A value of `schema`'s shape whose integers are `number` and whose strings are `text`."""
    schema = resolve(schema, document)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or "properties" in schema:
        return {
            name: hostile_value(sub, document, number, text)
            for name, sub in schema.get("properties", {}).items()
        }
    if kind == "array":
        return [hostile_value(schema.get("items", {}), document, number, text)]
    if kind == "integer" or kind == "number":
        return number
    if kind == "boolean":
        return True
    return text


def deep_json(levels: int) -> str:
    return "[" * levels + "1" + "]" * levels


def fill_path(template: str, values: dict[str, Any]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), 1)), template)


def api_operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    base = document["servers"][0]["url"]
    for path, item in sorted(document["paths"].items()):
        for method, operation in sorted(item.items()):
            if method in ("get", "post", "put", "patch", "delete"):
                yield method.upper(), base + path, operation


def html_rules(app) -> list[Any]:
    return sorted(
        (
            rule
            for rule in app.url_map.iter_rules()
            if not rule.endpoint.endswith("static") and "/api/" not in rule.rule
        ),
        key=lambda rule: (rule.rule, sorted(rule.methods or ())),
    )


def fill_rule(rule, overrides: dict[str, Any]) -> str:
    def one(match: re.Match) -> str:
        converter, _, name = match.group(1).rpartition(":")
        if name in overrides:
            return str(overrides[name])
        if converter.startswith("any("):
            return converter[4:].split(",")[0].strip(" )'\"")
        return "1" if converter == "int" else "x"

    return re.sub(r"<([^>]+)>", one, rule.rule)


def int_args(rule) -> list[str]:
    return [name for name, conv in rule._converters.items() if isinstance(conv, IntegerConverter)]


# -- the sweep ------------------------------------------------------------------------------


class Sweep:
    """The hostile-input sweep over one app; `fuzzed` counts requests per kind of input."""

    def __init__(
        self,
        server,
        store: WorldStore,
        target: AppUnderTest,
        values: tuple[tuple[str, Any], ...] = QUERY_INTS,
        everything: bool = True,
    ) -> None:
        """`values` go into every query and form; `everything` adds hostile path ids, bodies
        and query bytes."""
        self.server = server
        self.store = store
        self.target = target
        self.fuzzed = Fuzzed()
        self.values = values
        self.everything = everything

    def send(
        self,
        kind: str,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        form: dict[str, Any] | None = None,
    ) -> None:
        headers = {CSRF_HEADER: CSRF_HEADER_VALUE, "X-CSRFToken": self.target.csrf}
        if content_type:
            headers["Content-Type"] = content_type
        response = self.target.session.request(
            method,
            self.server.url + path,
            data=body if form is None else form,
            headers=headers,
            allow_redirects=False,
            timeout=30,
        )
        self.fuzzed.record(kind, method, path, response.status_code, response.text)
        self._reset_after(method)

    def send_raw_query(self, method: str, path: str, names: list[str]) -> None:
        """Every name in the query with bytes that are not UTF-8, written to the socket as they
        are (HTTP clients would percent-encode them)."""
        query = b"&".join(name.encode() + b"=" + NOT_UTF8 for name in names)
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.target.session.cookies)
        headers = {
            "Host": f"{self.server.host}:{self.server.port}",
            WORLD_HEADER: self.target.world,
            "Cookie": cookies,
            CSRF_HEADER: CSRF_HEADER_VALUE,
            "X-CSRFToken": self.target.csrf,
            "Content-Length": "0",
            "Connection": "close",
        }
        head = b"%s %s?%s HTTP/1.1\r\n" % (method.encode(), path.encode(), query)
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()).encode()
        with socket.create_connection((self.server.host, self.server.port), timeout=30) as sock:
            sock.sendall(head + b"\r\n")
            status_line = sock.makefile("rb").readline()
        self.fuzzed.record("query-bytes", method, f"{path}?{query!r}", int(status_line.split()[1]))
        self._reset_after(method)

    def _reset_after(self, method: str) -> None:
        if method != "GET":
            self.store.reset(self.target.world)

    def api(self, document: dict[str, Any]) -> None:
        """Every operation of an app's OpenAPI document."""
        for method, path, operation in api_operations(document):
            params = operation.get("parameters", [])
            for name in (p["name"] for p in params if p["in"] == "path" and self.everything):
                for number in HOSTILE_INTS:
                    self.send("path-int", method, fill_path(path, {name: number}))
            base = fill_path(path, {})
            query_names = [p["name"] for p in params if p["in"] == "query"]
            if query_names:
                for kind, value in self.values:
                    self.send(
                        kind, method, f"{base}?{urlencode(dict.fromkeys(query_names, value))}"
                    )
                if self.everything:
                    self.send_raw_query(method, base, query_names)
            content = (operation.get("requestBody") or {}).get("content", {})
            if JSON in content and self.everything:
                self.json_bodies(method, base, content[JSON]["schema"], document)

    def json_bodies(self, method: str, path: str, schema: dict, document: dict) -> None:
        bodies = [("json-int", hostile_value(schema, document, n, "x")) for n in HOSTILE_INTS]
        bodies.append(("json-surrogate", hostile_value(schema, document, 1, LONE_SURROGATE)))
        for kind, value in bodies:
            self.send(kind, method, path, body=json.dumps(value).encode(), content_type=JSON)
        payloads = [deep_json(DEEP), '{"a": ' + deep_json(DEEP) + "}"]
        shaped = hostile_value(schema, document, 1, "x")
        if isinstance(shaped, dict) and shaped:
            shaped[next(iter(shaped))] = "@deep@"
            payloads.append(json.dumps(shaped).replace('"@deep@"', deep_json(DEEP)))
        for payload in payloads:
            self.send("json-deep", method, path, body=payload.encode(), content_type=JSON)

    def html(self, rules: list[Any], names: list[str]) -> None:
        """Every HTML route: hostile ids in the path, and every name the views read set to a
        hostile value in the query (GET) or the form (POST)."""
        for rule in rules:
            for method in sorted((rule.methods or set()) & {"GET", "POST"}):
                for name in int_args(rule) if self.everything else ():
                    for number in HOSTILE_INTS:
                        self.send("path-int", method, fill_rule(rule, {name: number}))
                path = quote(fill_rule(rule, {}))
                if method == "GET":
                    for kind, value in self.values:
                        self.send(kind, method, f"{path}?{urlencode(dict.fromkeys(names, value))}")
                    if self.everything:
                        self.send_raw_query(method, path, names)
                    continue
                for kind, value in self.values:
                    form = {**dict.fromkeys(names, str(value)), "csrf_token": self.target.csrf}
                    self.send(kind.replace("query", "form"), method, path, form=form)

    def oversized(self, api_path: str, html_path: str) -> list[int]:
        """A 20 MB JSON body to an API write and a 20 MB form to a page: the statuses."""
        statuses = []
        for path, content_type in ((api_path, JSON), (html_path, FORM)):
            response = self.target.session.post(
                self.server.url + path,
                data=b"a" * OVERSIZED,
                headers={"Content-Type": content_type, CSRF_HEADER: CSRF_HEADER_VALUE},
                timeout=60,
            )
            self.fuzzed.record("oversized", "POST", path, response.status_code, response.text)
            statuses.append(response.status_code)
        return statuses


OVERSIZE_TARGETS = {
    "chat": ("/chat/api/channels", "/chat/new"),
    "crm": ("/crm/api/accounts", "/crm/accounts/new"),
    "sheets": ("/sheets/api/workbooks", "/sheets/new"),
    "booking": ("/booking/api/reservations", "/booking/rooms/book"),
}
# The kit's own pages (login, launcher) are swept with the first app; never /logout.
KIT_PAGES = ("/login", "/")


def app_rules(server, slug: str) -> list[Any]:
    return [
        rule
        for rule in html_rules(server.app)
        if rule.rule.startswith(f"/{slug}/") or (slug == APPS[0] and rule.rule in KIT_PAGES)
    ]


def report(slug: str, sweep: Sweep) -> str:
    by_kind = Counter(error.split(":", 1)[0] for error in sweep.fuzzed.server_errors)
    print(
        f"\n{slug}: {sum(sweep.fuzzed.requests.values())} hostile requests "
        f"{dict(sorted(sweep.fuzzed.requests.items()))}; "
        f"{len(sweep.fuzzed.server_errors)} server errors {dict(sorted(by_kind.items()))}"
    )
    return "\n".join(sweep.fuzzed.server_errors)


@pytest.mark.parametrize("slug", APPS)
def test_hostile_ids_bodies_and_oversized_requests_never_get_a_server_error(
    slug, server, fuzz_store, apps_under_test
):
    target = apps_under_test[slug]
    sweep = Sweep(server, fuzz_store, target)
    sweep.api(openapi_document(server, target))
    sweep.html(app_rules(server, slug), read_names())
    assert sweep.oversized(*OVERSIZE_TARGETS[slug]) == [413, 413]
    assert not sweep.fuzzed.server_errors, report(slug, sweep)
    report(slug, sweep)


@pytest.mark.parametrize("slug", APPS)
def test_unicode_digits_where_a_number_is_read_never_get_a_server_error(
    slug, server, fuzz_store, apps_under_test
):
    target = apps_under_test[slug]
    sweep = Sweep(server, fuzz_store, target, QUERY_DIGITS, everything=False)
    sweep.api(openapi_document(server, target))
    sweep.html(app_rules(server, slug), read_names())
    assert not sweep.fuzzed.server_errors, report(slug, sweep)
    report(slug, sweep)


# -- the OpenAPI fuzz ---------------------------------------------------------------------

# Examples per operation and generation mode (positive: valid by the document; negative:
# invalid on purpose).
QUICK_EXAMPLES = 1
EXAMPLES = depth(QUICK_EXAMPLES, 10 * QUICK_EXAMPLES)
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)


def fuzz_operation(operation, mode: GenerationMode, call, fuzzed: Fuzzed) -> None:
    """Run `EXAMPLES` generated cases of one operation through `call`, recording each."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case) -> None:
        response = call(case)
        label = f"{mode.value} {operation.label}"
        try:
            case.validate_response(response, checks=[not_a_server_error])
        except AssertionError as failure:
            fuzzed.server_errors.append(f"{label}: {str(failure)[:600]}")
        fuzzed.requests[mode.value] += 1

    run()


@pytest.mark.parametrize("slug", APPS)
def test_openapi_fuzz_of_every_operation_never_gets_a_server_error(
    slug, server, fuzz_store, apps_under_test
):
    target = apps_under_test[slug]
    base_url = f"{server.url}/{slug}/api"
    schema = schemathesis.openapi.from_url(
        f"{base_url}/openapi.json", headers={WORLD_HEADER: target.world}
    )

    def call(case):
        # The CSRF header is fixed: negative cases that drop it would only test the 403.
        response = case.call(
            base_url=base_url,
            session=target.session,
            headers={CSRF_HEADER: CSRF_HEADER_VALUE},
            timeout=30,
        )
        if case.method.upper() != "GET":
            fuzz_store.reset(target.world)
        return response

    fuzzed = Fuzzed()
    operations = [result.ok() for result in schema.get_all_operations()]
    for operation in operations:
        for mode in MODES:
            fuzz_operation(operation, mode, call, fuzzed)
    print(
        f"\n{slug}: {len(operations)} operations, {sum(fuzzed.requests.values())} fuzz "
        f"requests {dict(fuzzed.requests)}, {len(fuzzed.server_errors)} server errors"
    )
    assert not fuzzed.server_errors, "\n".join(fuzzed.server_errors)
