"""chat.join_channel: a public channel named by its topic that the user is not in yet."""

from __future__ import annotations

import pytest

from officegym.tasks import registry
from tests.tasks.episodes import one

IDS = ("chat.join_channel",)
SEEDS = range(30)


@pytest.mark.parametrize("template_id", IDS)
def test_the_same_seed_gives_the_same_goal_and_params(golden, instances, template_id):
    for seed in (0, 7, 23):
        again = registry.get(template_id).instance(golden, seed)
        first = instances[template_id][seed]
        assert (again.goal, dict(again.params)) == (first.goal, dict(first.params))


@pytest.mark.parametrize("template_id", IDS)
def test_the_acting_user_is_an_active_employee(world, instances, template_id):
    for task in instances[template_id]:
        row = one(world, "SELECT id, is_active FROM people_employee WHERE email = ?", task.user)
        assert row == (task.params["user_id"], 1)


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
