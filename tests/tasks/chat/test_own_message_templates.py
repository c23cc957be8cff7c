"""Templates that fix one of the user's own messages (edit a figure, delete one with a wrong
date): instances on the small seed-0 world and verifiers on hand-made diffs.
"""

from __future__ import annotations

from tests.tasks.episodes import grade, is_member, one, update

IDS = (
    "chat.edit_number",
    "chat.delete_wrong_date",
)
SEEDS = range(30)


def stray_post(pk: int = 9100) -> dict:
    row = {"id": pk, "channel_id": 1, "author_id": 1, "thread_parent_id": None, "body": "x"}
    return {"inserted": {pk: row}}


def _edited(p, body: str) -> dict:
    row = {"id": p["message_id"], "channel_id": p["channel_id"], "author_id": p["user_id"]}
    return {
        "chat_message": {
            "updated": {p["message_id"]: update(row, body=("old", body), edited_at=(None, "t"))}
        }
    }


def _message_row(p) -> dict:
    return {"id": p["message_id"], "channel_id": p["channel_id"], "author_id": p["user_id"]}


def test_edit_number_swaps_one_figure_in_a_message_of_the_user(world, instances):
    kinds = set()
    for task in instances["chat.edit_number"]:
        p = task.params
        kinds.add(p["kind"])
        body, author, channel = one(
            world,
            "SELECT m.body, m.author_id, c.name FROM chat_message m"
            " JOIN chat_channel c ON c.id = m.channel_id WHERE m.id = ?",
            p["message_id"],
        )
        assert (author, channel) == (p["user_id"], p["channel"])
        assert is_member(world, p["channel_id"], p["user_id"])
        assert body.count(p["figure"]) == 1 and p["correct"] != p["figure"]
        assert p["fixed_body"] == body.replace(p["figure"], p["correct"])
        others = world.execute(
            "SELECT id FROM chat_message WHERE author_id = ? AND channel_id = ?"
            " AND deleted_at IS NULL AND instr(body, ?) > 0",
            (p["user_id"], p["channel_id"], p["figure"]),
        ).fetchall()
        assert others == [(p["message_id"],)]
        for part in (f"#{p['channel']}", p["figure"], p["correct"]):
            assert part in task.goal
        if p["decoy"]:
            assert p["decoy"]["message_id"] != p["message_id"]
    assert kinds == {"money", "phone", "metric"}


def test_delete_wrong_date_names_the_only_message_of_the_user_with_that_date(world, instances):
    threaded = 0
    for task in instances["chat.delete_wrong_date"]:
        p = task.params
        body, author, parent = one(
            world,
            "SELECT body, author_id, thread_parent_id FROM chat_message WHERE id = ?",
            p["message_id"],
        )
        assert author == p["user_id"] and parent is None and p["date"] in body
        (replies,) = one(
            world, "SELECT COUNT(*) FROM chat_message WHERE thread_parent_id = ?", p["message_id"]
        )
        assert p["has_replies"] is (replies > 0)
        threaded += p["has_replies"]
        assert f"#{p['channel']}" in task.goal and p["date"] in task.goal
        if p["decoy"]:
            assert p["decoy"]["message_id"] != p["message_id"]
    assert 0 < threaded < len(SEEDS)


def test_edit_number_pays_only_for_the_fixed_text_and_nothing_else(instances):
    p = instances["chat.edit_number"][0].params
    assert grade("chat.edit_number", p, _edited(p, p["fixed_body"].upper())).success
    appended = _edited(p, f"{p['fixed_body']} (was {p['figure']})")
    assert not grade("chat.edit_number", p, appended).success
    stray = _edited(p, p["fixed_body"])
    stray["chat_message"]["inserted"] = stray_post()["inserted"]
    verdict = grade("chat.edit_number", p, stray)
    assert not verdict.success and verdict.score < 1
    assert grade("chat.edit_number", p).score == 0


def test_delete_wrong_date_expects_a_tombstone_for_a_thread_parent(instances):
    tasks = instances["chat.delete_wrong_date"]
    plain = next(t.params for t in tasks if not t.params["has_replies"])
    parent = next(t.params for t in tasks if t.params["has_replies"])
    gone = {"chat_message": {"deleted": {plain["message_id"]: _message_row(plain)}}}
    assert grade("chat.delete_wrong_date", plain, gone).success
    tomb = update(_message_row(parent), body=("x", ""), deleted_at=(None, "2025-09-17"))
    tombstoned = {"chat_message": {"updated": {parent["message_id"]: tomb}}}
    reaction = {"id": 77, "message_id": parent["message_id"], "employee_id": 3, "emoji": "eyes"}
    tombstoned["chat_reaction"] = {"deleted": {77: reaction}}
    assert grade("chat.delete_wrong_date", parent, tombstoned).success
    hard = {"chat_message": {"deleted": {parent["message_id"]: _message_row(parent)}}}
    assert not grade("chat.delete_wrong_date", parent, hard).success
    assert grade("chat.delete_wrong_date", plain).score == 0
