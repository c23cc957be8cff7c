"""chat.join_channel: a public channel named by its topic that the user is not in yet."""

from __future__ import annotations

from tests.tasks.episodes import one

IDS = ("chat.join_channel",)
SEEDS = range(30)


def test_join_channel_names_a_public_channel_by_topic_the_user_is_not_in(world, instances):
    for task in instances["chat.join_channel"]:
        p = task.params
        assert f"#{p['channel']}" not in task.goal and p["topic"] in task.goal
        kind, private, archived, topic = one(
            world,
            "SELECT kind, is_private, archived_at, topic FROM chat_channel WHERE id = ?",
            p["channel_id"],
        )
        assert (kind, private, archived, topic) == ("channel", 0, None, p["topic"])
        assert not one(
            world,
            "SELECT 1 FROM chat_membership WHERE channel_id = ? AND employee_id = ?",
            p["channel_id"],
            p["user_id"],
        )
