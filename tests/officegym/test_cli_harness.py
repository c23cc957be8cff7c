"""`officegym run | replay | report | export-sft` on a registered task."""

from __future__ import annotations

import importlib
import json

import pytest
from click.testing import CliRunner

from officegym.cli import main

pytestmark = pytest.mark.browser

# Recordings and replays in this module run beside a loaded test suite: a 3 s action timeout
# that fires in one and not the other is a real divergence, so both get room to act.
ROOMY = ["--action-timeout", "30"]


@pytest.fixture(scope="module")
def recorded(store, tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    result = CliRunner().invoke(
        main,
        [
            "run",
            "--task",
            "chat.post_update",
            "--agent",
            "oracle",
            "--episodes",
            "2",
            "--workers",
            "2",
            "--record",
            str(root),
            "--world-home",
            str(store.home),
            *ROOMY,
        ],
    )
    assert result.exit_code == 0, result.output
    return root, result.output


def test_run_prints_a_summary_table(recorded):
    _, output = recorded
    assert "chat.post_update · oracle" in output
    assert "100%" in output and "1.000" in output


def test_run_records_every_episode(recorded):
    root, _ = recorded
    folders = sorted(p.name for p in root.iterdir())
    assert len(folders) == 2
    assert folders[0].startswith("chat.post_update-s0-")


def test_null_and_random_agents_score_zero(store):
    for agent in ("null", "random"):
        result = CliRunner().invoke(
            main,
            [
                "run",
                "--task",
                "chat.post_update",
                "--agent",
                agent,
                "--world-home",
                str(store.home),
            ],
        )
        assert result.exit_code == 0, result.output
        row = [line for line in result.output.splitlines() if line.startswith("│")][-1]
        cells = [cell.strip() for cell in row.strip("│").split("│")]
        assert cells[:3] == ["1", "0%", "0.000"], row


def test_replay_of_an_oracle_episode_matches(store, recorded):
    root, _ = recorded
    episode = sorted(root.iterdir())[0]
    result = CliRunner().invoke(
        main, ["replay", str(episode), "--world-home", str(store.home), *ROOMY]
    )
    assert result.exit_code == 0, result.output
    assert "final diff: same; verdict: same" in result.output


def test_report_and_export_sft(recorded, tmp_path):
    root, _ = recorded
    episode = sorted(root.iterdir())[0]
    result = CliRunner().invoke(main, ["report", str(episode), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert "chat.post_update" in (tmp_path / "r.html").read_text()
    out = tmp_path / "sft.jsonl"
    result = CliRunner().invoke(main, ["export-sft", str(root), "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    # One example per oracle action of both episodes (line 0 of steps.jsonl is the reset).
    steps = sum(len((e / "steps.jsonl").read_text().splitlines()) - 1 for e in root.iterdir())
    assert len(lines) == steps >= 8
    assert lines[0]["messages"][-1]["role"] == "assistant"


def test_unknown_task_is_a_clear_error(store):
    result = CliRunner().invoke(
        main, ["run", "--task", "chat.nope", "--world-home", str(store.home)]
    )
    assert result.exit_code != 0
    assert "no task template 'chat.nope'" in result.output


def test_report_of_a_record_folder_lists_its_episodes_and_writes_each_report(recorded):
    root, _ = recorded
    result = CliRunner().invoke(main, ["report", str(root)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert f"2 in {root}" in result.output
    for episode in root.iterdir():
        assert episode.name in result.output
        assert (episode / "report.html").is_file()


def test_replay_of_a_record_folder_replays_every_episode(store, recorded, tmp_path):
    root, _ = recorded
    result = CliRunner().invoke(
        main,
        ["replay", str(root), "--world-home", str(store.home), *ROOMY],
        terminal_width=200,
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("final diff: same; verdict: same") == 2


def test_export_sft_of_a_folder_without_episodes_fails_with_a_message(tmp_path):
    (tmp_path / "empty").mkdir()
    out = tmp_path / "sft.jsonl"
    result = CliRunner().invoke(main, ["export-sft", str(tmp_path / "empty"), "--out", str(out)])
    assert result.exit_code == 1
    assert "no episode recordings under" in result.output
    assert not out.exists()


def test_action_timeout_reaches_the_replayed_sessions_and_bad_values_are_refused(
    recorded, monkeypatch
):
    # By module name: the package exports a function of the same name as each module.
    replay_module = importlib.import_module("officegym.harness.replay")

    root, _ = recorded
    episode = sorted(root.iterdir())[0]
    seen = []

    def fake_replay(directory, **kwargs):
        seen.append(kwargs["session"].action_timeout_ms)
        raise replay_module.RecordingError("stop here")

    monkeypatch.setattr(replay_module, "replay", fake_replay)
    result = CliRunner().invoke(main, ["replay", str(episode), "--action-timeout", "12.5"])
    assert result.exit_code == 1 and "stop here" in result.output
    assert seen == [12500]

    run_module = importlib.import_module("officegym.harness.run")

    def fake_run_task(task_id, agent, **kwargs):
        seen.append(kwargs["session"].action_timeout_ms)
        raise ValueError("stop here too")

    monkeypatch.setattr(run_module, "run_task", fake_run_task)
    result = CliRunner().invoke(main, ["run", "--task", "chat.post_update"])
    assert result.exit_code == 1 and "stop here too" in result.output
    assert seen == [12500, 3000]
    for command in (["replay", str(episode)], ["run", "--task", "chat.post_update"]):
        result = CliRunner().invoke(main, [*command, "--action-timeout", "0"])
        assert result.exit_code == 2 and "--action-timeout" in result.output
