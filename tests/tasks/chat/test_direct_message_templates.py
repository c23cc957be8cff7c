"""Templates that end in a direct message (to a title's holder, to a new group, to one's
manager with a link): instances on the small seed-0 world (the tiny one lacks the titles and
messages they draw on) and verifiers on hand-made diffs.
"""

from __future__ import annotations

import pytest

from officegym.tasks import registry
from tests.tasks.episodes import ctx, message, one

IDS = (
    "chat.dm_by_title",
    "chat.group_dm",
    "chat.forward_to_manager",
)
SEEDS = range(30)


DM = {
    "user_id": 3,
    "user": "dana@example.com",
    "user_name": "Dana",
    "text": "Can we move our Thursday check-in to Friday morning?",
    "title": "Controller",
    "target_id": 9,
    "target_name": "Kim",
    "dm_channel_id": None,
    "feasible": True,
    "decoy": None,
}


def dm_tables(other: int, body: str | None, kind: str = "dm"):
    """A DM (or group DM) the user opened with `other`, and a message `body` in it (none when
    `body` is None)."""
    people = sorted({3, other, *((10,) if kind == "group_dm" else ())})
    channel = {
        "id": 41,
        "name": ("dm-" if kind == "dm" else "mpdm-") + "-".join(map(str, people)),
        "kind": kind,
        "created_by_id": 3,
        "is_private": 1,
        "topic": "",
        "description": "",
        "archived_at": None,
    }
    tables = {
        "chat_channel": {"inserted": {41: channel}},
        "chat_membership": {
            "inserted": {
                900: {"id": 900, "channel_id": 41, "employee_id": 3},
                901: {"id": 901, "channel_id": 41, "employee_id": other},
            }
        },
    }
    if body is not None:
        tables["chat_message"] = {"inserted": {5001: message(5001, 41, body)}}
    return tables


GROUP = {
    "user_id": 3,
    "user": "dana@example.com",
    "user_name": "Dana",
    "a": "Kim",
    "a_id": 9,
    "b": "Lee",
    "b_id": 10,
    "text": "Lunch on Thursday to plan the hackathon?",
    "decoy": None,
}


def group_tables(body: str | None):
    tables = dm_tables(9, body, kind="group_dm")
    tables["chat_membership"]["inserted"][902] = {"id": 902, "channel_id": 41, "employee_id": 10}
    return tables


FORWARD = {
    "user_id": 3,
    "user": "dana@example.com",
    "user_name": "Dana",
    "manager_id": 9,
    "manager_name": "Kim",
    "dm_channel_id": None,
    "message_id": 4321,
    "author": "Lee",
    "channel": "deals",
    "subject": "Acme renewal",
    "feasible": True,
    "candidates": ["/chat/m/4300", "/chat/m/4310", "/chat/m/4330"],
    "decoy": None,
}


def grade_forward(body: str | None):
    return registry.get("chat.forward_to_manager").verify(ctx(dm_tables(9, body)), FORWARD)


@pytest.mark.parametrize("template_id", ["chat.dm_by_title", "chat.forward_to_manager"])
def test_impossible_instances_occur_and_are_a_minority(instances, template_id):
    impossible = [t for t in instances[template_id] if not t.params["feasible"]]
    assert 1 <= len(impossible) <= len(SEEDS) // 3


def test_dm_by_title_names_a_title_exactly_one_active_person_holds(world, instances):
    for task in instances["chat.dm_by_title"]:
        p = task.params
        assert p["title"] in task.goal and p["text"] in task.goal
        holders = world.execute(
            "SELECT id FROM people_employee WHERE is_active AND title LIKE ?", (f"%{p['title']}%",)
        ).fetchall()
        if p["feasible"]:
            assert holders == [(p["target_id"],)] and p["target_id"] != p["user_id"]
        else:
            assert holders == [] and p["decoy"] is None


def test_dm_by_title_posts_into_an_existing_dm_when_there_is_one(world, instances):
    existing = [t.params for t in instances["chat.dm_by_title"] if t.params["dm_channel_id"]]
    assert existing
    for p in existing:
        members = world.execute(
            "SELECT employee_id FROM chat_membership WHERE channel_id = ? ORDER BY employee_id",
            (p["dm_channel_id"],),
        ).fetchall()
        assert {m for (m,) in members} == {p["user_id"], p["target_id"]}


def test_group_dm_names_two_other_active_people_without_a_group_dm_yet(world, instances):
    for task in instances["chat.group_dm"]:
        p = task.params
        assert p["a"] in task.goal and p["b"] in task.goal
        ids = {p["user_id"], p["a_id"], p["b_id"]}
        assert len(ids) == 3
        for person in (p["a_id"], p["b_id"]):
            assert one(world, "SELECT is_active FROM people_employee WHERE id = ?", person) == (1,)
        name = "mpdm-" + "-".join(map(str, sorted(ids)))
        assert not one(world, "SELECT 1 FROM chat_channel WHERE name = ?", name)


