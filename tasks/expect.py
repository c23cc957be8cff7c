"""The verifier DSL: say what must have changed in the world, and grade an episode by it.

    from officegym.tasks import expect
    from officegym.tasks.match import contains

    def verify(self, ctx, params):
        return expect.grade(
            ctx,
            expect.inserted("chat_message", channel_id=params["channel_id"],
                            author_id=params["user_id"], body=contains("approved")),
            expect.nothing_else(),
        )

Each expectation becomes one `Check` with a name, a weight and a detail saying what was
expected and what was found. Expectations that find rows *claim* them; `nothing_else()`
fails on any change that no expectation claimed (collateral damage), apart from the honest
variance of using the product (`HONEST_VARIANCE`), the columns an app stamps on an update it
makes (`STAMPS`) and the child rows that follow a claimed parent (`CHILDREN`). Guards
(`unchanged`, `nothing_else`) only earn their weight when some positive expectation passed:
an untouched world scores 0, not "nothing broke".

Columns are matched with `officegym.tasks.match`: plain values compare after whitespace
normalisation; generated ids and timestamps are never compared unless an expectation names
them. `expect.answer` grades the agent's final message (see `officegym.tasks.answer`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from . import answer as answers
from .match import Matcher, describe, matches
from .protocol import EpisodeContext
from .verdict import Check, Kind, Verdict

# Columns that honest use of the product changes on rows no task is about: reading a channel
# moves the reader's last-read marker; every write advances the world clock's tick counter.
HONEST_VARIANCE: Mapping[str, frozenset[str]] = {
    "chat_membership": frozenset({"last_read_message_id"}),
    "world_meta": frozenset({"clock_ticks"}),
}

# Columns an app stamps whenever it updates a row (claimed along with the update).
STAMPS: Mapping[str, frozenset[str]] = {
    "chat_message": frozenset({"edited_at"}),
    "crm_account": frozenset({"updated_at"}),
    "crm_contact": frozenset({"updated_at"}),
    "crm_lead": frozenset({"updated_at"}),
    "crm_opportunity": frozenset({"updated_at"}),
}

# Child rows that follow a parent row: (fk column, parent table, derived). A derived child
# (mentions are re-read from a message's text; a CRM record's history rows are written with
# each change of it) is claimed with any claimed change of its parent; any child is claimed
# when it is inserted with an inserted parent or deleted with a deleted one.
CHILDREN: Mapping[str, tuple[str, str, bool]] = {
    "chat_mention": ("message_id", "chat_message", True),
    "chat_reaction": ("message_id", "chat_message", False),
    "chat_pin": ("message_id", "chat_message", False),
    "chat_saved": ("message_id", "chat_message", False),
    "chat_attachment": ("message_id", "chat_message", False),
    "crm_account_history": ("account_id", "crm_account", True),
    "crm_contact_history": ("contact_id", "crm_contact", True),
    "crm_lead_history": ("lead_id", "crm_lead", True),
    "crm_opportunity_history": ("opportunity_id", "crm_opportunity", True),
}

Key = int | Mapping[str, Any] | None


@dataclass
class Claims:
    """Which changes the expectations of one grading accounted for."""

    inserted: set[tuple[str, int]] = field(default_factory=set)
    deleted: set[tuple[str, int]] = field(default_factory=set)
    updated: dict[tuple[str, int], set[str]] = field(default_factory=dict)

    def any_for(self, table: str, pk: int) -> bool:
        key = (table, pk)
        return key in self.inserted or key in self.deleted or key in self.updated

    def removed(self, table: str, pk: int) -> bool:
        key = (table, pk)
        return key in self.deleted or "deleted_at" in self.updated.get(key, ())


class Expectation:
    """One claim about the episode; `evaluate` turns it into a `Check`."""

    guard = False
    kind: Kind = "state"

    def __init__(self, name: str, weight: float, required: bool) -> None:
        self.name = name
        self.weight = weight
        self.required = required

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        raise TypeError(f"{type(self).__name__} does not implement evaluate()")

    def check(self, ctx: EpisodeContext, claims: Claims, earns: bool = True) -> Check:
        passed, detail = self.evaluate(ctx, claims)
        return Check(
            self.name,
            passed,
            weight=self.weight if earns else 0.0,
            detail=detail,
            kind=self.kind,
            required=self.required,
        )


class _Ref(Matcher):
    """Matches the primary key that another expectation found (a row made in the episode)."""

    def __init__(self, source: _RowExpectation) -> None:
        self.source = source

    def matches(self, value: Any) -> bool:
        return value is not None and value in self.source.found

    def describe(self) -> str:
        found = sorted(self.source.found)
        return f"id of {self.source.name} ({found or 'none found'})"


class _RowExpectation(Expectation):
    """Shared by inserted/updated/deleted: rows found are remembered for `.pk` references."""

    def __init__(self, name: str, weight: float, required: bool) -> None:
        super().__init__(name, weight, required)
        self.found: list[int] = []

    @property
    def pk(self) -> Matcher:
        """A matcher for the id of the row this expectation found (evaluate it first)."""
        return _Ref(self)


def _where(match: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={describe(v)}" for k, v in match.items()) or "any values"


def _row_matches(row: Mapping[str, Any], match: Mapping[str, Any]) -> bool:
    return all(column in row and matches(want, row[column]) for column, want in match.items())


def _misses(row: Mapping[str, Any], match: Mapping[str, Any]) -> str:
    wrong = [
        f"{column}={_show(row.get(column))}"
        for column, want in match.items()
        if column not in row or not matches(want, row[column])
    ]
    return ", ".join(wrong)


def _show(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count_ok(found: int, count: int | None) -> bool:
    return found >= 1 if count is None else found == count


def _count_text(count: int | None) -> str:
    return "at least one" if count is None else str(count)


class _Inserted(_RowExpectation):
    def __init__(self, table, count, match, name, weight, required) -> None:
        super().__init__(name or f"inserted {table}", weight, required)
        self.table, self.count, self.match = table, count, dict(match)

    def evaluate(self, ctx, claims):
        rows = ctx.diff.table(self.table).inserted
        hits = sorted(pk for pk, row in rows.items() if _row_matches(row, self.match))
        self.found = hits
        claims.inserted.update((self.table, pk) for pk in hits)
        detail = (
            f"expected {_count_text(self.count)} new {self.table} row(s) with "
            f"{_where(self.match)}; found {len(hits)}"
        )
        near = [pk for pk in sorted(rows) if pk not in hits][:3]
        if near and not hits:
            detail += "; other new rows: " + "; ".join(
                f"#{pk} {_misses(rows[pk], self.match)}" for pk in near
            )
        return _count_ok(len(hits), self.count), detail


class _Deleted(_RowExpectation):
    def __init__(self, table, key, count, match, name, weight, required) -> None:
        super().__init__(name or f"deleted {table}", weight, required)
        self.table, self.key, self.count, self.match = table, key, count, dict(match)

    def evaluate(self, ctx, claims):
        rows = ctx.diff.table(self.table).deleted
        if isinstance(self.key, int):
            hits = [self.key] if self.key in rows else []
            what = f"{self.table} #{self.key}"
        else:
            hits = sorted(pk for pk, row in rows.items() if _row_matches(row, self.match))
            what = f"{_count_text(self.count)} {self.table} row(s) with {_where(self.match)}"
        self.found = hits
        claims.deleted.update((self.table, pk) for pk in hits)
        ok = bool(hits) if isinstance(self.key, int) else _count_ok(len(hits), self.count)
        return ok, f"expected {what} deleted; found {len(hits)} deleted"


class _Updated(_RowExpectation):
    def __init__(self, table, key, changes, name, weight, required) -> None:
        label = f"#{key}" if isinstance(key, int) else _where(key or {})
        super().__init__(name or f"updated {table} {label}", weight, required)
        self.table, self.key, self.changes = table, key, dict(changes)
        if not self.changes:
            raise ValueError("updated() needs at least one column=value change")

    def evaluate(self, ctx, claims):
        updates = ctx.diff.table(self.table).updated
        if isinstance(self.key, int):
            candidates = [self.key] if self.key in updates else []
        else:
            candidates = sorted(
                pk for pk, u in updates.items() if _row_matches(u.row, self.key or {})
            )
        wanted = ", ".join(f"{k} → {describe(v)}" for k, v in self.changes.items())
        if not candidates:
            self.found = []
            return False, f"expected {self.table} {self._label()} updated ({wanted}); not changed"
        best_pk, best_wrong = None, None
        for pk in candidates:
            update = updates[pk]
            wrong = [
                f"{column}: {_show(update.row.get(column))}"
                + ("" if column in update.changes else " (unchanged)")
                for column, want in self.changes.items()
                if column not in update.changes or not matches(want, update.changes[column][1])
            ]
            if best_wrong is None or len(wrong) < len(best_wrong):
                best_pk, best_wrong = pk, wrong
            if not wrong:
                break
        assert best_pk is not None and best_wrong is not None
        if best_wrong:
            self.found = []
            return False, (
                f"expected {self.table} #{best_pk} updated ({wanted}); found "
                + "; ".join(best_wrong)
            )
        self.found = [best_pk]
        columns = set(self.changes) | set(STAMPS.get(self.table, ()))
        claims.updated.setdefault((self.table, best_pk), set()).update(columns)
        return True, f"{self.table} #{best_pk} updated ({wanted})"

    def _label(self) -> str:
        return f"#{self.key}" if isinstance(self.key, int) else f"row with {_where(self.key)}"


class _Unchanged(Expectation):
    guard = True

    def __init__(self, table, key, name, weight, required) -> None:
        label = table if key is None else f"{table} #{key}"
        super().__init__(name or f"{label} unchanged", weight, required)
        self.table, self.key = table, key

    def evaluate(self, ctx, claims):
        changes = ctx.diff.table(self.table)
        allowed = HONEST_VARIANCE.get(self.table, frozenset())
        touched = sorted(
            {pk for pk in changes.inserted}
            | {pk for pk in changes.deleted}
            | {pk for pk, u in changes.updated.items() if not set(u.changes) <= allowed}
        )
        if self.key is not None:
            touched = [pk for pk in touched if pk == self.key]
        if touched:
            shown = ", ".join(f"#{pk}" for pk in touched[:5])
            return False, f"expected no change; {len(touched)} row(s) changed: {shown}"
        return True, "no change"


class _NothingElse(Expectation):
    guard = True

    def __init__(self, allow, name, weight, required) -> None:
        super().__init__(name or "nothing else changed", weight, required)
        self.allow = {table: frozenset(cols) for table, cols in (allow or {}).items()}

    def _allowed(self, table: str) -> frozenset[str]:
        return HONEST_VARIANCE.get(table, frozenset()) | self.allow.get(table, frozenset())

    def evaluate(self, ctx, claims):
        stray = unclaimed(ctx, claims, self._allowed)
        if stray:
            more = f" (+{len(stray) - 6} more)" if len(stray) > 6 else ""
            return False, f"unexpected changes: {'; '.join(stray[:6])}{more}"
        return True, "no other change"


def _child_claimed(table: str, row: Mapping[str, Any], claims: Claims, how: str) -> bool:
    link = CHILDREN.get(table)
    if link is None:
        return False
    column, parent_table, derived = link
    parent = row.get(column)
    if not isinstance(parent, int) or not claims.any_for(parent_table, parent):
        return False
    if derived:
        return True
    if how == "inserted":
        return (parent_table, parent) in claims.inserted
    return how == "deleted" and claims.removed(parent_table, parent)


def unclaimed(ctx: EpisodeContext, claims: Claims, allowed=None) -> list[str]:
    """Every change in the episode's diff that the claims do not cover, described."""
    allowed = allowed or (lambda table: HONEST_VARIANCE.get(table, frozenset()))
    stray = []
    for table, changes in ctx.diff.tables.items():
        for pk, row in changes.inserted.items():
            if (table, pk) not in claims.inserted and not _child_claimed(
                table, row, claims, "inserted"
            ):
                stray.append(f"{table} #{pk} inserted")
        for pk, row in changes.deleted.items():
            if (table, pk) not in claims.deleted and not _child_claimed(
                table, row, claims, "deleted"
            ):
                stray.append(f"{table} #{pk} deleted")
        for pk, update in changes.updated.items():
            extra = set(update.changes) - allowed(table) - claims.updated.get((table, pk), set())
            if extra and not _child_claimed(table, update.row, claims, "updated"):
                stray.append(f"{table} #{pk} updated ({', '.join(sorted(extra))})")
    return stray


