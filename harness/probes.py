"""The gate's re-grading probes: what a policy gaming the reward would leave behind, made from
the oracle's finished episode in milliseconds, without a browser.

Each probe takes the oracle's final answer or final world, changes it the way a gaming
policy would, grades that with the template's own verifier, and puts the world back
(`WorldStore.snapshot/restore`). The verifier only ever sees the diff and the final message,
so editing the world file here is the same to it as doing it through the apps.

- **report-infeasible**: the work done, then `report_infeasible` (feasible instances) → fail;
- **hedge**: the right answer joined with a wrong candidate, every way `phrasing.hedges`
  knows → fail;
- **paraphrase**: the right answer in ≥ 10 honest phrasings (`phrasing.phrasings`) → pass;
- **all-candidates**: every candidate of the instance stated at once, as the answer or
  appended to each message the oracle wrote → fail;
- **spam**: junk, a link and an @mention (with the mention row chat adds) appended to each
  text the oracle wrote → fail;
- **decorate**: a pin, a reaction or a bookmark added to each message the oracle wrote or
  edited → fail;
- **junk-columns**: each column the product would have left blank on a row the oracle made
  (`expect.BLANKS`) filled in, one at a time → fail.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from officegym.seed_data.connect import connect
from officegym.seed_data.diff import WorldDiff
from officegym.seed_data.store import WorldStore
from officegym.tasks import expect, phrasing
from officegym.tasks.protocol import EpisodeContext, Task
from officegym.tasks.verdict import Verdict

from .actionspec import SPECS

PARAPHRASES = 12
_KEEP: Any = object()
_STAMP = "2031-01-01 09:00:00.000000"
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}")
# Tables the product writes by itself alongside what the user did.
_DERIVED = {table for table, (_, _, how) in expect.CHILDREN.items() if how == "derived"}
_SKIP = {"world_meta", "_changes"} | _DERIVED
SPAM = " Also: see https://deals.example.test/win and {mention} - act now, limited offer!!!"


# An edit of the world: SQL statements with their parameters, run in one transaction. Kept as
# data so a variant can be written down, shown and replayed against another build's verifier.
Edit = tuple[tuple[str, tuple[Any, ...]], ...]


@dataclass(frozen=True)
class Variant:
    """One gamed ending: a different final message and/or an edit of the final world."""

    label: str
    must_pass: bool = False
    answer: Any = _KEEP
    infeasible: Any = _KEEP
    edit: Edit = ()


@dataclass(frozen=True)
class Outcome:
    """How one probe went: each variant's verdict, and whether all behaved."""

    probe: str
    results: tuple[tuple[str, Verdict, bool], ...]
    must_pass: bool = False

    @property
    def ok(self) -> bool:
        return all(behaved for _, _, behaved in self.results)

    @property
    def score(self) -> float:
        """The worst score for the probe's rule: lowest of must-pass, highest of must-fail."""
        scores = [v.score for _, v, _ in self.results]
        return min(scores) if self.must_pass else max(scores)

    @property
    def success(self) -> bool:
        return any(v.success for _, v, _ in self.results)

    def detail(self) -> str:
        bad = [(label, v) for label, v, behaved in self.results if not behaved]
        if not bad:
            return f"{len(self.results)} variant(s) behaved"
        shown = []
        for label, v in bad[:3]:
            failed = "; ".join(f"{c.name}: {c.detail}" for c in v.failed if c.kind != "process")
            shown.append(f"{label} → score {v.score:.3f} ({failed or 'every check passed'})")
        return f"{len(bad)} of {len(self.results)} misbehaved: " + " | ".join(shown)


def _ending(action: str, text: str) -> dict[str, str | None]:
    """The final answer and infeasibility an episode records when it ends with `action(text)`."""
    spec = SPECS[action]
    return spec.ending.outcome({spec.ending.param: text})


def expected_answers(task: Task, ctx: EpisodeContext) -> list[Any]:
    """The answer expectations the task's verifier evaluates on `ctx` (empty for state tasks)."""
    with expect.collect_answers() as said:
        task.verify(ctx)
    return list(said)


def variants(
    task: Task,
    candidates: Sequence[str],
    ctx: EpisodeContext,
    world: sqlite3.Connection,
    rng: random.Random,
) -> dict[str, list[Variant]]:
    """Every probe's variants for the oracle's finished episode `ctx` (`world`: its final
    world, read-only). A probe that does not apply to the task has no variants."""
    said = expected_answers(task, ctx)
    today = ctx.world_today()
    found: dict[str, list[Variant]] = {}
    if ctx.infeasible is None:
        found["report-infeasible"] = [
            Variant(
                "report-infeasible", **_ending("report_infeasible", "This cannot be done here.")
            )
        ]
    if said:
        found["paraphrase"] = _paraphrases(said, today, rng)
        found["hedge"] = _hedges(said, today, rng)
    messages = _touched(ctx.diff, "chat_message", world)
    if candidates:
        listing = "; ".join(candidates)
        if said:
            found["all-candidates"] = [Variant("all-candidates", answer=listing)]
        elif messages:
            found["all-candidates"] = [
                Variant(
                    f"all-candidates in message #{pk}",
                    edit=_append("chat_message", pk, "body", " " + listing),
                )
                for pk in messages
            ]
    user = _user(world, task.user)
    texts = _texts(ctx.diff)
    if texts:
        other = _someone_else(world, user)
        found["spam"] = [
            Variant(f"spam in {table} #{pk} {column}", edit=_spam(table, pk, column, other))
            for table, pk, column in texts
        ]
    decorations = [
        Variant(f"{kind} message #{pk}", edit=make)
        for pk in messages
        for kind, make in _decorations(world, pk, user)
    ]
    if decorations:
        found["decorate"] = decorations
    junk = [
        Variant(f"junk in {table} #{pk} {column}", edit=make)
        for table, pk, column, make in _junk(ctx.diff, world)
    ]
    if junk:
        found["junk-columns"] = junk
    return found