def test_forward_to_manager_names_a_message_by_author_channel_and_subject(world, instances):
    for task in instances["chat.forward_to_manager"]:
        p = task.params
        assert p["author"] in task.goal and p["subject"] in task.goal
        assert "manager" in task.goal and f"#{p['channel']}" in task.goal
        body, author, channel = one(
            world,
            """
            SELECT m.body, e.display_name, c.name FROM chat_message m
            JOIN people_employee e ON e.id = m.author_id JOIN chat_channel c ON c.id = m.channel_id
            WHERE m.id = ?
            """,
            p["message_id"],
        )
        assert (author, channel) == (p["author"], p["channel"]) and f"*{p['subject']}*" in body
        manager = one(world, "SELECT manager_id FROM people_employee WHERE id = ?", p["user_id"])
        assert manager == (p["manager_id"],)
        assert (p["manager_id"] is None) is (not p["feasible"])


def test_dm_by_title_pays_for_a_new_dm_with_the_title_holder():
    template = registry.get("chat.dm_by_title")
    verdict = template.verify(ctx(dm_tables(9, DM["text"])), DM)
    assert verdict.success and verdict.score == 1.0


@pytest.mark.parametrize("body", [f'"{DM["text"]}"', DM["text"].upper()])
def test_dm_by_title_takes_the_text_in_quotes_or_another_case(body):
    template = registry.get("chat.dm_by_title")
    assert template.verify(ctx(dm_tables(9, body)), DM).success


@pytest.mark.parametrize(
    "body",
    [
        "Hi! " + DM["text"],
        DM["text"] + " Also: see https://deals.example.test/win",
        DM["text"][:-1],
    ],
)
def test_dm_by_title_fails_a_message_that_is_not_the_asked_text(body):
    template = registry.get("chat.dm_by_title")
    verdict = template.verify(ctx(dm_tables(9, body)), DM)
    assert not verdict.success and verdict.score < 1


def test_dm_by_title_opening_the_dm_and_sending_nothing_scores_zero():
    template = registry.get("chat.dm_by_title")
    assert template.verify(ctx(dm_tables(9, None)), DM).score == 0


def test_dm_by_title_fails_a_dm_to_someone_else():
    template = registry.get("chat.dm_by_title")
    verdict = template.verify(ctx(dm_tables(10, DM["text"])), DM)
    assert not verdict.success and verdict.score < 1


def test_dm_by_title_impossible_pays_only_for_reporting_it_and_changing_nothing():
    template = registry.get("chat.dm_by_title")
    params = {**DM, "feasible": False, "target_id": None}
    assert template.verify(ctx(infeasible="nobody has it"), params).success
    assert template.verify(ctx(), params).score == 0
    assert not template.verify(ctx(dm_tables(9, DM["text"]), infeasible="no"), params).success


def test_group_dm_pays_for_the_text_in_a_new_group_conversation():
    verdict = registry.get("chat.group_dm").verify(ctx(group_tables(GROUP["text"])), GROUP)
    assert verdict.success and verdict.score == 1.0


def test_group_dm_opening_the_conversation_and_sending_nothing_scores_zero():
    assert registry.get("chat.group_dm").verify(ctx(group_tables(None)), GROUP).score == 0


def test_group_dm_fails_more_than_the_asked_text():
    body = GROUP["text"] + " Let me know by Wednesday."
    verdict = registry.get("chat.group_dm").verify(ctx(group_tables(body)), GROUP)
    assert not verdict.success and verdict.score < 1


def test_forward_to_manager_pays_for_a_dm_linking_the_message():
    verdict = grade_forward("FYI, Lee's message about Acme renewal: /chat/c/4?m=4321#m-4321")
    assert verdict.success and verdict.score == 1.0


def test_forward_to_manager_fails_a_dm_linking_every_candidate():
    links = " ".join(["/chat/m/4321", *FORWARD["candidates"]])
    verdict = grade_forward(f"FYI: {links}")
    assert not verdict.success and verdict.score < 1


def test_forward_to_manager_opening_the_dm_and_sending_nothing_scores_zero():
    assert grade_forward(None).score == 0


def test_forward_to_manager_candidates_are_other_messages_of_the_channel(world, instances):
    for task in instances["chat.forward_to_manager"]:
        p = task.params
        if not p["feasible"]:
            assert p["candidates"] == []
            continue
        assert len(p["candidates"]) >= 2 and f"/chat/m/{p['message_id']}" not in p["candidates"]
        for link in p["candidates"]:
            (channel,) = one(
                world,
                "SELECT c.name FROM chat_message m JOIN chat_channel c ON c.id = m.channel_id "
                "WHERE m.id = ?",
                int(link.split("/")[-1]),
            )
            assert channel == p["channel"]