class _Answer(Expectation):
    kind: Kind = "answer"

    def __init__(self, expected, how, distractors, max_chars, name, weight, required, tol):
        super().__init__(name or "answer", weight, required)
        if how not in ANSWER_KINDS:
            raise ValueError(f"unknown answer kind {how!r}; choose one of {ANSWER_KINDS}")
        self.expected, self.how, self.tol = expected, how, tol
        self.distractors = tuple(d for d in distractors if d)
        shown = self._shown()
        self.max_chars = max_chars if max_chars is not None else max(80, 4 * len(shown))

    def _shown(self) -> str:
        if isinstance(self.expected, date):
            return self.expected.isoformat()
        if isinstance(self.expected, str):
            return self.expected
        if isinstance(self.expected, Sequence):
            return ", ".join(map(str, self.expected))
        return f"{self.expected:g}" if isinstance(self.expected, float) else str(self.expected)

    def evaluate(self, ctx, claims):
        text = ctx.answer
        want = f"expected {self.how} {self._shown()!r}"
        if ctx.infeasible is not None:
            return False, f"{want}; the agent reported the task infeasible"
        if text is None or not text.strip():
            return False, f"{want}; no answer was given"
        if len(text) > self.max_chars:
            return False, f"{want}; the answer is {len(text)} characters (limit {self.max_chars})"
        passed, found = self._judge(text)
        named = [d for d in self.distractors if answers.mentions(text, d)]
        if passed and named:
            return False, f"{want}; the answer also names {named[:3]}"
        return passed, f"{want}; found {found} in {_show(text, 80)}"

    def _judge(self, text: str) -> tuple[bool, str]:
        e = self.expected
        if self.how == "number":
            return answers.judge_number(text, float(e), abs_tol=self.tol or 1e-9)
        if self.how == "money":
            return answers.judge_number(text, float(e), abs_tol=self.tol or 0.005)
        if self.how == "date":
            return answers.judge_date(text, e)
        if self.how == "phone":
            return answers.judge_phone(text, e)
        if self.how == "list":
            return answers.judge_list(text, list(e))
        if self.how == "name":
            return answers.judge_text(text, answers.name_spellings(e))
        return answers.judge_text(text, e)


