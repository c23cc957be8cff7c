"""Group A's chat templates without a browser: instances on the small seed-0 world (the tiny
one has no office channels, few threads and few deal figures) and verifiers on hand-made
diffs.

reply_in_thread, react_to_announcement, pin_figure_message, summarise_thread_decision,
save_message, unpin_outdated.
"""

from __future__ import annotations

import re
from datetime import date

import pytest

from officegym.tasks import registry
from officegym.tasks.chat.pin_figure_message import _AMOUNT
from officegym.tasks.chat.unpin_outdated import booked_day, when
from officegym.tasks.verdict import Verdict
from tests.tasks.episodes import ctx, one

IDS = (
    "chat.reply_in_thread",
    "chat.react_to_announcement",
    "chat.pin_figure_message",
    "chat.summarise_thread_decision",
    "chat.save_message",
    "chat.unpin_outdated",
)
SEEDS = range(30)


def grade(template_id: str, params, tables=None, **kwargs) -> Verdict:
    return registry.get(template_id).verify(ctx(tables, **kwargs), params)


def reply(params, parent: int, body: str, pk: int = 9001) -> dict:
    row = {
        "id": pk,
        "channel_id": params["channel_id"],
        "author_id": params["user_id"],
        "thread_parent_id": parent,
        "body": body,
        "also_in_channel": 0,
    }
    return {"chat_message": {"inserted": {pk: row}}}


def stray_post(pk: int = 9100) -> dict:
    row = {"id": pk, "channel_id": 1, "author_id": 1, "thread_parent_id": None, "body": "x"}
    return {"inserted": {pk: row}}


def test_the_group_is_registered_with_its_splits():
    splits = {tid: registry.get(tid).split for tid in IDS}
    assert splits == {
        "chat.reply_in_thread": "train",
        "chat.react_to_announcement": "train",
        "chat.pin_figure_message": "train",
        "chat.summarise_thread_decision": "train",
        "chat.save_message": "test",
        "chat.unpin_outdated": "test",
    }


# -- instances -----------------------------------------------------------------------------


@pytest.mark.parametrize("template_id", IDS)
def test_the_same_seed_gives_the_same_goal_and_params(golden, instances, template_id):
    for seed in (0, 7, 23):
        again = registry.get(template_id).instance(golden, seed)
        first = instances[template_id][seed]
        assert (again.goal, dict(again.params)) == (first.goal, dict(first.params))


@pytest.mark.parametrize("template_id", IDS)
def test_the_user_is_an_active_member_of_the_channel(world, instances, template_id):
    for task in instances[template_id]:
        p = task.params
        row = one(
            world,
            "SELECT e.is_active FROM people_employee e JOIN chat_membership m"
            " ON m.employee_id = e.id WHERE e.id = ? AND e.email = ? AND m.channel_id = ?",
            p["user_id"],
            p["user"],
            p["channel_id"],
        )
        assert row == (1,), (template_id, p)
        assert f"#{p['channel']}" in task.goal


@pytest.mark.parametrize("template_id", ["chat.reply_in_thread", "chat.save_message"])
def test_the_message_is_the_only_one_of_its_author_in_the_channel_about_the_subject(
    world, instances, template_id
):
    for task in instances[template_id]:
        p = task.params
        rows = world.execute(
            "SELECT m.id, m.body FROM chat_message m JOIN people_employee e ON e.id = m.author_id"
            " WHERE m.channel_id = ? AND e.display_name = ? AND m.deleted_at IS NULL",
            (p["channel_id"], p["author"]),
        ).fetchall()
        subject = p.get("account") or p["subject"]
        about = [m for m, body in rows if subject.casefold() in body.casefold()]
        assert about == [p["message_id"]], (template_id, p)
        assert p["author"] in task.goal and subject in task.goal
        assert (
            p["user_id"]
            != one(world, "SELECT author_id FROM chat_message WHERE id = ?", p["message_id"])[0]
        )


def test_reply_text_is_quoted_in_the_goal_and_the_decoy_is_another_message(instances):
    for task in instances["chat.reply_in_thread"]:
        p = task.params
        assert f'"{p["text"]}"' in task.goal
        assert p["decoy"] and (p["decoy"]["author"], p["decoy"]["account"]) != (
            p["author"],
            p["account"],
        )


def test_save_targets_a_message_the_user_has_not_saved(world, instances):
    for task in instances["chat.save_message"]:
        p = task.params
        assert not one(
            world,
            "SELECT 1 FROM chat_saved WHERE message_id = ? AND employee_id = ?",
            p["message_id"],
            p["user_id"],
        )


