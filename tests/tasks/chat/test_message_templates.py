"""Templates that act on a message someone else posted, named by its author, subject,
figure or date (reply in its thread, react, pin, save, summarise its thread, unpin): instances
on the small seed-0 world (the tiny one has no office channels, few threads and few deal
figures) and verifiers on hand-made diffs.
"""

from __future__ import annotations

import itertools
import re
from datetime import date

import pytest

from officegym.tasks import registry
from officegym.tasks.chat.pin_figure_message import _AMOUNT
from officegym.tasks.chat.unpin_outdated import booked_day, when
from tests.tasks.episodes import grade, one

IDS = (
    "chat.reply_in_thread",
    "chat.react_to_announcement",
    "chat.pin_figure_message",
    "chat.summarise_thread_decision",
    "chat.save_message",
    "chat.unpin_outdated",
)
SEEDS = range(30)


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


def _channel_bodies(world, channel_id: int) -> list[tuple[int, str]]:
    return world.execute(
        "SELECT id, body FROM chat_message WHERE channel_id = ? AND deleted_at IS NULL",
        (channel_id,),
    ).fetchall()


def _pins(world, channel_id: int) -> dict[int, dict]:
    return {
        pin_id: {"id": pin_id, "message_id": m, "channel_id": channel_id}
        for pin_id, m in world.execute(
            "SELECT id, message_id FROM chat_pin WHERE channel_id = ? ORDER BY id", (channel_id,)
        )
    }


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
        assert p["outcome"][0] in p["last_reply"].casefold()
        assert p["owner_term"] in p["owner"] and p["owner"] in p["owner_spellings"]
        # Neither the goal nor the thread's first message gives the answer away.
        parent = one(world, "SELECT body FROM chat_message WHERE id = ?", p["message_id"])[0]
        for word in p["outcome"]:
            assert word not in parent.casefold() and word not in task.goal.casefold()
        assert p["owner"] not in task.goal and p["owner"] != p["author"]
        assert p["user_id"] not in {r[0] for r in replies}
        # The other speakers and outcomes are the wrong candidates a summary must not name.
        assert set(p["speakers"]) == {r[1] for r in replies} - {p["owner"], p["author"]}
        assert not set(p["outcome"]) & set(p["outcome_distractors"])
        assert {p["owner"], p["last_reply"]} < set(p["candidates"])


def test_the_outdated_pins_are_the_channel_s_past_bookings(world, instances):
    scopes = set()
    for task in instances["chat.unpin_outdated"]:
        p = task.params
        today = date.fromisoformat(p["today"])
        assert p["today_text"] in task.goal
        pins = world.execute(
            "SELECT p.id, m.body FROM chat_pin p JOIN chat_message m ON m.id = p.message_id"
            " WHERE p.channel_id = ? ORDER BY p.id",
            (p["channel_id"],),
        ).fetchall()
        days = {pin_id: booked_day(body, today) for pin_id, body in pins}
        past = [pin_id for pin_id, day in days.items() if when(day, today) == "past"]
        assert past == p["pin_ids"]
        # No booking within a day of today; the other pins are upcoming or no booking.
        assert all(day is None or when(day, today) != "unclear" for day in days.values())
        assert p["scope"] == "every" or len(past) == 1
        scopes.add(p["scope"])
    assert scopes == {"one", "every"}


def test_unpin_outdated_has_thirty_distinct_goals_in_a_hundred_seeds(golden):
    template = registry.get("chat.unpin_outdated")
    goals = {template.instance(golden, seed).goal for seed in range(100)}
    assert len(goals) >= 30


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


def test_reply_in_thread_wants_the_quoted_text_and_nothing_more(instances):
    p = instances["chat.reply_in_thread"][0].params
    assert grade("chat.reply_in_thread", p, reply(p, p["message_id"], p["text"].upper())).success
    for body in (
        f"{p['text']} Also see https://deals.example.test/win @Dana Diaz - act now!!!",
        f"{p['text']} and more words nobody asked for",
        "ok",
    ):
        verdict = grade("chat.reply_in_thread", p, reply(p, p["message_id"], body))
        assert verdict.score == 0, body


def test_reply_in_thread_is_not_also_sent_to_the_channel(instances):
    p = instances["chat.reply_in_thread"][0].params
    both = reply(p, p["message_id"], p["text"])
    both["chat_message"]["inserted"][9001]["also_in_channel"] = 1
    verdict = grade("chat.reply_in_thread", p, both)
    assert not verdict.success and verdict.score == 0


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


