"""`officegym tasks`: the registered templates with their metadata, filtered and counted."""

from __future__ import annotations

import json

from click.testing import CliRunner

from officegym.cli import main as cli
from officegym.tasks.registry import templates


def run(*args: str):
    result = CliRunner().invoke(cli, ["tasks", *args], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_tasks_lists_every_template_with_counts():
    out = run()
    every = list(templates())
    for t in every:
        assert t.id in out
    assert f"{len(every)} templates" in out


def test_tasks_filters_by_split_app_and_difficulty():
    rows = json.loads(run("--json", "--split", "test"))
    assert rows and {r["split"] for r in rows} == {"test"}
    assert {r["id"] for r in rows} == {t.id for t in templates() if t.split == "test"}
    easy = json.loads(run("--json", "--difficulty", "1", "--difficulty", "2"))
    assert easy and {r["difficulty"] for r in easy} <= {1, 2}
    chat = json.loads(run("--json", "--app", "chat"))
    assert all("chat" in r["apps"] for r in chat)
    assert json.loads(run("--json", "--app", "nonesuch")) == []
    assert all(r["difficulty_reason"] and r["tags"] for r in chat)


def test_tasks_rejects_a_bad_difficulty():
    result = CliRunner().invoke(cli, ["tasks", "--difficulty", "9"])
    assert result.exit_code == 2 and "9" in result.output
