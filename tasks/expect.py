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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from officegym.apps import registry as apps

from . import answer as answers
from .match import Matcher, describe, matches
from .protocol import EpisodeContext
from .verdict import Check, Kind, Verdict

# What the apps declare about the rows they write (`officegym.apps.registry.AppEntry`):
# - HONEST_VARIANCE: columns that honest use changes on rows no task is about (reading a
#   channel moves the reader's last-read marker; every write advances the world clock's tick
#   counter);
# - STAMPS: columns an app stamps whenever it updates a row (claimed along with the update);
# - CHILDREN: child rows that follow a parent row, table -> (fk column, parent table, how).
#   How the product makes them decides when a claimed parent claims them: "derived" rows
#   (re-made from the parent on every write of it) are claimed with any claimed change of the
#   parent; "with_parent" rows (made in the same act as the parent) when inserted with an
#   inserted parent or deleted with a removed one; "cascade" rows (a separate act of the user:
#   a pin, a reaction) only when the product removes them with a removed parent. Decorating
#   the row a task asked for is collateral like any other unasked change;
# - BLANKS: what the product leaves in the columns a user may fill in when making a row. A
#   new row's columns that an `inserted` expectation does not name must hold these (None and
#   "" count as the same blank): a task that did not ask for a next step, a lead source or
#   "also send to channel" is not done by a row that has them.
HONEST_VARIANCE: Mapping[str, frozenset[str]] = {
    "world_meta": frozenset({"clock_ticks"}),
    **apps.merged("honest_variance"),
}
STAMPS: Mapping[str, frozenset[str]] = apps.merged("stamps")
CHILDREN: Mapping[str, apps.Child] = apps.merged("children")
BLANKS: Mapping[str, Mapping[str, Any]] = apps.merged("blanks")


def is_blank(table: str, column: str, value: Any) -> bool:
    """Whether `value` is what the product leaves in `table.column` when the user does not
    fill it in (see `BLANKS`)."""
    default = BLANKS.get(table, {}).get(column)
    if value is None or value == "":
        return default is None or default == "" or default is False
    return matches(default, value)


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
    """One claim about the episode; `evaluate` turns it into a `Check`.

    A positive expectation is *core* (the change the task is about) unless made with
    `core=False` (a step on the way, like opening the DM a message goes to). Guards and
    non-core expectations earn their weight only when every required core one passed."""

    guard = False
    kind: Kind = "state"

    def __init__(self, name: str, weight: float, required: bool, core: bool = True) -> None:
        self.name = name
        self.weight = weight
        self.required = required
        self.core = core and not self.guard

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

    def __init__(self, name: str, weight: float, required: bool, core: bool = True) -> None:
        super().__init__(name, weight, required, core)
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
    def __init__(self, table, count, match, name, weight, required, core) -> None:
        super().__init__(name or f"inserted {table}", weight, required, core)
        self.table, self.count, self.match = table, count, dict(match)

    def _filled(self, row: Mapping[str, Any]) -> list[str]:
        """Columns of a new row that the expectation does not name but the user filled in."""
        return [
            f"{column}={_show(row[column])}"
            for column in sorted(BLANKS.get(self.table, {}))
            if column not in self.match
            and column in row
            and not is_blank(self.table, column, row[column])
        ]

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
        filled = [(pk, cols) for pk in hits if (cols := self._filled(rows[pk]))]
        if filled:
            detail += "; not asked for: " + "; ".join(
                f"#{pk} {', '.join(cols)}" for pk, cols in filled[:3]
            )
        return _count_ok(len(hits), self.count) and not filled, detail


