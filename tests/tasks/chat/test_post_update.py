"""chat.post_update without a browser: instances on the small seed-0 world and the verifier
on hand-made diffs. The update is quoted in the goal, so the post is that text and nothing
more, at the top of the named channel."""

from __future__ import annotations

import pytest

from officegym.tasks import registry
from officegym.tasks.verdict import Verdict
from tests.tasks.episodes import ctx

IDS = ("chat.post_update",)
SEEDS = range(30)


def grade(params, tables=None, **kwargs) -> Verdict:
    return registry.get("chat.post_update").verify(ctx(tables, **kwargs), params)


def posted(params, body: str, **columns) -> dict:
    row = {
        "id": 9001,
        "channel_id": params["channel_id"],
        "author_id": params["user_id"],
        "thread_parent_id": None,
        "body": body,
        "also_in_channel": 0,
        "edited_at": None,
        "deleted_at": None,
        **columns,
    }
    return {"chat_message": {"inserted": {9001: row}}}


@pytest.fixture(scope="module")
def feasible(instances):
    return next(t.params for t in instances["chat.post_update"] if t.params["feasible"])


def test_the_update_is_quoted_in_the_goal(instances):
    for task in instances["chat.post_update"]:
        assert f'"{task.params["text"]}"' in task.goal
        assert f"#{task.params['channel']}" in task.goal


def test_the_quoted_text_in_the_channel_passes_in_any_case(feasible):
    assert grade(feasible, posted(feasible, feasible["text"].upper() + "  ")).score == 1.0


@pytest.mark.parametrize(
    "extra",
    [
        " Also: see https://deals.example.test/win and @Dana Diaz - act now!!!",
        " Thanks everyone!",
    ],
)
def test_anything_added_to_the_quoted_text_fails(feasible, extra):
    verdict = grade(feasible, posted(feasible, feasible["text"] + extra))
    assert not verdict.success and verdict.score == 0


def test_the_post_belongs_at_the_top_of_the_channel_not_in_a_thread(feasible):
    verdict = grade(feasible, posted(feasible, feasible["text"], thread_parent_id=1))
    assert verdict.score == 0


def test_decorating_the_post_is_collateral(feasible):
    tables = posted(feasible, feasible["text"])
    tables["chat_pin"] = {
        "inserted": {
            5: {
                "id": 5,
                "message_id": 9001,
                "channel_id": feasible["channel_id"],
                "pinned_by_id": feasible["user_id"],
            }
        }
    }
    verdict = grade(feasible, tables)
    assert not verdict.success and verdict.score < 1


def test_an_archived_channel_wants_the_report_and_no_post(instances):
    p = next(t.params for t in instances["chat.post_update"] if not t.params["feasible"])
    assert grade(p, infeasible="the channel is archived").success
    assert not grade(p, posted(p, p["text"]), infeasible="archived").success
    assert grade(p, answer="Posted.").score == 0
