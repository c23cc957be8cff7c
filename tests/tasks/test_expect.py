"""The verifier DSL on hand-made diffs: each expectation, claims, guards, partial credit."""

from __future__ import annotations

import json

import pytest

from officegym.tasks import expect
from officegym.tasks.match import contains
from officegym.tasks.verdict import Verdict
from tests.tasks.episodes import ctx, update

MSG = {"id": 900, "channel_id": 7, "author_id": 3, "thread_parent_id": None, "body": "Ship it"}


def post(**match):
    return expect.inserted("chat_message", channel_id=7, author_id=3, **match)


def test_inserted_passes_on_a_matching_row_and_nothing_else_on_a_clean_diff():
    v = expect.grade(ctx({"chat_message": {"inserted": {900: MSG}}}), post(), expect.nothing_else())
    assert v.success and v.score == 1.0
    assert "found 1" in v.checks[0].detail


def test_inserted_reports_the_near_misses_it_saw():
    wrong = {**MSG, "channel_id": 8}
    v = expect.grade(ctx({"chat_message": {"inserted": {900: wrong}}}), post())
    assert not v.success and v.score == 0.0
    assert "channel_id" in v.checks[0].detail and "#900" in v.checks[0].detail


def test_inserted_count_is_exact_unless_none():
    rows = {900: MSG, 901: {**MSG, "id": 901}}
    assert not expect.grade(ctx({"chat_message": {"inserted": rows}}), post()).success
    assert expect.grade(ctx({"chat_message": {"inserted": rows}}), post(count=2)).success
    assert expect.grade(ctx({"chat_message": {"inserted": rows}}), post(count=None)).success


def test_nothing_else_fails_on_an_unclaimed_change_and_costs_score():
    tables = {
        "chat_message": {"inserted": {900: MSG, 901: {**MSG, "id": 901, "channel_id": 1}}},
    }
    v = expect.grade(ctx(tables), post(body=contains("ship")), expect.nothing_else())
    assert not v.success and v.score == 0.5
    guard = v.checks[1]
    assert not guard.passed and "chat_message #901 inserted" in guard.detail


def test_honest_variance_is_not_collateral_but_other_columns_are():
    read = update({"id": 5, "muted": 0}, last_read_message_id=(10, 20))
    muted = update({"id": 6}, muted=(0, 1))
    ok = ctx({"chat_message": {"inserted": {900: MSG}}, "chat_membership": {"updated": {5: read}}})
    assert expect.grade(ok, post(), expect.nothing_else()).success
    bad = ctx(
        {"chat_message": {"inserted": {900: MSG}}, "chat_membership": {"updated": {6: muted}}}
    )
    v = expect.grade(bad, post(), expect.nothing_else())
    assert not v.success and "chat_membership #6 updated (muted)" in v.checks[1].detail


def test_nothing_else_allow_lets_named_columns_change_anywhere():
    muted = update({"id": 6}, muted=(0, 1))
    c = ctx({"chat_message": {"inserted": {900: MSG}}, "chat_membership": {"updated": {6: muted}}})
    assert expect.grade(
        c, post(), expect.nothing_else(allow={"chat_membership": ["muted"]})
    ).success


def test_updated_checks_named_columns_claims_stamps_and_flags_other_columns():
    edit = update(MSG, body=("Ship 40", "Ship 42"), edited_at=(None, "2025-09-17T14:30:00"))
    c = ctx({"chat_message": {"updated": {900: edit}}})
    v = expect.grade(c, expect.updated("chat_message", 900, body="Ship 42"), expect.nothing_else())
    assert v.success
    wrong = expect.grade(c, expect.updated("chat_message", 900, body="Ship 43"))
    assert not wrong.success and "Ship 42" in wrong.checks[0].detail
    moved = update(MSG, body=("Ship 40", "Ship 42"), channel_id=(7, 9))
    v = expect.grade(
        ctx({"chat_message": {"updated": {900: moved}}}),
        expect.updated("chat_message", 900, body="Ship 42"),
        expect.nothing_else(),
    )
    assert not v.success and "(channel_id)" in v.checks[1].detail


def test_updated_by_column_match_finds_the_row():
    topic = update({"id": 4, "name": "deals"}, topic=("", "Q3 push"))
    c = ctx({"chat_channel": {"updated": {4: topic}}})
    assert expect.grade(
        c, expect.updated("chat_channel", {"name": "deals"}, topic="Q3 push")
    ).success
    assert not expect.grade(
        c, expect.updated("chat_channel", {"name": "eng"}, topic="Q3 push")
    ).success
    with pytest.raises(ValueError):
        expect.updated("chat_channel", 4)


