"""Message search: a Slack-style query parser and the FTS5 query behind it.

Syntax: free words and "quoted phrases" (all must match), plus filters

    from:@Display Name   from:@email-localpart   in:#channel   in:@Display Name (a DM)
    before:YYYY-MM-DD    after:YYYY-MM-DD        on:YYYY-MM-DD
    has:link             has:file

Dates are days in the searcher's timezone; `before:` and `after:` exclude the day itself, as in
Slack. Unknown people, channels the searcher cannot see (reported exactly like channels that
do not exist), bad dates and unknown `has:` values become messages in `errors`, and the query
then matches nothing rather than more than was asked. Results come only from channels the
searcher may see; deleted messages are never found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import Select, and_, column, exists, func, or_, select, table, text
from sqlalchemy.orm import Session

from officegym.apps.web.localtime import day_start
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.chat import Attachment, Channel, Message
from officegym.seed_data.search_index import FTS_TABLE

from .access import dm_name, visible_channel_ids

HAS_VALUES = ("link", "file")
_FILTER = re.compile(r"(from|in|before|after|on|has):", re.IGNORECASE)
_WORD_CHAR = re.compile(r"\w")
_SNIPPET_OPEN, _SNIPPET_CLOSE = "\x02", "\x03"
_LINK_PATTERNS = ("%http://%", "%https://%", "%www.%")


@dataclass
class ParsedQuery:
    """What a query asks for, with every person and channel already resolved to ids."""

    text: str
    words: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    authors: list[tuple[int, str]] = field(default_factory=list)
    channels: list[tuple[int, str]] = field(default_factory=list)
    before: date | None = None
    after: date | None = None
    on: date | None = None
    has: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def filters(self) -> dict:
        """The filters in effect, for display (JSON-friendly)."""
        out: dict = {}
        if self.authors:
            out["from"] = [name for _, name in self.authors]
        if self.channels:
            out["in"] = [name for _, name in self.channels]
        for key in ("before", "after", "on"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value.isoformat()
        if self.has:
            out["has"] = list(self.has)
        return out

    def fts_expression(self) -> str | None:
        """The FTS5 MATCH expression for the words and phrases (None: no text to match)."""
        terms = [_quote(w) for w in self.words if _WORD_CHAR.search(w)]
        terms += [_quote(p) for p in self.phrases if _WORD_CHAR.search(p)]
        return " AND ".join(terms) if terms else None


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _take_value(rest: str) -> tuple[str, str]:
    """The next filter value (a quoted string or up to whitespace) and what follows it."""
    if rest.startswith('"'):
        end = rest.find('"', 1)
        if end == -1:
            return rest[1:], ""
        return rest[1:end], rest[end + 1 :]
    match = re.match(r"\S*", rest)
    value = match.group()
    return value, rest[len(value) :]


def _match_person(db: Session, rest: str) -> tuple[tuple[int, str] | None, str, str]:
    """Resolve `@Display Name ...` or `@localpart ...` greedily: (person, consumed, rest)."""
    if rest.startswith('"'):
        value, after = _take_value(rest)
        return _person(db, value.lstrip("@")), value, after
    words = rest.split(" ")
    for count in range(min(4, len(words)), 0, -1):
        candidate = " ".join(words[:count])
        found = _person(db, candidate.lstrip("@"))
        if found is not None:
            return found, candidate, " ".join(words[count:])
    value, after = _take_value(rest)
    return None, value, after


def _person(db: Session, name: str) -> tuple[int, str] | None:
    name = name.strip()
    if not name:
        return None
    lowered = name.lower()
    row = db.execute(
        select(Employee.id, Employee.display_name)
        .where(
            or_(
                func.lower(Employee.display_name) == lowered,
                func.lower(Employee.email).like(_like_prefix(lowered) + "@%", escape="\\"),
            )
        )
        .order_by(Employee.is_active.desc(), Employee.id)
        .limit(1)
    ).first()
    return (row[0], row[1]) if row else None


def _like_prefix(text_value: str) -> str:
    return text_value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _channel(db: Session, actor: Employee, value: str) -> tuple[int, str] | None:
    """A channel the actor may see, by `#name`, `name` or `@Person` (the DM with them)."""
    value = value.strip()
    visible = visible_channel_ids(actor)
    if value.startswith("@"):
        person = _person(db, value[1:])
        if person is None:
            return None
        name = dm_name({actor.id, person[0]})
        label = f"@{person[1]}"
    else:
        name = value.lstrip("#").lower()
        label = f"#{name}"
    row = db.execute(
        select(Channel.id).where(Channel.name == name, Channel.id.in_(visible))
    ).first()
    return (row[0], label) if row else None


def _parse_date(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def parse(db: Session, actor: Employee, query: str) -> ParsedQuery:
    """Split a query into words, phrases and resolved filters (errors collected, not raised)."""
    parsed = ParsedQuery(text=query or "")
    rest = (query or "").strip()
    while rest:
        rest = rest.lstrip()
        if not rest:
            break
        filt = _FILTER.match(rest)
        if filt:
            key = filt.group(1).lower()
            after_key = rest[filt.end() :]
            if key == "from":
                person, consumed, rest = _match_person(db, after_key)
                if person is None:
                    parsed.errors.append(f"No one called {consumed or '(blank)'} was found.")
                elif person not in parsed.authors:
                    parsed.authors.append(person)
                continue
            if key == "in" and after_key.startswith("@"):
                person, consumed, rest = _match_person(db, after_key)
                found = _channel(db, actor, f"@{person[1]}") if person else None
                if found is None:
                    parsed.errors.append(f"No conversation with {consumed} was found.")
                elif found not in parsed.channels:
                    parsed.channels.append(found)
                continue
            value, rest = _take_value(after_key)
            if key == "in":
                found = _channel(db, actor, value)
                if found is None:
                    parsed.errors.append(f"No channel called #{value.lstrip('#')} was found.")
                elif found not in parsed.channels:
                    parsed.channels.append(found)
            elif key == "has":
                if value.lower() in HAS_VALUES:
                    if value.lower() not in parsed.has:
                        parsed.has.append(value.lower())
                else:
                    parsed.errors.append(f"has:{value} isn't a filter; use has:link or has:file.")
            else:
                day = _parse_date(value)
                if day is None:
                    parsed.errors.append(f"{key}:{value} isn't a date; write {key}:YYYY-MM-DD.")
                else:
                    setattr(parsed, key, day)
            continue
        if rest.startswith('"'):
            phrase, rest = _take_value(rest)
            if phrase.strip():
                parsed.phrases.append(phrase.strip())
            continue
        word, rest = _take_value(rest)
        parsed.words.append(word)
    return parsed


def _filtered(parsed: ParsedQuery, actor: Employee, statement: Select) -> Select:
    tz = actor.timezone
    statement = statement.where(
        Message.deleted_at.is_(None), Message.channel_id.in_(visible_channel_ids(actor))
    )
    if parsed.authors:
        statement = statement.where(Message.author_id.in_([i for i, _ in parsed.authors]))
    if parsed.channels:
        statement = statement.where(Message.channel_id.in_([i for i, _ in parsed.channels]))
    if parsed.before is not None:
        statement = statement.where(Message.created_at < day_start(parsed.before, tz))
    if parsed.after is not None:
        after = day_start(parsed.after + timedelta(days=1), tz)
        statement = statement.where(Message.created_at >= after)
    if parsed.on is not None:
        statement = statement.where(
            Message.created_at >= day_start(parsed.on, tz),
            Message.created_at < day_start(parsed.on + timedelta(days=1), tz),
        )
    if "link" in parsed.has:
        statement = statement.where(or_(*(Message.body.like(p) for p in _LINK_PATTERNS)))
    if "file" in parsed.has:
        statement = statement.where(exists().where(Attachment.message_id == Message.id))
    return statement


@dataclass(frozen=True)
class Snippet:
    """The stretch of a found message's text a result shows, and the words in it that
    matched (as written there), for `markdown.render_snippet`."""

    text: str
    matched: tuple[str, ...] = ()


def find(
    db: Session, actor: Employee, parsed: ParsedQuery, page: int, per_page: int
) -> tuple[int, dict[int, Snippet]]:
    """(total matches, {message id: snippet}) for one page, newest first."""
    if parsed.errors:
        return 0, {}
    expression = parsed.fts_expression()
    if expression is None and not (
        parsed.authors
        or parsed.channels
        or parsed.has
        or parsed.before
        or parsed.after
        or parsed.on
    ):
        return 0, {}
    offset = (page - 1) * per_page
    if expression is None:
        base = _filtered(parsed, actor, select(Message.id))
        total = db.scalar(select(func.count()).select_from(base.subquery()))
        rows = db.execute(
            _filtered(parsed, actor, select(Message.id, Message.body))
            .order_by(Message.id.desc())
            .limit(per_page)
            .offset(offset)
        ).all()
        return total, {mid: _plain_snippet(body) for mid, body in rows}
    fts = table(FTS_TABLE, column("rowid"))
    match = text(f"{FTS_TABLE} MATCH :expression").bindparams(expression=expression)
    joined = and_(fts.c.rowid == Message.id, match)
    base = _filtered(parsed, actor, select(Message.id).join(fts, joined))
    total = db.scalar(select(func.count()).select_from(base.subquery()))
    snippet = text(f"snippet({FTS_TABLE}, 0, '{_SNIPPET_OPEN}', '{_SNIPPET_CLOSE}', '…', 16)")
    rows = db.execute(
        _filtered(parsed, actor, select(Message.id, snippet).join(fts, joined))
        .order_by(Message.id.desc())
        .limit(per_page)
        .offset(offset)
    ).all()
    return total, {mid: _marked(raw) for mid, raw in rows}


def _marked(raw: str) -> Snippet:
    """FTS5's snippet (matches between the open and close marks) as text and matched words."""
    raw = raw or ""
    matched = re.findall(f"{_SNIPPET_OPEN}(.*?){_SNIPPET_CLOSE}", raw, re.DOTALL)
    text_only = raw.replace(_SNIPPET_OPEN, "").replace(_SNIPPET_CLOSE, "")
    return Snippet(text_only, tuple(sorted(set(matched))))


def _plain_snippet(body: str, limit: int = 160) -> Snippet:
    return Snippet(body if len(body) <= limit else body[: limit - 1].rstrip() + "…")


__all__ = ["HAS_VALUES", "ParsedQuery", "Snippet", "find", "parse"]
