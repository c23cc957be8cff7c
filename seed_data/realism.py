"""How much a world reads like one real company: varied message text, threads that stay on
their root's topic, and planted duplicates that look like the ways people really enter a
record twice.

`measure(world)` reads a world file (or an open sqlite3 connection) and returns `Realism`:

- top-level messages and the share of them with a body no other top-level message has;
- thread replies and the share of distinct reply bodies;
- distinct word bigrams over all word bigrams of every message body (repeated phrasing lowers
  it);
- the share of thread replies on their root's topic. Topic is read from the text alone, by a
  fixed keyword classifier (`TOPICS`: benefits, travel, deploys, deals...), so any world can
  be measured, including worlds an agent has changed and worlds made before the generator
  knew about topics. A reply is on its root's topic when the two share a topic keyword class,
  or name the same world entity (a `world_textref` target: a deal, account, contact, hotel,
  room, workbook or person; a deal or contact also stands for its account). "Nice work!"
  under a benefits reminder shares neither;
- the planted duplicates (`world_oddity` rows of kind duplicate_* and phone_conflict) counted
  by how the copy differs from the original, read from the two records themselves:
  `nickname` (Bob for Robert), `formatting` (the same name, phone or email written another
  way: Inc./Incorporated, +1 415-555-0100 / (415) 555-0100), `transposed_digits` (a phone
  with two neighbouring digits swapped), `stale_copy` (a copy nobody has touched for half a
  year that still holds an old title, phone or website) and `typo` (a name one or two
  keystrokes off). One pair can show several kinds.

Reading the seed 0 small world takes about a tenth of a second.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .generate.names import are_nicknames

DUPLICATE_KINDS = ("nickname", "formatting", "transposed_digits", "stale_copy", "typo")
# A copy untouched this long before the world's now, holding other values, is stale.
STALE_AFTER = timedelta(days=180)

# Topic keyword classes. A keyword matches as a whole word or phrase, also with a plural or
# verb ending ("benefit" matches "benefits", "deploy" matches "deployed", "deploying").
TOPICS: dict[str, tuple[str, ...]] = {
    "benefits": ("benefit", "open enrollment", "enrollment", "enroll", "dental", "vision",
                 "medical", "401(k)", "401k", "hsa", "fsa", "dependent", "coverage",
                 "insurance", "premium", "wellness", "stipend", "payroll", "payslip",
                 "pay stub", "parental leave", "pto", "time off", "holiday", "emergency contact",
                 "hr portal", "commuter", "gym", "therapy", "copay", "deductible"),
    "it": ("wifi", "wi-fi", "network", "password", "vpn", "mfa", "2fa", "laptop", "monitor",
           "ssid", "router", "okta", "sso", "phishing", "security training", "antivirus",
           "adapter", "hdmi", "usb-c", "charger", "dongle", "keyboard", "printer", "helpdesk",
           "it ticket", "macbook", "license", "access request", "badge", "headset", "webcam",
           "patch", "os update", "device", "authenticator", "login"),
    "company": ("all-hands", "all hands", "ama", "town hall", "offsite", "board meeting",
                "strategy", "roadmap", "engagement survey", "survey", "launch", "okr",
                "company", "kickoff", "values", "mission", "anniversary", "q&a"),
    "hiring": ("hiring", "candidate", "interview", "interviewer", "offer", "referral",
               "recruiter", "recruiting", "headcount", "opening", "debrief", "scorecard",
               "req", "sourcing", "job description", "new role", "hiring manager",
               "interview loop"),
    "people": ("welcome", "joins", "joined", "first day", "onboarding", "new hire", "say hi",
               "buddy", "intro", "introduce", "welcoming", "first week", "starter"),
    "deals": ("deal", "opportunity", "opportunities", "pipeline", "proposal", "pricing",
              "price", "discount", "contract", "order form", "signed", "signature",
              "procurement", "legal", "redline", "msa", "renewal", "champion", "budget",
              "forecast", "quote", "negotiation", "qualification", "prospecting",
              "needs analysis", "stage", "closed won", "closed lost", "competitor",
              "security review", "poc", "pilot", "arr", "multi-year", "exec sponsor",
              "economic buyer", "deal desk", "rfp", "close date", "close plan", "commit",
              "upside", "term sheet", "po", "seats", "license count", "expansion", "upsell"),
    "contacts": ("phone", "phone number", "mobile", "direct line", "reach", "voicemail",
                 "extension", "cell", "landline", "dial", "callback", "call back"),
    "travel": ("travel", "trip", "hotel", "flight", "fly", "flying", "airport", "train",
               "check-in", "check-out", "nights", "stay", "staying", "per diem", "itinerary",
               "nightly cap", "visa", "taxi", "layover", "red-eye", "boarding", "luggage",
               "jet lag", "car rental", "rideshare", "miles", "lounge", "travel policy"),
    "rooms": ("room", "meeting room", "booked", "booking", "whiteboard", "projector",
              "screen", "reservation", "conference room", "huddle", "dial-in", "video link",
              "capacity", "chairs"),
    "sheets": ("sheet", "workbook", "spreadsheet", "tab", "row", "column", "totals",
               "formula", "cell", "tracker", "filter", "pivot", "subtotal", "numbers"),
    "engineering": ("deploy", "release", "rollback", "roll back", "rollout", "staging",
                    "production", "prod", "migration", "schema", "unit test", "flaky test",
                    "test", "ci", "build", "pr", "pull request", "code review", "merge",
                    "branch", "feature flag", "latency", "p95", "p99", "bug", "hotfix", "api",
                    "postgres", "database", "index", "query", "cache", "queue", "worker",
                    "runbook", "code freeze", "canary", "dashboard", "endpoint", "timeout",
                    "memory", "cpu", "load test", "benchmark", "refactor", "dependency",
                    "upgrade", "config", "cluster", "pod", "search-api", "billing-service",
                    "auth-gateway", "ingest-worker", "web-app", "notifications",
                    "reporting-api", "sync-engine", "export-service", "mobile-api"),
    "incidents": ("sev1", "sev2", "sev3", "incident", "outage", "degradation", "degraded",
                  "mitigated", "mitigation", "root cause", "postmortem", "post-mortem",
                  "status page", "error rate", "alert", "pager", "paged", "on-call",
                  "monitoring", "5xx", "recovered", "customer impact", "incident channel",
                  "failover", "retro"),
    "support": ("ticket", "escalation", "escalate", "csat", "macro", "backlog", "sla",
                "zendesk", "help center", "article", "response time", "triage", "churn",
                "nps", "support", "customer", "first response", "queue", "agent"),
    "marketing": ("webinar", "campaign", "landing page", "blog", "blog post", "booth",
                  "trade show", "event", "registration", "mql", "content", "newsletter",
                  "brand", "press", "case study", "social", "ad", "seo", "copy", "swag",
                  "speaker", "attendee", "email blast", "nurture", "launch", "sponsor"),
    "finance": ("budget", "expense", "expense report", "invoice", "reimbursement",
                "reimburse", "month-end", "month-end close", "reforecast", "vendor", "payment",
                "spend", "purchase order", "accrual", "audit", "receipt", "corporate card",
                "card", "finance", "tax", "variance", "approval", "approve", "cost", "p&l",
                "netsuite", "ap", "ar", "billing"),
    "office": ("office", "kitchen", "parking", "garage", "cleaning", "desk", "heating",
               "air conditioning", "fire drill", "alarm", "reception", "front desk", "visitor",
               "lunch", "catered", "catering", "snack", "coffee machine", "oat milk", "milk",
               "package", "mail", "elevator", "floor", "building", "key", "locker",
               "facilities", "shuttle", "bike", "fridge", "dishwasher", "lobby", "plant"),
    "social": ("lunch", "coffee", "book", "book club", "chapter", "trivia", "podcast", "pizza",
               "run", "running", "donut", "cake", "birthday", "movie", "game", "board game",
               "hike", "soccer", "climbing", "yoga", "playlist", "music", "recipe", "dog",
               "cat", "photo", "weekend", "vacation", "sunset", "restaurant", "ramen", "tacos",
               "bake", "karaoke", "umbrella", "concert", "series", "club", "novel", "author",
               "pick", "ending"),
    "team": ("standup", "stand-up", "retro", "sprint", "planning", "sync", "1:1",
             "one-on-one", "goal", "okr", "agenda", "notes", "ooo", "out of office",
             "covering", "rotation", "demo", "shipped", "milestone", "priority", "priorities",
             "estimate", "doc", "draft", "feedback", "deadline", "handoff", "scope",
             "timeline", "action item", "blocker", "status update"),
    "leadership": ("board", "board deck", "deck", "hiring plan", "risk", "forecast", "offsite",
                   "budget", "headcount", "strategy", "exec", "priority", "okr", "quarter",
                   "investor", "comp", "performance review", "promotion", "calibration",
                   "top three"),
}  # fmt: skip

_WORD = re.compile(r"[a-z0-9][a-z0-9()'+-]*")
_ENDINGS = r"(?:s|es|ed|d|ing|er|ers|ment|ments)?"


def _keyword_pattern(words: Iterable[str]) -> re.Pattern[str]:
    parts = sorted((re.escape(w) for w in words), key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(parts) + r")" + _ENDINGS + r"(?![a-z0-9])")


_TOPIC_PATTERNS = {topic: _keyword_pattern(words) for topic, words in TOPICS.items()}


def topics_of(text: str) -> frozenset[str]:
    """The topic classes whose keywords `text` holds (case aside)."""
    folded = text.casefold()
    return frozenset(t for t, pattern in _TOPIC_PATTERNS.items() if pattern.search(folded))


@dataclass(frozen=True)
class Realism:
    """What `measure` found in one world (ratios in [0, 1])."""

    top_level_messages: int
    distinct_top_level_ratio: float
    thread_replies: int
    distinct_reply_ratio: float
    distinct_bigram_ratio: float
    replies_on_topic_ratio: float
    duplicates: int
    duplicate_kinds: Mapping[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The figures as JSON-ready values."""
        return {
            "top_level_messages": self.top_level_messages,
            "distinct_top_level_ratio": self.distinct_top_level_ratio,
            "thread_replies": self.thread_replies,
            "distinct_reply_ratio": self.distinct_reply_ratio,
            "distinct_bigram_ratio": self.distinct_bigram_ratio,
            "replies_on_topic_ratio": self.replies_on_topic_ratio,
            "duplicates": self.duplicates,
            "duplicate_kinds": dict(self.duplicate_kinds),
        }

    def lines(self) -> list[str]:
        """The figures as lines for people (what `officegym seed` prints)."""
        kinds = " · ".join(
            f"{kind.replace('_', ' ')} {self.duplicate_kinds.get(kind, 0)}"
            for kind in DUPLICATE_KINDS
        )
        return [
            f"messages    {self.top_level_messages:,} top-level, "
            f"{self.distinct_top_level_ratio:.1%} distinct; {self.thread_replies:,} thread "
            f"replies, {self.distinct_reply_ratio:.1%} distinct",
            f"phrasing    {self.distinct_bigram_ratio:.1%} of word bigrams distinct",
            f"threads     {self.replies_on_topic_ratio:.1%} of replies on their root's topic",
            f"duplicates  {self.duplicates} planted: {kinds}",
        ]


