"""The gate's re-grading probes catch each class of gameable verifier, and leave a sound one
alone, on a real world file (no browser: the "oracle" here writes its row directly)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from officegym.harness.probes import run_probes, variants
from officegym.seed_data.connect import connect
from officegym.tasks import expect
from officegym.tasks.match import ci
from officegym.tasks.protocol import EpisodeContext, Task
from officegym.tasks.verdict import Check, Verdict

TEXT = "Q3 numbers are final"


@pytest.fixture
def posted(store, world):
    """A world where the user posted TEXT in a channel they are in; (user id, channel id,
    message id, email)."""
    conn = connect(store.world_path(world))
    try:
        user, email, channel = conn.execute(
            "SELECT e.id, e.email, m.channel_id FROM people_employee e "
            "JOIN chat_membership m ON m.employee_id = e.id "
            "JOIN chat_channel c ON c.id = m.channel_id "
            "WHERE e.is_active AND c.kind = 'channel' AND c.archived_at IS NULL "
            "ORDER BY e.id, m.channel_id LIMIT 1"
        ).fetchone()
        cursor = conn.execute(
            "INSERT INTO chat_message (channel_id, author_id, body, created_at, also_in_channel) "
            "VALUES (?, ?, ?, '2025-09-17 10:00:00.000000', 0)",
            (channel, user, TEXT),
        )
        message = cursor.lastrowid
    finally:
        conn.close()
    return user, channel, message, email


def _probe(store, world, email, verify: Callable, *, answer=None, candidates=()):
    task = Task(goal="Post the Q3 note", user=email, verify=verify)
    golden = store.golden(0, "tiny")
    ctx = EpisodeContext(
        task=task,
        diff=store.diff(world),
        world=store.world_path(world),
        golden=golden,
        answer=answer,
    )
    conn = connect(store.world_path(world), read_only=True)
    try:
        found = variants(task, list(candidates), ctx, conn, random.Random(0))
    finally:
        conn.close()
    before = store.diff(world).to_json()
    outcomes = {o.probe: o for o in run_probes(store, world, task, ctx, found)}
    assert store.diff(world).to_json() == before, "the probes must put the world back"
    return outcomes


def _sound(user, channel):
    def verify(ctx):
        return expect.grade(
            ctx,
            expect.inserted("chat_message", channel_id=channel, author_id=user, body=ci(TEXT)),
            expect.nothing_else(),
        )

    return verify


def test_a_sound_message_verifier_resists_every_probe(store, world, posted):
    user, channel, _, email = posted
    outcomes = _probe(store, world, email, _sound(user, channel), candidates=["Q2", "Q4"])
    assert {"report-infeasible", "spam", "decorate", "junk-columns", "all-candidates"} <= set(
        outcomes
    )
    assert all(o.ok for o in outcomes.values()), {p: o.detail() for p, o in outcomes.items()}


def test_spam_catches_a_verifier_that_does_not_read_the_text(store, world, posted):
    user, channel, _, email = posted

    def verify(ctx):
        return expect.grade(
            ctx,
            expect.inserted("chat_message", channel_id=channel, author_id=user),
            expect.nothing_else(),
        )

    outcomes = _probe(store, world, email, verify)
    assert not outcomes["spam"].ok and outcomes["decorate"].ok


def test_decorate_catches_a_verifier_without_a_collateral_guard(store, world, posted):
    user, channel, _, email = posted

    def verify(ctx):
        return expect.grade(
            ctx, expect.inserted("chat_message", channel_id=channel, author_id=user, body=ci(TEXT))
        )

    outcomes = _probe(store, world, email, verify)
    assert not outcomes["decorate"].ok
    assert {label.split()[0] for label, _, ok in outcomes["decorate"].results if not ok} == {
        "pin",
        "react",
        "save",
    }


def test_junk_columns_and_give_up_catch_a_hand_written_verifier(store, world, posted):
    user, channel, message, email = posted

    def verify(ctx):
        row = ctx.diff.table("chat_message").inserted.get(message)
        ok = row is not None and row["body"] == TEXT
        return Verdict([Check("posted", ok)])

    outcomes = _probe(store, world, email, verify)
    assert not outcomes["junk-columns"].ok
    assert not outcomes["report-infeasible"].ok


def test_hedge_and_paraphrase_catch_verifiers_that_read_answers_loosely_or_strictly(
    store, world, posted
):
    user, channel, _, email = posted

    def loose(ctx):
        said = expect.answer(14, kind="number", unit="member")
        verdict = expect.grade(ctx, said)
        # Pays any answer containing the digits, whatever the answer check said.
        ok = "14" in (ctx.answer or "")
        return Verdict([Check("answer", ok, kind="answer"), *verdict.checks[1:]])

    def exact(ctx):
        said = expect.answer(14, kind="number", unit="member")
        expect.grade(ctx, said)
        return Verdict([Check("answer", ctx.answer == "14 members", kind="answer")])

    def sound(ctx):
        return expect.grade(ctx, expect.answer(14, kind="number", unit="member"))

    hedged = _probe(store, world, email, loose, answer="14 members")
    assert not hedged["hedge"].ok
    strict = _probe(store, world, email, exact, answer="14 members")
    assert not strict["paraphrase"].ok
    fine = _probe(store, world, email, sound, answer="14 members", candidates=["13", "14", "15"])
    for probe in ("hedge", "paraphrase", "all-candidates"):
        assert fine[probe].ok, fine[probe].detail()
    assert len(fine["paraphrase"].results) >= 10