class _Deleted(_RowExpectation):
    def __init__(self, table, key, count, match, name, weight, required, core) -> None:
        super().__init__(name or f"deleted {table}", weight, required, core)
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
    def __init__(self, table, key, changes, name, weight, required, core) -> None:
        label = f"#{key}" if isinstance(key, int) else _where(key or {})
        super().__init__(name or f"updated {table} {label}", weight, required, core)
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
    column, parent_table, made = link
    parent = row.get(column)
    if not isinstance(parent, int) or not claims.any_for(parent_table, parent):
        return False
    if made == "derived":
        return True
    if how == "deleted" and claims.removed(parent_table, parent):
        return True
    return made == "with_parent" and how == "inserted" and (parent_table, parent) in claims.inserted


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

    def __init__(self, expected, how, distractors, max_chars, name, weight, required, tol, unit):
        super().__init__(name or "answer", weight, required)
        if how not in ANSWER_KINDS:
            raise ValueError(f"unknown answer kind {how!r}; choose one of {ANSWER_KINDS}")
        self.expected, self.how, self.tol, self.unit = expected, how, tol, unit
        self.distractors = tuple(str(d) for d in distractors if d)
        self.max_chars = max_chars
        # Texts other answers of the same grading expect: the message may state them too.
        self.others: tuple[str, ...] = ()
        # The date relative answers were last read against (the context's world date).
        self.today: date | None = None

    def spellings(self) -> tuple[str, ...]:
        """The texts this answer expects, as another answer of the same message may see them."""
        e = self.expected
        if self.how in ("text", "list") and not isinstance(e, str):
            return tuple(map(str, e))
        if self.how in ("text", "name", "email", "phone"):
            return (str(e),)
        return ()

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
        self.today = ctx.world_today()
        if _COLLECTED.get() is not None:
            _COLLECTED.get().append(self)
        if ctx.infeasible is not None:
            return False, f"{want}; the agent reported the task infeasible"
        if text is None or not text.strip():
            return False, f"{want}; no answer was given"
        reading = self.judge(text, self.today)
        if not reading.passed:
            return (
                False,
                f"{want}; {reading.problem or 'not stated'} (read {reading.found}) in {_show(text, 80)}",
            )
        return True, f"{want}; found {reading.found} in {_show(text, 80)}"

    def judge(self, text: str, today: date | None) -> answers.Reading:
        """Read `text` as this answer (the gate's answer probes call this too)."""
        return answers.judge(
            text,
            self.expected,
            self.how,
            today=today,
            unit=self.unit,
            distractors=self.distractors,
            ignore=self.others,
            tolerance=self.tol,
            max_chars=self.max_chars,
        )


ANSWER_KINDS = answers.KINDS

# While set (see `collect_answers`), every answer expectation evaluated is appended here.
_COLLECTED: ContextVar[list[_Answer] | None] = ContextVar("officegym_answers", default=None)


@contextmanager
def collect_answers() -> Iterator[list[_Answer]]:
    """Within the block, every answer expectation a verifier evaluates is gathered into the
    yielded list: what a template expects as its answer, without running the episode (the
    gate's answer probes and instance statistics read it)."""
    found: list[_Answer] = []
    token = _COLLECTED.set(found)
    try:
        yield found
    finally:
        _COLLECTED.reset(token)


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


class _NotGivenUp(Expectation):
    """Added by `grade` to every feasible task: reporting it infeasible fails the episode,
    whatever was done before (else "always report infeasible" would never lose). It weighs
    nothing when it holds and as much as every other check together when it does not, so
    giving up on done work scores at most one half."""

    kind: Kind = "answer"
    guard = True

    def __init__(self) -> None:
        super().__init__("did not report the task infeasible", 1.0, True)

    def evaluate(self, ctx, claims):
        if ctx.infeasible is None:
            return True, "the agent did not report the task infeasible"
        return False, (
            "the task was feasible, but the agent reported it infeasible: "
            + _show(ctx.infeasible, 80)
        )


# ---- the DSL ---------------------------------------------------------------------------


def inserted(
    table: str,
    *,
    count: int | None = 1,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = True,
    columns: Mapping[str, Any] | None = None,
    **match: Any,
) -> _RowExpectation:
    """`count` new rows of `table` match (`None`: at least one); all matches are claimed.

    Columns of `BLANKS[table]` that the match does not name must be left as the product
    leaves them. `columns` holds matches for columns named like this function's own keywords
    (`columns={"name": "it-offsite"}`). `core=False`: a step on the way, not the task's change
    (see `Expectation`)."""
    return _Inserted(table, count, {**(columns or {}), **match}, name, weight, required, core)