def measure(world: Path | str | sqlite3.Connection) -> Realism:
    """The realism figures of the world file at `world` (or an open connection to one)."""
    if isinstance(world, sqlite3.Connection):
        return _measure(world)
    conn = sqlite3.connect(f"file:{Path(world).resolve()}?mode=ro", uri=True)
    try:
        return _measure(conn)
    finally:
        conn.close()


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _measure(conn: sqlite3.Connection) -> Realism:
    messages = conn.execute(
        "SELECT id, body, thread_parent_id FROM chat_message WHERE deleted_at IS NULL ORDER BY id"
    ).fetchall()
    roots = [body for _, body, parent in messages if parent is None]
    replies = [(pk, body, parent) for pk, body, parent in messages if parent is not None]
    bigrams: list[tuple[str, str]] = []
    for _, body, _ in messages:
        words = _WORD.findall(body.casefold())
        bigrams += zip(words, words[1:], strict=False)
    kinds, pairs = _duplicate_kinds(conn)
    return Realism(
        top_level_messages=len(roots),
        distinct_top_level_ratio=_ratio(len(set(roots)), len(roots)),
        thread_replies=len(replies),
        distinct_reply_ratio=_ratio(len({body for _, body, _ in replies}), len(replies)),
        distinct_bigram_ratio=_ratio(len(set(bigrams)), len(bigrams)),
        replies_on_topic_ratio=_ratio(_on_topic(conn, messages, replies), len(replies)),
        duplicates=pairs,
        duplicate_kinds=kinds,
    )