def test_announcements_are_named_by_subject_and_emoji_is_new_for_the_user(world, instances):
    kinds = set()
    for task in instances["chat.react_to_announcement"]:
        p = task.params
        kinds.add(p["kind"])
        body = one(world, "SELECT body FROM chat_message WHERE id = ?", p["message_id"])[0]
        assert p["subject"] in body
        assert f":{p['emoji']}:" in task.goal and p["subject"] in task.goal
        assert not one(
            world,
            "SELECT 1 FROM chat_reaction WHERE message_id = ? AND employee_id = ? AND emoji = ?",
            p["message_id"],
            p["user_id"],
            p["emoji"],
        )
        assert p["decoy"]["subject"] != p["subject"]
    assert kinds == {"won", "welcome"}


def _channel_bodies(world, channel_id: int) -> list[tuple[int, str]]:
    return world.execute(
        "SELECT id, body FROM chat_message WHERE channel_id = ? AND deleted_at IS NULL",
        (channel_id,),
    ).fetchall()


def test_a_figure_is_in_exactly_one_message_of_the_channel_or_in_none(world, instances):
    feasible = 0
    for task in instances["chat.pin_figure_message"]:
        p = task.params
        assert p["figure"] in task.goal
        holding = [
            m
            for m, body in _channel_bodies(world, p["channel_id"])
            if p["figure"] in _AMOUNT.findall(body)
        ]
        if p["feasible"]:
            feasible += 1
            assert holding == [p["message_id"]]
            assert not one(world, "SELECT 1 FROM chat_pin WHERE message_id = ?", p["message_id"])
            assert p["decoy"]["figure"] != p["figure"]
        else:
            assert holding == [] and p["message_id"] is None and p["decoy"] is None
            digits = p["figure"].lstrip("$")
            assert not any(digits in body for _, body in _channel_bodies(world, p["channel_id"]))
    assert 0 < len(SEEDS) - feasible <= len(SEEDS) // 3


def test_a_thread_to_summarise_ends_with_its_owner_stating_the_outcome(world, instances):
    for task in instances["chat.summarise_thread_decision"]:
        p = task.params
        replies = world.execute(
            "SELECT e.id, e.display_name, m.body FROM chat_message m"
            " JOIN people_employee e ON e.id = m.author_id"
            " WHERE m.thread_parent_id = ? AND m.deleted_at IS NULL ORDER BY m.created_at, m.id",
            (p["message_id"],),
        ).fetchall()
        assert replies[-1][1:] == (p["owner"], p["last_reply"])
        assert all(word in p["last_reply"].casefold() for word in p["outcome"])
        assert p["owner_term"] in p["owner"]
        # Neither the goal nor the thread's first message gives the answer away.
        parent = one(world, "SELECT body FROM chat_message WHERE id = ?", p["message_id"])[0]
        for word in p["outcome"]:
            assert word not in parent.casefold() and word not in task.goal.casefold()
        assert p["owner"] not in task.goal and p["owner"] != p["author"]
        assert p["user_id"] not in {r[0] for r in replies}


def test_the_outdated_pin_is_the_channel_s_only_past_booking(world, instances):
    for task in instances["chat.unpin_outdated"]:
        p = task.params
        today = date.fromisoformat(p["today"])
        assert p["today_text"] in task.goal
        pins = world.execute(
            "SELECT p.id, m.body FROM chat_pin p JOIN chat_message m ON m.id = p.message_id"
            " WHERE p.channel_id = ? ORDER BY p.id",
            (p["channel_id"],),
        ).fetchall()
        kinds = {pin_id: when(booked_day(body, today), today) for pin_id, body in pins}
        assert kinds.pop(p["pin_id"]) == "past"
        assert kinds and set(kinds.values()) == {"upcoming"}


def test_booked_days_take_the_year_nearest_today():
    today = date(2025, 9, 17)
    assert booked_day(
        "Booked Denali at Chicago Office for 1:1 on Wed Aug 27 at 13:00.", today
    ) == date(2025, 8, 27)
    assert booked_day(
        "Grabbed Hood (Seattle HQ) Mon Jan 5 16:30 for sync.", date(2025, 12, 20)
    ) == date(2026, 1, 5)
    assert booked_day("Deploying search-api", today) is None
    assert when(date(2025, 9, 16), today) == "unclear"
    assert when(date(2025, 9, 15), today) == "past"
    assert when(date(2025, 9, 19), today) == "upcoming"


# -- verifiers -----------------------------------------------------------------------------