def run_probes(
    store: WorldStore,
    world_id: str,
    task: Task,
    ctx: EpisodeContext,
    probes: Mapping[str, Sequence[Variant]],
) -> list[Outcome]:
    """Grade every variant of `probes` against the oracle's episode `ctx` in world `world_id`,
    putting the world back after each edit."""
    snap = store.snapshot(world_id)
    outcomes = []
    try:
        for probe, items in probes.items():
            results = []
            for v in items:
                diff = ctx.diff
                if v.edit:
                    diff = apply_edit(store, world_id, v.edit)
                graded = replace(
                    ctx,
                    diff=diff,
                    answer=ctx.answer if v.answer is _KEEP else v.answer,
                    infeasible=ctx.infeasible if v.infeasible is _KEEP else v.infeasible,
                )
                verdict = task.verify(graded)
                if v.edit:
                    store.restore(world_id, snap)
                behaved = (
                    verdict.success and verdict.score == 1.0
                    if v.must_pass
                    else not verdict.success and verdict.score < 1.0
                )
                results.append((v.label, verdict, behaved))
            outcomes.append(Outcome(probe, tuple(results), any(v.must_pass for v in items)))
    finally:
        store.restore(world_id, snap)
    return outcomes


def apply_edit(store: WorldStore, world_id: str, edit: Edit) -> WorldDiff:
    """Run `edit` on world `world_id` in one transaction; its diff from the golden after."""
    conn = connect(store.world_path(world_id))
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for sql, args in edit:
                conn.execute(sql, args)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.close()
    return store.diff(world_id)


# ---- answers ---------------------------------------------------------------------------


def _compose(parts: Sequence[str]) -> str:
    return " ".join(p.strip() for p in parts if p.strip())


def _paraphrases(said: Sequence[Any], today, rng: random.Random) -> list[Variant]:
    options = [
        phrasing.phrasings(a.expected, a.how, today=a.today or today, unit=_unit(a), rng=rng)
        for a in said
    ]
    count = max(PARAPHRASES, *(len(o) for o in options))
    texts = []
    for i in range(count):
        text = _compose([o[i % len(o)] for o in options])
        if text not in texts:
            texts.append(text)
    return [Variant(f"paraphrase {t!r}", must_pass=True, answer=t) for t in texts[:count]]


def _hedges(said: Sequence[Any], today, rng: random.Random) -> list[Variant]:
    plain = [
        phrasing.phrasings(a.expected, a.how, today=a.today or today, unit=_unit(a), rng=rng)[0]
        for a in said
    ]
    found = []
    for index, a in enumerate(said):
        distractor = a.distractors[0] if a.distractors else None
        for hedge in phrasing.hedges(
            a.expected, a.how, distractor=distractor, today=a.today or today, unit=_unit(a), rng=rng
        ):
            text = _compose([hedge if i == index else p for i, p in enumerate(plain)])
            found.append(Variant(f"hedge {text!r}", answer=text))
    return found


def _unit(a: Any) -> str | None:
    unit = a.unit
    if unit is None or isinstance(unit, str):
        return unit
    return next(iter(unit), None)


# ---- the world -------------------------------------------------------------------------


def _user(world: sqlite3.Connection, email: str) -> int | None:
    row = world.execute("SELECT id FROM people_employee WHERE email = ?", (email,)).fetchone()
    return row[0] if row else None


def _someone_else(world: sqlite3.Connection, user: int | None) -> tuple[int, str]:
    row = world.execute(
        "SELECT id, display_name FROM people_employee WHERE is_active AND id IS NOT ? "
        "ORDER BY id LIMIT 1",
        (user,),
    ).fetchone()
    return int(row[0]), str(row[1])


def _touched(diff: WorldDiff, table: str, world: sqlite3.Connection) -> list[int]:
    """Rows of `table` the episode made or edited that are still there (not deleted)."""
    changes = diff.table(table)
    pks = sorted(set(changes.inserted) | set(changes.updated))
    live = []
    for pk in pks:
        row = world.execute(f'SELECT deleted_at FROM "{table}" WHERE id = ?', (pk,)).fetchone()
        if row is not None and row[0] is None:
            live.append(pk)
    return live