def _on_topic(
    conn: sqlite3.Connection, messages: list[tuple[int, str, int | None]], replies: list[tuple]
) -> int:
    """How many replies share a topic class or a named entity with their root."""
    body_of = {pk: body for pk, body, _ in messages}
    # A deal or a contact also stands for its account ("the Acme deal" is about Acme).
    account_of = {
        ("crm_opportunity", pk): account
        for pk, account in conn.execute("SELECT id, account_id FROM crm_opportunity")
    } | {
        ("crm_contact", pk): account
        for pk, account in conn.execute("SELECT id, account_id FROM crm_contact")
    }
    named: dict[int, set[tuple[str, int]]] = {}
    for source_id, table, target_id in conn.execute(
        "SELECT source_id, target_table, target_id FROM world_textref "
        "WHERE source_table = 'chat_message' AND source_column = 'body'"
    ):
        found = named.setdefault(source_id, set())
        found.add((table, target_id))
        if account_of.get((table, target_id)) is not None:
            found.add(("crm_account", account_of[table, target_id]))
    on = 0
    for pk, body, parent in replies:
        root = body_of.get(parent)
        if root is None:
            continue
        if topics_of(body) & topics_of(root) or named.get(pk, set()) & named.get(parent, set()):
            on += 1
    return on


# Duplicates ---------------------------------------------------------------------------------