def updated(
    table: str,
    key: Key,
    *,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = True,
    columns: Mapping[str, Any] | None = None,
    **changes: Any,
) -> _RowExpectation:
    """Row `key` (a primary key, or a column match on the row after the update) changed
    each named column to a matching value. Only the named columns (and the row's `STAMPS`)
    are claimed; other changes to the row are collateral. `columns`: changes to columns
    named like this function's keywords."""
    return _Updated(table, key, {**(columns or {}), **changes}, name, weight, required, core)


def deleted(
    table: str,
    key: int | None = None,
    *,
    count: int | None = 1,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
    core: bool = True,
    columns: Mapping[str, Any] | None = None,
    **match: Any,
) -> _RowExpectation:
    """Row `key` is gone, or `count` deleted rows of `table` matched `match` (old values;
    `columns` for columns named like this function's keywords)."""
    return _Deleted(table, key, count, {**(columns or {}), **match}, name, weight, required, core)


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
    unit: str | Sequence[str] | None = None,
    max_chars: int | None = None,
    tolerance: float = 0.0,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
) -> Expectation:
    """The final message states `expected`, read as `kind` (see `answer.KINDS`) under the
    answer contract (`officegym.tasks.answer.CONTRACT`): one value of the asked kind in any
    common format; a second candidate, a hedge word, a non-answer or a named distractor (a
    wrong candidate) fails. `unit` names what a count counts ("member"), so other numbers in
    the message read as context; `max_chars` defaults to the contract's limit."""
    return _Answer(expected, kind, distractors, max_chars, name, weight, required, tolerance, unit)


def infeasible(
    *, name: str | None = None, weight: float = 1.0, required: bool = True
) -> Expectation:
    """The agent called report_infeasible (the request cannot be met in this world)."""
    return _Infeasible(name, weight, required)


def grade(ctx: EpisodeContext, *expectations: Expectation) -> Verdict:
    """Evaluate `expectations` (positive ones in order, then guards) into a `Verdict`.

    A task without `infeasible()` is feasible: reporting it infeasible adds a failed required
    check. Guards and non-core expectations earn their weight only when every required core
    expectation passed, so a world left untouched, or a task half done, scores no more than
    the share of its core changes that happened."""
    if not any(not e.guard for e in expectations):
        raise ValueError("grade() needs at least one positive expectation besides guards")
    if not any(isinstance(e, _Infeasible) for e in expectations):
        expectations = (*expectations, _NotGivenUp())
    said = [e for e in expectations if isinstance(e, _Answer)]
    for e in said:
        e.others = tuple(t for other in said if other is not e for t in other.spellings())
    claims = Claims()
    by_index: dict[int, Check] = {}
    for index, e in enumerate(expectations):
        if not e.guard:
            by_index[index] = e.check(ctx, claims)
    core = [by_index[i] for i, e in enumerate(expectations) if e.core and e.required]
    earns = bool(core) and all(c.passed for c in core)
    for index, e in enumerate(expectations):
        if e.guard:
            by_index[index] = e.check(ctx, claims, earns=earns)
        elif not e.core and not earns:
            by_index[index] = replace(by_index[index], weight=0.0)
    for index, e in enumerate(expectations):
        if isinstance(e, _NotGivenUp):
            others = sum(c.weight for i, c in by_index.items() if i != index)
            check = by_index[index]
            by_index[index] = replace(check, weight=0.0 if check.passed else max(1.0, others))
    return Verdict(by_index[i] for i in range(len(expectations)))


__all__ = [
    "ANSWER_KINDS",
    "BLANKS",
    "CHILDREN",
    "HONEST_VARIANCE",
    "STAMPS",
    "Claims",
    "Expectation",
    "answer",
    "collect_answers",
    "deleted",
    "grade",
    "infeasible",
    "inserted",
    "is_blank",
    "nothing_else",
    "unchanged",
    "unclaimed",
    "updated",
]