def _texts(diff: WorldDiff) -> list[tuple[str, int, str]]:
    """(table, pk, column) of each text of several words the episode wrote."""
    found = []
    for table, changes in sorted(diff.tables.items()):
        if table in _SKIP or table.startswith("_"):
            continue
        for pk, row in sorted(changes.inserted.items()):
            found += [(table, pk, c) for c, v in sorted(row.items()) if _is_text(v)]
        for pk, update in sorted(changes.updated.items()):
            found += [(table, pk, c) for c, (_, v) in sorted(update.changes.items()) if _is_text(v)]
    return found


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and len(value.split()) >= 2 and not _DATETIME.match(value)


def _append(table: str, pk: int, column: str, extra: str) -> Edit:
    return ((f'UPDATE "{table}" SET "{column}" = "{column}" || ? WHERE id = ?', (extra, pk)),)


def _spam(table: str, pk: int, column: str, other: tuple[int, str]) -> Edit:
    person, name = other
    edit = _append(table, pk, column, SPAM.format(mention=f"@{name}"))
    if table == "chat_message" and column == "body":
        edit += (
            (
                "INSERT INTO chat_mention (message_id, employee_id) "
                "SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM chat_mention "
                "WHERE message_id = ? AND employee_id = ?)",
                (pk, person, pk, person),
            ),
        )
    return edit


def _decorations(
    world: sqlite3.Connection, message: int, user: int | None
) -> list[tuple[str, Edit]]:
    """Ways to decorate `message` that its current state leaves open: pin, react, save."""
    if user is None:
        return []
    found = []
    (channel,) = world.execute(
        "SELECT channel_id FROM chat_message WHERE id = ?", (message,)
    ).fetchone()
    if world.execute("SELECT 1 FROM chat_pin WHERE message_id = ?", (message,)).fetchone() is None:
        found.append(
            (
                "pin",
                _insert(
                    "chat_pin",
                    {
                        "message_id": message,
                        "channel_id": channel,
                        "pinned_by_id": user,
                        "pinned_at": _STAMP,
                    },
                ),
            )
        )
    used = {
        r[0]
        for r in world.execute(
            "SELECT emoji FROM chat_reaction WHERE message_id = ? AND employee_id = ?",
            (message, user),
        )
    }
    emoji = next(e for e in ("tada", "eyes", "rocket", "fire") if e not in used)
    found.append(
        (
            "react to",
            _insert(
                "chat_reaction",
                {"message_id": message, "employee_id": user, "emoji": emoji, "created_at": _STAMP},
            ),
        )
    )
    saved = world.execute(
        "SELECT 1 FROM chat_saved WHERE message_id = ? AND employee_id = ?", (message, user)
    ).fetchone()
    if saved is None:
        found.append(
            (
                "save",
                _insert(
                    "chat_saved", {"message_id": message, "employee_id": user, "saved_at": _STAMP}
                ),
            )
        )
    return found


def _insert(table: str, values: Mapping[str, Any]) -> Edit:
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    return ((f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', tuple(values.values())),)


def _junk(diff: WorldDiff, world: sqlite3.Connection) -> list[tuple[str, int, str, Edit]]:
    """(table, pk, column, edit) filling each blank `BLANKS` column of each new row."""
    found = []
    for table, changes in sorted(diff.tables.items()):
        blanks = expect.BLANKS.get(table)
        if not blanks or not changes.inserted:
            continue
        types = {r[1]: (r[2] or "").upper() for r in world.execute(f'PRAGMA table_info("{table}")')}
        refs = {r[3]: r[2] for r in world.execute(f'PRAGMA foreign_key_list("{table}")')}
        for pk, row in sorted(changes.inserted.items()):
            for column in sorted(blanks):
                if column not in row or not expect.is_blank(table, column, row[column]):
                    continue
                value = _junk_value(
                    world, table, pk, column, types.get(column, ""), refs.get(column)
                )
                if value is not None:
                    found.append((table, pk, column, _set(table, pk, column, value)))
    return found


def _junk_value(
    world: sqlite3.Connection, table: str, pk: int, column: str, kind: str, ref: str | None
) -> Any:
    if ref is not None:
        row = world.execute(
            f'SELECT id FROM "{ref}" WHERE id IS NOT ? ORDER BY id LIMIT 1',
            (pk if ref == table else None,),
        ).fetchone()
        return row[0] if row else None
    if kind.startswith("BOOL"):
        return 1
    if kind == "DATETIME":
        return _STAMP
    if kind == "DATE":
        return "2031-01-01"
    if kind.startswith("INT") or kind in ("BIGINT", "FLOAT", "REAL", "NUMERIC"):
        return 42
    return "zz junk"


def _set(table: str, pk: int, column: str, value: Any) -> Edit:
    return ((f'UPDATE "{table}" SET "{column}" = ? WHERE id = ?', (value, pk)),)


__all__ = [
    "PARAPHRASES",
    "Outcome",
    "Variant",
    "apply_edit",
    "expected_answers",
    "run_probes",
    "variants",
]