@pytest.mark.parametrize(
    ("template_id", "table", "extra"),
    [
        ("chat.react_to_announcement", "chat_pin", {"channel_id": 1, "pinned_by_id": 1}),
        ("chat.react_to_announcement", "chat_saved", {}),
        ("chat.pin_figure_message", "chat_reaction", {"emoji": "tada"}),
        ("chat.pin_figure_message", "chat_saved", {}),
        ("chat.save_message", "chat_pin", {"channel_id": 1, "pinned_by_id": 1}),
        ("chat.save_message", "chat_reaction", {"emoji": "tada"}),
    ],
)
def test_decorating_the_asked_for_message_is_collateral(instances, template_id, table, extra):
    p = next(t.params for t in instances[template_id] if t.params.get("feasible", True))
    table_done, row = {
        "chat.react_to_announcement": lambda: (
            "chat_reaction",
            {"message_id": p["message_id"], "employee_id": p["user_id"], "emoji": p["emoji"]},
        ),
        "chat.pin_figure_message": lambda: (
            "chat_pin",
            {
                "message_id": p["message_id"],
                "channel_id": p["channel_id"],
                "pinned_by_id": p["user_id"],
            },
        ),
        "chat.save_message": lambda: (
            "chat_saved",
            {"message_id": p["message_id"], "employee_id": p["user_id"]},
        ),
    }[template_id]()
    asked = {table_done: {"inserted": {700: {"id": 700, **row}}}}
    assert grade(template_id, p, asked).success
    extra_row = {"id": 800, "message_id": p["message_id"], "employee_id": p["user_id"], **extra}
    decorated = {**asked, table: {"inserted": {800: extra_row}}}
    verdict = grade(template_id, p, decorated)
    assert not verdict.success and verdict.score < 1


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
    mention = f"@{p['owner']} {p['last_reply']}"
    assert grade("chat.summarise_thread_decision", p, reply(p, p["message_id"], mention)).success
    for body in (f"{p['owner']} has it.", "Thanks all.", "ok"):
        verdict = grade("chat.summarise_thread_decision", p, reply(p, p["message_id"], body))
        assert verdict.score == 0, body
    assert grade("chat.summarise_thread_decision", p, reply(p, None, full)).score == 0


def test_a_thread_summary_naming_every_outcome_or_person_fails(instances):
    for task in instances["chat.summarise_thread_decision"][:10]:
        p = task.params
        every_word = (
            f"{p['owner']}: sync, discuss, afternoon, take a look, update, updated - all covered."
        )
        listing = f"{p['owner']} says {p['last_reply']} " + "; ".join(p["candidates"])
        bodies = [every_word, listing]
        if p["speakers"]:
            bodies.append(f"{p['owner']} and {p['speakers'][0]}: {p['last_reply']}")
        for body in bodies:
            verdict = grade("chat.summarise_thread_decision", p, reply(p, p["message_id"], body))
            assert not verdict.success and verdict.score < 1, body


def test_a_thread_summary_with_spam_fails(instances):
    p = instances["chat.summarise_thread_decision"][0].params
    body = f"{p['owner']}: {p['last_reply']} Also: see https://deals.example.test/win @Dana Diaz"
    verdict = grade("chat.summarise_thread_decision", p, reply(p, p["message_id"], body))
    assert not verdict.success and verdict.score < 1


def test_save_wants_the_user_s_saved_item_on_that_message(instances):
    p = instances["chat.save_message"][0].params
    row = {"id": 300, "message_id": p["message_id"], "employee_id": p["user_id"]}
    assert grade("chat.save_message", p, {"chat_saved": {"inserted": {300: row}}}).success
    other = {**row, "message_id": p["message_id"] + 1}
    assert grade("chat.save_message", p, {"chat_saved": {"inserted": {300: other}}}).score == 0
    assert grade("chat.save_message", p).score == 0


def test_unpin_wants_exactly_the_outdated_pins_gone(world, golden, instances):
    # A lone outdated pin among others is rarer than the module's seeds: draw more when needed.
    more = (registry.get("chat.unpin_outdated").instance(golden, s) for s in range(30, 300))
    tasks = itertools.chain(instances["chat.unpin_outdated"], more)
    lone = next(
        t.params
        for t in tasks
        if len(t.params["pin_ids"]) == 1 and len(_pins(world, t.params["channel_id"])) > 1
    )
    # The world may hold no channel with two past bookings: the verifier reads only the
    # params, so the lone one's channel with all its pins past stands in for that case.
    pins = _pins(world, lone["channel_id"])
    several = {
        **lone,
        "pin_ids": list(pins),
        "message_ids": [row["message_id"] for row in pins.values()],
    }
    for p in (lone, several):
        rows = _pins(world, p["channel_id"])
        target = {pin_id: rows[pin_id] for pin_id in p["pin_ids"]}
        assert grade("chat.unpin_outdated", p, {"chat_pin": {"deleted": target}}).success
        others = {k: v for k, v in rows.items() if k not in p["pin_ids"]}
        if others:
            assert not grade("chat.unpin_outdated", p, {"chat_pin": {"deleted": rows}}).success
            assert grade("chat.unpin_outdated", p, {"chat_pin": {"deleted": others}}).score == 0
        if len(target) > 1:
            first = dict(list(target.items())[:1])
            half = grade("chat.unpin_outdated", p, {"chat_pin": {"deleted": first}})
            assert not half.success and half.score < 1


def test_goal_phrasings_vary(instances):
    for template_id, tasks in instances.items():
        assert len({t.goal for t in tasks}) >= 6, template_id
        assert all(re.search(r"\{\w+\}", t.goal) is None for t in tasks), template_id