ANSWER_KINDS = ("text", "name", "number", "money", "date", "phone", "list")


class _Infeasible(Expectation):
    kind: Kind = "answer"

    def __init__(self, name, weight, required) -> None:
        super().__init__(name or "reported infeasible", weight, required)

    def evaluate(self, ctx, claims):
        if ctx.infeasible is not None:
            return True, f"reported infeasible: {_show(ctx.infeasible, 80)}"
        if ctx.answer is not None:
            return False, f"expected report_infeasible; the agent answered {_show(ctx.answer, 60)}"
        return False, "expected report_infeasible; the agent did not report it"


# ---- the DSL ---------------------------------------------------------------------------


def inserted(
    table: str,
    *,
    count: int | None = 1,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    columns: Mapping[str, Any] | None = None,
    **match: Any,
) -> _RowExpectation:
    """`count` new rows of `table` match (`None`: at least one); all matches are claimed.

    `columns` holds matches for columns named like this function's own keywords
    (`columns={"name": "it-offsite"}`)."""
    return _Inserted(table, count, {**(columns or {}), **match}, name, weight, required)


def updated(
    table: str,
    key: Key,
    *,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    columns: Mapping[str, Any] | None = None,
    **changes: Any,
) -> _RowExpectation:
    """Row `key` (a primary key, or a column match on the row after the update) changed
    each named column to a matching value. Only the named columns (and the row's `STAMPS`)
    are claimed; other changes to the row are collateral. `columns`: changes to columns
    named like this function's keywords."""
    return _Updated(table, key, {**(columns or {}), **changes}, name, weight, required)