_LEGAL = frozenset(
    ("the", "inc", "incorporated", "corp", "corporation", "llc", "co", "company", "ltd",
     "limited", "group", "grp", "holdings", "hldgs", "plc", "public")
)  # fmt: skip


def _company_key(name: str) -> str:
    text = (name or "").casefold().replace("&", " and ").replace(".", "")
    return " ".join(w for w in re.split(r"[^0-9a-z]+", text) if w and w not in _LEGAL)


def _plain(text: str | None) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", (text or "").casefold()).split())


def _digits(phone: str | None) -> str:
    digits = re.sub(r"\D", "", phone or "")
    return digits[1:] if len(digits) == 11 and digits.startswith("1") else digits


def _transposed(a: str, b: str) -> bool:
    """Whether `b` is `a` with exactly one pair of neighbouring characters swapped."""
    if len(a) != len(b) or a == b:
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and a[diff[0]] == b[diff[1]]
        and (a[diff[1]] == b[diff[0]])
    )


def _edits(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment) between `a` and `b`."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _name_kinds(first_a: str, last_a: str, first_b: str, last_b: str) -> set[str]:
    """How person name b differs from name a: written another way (case, punctuation, a
    middle initial), a nickname, or a typo."""
    full_a, full_b = _plain(f"{first_a} {last_a}"), _plain(f"{first_b} {last_b}")
    if f"{first_a} {last_a}" == f"{first_b} {last_b}":
        return set()
    if full_a == full_b:
        return {"formatting"}
    given_a, given_b = _plain(first_a).split() or [""], _plain(first_b).split() or [""]
    same_last = _plain(last_a) == _plain(last_b)
    if same_last and given_a[0] == given_b[0] and len(given_a) + len(given_b) == 3:
        return {"formatting"}  # one of them carries a middle initial
    if given_a[0] != given_b[0] and are_nicknames(given_a[0], given_b[0]):
        return {"nickname"}
    if 0 < _edits(full_a, full_b) <= 2:
        return {"typo"}
    return set()


