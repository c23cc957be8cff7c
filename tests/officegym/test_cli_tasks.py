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
    assert all(r["difficulty_reason"] and r["tags"] for r in chat)


def test_tasks_rejects_a_bad_difficulty():
    result = CliRunner().invoke(cli, ["tasks", "--difficulty", "9"])
    assert result.exit_code == 2 and "9" in result.output


def test_tasks_with_no_match_says_so_and_names_the_apps():
    result = CliRunner().invoke(cli, ["tasks", "--app", "nonesuch"])
    assert result.exit_code == 1
    assert "no templates match app nonesuch" in result.output
    assert "the apps with templates are booking, chat, crm" in result.output


def test_tasks_piped_prints_one_plain_line_per_template_with_nothing_cut():
    result = CliRunner().invoke(cli, ["tasks"], terminal_width=40)
    lines = [line for line in result.output.splitlines() if "\t" in line]
    assert lines[0].split("\t") == [
        "template", "apps", "difficulty", "split", "tags", "steps", "why this difficulty"
    ]  # fmt: skip
    by_id = {line.split("\t")[0]: line.split("\t") for line in lines[1:]}
    assert set(by_id) == {t.id for t in templates()}
    for t in templates():
        assert by_id[t.id][6] == t.difficulty_reason
    assert not any(c in result.output for c in "┃│…")