def deleted(
    table: str,
    key: int | None = None,
    *,
    count: int | None = 1,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    columns: Mapping[str, Any] | None = None,
    **match: Any,
) -> _RowExpectation:
    """Row `key` is gone, or `count` deleted rows of `table` matched `match` (old values;
    `columns` for columns named like this function's keywords)."""
    return _Deleted(table, key, count, {**(columns or {}), **match}, name, weight, required)


def unchanged(
    table: str,
    key: int | None = None,
    *,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
) -> Expectation:
    """Nothing in `table` (or its row `key`) changed, honest variance aside. A guard."""
    return _Unchanged(table, key, name, weight, required)


def nothing_else(
    *,
    allow: Mapping[str, Iterable[str]] | None = None,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
) -> Expectation:
    """No change beyond what the other expectations claimed (and `allow`: table → columns
    that may change anywhere). A guard; evaluated after every other expectation."""
    return _NothingElse(allow, name, weight, required)


def answer(
    expected: Any,
    *,
    kind: str = "text",
    distractors: Iterable[str] = (),
    max_chars: int | None = None,
    tolerance: float = 0.0,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
) -> Expectation:
    """The final message states `expected`, read as `kind` (text, name, number, money, date,
    phone, list). It fails when it also names a distractor (another candidate), states a
    different number/date/phone, or runs over `max_chars` (default max(80, 4 × expected))."""
    return _Answer(expected, kind, distractors, max_chars, name, weight, required, tolerance)