def _phone_kinds(a: str | None, b: str | None) -> set[str]:
    if not a or not b or a == b:
        return set()
    da, db = _digits(a), _digits(b)
    if da == db:
        return {"formatting"}
    return {"transposed_digits"} if _transposed(da, db) else set()


def _when(value: Any) -> datetime | None:
    return datetime.fromisoformat(str(value)) if value else None


def _stale(
    now: datetime, copy: Mapping[str, Any], original: Mapping[str, Any], cols: tuple
) -> bool:
    """A copy untouched for `STALE_AFTER` that holds another value than the original in one
    of `cols` (both set, and not merely formatted differently)."""
    touched = _when(copy.get("updated_at"))
    if touched is None or now - touched < STALE_AFTER:
        return False
    for column in cols:
        a, b = original.get(column), copy.get(column)
        if a and b and a != b and not (column == "phone" and _digits(a) == _digits(b)):
            return True
    return False


def _rows(conn: sqlite3.Connection, table: str, ids: set[int]) -> dict[int, dict[str, Any]]:
    if not ids:
        return {}
    marks = ",".join("?" for _ in ids)
    cursor = conn.execute(f'SELECT * FROM "{table}" WHERE id IN ({marks})', tuple(sorted(ids)))
    names = [d[0] for d in cursor.description]
    return {row[0]: dict(zip(names, row, strict=True)) for row in cursor}


def _duplicate_kinds(conn: sqlite3.Connection) -> tuple[dict[str, int], int]:
    """(count per duplicate kind, number of planted pairs)."""
    (now_text,) = conn.execute("SELECT now FROM world_meta").fetchone()
    now = datetime.fromisoformat(str(now_text))
    oddities = conn.execute(
        "SELECT kind, row_table, row_id, other_table, other_id, detail FROM world_oddity "
        "WHERE (kind LIKE 'duplicate_%' OR kind = 'phone_conflict') ORDER BY id"
    ).fetchall()
    wanted: dict[str, set[int]] = {}
    for _, row_table, row_id, other_table, other_id, _ in oddities:
        wanted.setdefault(row_table, set()).add(row_id)
        if other_table is not None and other_id is not None:
            wanted.setdefault(other_table, set()).add(other_id)
    rows = {table: _rows(conn, table, ids) for table, ids in wanted.items()}
    counts = dict.fromkeys(DUPLICATE_KINDS, 0)
    pairs = 0
    for kind, row_table, row_id, other_table, other_id, detail in oddities:
        found: set[str] = set()
        if kind == "phone_conflict":
            phones = json.loads(detail or "{}")
            found |= _phone_kinds(phones.get("crm_phone"), phones.get("chat_phone"))
        else:
            copy = rows.get(row_table, {}).get(row_id)
            original = rows.get(other_table or "", {}).get(other_id or -1)
            if copy is None or original is None:
                continue
            pairs += 1
            if row_table == "crm_account":
                if copy["name"] != original["name"]:
                    if _company_key(copy["name"]) == _company_key(original["name"]):
                        found.add("formatting")
                    elif _edits(_plain(copy["name"]), _plain(original["name"])) <= 2:
                        found.add("typo")
                found |= _phone_kinds(original["phone"], copy["phone"])
                if _stale(now, copy, original, ("phone", "website")):
                    found.add("stale_copy")
            else:
                found |= _name_kinds(
                    original["first_name"], original["last_name"],
                    copy["first_name"], copy["last_name"],
                )  # fmt: skip
                found |= _phone_kinds(original["phone"], copy["phone"])
                email_a, email_b = original.get("email"), copy.get("email")
                if (
                    email_a
                    and email_b
                    and email_a != email_b
                    and email_a.lower() == email_b.lower()
                ):
                    found.add("formatting")
                if _stale(now, copy, original, ("title", "phone")):
                    found.add("stale_copy")
        for name in found:
            counts[name] += 1
    return counts, pairs


__all__ = ["DUPLICATE_KINDS", "TOPICS", "Realism", "measure", "topics_of"]
