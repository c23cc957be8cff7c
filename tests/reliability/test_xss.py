"""Hostile text in every user-editable field of every app, rendered by the real server in Chromium.

Each round writes payloads through the products' own JSON APIs (as one signed-in employee) into
every text field: chat message bodies, thread replies, channel names, topics and descriptions,
status text; every text, URL, e-mail and phone field of every CRM object; sheet cell values,
sheet and workbook names, cell comments; trip purposes and justifications, meeting titles. The
search boxes that echo their query are fields too. Then every page that shows those fields is
opened in headless Chromium, and on each page:

- no JavaScript dialog opens (`alert`, `confirm`, `prompt`);
- the Content-Security-Policy reports no violation (injected markup that tried to run);
- no element carries an event-handler attribute, a `javascript:` (or `vbscript:`,
  `data:text/html`) link, source or action, an injected id/class/style, or is an inline script,
  frame, object, embed or base;
- a template expression never comes back evaluated (`{{7*7}}` must not read 49).

Depths: each round puts payload (round + field index) of the corpus into each field, so one
round spreads the whole corpus over the 37 fields, then loads every page that shows them (about
30, with the search pages echoing a payload). Quick: the 36-payload corpus, 1 round (every
payload in at least one field). Full: the corpus plus each markup payload behind the breakouts
`">`, `'>` and `-->` (96 payloads) and 96 rounds, so every payload goes into every field and
every page is loaded after each round (about 3,000 page loads).
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from officegym.apps.web import WORLD_HEADER, create_app, start_background_server
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore
from tests.conftest import login, new_world_id
from tests.reliability.conftest import FULL, depth

API = {"X-Requested-With": "officegym"}

# `{n}` is the payload's number: injected markup carries it as `xq<n>` so it can be found.
BASE_PAYLOADS = [
    "<script>alert({n})</script>",
    "<img src=x id=xq{n} onerror=alert({n})>",
    '<svg id=xq{n} onload="alert({n})">',
    "<svg><script>alert({n})</script></svg>",
    '"><script>alert({n})</script>',
    "'><img src=x id=xq{n} onerror=alert({n})>",
    '" onmouseover="alert({n})" autofocus onfocus="alert({n})" x="',
    "' onfocus='alert({n})' autofocus '",
    "javascript:alert({n})",
    " JaVaScRiPt:alert({n})",
    "java\tscript:alert({n})",
    "[xq{n}](javascript:alert({n}))",
    "[xq{n}](  javascript:alert({n}) )",
    "<javascript:alert({n})>",
    "![xq{n}](x onerror=alert({n}))",
    '<a id=xq{n} href="javascript:alert({n})">xq{n}</a>',
    '<a id=xq{n} href="&#106;avascript:alert({n})">xq{n}</a>',
    "<iframe id=xq{n} src=javascript:alert({n})></iframe>",
    '<object id=xq{n} data="javascript:alert({n})"></object>',
    '<embed id=xq{n} src="data:text/html,<script>alert({n})</script>">',
    "<details id=xq{n} open ontoggle=alert({n})>",
    "<body onload=alert({n})>",
    '<div id=xq{n} style="background:url(javascript:alert({n}))">',
    "<style>*{{background:url(javascript:alert({n}))}}</style>",
    '<base href="javascript:alert({n})//">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert({n})">',
    "{{{{7*7}}}}xq{n}",
    "${{7*7}}xq{n}",
    "{{% if 1 %}}49{{% endif %}}xq{n}",
    "</textarea><script>alert({n})</script>",
    "</title><script>alert({n})</script>",
    "<!--<img src=x id=xq{n} onerror=alert({n})>-->",
    "\u202e<img src=x id=xq{n} onerror=alert({n})>",
    "\uff1cscript\uff1ealert({n})\uff1c/script\uff1e",
    '=HYPERLINK("javascript:alert({n})","xq{n}")',
    "<math><mtext><table><mglyph><style><img src=x id=xq{n} onerror=alert({n})>",
]
BREAKOUTS = ['">', "'>", "-->"]


INSPECT = """() => {
  const bad = [];
  const risky = /^(javascript|vbscript|data:text\\/html)/;
  for (const el of document.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    if (['iframe', 'frame', 'object', 'embed', 'base'].includes(tag)) bad.push('<' + tag + '>');
    if (tag === 'script' && !el.hasAttribute('src')) bad.push('inline <script>');
    if (tag === 'meta' && el.hasAttribute('http-equiv')) bad.push('<meta http-equiv>');
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      const value = a.value.replace(/[\\u0000-\\u0020]/g, '').toLowerCase();
      if (name.startsWith('on')) bad.push(tag + ' ' + name + '=' + a.value.slice(0, 60));
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc', 'poster']
          .includes(name) && risky.test(value)) bad.push(tag + ' ' + name + '=' + a.value);
      if (['id', 'class', 'style'].includes(name) && /xq\\d/.test(a.value))
        bad.push(tag + ' injected ' + name + '=' + a.value.slice(0, 60));
    }
  }
  for (const a of document.links) if (a.protocol === 'javascript:') bad.push('link ' + a.href);
  return bad.concat(window.__violations || []);
}"""
WATCH_CSP = """window.__violations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__violations.push('CSP ' + e.violatedDirective + ' ' + (e.sample || '')));"""


def payloads() -> list[tuple[str, str | None]]:
    """The corpus as (text, forbidden): `forbidden` is what an evaluated template would show."""
    texts = list(BASE_PAYLOADS)
    if FULL:
        texts += [prefix + p for prefix in BREAKOUTS for p in BASE_PAYLOADS if p.startswith("<")]
    out = []
    for n, text in enumerate(texts):
        payload = text.format(n=n)
        forbidden = f"49xq{n}" if "7*7" in payload else None
        out.append((payload, forbidden))
    return out


# -- the fields and the pages that show them ----------------------------------------------------


@dataclass(frozen=True)
class Field:
    """A user-editable text field: `write(text)` stores it through the product's API (False if
    the product refuses that text), `pages` are the paths that show it. A field the product
    validates (a URL, an e-mail, a phone, a channel name) refuses most of the corpus; it gets
    a `fallback` value the product accepts, as hostile as its format allows."""

    name: str
    write: Callable[[str], bool]
    pages: tuple[str, ...]
    fallback: tuple[str, ...] = ()


class Writer:
    """The product's JSON API as one signed-in employee (Flask test client, same world)."""

    def __init__(self, app, world: str, email: str) -> None:
        self.client = app.test_client()
        self.headers = {WORLD_HEADER: world, **API}
        assert login(self.client, email, world=world).status_code == 302
        self.writes = 0
        self.refused = 0

    def call(self, method: str, path: str, body: dict) -> dict | None:
        response = self.client.open(path, method=method, json=body, headers=self.headers)
        assert response.status_code < 500, (path, response.get_data(as_text=True)[:300])
        if response.status_code >= 400:
            self.refused += 1
            return None
        self.writes += 1
        return response.get_json(silent=True) or {}