def infeasible(
    *, name: str | None = None, weight: float = 1.0, required: bool = True
) -> Expectation:
    """The agent called report_infeasible (the request cannot be met in this world)."""
    return _Infeasible(name, weight, required)


def grade(ctx: EpisodeContext, *expectations: Expectation) -> Verdict:
    """Evaluate `expectations` (positive ones in order, then guards) into a `Verdict`.

    Guards earn weight only if at least one positive expectation passed, so a world left
    untouched scores 0."""
    if not any(not e.guard for e in expectations):
        raise ValueError("grade() needs at least one positive expectation besides guards")
    claims = Claims()
    by_index: dict[int, Check] = {}
    for index, e in enumerate(expectations):
        if not e.guard:
            by_index[index] = e.check(ctx, claims)
    earns = any(c.passed for c in by_index.values())
    for index, e in enumerate(expectations):
        if e.guard:
            by_index[index] = e.check(ctx, claims, earns=earns)
    return Verdict(by_index[i] for i in range(len(expectations)))


__all__ = [
    "ANSWER_KINDS",
    "CHILDREN",
    "HONEST_VARIANCE",
    "STAMPS",
    "Claims",
    "Expectation",
    "answer",
    "deleted",
    "grade",
    "infeasible",
    "inserted",
    "nothing_else",
    "unchanged",
    "unclaimed",
    "updated",
]
