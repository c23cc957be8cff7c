"""export_sft(): chat-format JSONL of (observation before a step → the step's action) pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from officegym.harness.actionspec import ACTION_NAMES
from officegym.harness.recording import Recorder
from officegym.harness.sft import SYSTEM_PROMPT, ExportStats, SftExportError, export_sft
from officegym.seed_data.diff import WorldDiff
from officegym.tasks.verdict import Check, Verdict

GOAL = "Move the Acme renewal deal to Closed Won."
ACTIONS = ['click("12")', 'fill("31", "Closed Won")', 'send_msg_to_user("Done.")']
ERROR = 'no element with bid "31" on the page'


def observation(number: int, **extra) -> dict:
    return {
        "goal": GOAL,
        "url": f"http://127.0.0.1:8000/crm/deals?step={number}",
        "axtree_txt": f"[{number}] main 'Deals'",
        "open_pages_urls": [f"http://127.0.0.1:8000/crm/deals?step={number}"],
        "open_pages_titles": ["Deals"],
        "active_page_index": 0,
        **extra,
    }


def record(
    directory: Path,
    *,
    passed: bool = True,
    actions: list[str] = ACTIONS,
    observations: list[dict] | None = None,
    finish: bool = True,
) -> Path:
    """An episode recorded with the real Recorder; the step after action 2 reports ERROR."""
    if observations is None:
        observations = [
            observation(n, last_action_error=ERROR) if n == 2 else observation(n)
            for n in range(len(actions) + 1)
        ]
    recorder = Recorder(directory)
    recorder.start(
        {
            "task": {"id": "crm.update_deal_stage", "goal": GOAL, "world": {"seed": 0}},
            "agent": "scripted",
            "started_at": "2024-05-01T09:00:00+00:00",
        }
    )
    for number, (action, obs) in enumerate(zip([None, *actions], observations, strict=True)):
        recorder.step(
            {
                "step": number,
                "action": action,
                "error": obs.get("last_action_error"),
                "url": obs["url"],
                "obs": obs,
                "timings_ms": {"total": 10},
                "diff": None,
            }
        )
    if finish:
        recorder.finish(
            WorldDiff.from_json({}),
            Verdict([Check("deal stage is Closed Won", passed=passed)]),
            {"terminated": True, "truncated": False, "steps": len(actions), "reward": 1.0},
        )
    else:
        recorder.close()
    return directory


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def page(number: int) -> str:
    """The page and tabs part of the user message for the observation of step `number`."""
    url = f"http://127.0.0.1:8000/crm/deals?step={number}"
    return f"# Current page\nURL: {url}\n\n# Open tabs\n0. Deals ({url}) [active]\n\n"


def test_only_successful_episodes_are_exported_by_default(tmp_path):
    record(tmp_path / "runs" / "a-ok")
    record(tmp_path / "runs" / "b-failed", passed=False)
    record(tmp_path / "runs" / "c-unfinished", finish=False)
    stats = export_sft([tmp_path / "runs"], tmp_path / "sft.jsonl")
    assert stats == ExportStats(
        episodes_seen=3, episodes_used=1, skipped_failed=1, skipped_unfinished=1, examples=3
    )
    lines = read_lines(tmp_path / "sft.jsonl")
    assert {line["metadata"]["episode"] for line in lines} == {"a-ok"}


def test_each_example_is_the_observation_before_a_step_and_its_action(tmp_path):
    record(tmp_path / "ep")
    export_sft([tmp_path / "ep"], tmp_path / "sft.jsonl")
    lines = read_lines(tmp_path / "sft.jsonl")
    header = f"# Goal\n{GOAL}\n\n"
    assert [line["messages"][1]["content"] for line in lines] == [
        header + page(0) + "# Previous actions\nNone yet.\n\n"
        "# Accessibility tree\n[0] main 'Deals'",
        header + page(1) + '# Previous actions\n1. click("12")\n\n'
        "# Accessibility tree\n[1] main 'Deals'",
        header + page(2) + '# Previous actions\n1. click("12")\n2. fill("31", "Closed Won")\n\n'
        f"# Error from the last action\n{ERROR}\n\n"
        "# Accessibility tree\n[2] main 'Deals'",
    ]
    assert [line["messages"][2] for line in lines] == [
        {"role": "assistant", "content": action} for action in ACTIONS
    ]
    assert [line["metadata"] for line in lines] == [
        {
            "task_id": "crm.update_deal_stage",
            "episode": "ep",
            "step": step,
            "score": 1.0,
            "success": True,
        }
        for step in (1, 2, 3)
    ]


def test_lines_are_chat_messages_with_the_system_prompt(tmp_path):
    record(tmp_path / "ep")
    export_sft([tmp_path / "ep"], tmp_path / "sft.jsonl")
    for line in read_lines(tmp_path / "sft.jsonl"):
        assert set(line) == {"messages", "metadata"}
        assert [m["role"] for m in line["messages"]] == ["system", "user", "assistant"]
        assert all(isinstance(m["content"], str) for m in line["messages"])
        assert line["messages"][0]["content"] == SYSTEM_PROMPT


def test_default_system_prompt_shows_every_action():
    for name in ACTION_NAMES:
        assert f"Example: {name}(" in SYSTEM_PROMPT


def test_a_custom_system_prompt_replaces_the_default(tmp_path):
    record(tmp_path / "ep")
    export_sft([tmp_path / "ep"], tmp_path / "sft.jsonl", system_prompt="Act.")
    assert {line["messages"][0]["content"] for line in read_lines(tmp_path / "sft.jsonl")} == {
        "Act."
    }


def test_include_failed_exports_failed_episodes_with_their_score(tmp_path):
    record(tmp_path / "ep", passed=False)
    stats = export_sft([tmp_path / "ep"], tmp_path / "sft.jsonl", include_failed=True)
    assert (stats.episodes_used, stats.skipped_failed, stats.examples) == (1, 0, 3)
    assert {line["metadata"]["score"] for line in read_lines(tmp_path / "sft.jsonl")} == {0.0}


def test_long_observation_is_truncated_with_a_marker(tmp_path):
    long = [observation(n, axtree_txt="a" * 100) for n in range(len(ACTIONS) + 1)]
    record(tmp_path / "ep", observations=long)
    export_sft([tmp_path / "ep"], tmp_path / "sft.jsonl", max_obs_chars=30)
    user = read_lines(tmp_path / "sft.jsonl")[0]["messages"][1]["content"]
    assert user.endswith("# Accessibility tree\n" + "a" * 30 + "\n… [truncated 70 characters]")


def test_previous_actions_are_the_last_ten(tmp_path):
    actions = [f'click("{n}")' for n in range(1, 13)]
    record(tmp_path / "ep", actions=actions)
    export_sft([tmp_path / "ep"], tmp_path / "sft.jsonl")
    last = read_lines(tmp_path / "sft.jsonl")[-1]["messages"][1]["content"]
    history = last.split("# Previous actions\n")[1].split("\n\n")[0]
    assert history.splitlines() == [f'{n}. click("{n}")' for n in range(2, 12)]


def test_both_observations_include_the_dom(tmp_path):
    with_dom = [observation(n, dom_txt=f"<main>{n}</main>") for n in range(len(ACTIONS) + 1)]
    record(tmp_path / "ep", observations=with_dom)
    export_sft([tmp_path / "ep"], tmp_path / "sft.jsonl", observation="both")
    user = read_lines(tmp_path / "sft.jsonl")[0]["messages"][1]["content"]
    assert user.endswith("# Accessibility tree\n[0] main 'Deals'\n\n# DOM\n<main>0</main>")


def test_missing_dom_is_an_error_and_leaves_the_old_output(tmp_path):
    record(tmp_path / "ep")
    out = tmp_path / "sft.jsonl"
    out.write_text("previous\n", encoding="utf-8")
    with pytest.raises(SftExportError, match="dom_txt"):
        export_sft([tmp_path / "ep"], out, observation="dom")
    assert out.read_text(encoding="utf-8") == "previous\n"
    assert not list(tmp_path.glob("*.tmp"))


def test_export_is_deterministic(tmp_path):
    for name in ("b", "a", "c"):
        record(tmp_path / "runs" / name)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    export_sft([tmp_path / "runs"], first)
    export_sft([tmp_path / "runs" / n for n in ("c", "a", "b")], second)
    assert first.read_bytes() == second.read_bytes()
    episodes = [line["metadata"]["episode"] for line in read_lines(first)]
    assert episodes == ["a"] * 3 + ["b"] * 3 + ["c"] * 3