def fields(writer: Writer, facts: dict) -> list[Field]:
    """Every text field of the four apps, on records the writer may edit."""
    call = writer.call
    ch, me = facts["channel"], facts["me"]
    out = [
        Field(
            "chat message body",
            lambda t: call("POST", f"/chat/api/channels/{ch}/messages", {"body": t}) is not None,
            (f"/chat/c/{ch}", "/chat/search?q=xq", "/chat/activity"),
        ),
        Field(
            "chat thread reply",
            lambda t: (
                call("POST", f"/chat/api/messages/{facts['thread']}/replies", {"body": t})
                is not None
            ),
            (f"/chat/t/{facts['thread']}",),
        ),
        Field(
            "chat channel topic",
            lambda t: call("PATCH", f"/chat/api/channels/{ch}", {"topic": t}) is not None,
            (f"/chat/c/{ch}/details", "/chat/browse"),
        ),
        Field(
            "chat channel description",
            lambda t: call("PATCH", f"/chat/api/channels/{ch}", {"description": t}) is not None,
            (f"/chat/c/{ch}/details",),
        ),
        Field(
            "chat channel name",
            lambda t: call("POST", "/chat/api/channels", {"name": t}) is not None,
            ("/chat/browse",),
            ("javascript-alert-xq1", "onerror-xq2"),
        ),
        Field(
            "chat status text",
            lambda t: call("PUT", "/chat/api/me/status", {"text": t}) is not None,
            (f"/chat/people/{me}", "/chat/people"),
        ),
    ]
    for key, record, names in facts["crm"]:
        for name in names:
            out.append(
                Field(
                    f"crm {key} {name}",
                    lambda t, key=key, record=record, name=name: (
                        call("PATCH", f"/crm/api/{key}/{record}", {name: t}) is not None
                    ),
                    (f"/crm/{key}/{record}",) + ((f"/crm/{key}",) if key != "notes" else ()),
                    CRM_FALLBACK.get(name, ()),
                )
            )
    wb, sheet = facts["workbook"], facts["sheet"]
    grid = f"/sheets/w/{wb}/s/{sheet}"
    book = f"/sheets/api/workbooks/{wb}"
    out += [
        Field(
            "sheets cell value",
            lambda t: (
                call("PUT", f"{book}/sheets/{sheet}/range", {"ref": "A1", "values": [[t]]})
                is not None
            ),
            (grid,),
        ),
        Field(
            "sheets sheet name",
            lambda t: call("PATCH", f"{book}/sheets/{sheet}", {"name": t[:30]}) is not None,
            (grid,),
        ),
        Field(
            "sheets workbook name",
            lambda t: call("PATCH", book, {"name": t}) is not None,
            ("/sheets/", grid),
        ),
        Field(
            "sheets comment",
            lambda t: (
                call("POST", f"{book}/sheets/{sheet}/comments", {"cell": "B2", "body": t})
                is not None
            ),
            (f"{grid}/comments",),
        ),
    ]
    stays = itertools.count()

    def stay(text: str, what: str) -> bool:
        n = next(stays)
        body = {
            "resource_id": facts["hotel"],
            "check_in": f"2025-{11 + n // 14:02d}-{1 + 2 * (n % 14):02d}",
            "check_out": f"2025-{11 + n // 14:02d}-{2 + 2 * (n % 14):02d}",
            "purpose": "Customer visit",
            "justification": "",
            what: text,
        }
        made = call("POST", "/booking/api/reservations", body)
        if made is not None:
            facts["trips"].add(made["id"])
        return made is not None

    meetings = itertools.count()

    def meeting(text: str) -> bool:
        n = next(meetings)
        day = facts["days"][n % len(facts["days"])]
        hour = 16 + n // len(facts["days"])  # naive UTC: office hours on the US west coast
        body = {"start": f"{day}T{hour:02d}:00:00", "end": f"{day}T{hour:02d}:30:00", "title": text}
        made = call("POST", f"/booking/api/rooms/{facts['room']}/bookings", body)
        if made is not None:
            facts["meetings"].add(made["id"])
        return made is not None

    out += [
        Field("booking trip purpose", lambda t: stay(t, "purpose"), ("/booking/trips",)),
        Field("booking trip justification", lambda t: stay(t, "justification"), ()),
        Field("booking meeting title", meeting, ("/booking/calendar", "/booking/rooms")),
    ]
    return out


