"""chat.move_question: the user's own question reposted in the channel it belongs in and linked
from the original's thread, and the `LinksTo` matcher that grades the link.
"""

from __future__ import annotations

import pytest

from officegym.tasks import registry
from officegym.tasks.chat._links import LinksTo
from officegym.tasks.match import one_of_ids
from tests.tasks.episodes import ctx, message, one

IDS = ("chat.move_question",)
SEEDS = range(30)


MOVE = {
    "message_id": 77,
    "question": "Anybody have a spare HDMI adapter?",
    "question_parts": ["Anybody have a spare HDMI adapter?"],
    "wrong": "random",
    "wrong_id": 2,
    "right": "it-helpdesk",
    "right_id": 19,
    "user_id": 3,
    "user": "dana@example.com",
    "user_name": "Dana",
    "decoy": None,
}


def grade_move(rows):
    template = registry.get("chat.move_question")
    return template.verify(ctx({"chat_message": {"inserted": rows}}), MOVE)


def test_move_question_picks_the_users_own_question_in_another_channel(world, instances):
    for task in instances["chat.move_question"]:
        p = task.params
        body, channel, author, parent = one(
            world,
            "SELECT body, channel_id, author_id, thread_parent_id FROM chat_message WHERE id = ?",
            p["message_id"],
        )
        assert (channel, author, parent) == (p["wrong_id"], p["user_id"], None)
        assert all(part in body for part in p["question_parts"])
        assert p["question"] in task.goal and f"#{p['right']}" in task.goal
        for channel_id in (p["wrong_id"], p["right_id"]):
            assert one(
                world,
                "SELECT 1 FROM chat_membership WHERE channel_id = ? AND employee_id = ?",
                channel_id,
                p["user_id"],
            )
        assert p["decoy"]["right"] not in (p["right"], p["wrong"])


@pytest.mark.parametrize(
    "body",
    [
        "Moved: /chat/m/5001",
        "here http://127.0.0.1:5000/chat/c/4?m=5001#m-5001",
        "see /chat/c/4#m-5001",
        "thread: /chat/t/5001",
    ],
)
def test_links_to_reads_every_form_of_a_message_link(body):
    assert LinksTo(one_of_ids([5001])).matches(body)


@pytest.mark.parametrize("body", ["/chat/m/50011", "/chat/c/5001", "moved to #travel", None])
def test_links_to_rejects_other_messages_and_plain_text(body):
    assert not LinksTo(one_of_ids([5001])).matches(body)


def test_move_question_pays_for_the_repost_and_a_reply_linking_it():
    rows = {
        5001: message(5001, 19, "Anybody have a spare HDMI adapter?"),
        5002: message(5002, 2, "Moved to #it-helpdesk: /chat/c/19?m=5001#m-5001", parent=77),
    }
    verdict = grade_move(rows)
    assert verdict.success and verdict.score == 1.0


def test_move_question_fails_when_the_reply_links_another_message():
    rows = {
        5001: message(5001, 19, "Anybody have a spare HDMI adapter?"),
        5002: message(5002, 2, "Moved: /chat/m/77", parent=77),
    }
    verdict = grade_move(rows)
    assert not verdict.success and verdict.score < 1


def test_move_question_fails_when_the_reply_links_the_repost_and_other_messages():
    rows = {
        5001: message(5001, 19, "Anybody have a spare HDMI adapter?"),
        5002: message(5002, 2, "Moved: /chat/m/5001 /chat/m/77 /chat/m/4990", parent=77),
    }
    verdict = grade_move(rows)
    assert not verdict.success and verdict.score < 1


def test_move_question_candidates_link_the_original_and_posts_of_the_new_channel(world, instances):
    for task in instances["chat.move_question"]:
        p = task.params
        assert p["candidates"][0] == f"/chat/m/{p['message_id']}"
        for link in p["candidates"][1:]:
            channel = one(
                world, "SELECT channel_id FROM chat_message WHERE id = ?", int(link.split("/")[-1])
            )
            assert channel == (p["right_id"],)


def test_move_question_fails_when_the_link_is_posted_outside_the_thread():
    rows = {
        5001: message(5001, 19, "Anybody have a spare HDMI adapter?"),
        5002: message(5002, 2, "Moved: /chat/m/5001"),
    }
    assert not grade_move(rows).success