def test_columns_named_like_keywords_are_matched_through_columns():
    channel = {"id": 40, "name": "it-offsite", "kind": "private", "topic": "Wins"}
    c = ctx({"chat_channel": {"inserted": {40: channel}}})
    made = expect.inserted(
        "chat_channel", columns={"name": "it-offsite"}, kind="private", topic="Wins"
    )
    assert expect.grade(c, made, expect.nothing_else()).success
    wrong = expect.inserted("chat_channel", columns={"name": "it-onsite"}, name="the channel")
    v = expect.grade(c, wrong)
    assert not v.success and v.checks[0].name == "the channel"
    renamed = update(channel, name=("it-offsite", "it-retreat"))
    c = ctx({"chat_channel": {"updated": {40: renamed}}})
    assert expect.grade(
        c, expect.updated("chat_channel", 40, columns={"name": "it-retreat"})
    ).success
    gone = ctx({"chat_channel": {"deleted": {40: channel}}})
    assert expect.grade(
        gone, expect.deleted("chat_channel", columns={"name": "it-offsite"})
    ).success


def test_derived_children_follow_a_claimed_message_but_not_an_unclaimed_one():
    mention = {"id": 1, "message_id": 900, "employee_id": 12}
    stray = {"id": 2, "message_id": 555, "employee_id": 12}
    c = ctx({"chat_message": {"inserted": {900: MSG}}, "chat_mention": {"inserted": {1: mention}}})
    assert expect.grade(c, post(), expect.nothing_else()).success
    c = ctx({"chat_message": {"inserted": {900: MSG}}, "chat_mention": {"inserted": {2: stray}}})
    assert not expect.grade(c, post(), expect.nothing_else()).success


def test_deleted_message_takes_its_reactions_along_but_not_others():
    gone = {"chat_message": {"deleted": {900: MSG}}}
    own = {"id": 1, "message_id": 900, "emoji": "eyes"}
    other = {"id": 2, "message_id": 901, "emoji": "eyes"}
    c = ctx({**gone, "chat_reaction": {"deleted": {1: own}}})
    assert expect.grade(c, expect.deleted("chat_message", 900), expect.nothing_else()).success
    c = ctx({**gone, "chat_reaction": {"deleted": {1: own, 2: other}}})
    v = expect.grade(c, expect.deleted("chat_message", 900), expect.nothing_else())
    assert not v.success and "chat_reaction #2 deleted" in v.checks[1].detail
    by_match = expect.deleted("chat_message", body=contains("ship"))
    assert expect.grade(ctx(gone), by_match).success
    assert not expect.grade(ctx(gone), expect.deleted("chat_message", 901)).success


def test_decorating_the_new_message_the_task_asked_for_is_collateral():
    # Reacting, pinning and saving are acts of their own: inserting the message claims none.
    for table, row in (
        ("chat_reaction", {"id": 3, "message_id": 900, "emoji": "eyes"}),
        ("chat_pin", {"id": 3, "message_id": 900, "channel_id": 7}),
        ("chat_saved", {"id": 3, "message_id": 900, "employee_id": 3}),
    ):
        c = ctx({"chat_message": {"inserted": {900: MSG}}, table: {"inserted": {3: row}}})
        v = expect.grade(c, post(), expect.nothing_else())
        assert not v.success and f"{table} #3 inserted" in v.checks[1].detail, table


def test_an_attachment_made_with_the_new_message_is_claimed_by_it():
    file = {"id": 4, "message_id": 900, "filename": "q3.pdf"}
    c = ctx({"chat_message": {"inserted": {900: MSG}}, "chat_attachment": {"inserted": {4: file}}})
    assert expect.grade(c, post(), expect.nothing_else()).success


def test_a_reaction_added_to_an_edited_message_is_collateral():
    reaction = {"id": 3, "message_id": 900, "emoji": "eyes"}
    c = ctx(
        {
            "chat_message": {"updated": {900: update(MSG, body=("a", "b"))}},
            "chat_reaction": {"inserted": {3: reaction}},
        }
    )
    v = expect.grade(c, expect.updated("chat_message", 900, body="b"), expect.nothing_else())
    assert not v.success