def world_facts(path) -> dict:
    """The records the writer (the company's first admin) edits, read from the world file."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:

        def one(sql: str, *args: object):
            row = conn.execute(sql, args).fetchone()
            assert row is not None, sql
            return row[0]

        me = one("SELECT id FROM people_employee WHERE is_active AND role = 'admin' ORDER BY id")
        channel = one(
            "SELECT c.id FROM chat_channel c JOIN chat_membership m ON m.channel_id = c.id "
            "WHERE m.employee_id = ? AND c.kind = 'channel' AND NOT c.is_private "
            "AND c.archived_at IS NULL AND c.name != 'general' ORDER BY c.id",
            me,
        )
        thread = one(
            "SELECT id FROM chat_message WHERE channel_id = ? AND thread_parent_id IS NULL "
            "AND deleted_at IS NULL ORDER BY id DESC",
            channel,
        )
        crm = []
        for key, table in (
            ("accounts", "crm_account"),
            ("contacts", "crm_contact"),
            ("leads", "crm_lead"),
            ("opportunities", "crm_opportunity"),
            ("activities", "crm_activity"),
            ("notes", "crm_note"),
        ):
            extra = "WHERE status != 'Converted'" if key == "leads" else ""
            crm.append((key, one(f"SELECT id FROM {table} {extra} ORDER BY id"), CRM_TEXT[key]))
        now = one("SELECT now FROM world_meta")
        hotel = one("SELECT id FROM booking_resource WHERE kind = 'hotel_room' ORDER BY id")
        room = one("SELECT id FROM booking_resource WHERE kind = 'meeting_room' ORDER BY id")
    finally:
        conn.close()
    # Weekdays in the month after the world's clock, for meetings.
    from datetime import date, timedelta

    start = date.fromisoformat(now[:10]) + timedelta(days=14)
    days = [start + timedelta(days=i) for i in range(28)]
    return {
        "me": me,
        "channel": channel,
        "thread": thread,
        "crm": crm,
        "hotel": hotel,
        "room": room,
        "days": [d.isoformat() for d in days if d.weekday() < 5],
        "trips": set(),
        "meetings": set(),
    }


# Every free-text field (text, textarea, URL, e-mail, phone) each CRM object publishes.
CRM_TEXT = {
    "accounts": (
        "name",
        "website",
        "phone",
        "billing_street",
        "billing_city",
        "billing_country",
    ),
    "contacts": ("first_name", "last_name", "title", "email", "phone", "mailing_city"),
    "leads": ("first_name", "last_name", "company", "title", "email", "phone"),
    "opportunities": ("name", "next_step"),
    "activities": ("subject", "description"),
    "notes": ("title", "body"),
}
CRM_KINDS = {"text", "textarea", "url", "email", "phone"}
# Short payloads for fields whose length limit refuses the longer ones.
SHORT = ("<img src=x id=xq98 onerror=alert(98)>", '"><b id=xq99>x')
# Values the validated CRM fields accept, as hostile as their format allows.
CRM_FALLBACK = {
    "website": (
        'https://example.com/#"><img src=x id=xq900 onerror=alert(900)>',
        "https://example.com/?q=<script>alert(901)</script>",
    ),
    "email": ("o'neil@example.com", "xq902@example.com"),
    "phone": ("+1 (415) 555-0134",),
}


# -- the world, the server, the browser ---------------------------------------------------------


@dataclass
class Stage:
    writer: Writer
    fields: list[Field]
    facts: dict
    page: object
    base: str
    loads: int = 0


@pytest.fixture(scope="module")
def stage(store: WorldStore, browser) -> Iterator[Stage]:
    """A fresh tiny world, its own workbook, a live server and a signed-in Chromium page."""
    world = new_world_id("xss")
    store.create(world, 0, "tiny")
    path = store.world_path(world)
    facts = world_facts(path)
    email = (
        sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        .execute("SELECT email FROM people_employee WHERE id = ?", (facts["me"],))
        .fetchone()[0]
    )
    app = create_app({"WORLD_STORE": store, "SECRET_KEY": "xss"})
    writer = Writer(app, world, email)
    made = writer.call("POST", "/sheets/api/workbooks", {"name": "Payloads"})
    facts["workbook"], facts["sheet"] = made["id"], made["sheets"][0]["id"]
    server = start_background_server(store, config={"SECRET_KEY": "xss"})
    context = browser.new_context(base_url=server.url, extra_http_headers={WORLD_HEADER: world})
    context.set_default_timeout(15_000)
    context.add_init_script(WATCH_CSP)
    page = context.new_page()
    page.goto("/login")
    page.get_by_label("Work email").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(server.url + "/")
    try:
        yield Stage(writer, fields(writer, facts), facts, page, server.url)
    finally:
        context.close()
        server.stop()
        store.drop(world)


@pytest.mark.parametrize(
    "markup",
    [
        "<img src=x id=xq1 onerror=alert(1)>",
        '<a href="java&#9;script:alert(2)">x</a>',
        "<script>alert(3)</script>",
        '<div id=xq4 style="color:red">x</div>',
    ],
)
def test_the_page_inspection_flags_injected_markup(browser, markup: str):
    """The check itself: markup of the kinds the corpus carries is caught when it lands."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.on("dialog", lambda d: d.dismiss())
        page.set_content(f"<!doctype html><p>{markup}</p>")
        assert page.evaluate(INSPECT) != []
    finally:
        context.close()


