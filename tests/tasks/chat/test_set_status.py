"""chat.set_status: the status asked for is a change of both emoji and text, and both are
graded.
"""

from __future__ import annotations

from officegym.seed_data.diff import RowUpdate
from officegym.tasks import registry
from tests.tasks.episodes import ctx, one

IDS = ("chat.set_status",)
SEEDS = range(30)


def test_set_status_asks_for_a_change_of_both_emoji_and_text(world, instances):
    for task in instances["chat.set_status"]:
        p = task.params
        emoji, text = one(
            world,
            "SELECT status_emoji, status_text FROM people_employee WHERE id = ?",
            p["user_id"],
        )
        assert emoji != p["emoji"] and text.casefold() != p["text"].casefold()
        assert p["text"] in task.goal
        assert p["glyph"] in task.goal or p["label"] in task.goal


def test_set_status_needs_both_the_emoji_and_the_text():
    template = registry.get("chat.set_status")
    params = {"user_id": 3, "emoji": "palm_tree", "text": "On vacation until Monday"}

    def grade(**changes):
        row = {"id": 3, **{k: v[1] for k, v in changes.items()}}
        updated = {3: RowUpdate(changes=changes, row=row)}
        return template.verify(ctx({"people_employee": {"updated": updated}}), params)

    good = grade(status_emoji=("", "palm_tree"), status_text=("", "on vacation until monday"))
    assert good.success
    assert not grade(
        status_emoji=("", "airplane"), status_text=("", "On vacation until Monday")
    ).success
    assert not grade(status_text=("", "On vacation until Monday")).success