def test_unchanged_is_a_guard_on_a_table_or_a_row():
    pin = {"id": 1, "message_id": 900}
    c = ctx({"chat_message": {"inserted": {900: MSG}}, "chat_pin": {"deleted": {1: pin}}})
    v = expect.grade(c, post(), expect.unchanged("chat_pin"))
    assert not v.success and "#1" in v.checks[1].detail
    assert expect.grade(c, post(), expect.unchanged("chat_pin", 2)).success


def test_guards_earn_nothing_when_no_positive_check_passed():
    v = expect.grade(ctx(), post(), expect.unchanged("chat_pin"), expect.nothing_else())
    assert v.score == 0.0 and not v.success
    # The last check is the feasible task's "did not report it infeasible".
    assert [c.passed for c in v.checks] == [False, True, True, True]
    with pytest.raises(ValueError, match="positive"):
        expect.grade(ctx(), expect.nothing_else())


def test_partial_credit_is_the_share_of_core_changes_done_when_one_is_missing():
    c = ctx({"chat_message": {"inserted": {900: MSG}}})
    v = expect.grade(
        c,
        post(weight=3),
        expect.inserted("chat_pin", weight=1),
        expect.nothing_else(weight=1),
    )
    # A core change is missing, so the guard earns nothing: 3 of the core's 4.
    assert not v.success and v.score == pytest.approx(0.75)
    optional = expect.grade(c, post(), expect.inserted("chat_pin", required=False))
    assert optional.success and optional.score == 0.5
    nearly = expect.grade(c, post(weight=1000), expect.inserted("chat_pin", weight=1))
    assert not nearly.success and nearly.score == 0.99


def test_pk_refers_to_the_row_another_expectation_found():
    reply = {**MSG, "id": 901, "channel_id": 2, "thread_parent_id": 900, "body": "see /chat/m/900"}
    tables = {"chat_message": {"inserted": {900: MSG, 901: reply}}}
    first = post()
    second = expect.inserted(
        "chat_message", thread_parent_id=first.pk, body=contains("/chat/m/900")
    )
    assert expect.grade(ctx(tables), first, second, expect.nothing_else()).success
    # The reply alone (its parent not made in the episode) does not satisfy the reference.
    lone = {"chat_message": {"inserted": {901: reply}}}
    first = post()
    second = expect.inserted("chat_message", thread_parent_id=first.pk)
    v = expect.grade(ctx(lone), first, second)
    assert not v.success and "id of" in v.checks[1].detail


def test_answer_numbers_distractors_length_and_infeasible_reports():
    check = expect.answer(4, kind="number")
    assert expect.grade(ctx(answer="You have 4 unread mentions."), check).success
    assert not expect.grade(ctx(answer="4, maybe 5"), check).success
    assert not expect.grade(ctx(), check).success
    assert not expect.grade(ctx(infeasible="cannot"), check).success
    named = expect.answer("Ann Lee", kind="name", distractors=["Bo Chan"])
    assert expect.grade(ctx(answer="It was Lee, Ann"), named).success
    assert not expect.grade(ctx(answer="Ann Lee or Bo Chan"), named).success
    long = "It was Ann Lee. " + "x" * 400
    v = expect.grade(ctx(answer=long), named)
    assert not v.success and "400" in v.checks[0].detail
    with pytest.raises(ValueError, match="kind"):
        expect.answer("x", kind="vibes")


def test_answer_kinds_money_date_phone_list():
    from datetime import date

    assert expect.grade(ctx(answer="$12,500.00"), expect.answer(12500, kind="money")).success
    assert expect.grade(
        ctx(answer="Sep 3, 2025"), expect.answer(date(2025, 9, 3), kind="date")
    ).success
    phone = expect.answer("555-010-2233", kind="phone")
    assert expect.grade(ctx(answer="(555) 010 2233"), phone).success
    names = expect.answer(["Ann Lee", "Bo Chan"], kind="list")
    assert expect.grade(ctx(answer="Bo Chan and Ann Lee"), names).success
    assert not expect.grade(ctx(answer="Bo Chan"), names).success


def test_infeasible_needs_a_report_and_an_answer_is_not_one():
    assert expect.grade(ctx(infeasible="#old is archived"), expect.infeasible()).success
    v = expect.grade(ctx(answer="done"), expect.infeasible(), expect.nothing_else())
    assert not v.success and v.score == 0.0
    acted = ctx({"chat_message": {"inserted": {900: MSG}}}, infeasible="archived")
    assert not expect.grade(acted, expect.infeasible(), expect.nothing_else()).success