def test_the_fields_cover_every_crm_text_field_the_api_publishes(stage: Stage):
    objects = stage.writer.client.get("/crm/api/objects", headers=stage.writer.headers).get_json()
    published = {
        (o["object"], f["name"])
        for o in objects
        for f in o["fields"]
        if f["editable"] and f["kind"] in CRM_KINDS
    }
    assert published == {(k, n) for k, names in CRM_TEXT.items() for n in names}


def test_no_payload_in_any_field_runs_script_or_injects_markup_in_chromium(stage: Stage):
    corpus = payloads()
    rounds = depth(1, len(corpus))
    dialogs: list[str] = []
    stage.page.on("dialog", lambda d: (dialogs.append(f"{d.type}: {d.message}"), d.dismiss()))
    findings: list[str] = []
    accepted = {f.name: 0 for f in stage.fields}
    for r in range(rounds):
        shown: dict[str, list[tuple[str, str | None]]] = {}
        for i, field in enumerate(stage.fields):
            text, forbidden = corpus[(r + i) % len(corpus)]
            # A refused payload (too long, not a URL...) gives way to the field's own, then to
            # short ones every free-text field takes.
            if field.write(text) or any(field.write(t) for t in field.fallback + SHORT):
                accepted[field.name] += 1
                for path in field.pages:
                    shown.setdefault(path, []).append((field.name, forbidden))
        # Pages of records written this round, and the search boxes echoing a payload.
        text0 = corpus[r % len(corpus)][0]
        extra = [f"/booking/trips/{t}" for t in sorted(stage.facts["trips"])[-2:]]
        extra += [f"/booking/rooms/bookings/{m}" for m in sorted(stage.facts["meetings"])[-1:]]
        extra += [
            "/crm/search?" + _query(text0),
            "/chat/search?" + _query(text0),
            "/crm/accounts?" + _query(text0),
        ]
        for path in sorted(shown) + extra:
            dialogs.clear()
            stage.page.goto(path, wait_until="load")
            stage.loads += 1
            problems = stage.page.evaluate(INSPECT)
            body = stage.page.inner_text("body")
            for _, forbidden in shown.get(path, []):
                if forbidden and forbidden in body:
                    problems.append(f"template evaluated: {forbidden}")
            if dialogs or problems:
                findings.append(f"round {r} {path}: {dialogs + problems}")
    print(
        f"xss: {len(corpus)} payloads, {len(stage.fields)} fields, {rounds} rounds, "
        f"{stage.writer.writes} writes ({stage.writer.refused} refused), {stage.loads} pages"
    )
    assert not findings, "\n".join(findings)
    never = [name for name, count in accepted.items() if count == 0]
    assert not never, f"fields that took no payload at all (the probe would be vacuous): {never}"


def _query(text: str) -> str:
    from urllib.parse import urlencode

    return urlencode({"q": text})


def test_the_sheets_grid_keeps_to_the_apps_own_content_security_policy(stage: Stage):
    wb, sheet = stage.facts["workbook"], stage.facts["sheet"]
    stage.writer.call("PUT", f"/sheets/api/workbooks/{wb}/sheets/{sheet}/columns/B", {"width": 240})
    stage.page.goto(f"/sheets/w/{wb}/s/{sheet}", wait_until="load")
    violations = stage.page.evaluate("window.__violations")
    assert violations == []