def test_reply_in_thread_wants_the_reply_under_that_message_only(instances):
    p = instances["chat.reply_in_thread"][0].params
    good = reply(p, p["message_id"], f"{p['text']} ")
    assert grade("chat.reply_in_thread", p, good).score == 1.0
    in_channel = reply(p, None, p["text"])
    assert grade("chat.reply_in_thread", p, in_channel).score == 0.0
    assert grade("chat.reply_in_thread", p, reply(p, p["message_id"] + 1, p["text"])).score == 0
    stray = {
        "chat_message": {
            "inserted": {**good["chat_message"]["inserted"], **stray_post()["inserted"]}
        }
    }
    verdict = grade("chat.reply_in_thread", p, stray)
    assert not verdict.success and verdict.score < 1


def test_react_wants_that_emoji_on_that_message_by_the_user(instances):
    p = instances["chat.react_to_announcement"][0].params
    row = {
        "id": 7000,
        "message_id": p["message_id"],
        "employee_id": p["user_id"],
        "emoji": p["emoji"],
    }
    assert grade(
        "chat.react_to_announcement", p, {"chat_reaction": {"inserted": {7000: row}}}
    ).success
    wrong = {**row, "emoji": "thumbsup" if p["emoji"] != "thumbsup" else "eyes"}
    assert (
        grade("chat.react_to_announcement", p, {"chat_reaction": {"inserted": {7000: wrong}}}).score
        == 0
    )
    elsewhere = {**row, "message_id": p["message_id"] + 1}
    assert (
        grade(
            "chat.react_to_announcement", p, {"chat_reaction": {"inserted": {7000: elsewhere}}}
        ).score
        == 0
    )


def test_pin_figure_grades_the_pin_or_the_report_of_infeasibility(instances):
    tasks = instances["chat.pin_figure_message"]
    p = next(t.params for t in tasks if t.params["feasible"])
    pin = {
        "id": 500,
        "message_id": p["message_id"],
        "channel_id": p["channel_id"],
        "pinned_by_id": p["user_id"],
    }
    assert grade("chat.pin_figure_message", p, {"chat_pin": {"inserted": {500: pin}}}).success
    assert grade("chat.pin_figure_message", p, infeasible="no such figure").score == 0
    q = next(t.params for t in tasks if not t.params["feasible"])
    assert grade("chat.pin_figure_message", q, infeasible="no message has it").success
    assert not grade("chat.pin_figure_message", q, answer="Pinned.").success
    pinned = {**pin, "channel_id": q["channel_id"]}
    assert not grade(
        "chat.pin_figure_message", q, {"chat_pin": {"inserted": {500: pinned}}}, infeasible="x"
    ).success


def test_a_thread_summary_needs_both_the_owner_and_the_outcome(instances):
    p = instances["chat.summarise_thread_decision"][0].params
    full = f"Wrap-up: {p['owner']} says {p['last_reply']}"
    assert grade("chat.summarise_thread_decision", p, reply(p, p["message_id"], full)).score == 1.0
    half = grade(
        "chat.summarise_thread_decision", p, reply(p, p["message_id"], f"{p['owner']} has it.")
    )
    assert not half.success and 0 < half.score < 1
    vague = grade("chat.summarise_thread_decision", p, reply(p, p["message_id"], "Thanks all."))
    assert not vague.success and vague.score < half.score
    assert grade("chat.summarise_thread_decision", p, reply(p, None, full)).score == 0


def test_save_wants_the_user_s_saved_item_on_that_message(instances):
    p = instances["chat.save_message"][0].params
    row = {"id": 300, "message_id": p["message_id"], "employee_id": p["user_id"]}
    assert grade("chat.save_message", p, {"chat_saved": {"inserted": {300: row}}}).success
    other = {**row, "message_id": p["message_id"] + 1}
    assert grade("chat.save_message", p, {"chat_saved": {"inserted": {300: other}}}).score == 0
    assert grade("chat.save_message", p).score == 0


def test_unpin_wants_exactly_the_outdated_pin_gone(world, instances):
    p = instances["chat.unpin_outdated"][0].params
    rows = {
        pin_id: {"id": pin_id, "message_id": m, "channel_id": p["channel_id"]}
        for pin_id, m in world.execute(
            "SELECT id, message_id FROM chat_pin WHERE channel_id = ? ORDER BY id",
            (p["channel_id"],),
        )
    }
    target = {p["pin_id"]: rows[p["pin_id"]]}
    assert grade("chat.unpin_outdated", p, {"chat_pin": {"deleted": target}}).success
    assert not grade("chat.unpin_outdated", p, {"chat_pin": {"deleted": rows}}).success
    others = {k: v for k, v in rows.items() if k != p["pin_id"]}
    assert grade("chat.unpin_outdated", p, {"chat_pin": {"deleted": others}}).score == 0


def test_goal_phrasings_vary(instances):
    for template_id, tasks in instances.items():
        assert len({t.goal for t in tasks}) >= 6, template_id
        assert all(re.search(r"\{\w+\}", t.goal) is None for t in tasks), template_id