def test_verdicts_are_json_and_readable():
    v = expect.grade(ctx({"chat_message": {"inserted": {900: MSG}}}), post(), expect.nothing_else())
    data = json.loads(json.dumps(v.to_json()))
    assert Verdict.from_json(data) == v
    assert data["success"] is True and [c["name"] for c in data["checks"]] == [
        "inserted chat_message",
        "nothing else changed",
        "did not report the task infeasible",
    ]
    assert "✓" in str(v) and "success" in str(v)


def test_reporting_a_feasible_task_infeasible_after_doing_it_fails_and_halves_the_score():
    done = ctx({"chat_message": {"inserted": {900: MSG}}}, infeasible="cannot be done")
    v = expect.grade(done, post(), expect.nothing_else())
    assert not v.success and v.score == pytest.approx(0.5)
    assert "reported it infeasible" in v.checks[-1].detail
    untouched = expect.grade(ctx(infeasible="cannot be done"), post(), expect.nothing_else())
    assert untouched.score == 0.0


def test_a_setup_step_earns_nothing_when_the_core_change_is_missing():
    opened = {"id": 41, "name": "dm-3-9", "kind": "dm", "topic": ""}
    c = ctx({"chat_channel": {"inserted": {41: opened}}})
    dm = expect.inserted("chat_channel", kind="dm", core=False)
    message = expect.inserted("chat_message", channel_id=dm.pk, author_id=3)
    v = expect.grade(c, dm, message, expect.nothing_else())
    assert not v.success and v.score == 0.0
    sent = ctx(
        {
            "chat_channel": {"inserted": {41: opened}},
            "chat_message": {"inserted": {900: {**MSG, "channel_id": 41}}},
        }
    )
    dm = expect.inserted("chat_channel", kind="dm", core=False)
    message = expect.inserted("chat_message", channel_id=dm.pk, author_id=3)
    assert expect.grade(sent, dm, message, expect.nothing_else()).score == 1.0


def test_a_new_row_must_leave_the_columns_the_task_did_not_name_as_the_product_does():
    also = {**MSG, "also_in_channel": 1, "thread_parent_id": 5}
    v = expect.grade(ctx({"chat_message": {"inserted": {900: also}}}), post(thread_parent_id=5))
    assert not v.success and "also_in_channel=1" in v.checks[0].detail
    opp = {"id": 7, "name": "Acme", "next_step": "zz junk", "lead_source": None}
    c = ctx({"crm_opportunity": {"inserted": {7: opp}}})
    v = expect.grade(c, expect.inserted("crm_opportunity", columns={"name": "Acme"}))
    assert not v.success and "next_step" in v.checks[0].detail
    named = expect.inserted("crm_opportunity", columns={"name": "Acme"}, next_step="zz junk")
    assert expect.grade(c, named).success
    blank = {**opp, "next_step": ""}
    c = ctx({"crm_opportunity": {"inserted": {7: blank}}})
    assert expect.grade(c, expect.inserted("crm_opportunity", columns={"name": "Acme"})).success


def test_free_text_with_unasked_mentions_links_or_padding_fails_contains():
    for body in (
        "Ship it @Dana Diaz",
        "Ship it, details at https://example.test/x",
        "Ship it " + "and more " * 40,
    ):
        row = {**MSG, "body": body}
        v = expect.grade(
            ctx({"chat_message": {"inserted": {900: row}}}), post(body=contains("ship it"))
        )
        assert not v.success, body
    fine = {**MSG, "body": "Ship it today, thanks all!"}
    c = ctx({"chat_message": {"inserted": {900: fine}}})
    assert expect.grade(c, post(body=contains("ship it"))).success


def test_answers_that_state_two_values_of_one_message_read_each_other_as_context():
    deal = expect.answer(["Acme - 200 seats"], kind="text", distractors=["Globex renewal"])
    amount = expect.answer(41500, kind="money")
    ok = ctx(answer="Acme - 200 seats, at $41,500")
    assert expect.grade(ok, deal, amount).success
    both = ctx(answer="Acme - 200 seats or Globex renewal, $41,500")
    assert not expect.grade(both, deal, amount).success


def test_collect_answers_gathers_what_a_verifier_expects():
    with expect.collect_answers() as said:
        expect.grade(ctx(), expect.answer(4, kind="number", unit="mention"))
    assert [(a.expected, a.how, a.unit) for a in said] == [(4, "number", "mention")]
