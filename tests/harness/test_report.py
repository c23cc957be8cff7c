"""write_report(): one offline HTML file with the task, outcome, checks, diff and every step."""

from __future__ import annotations

import html
import io
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image

from officegym.harness.recording import Recorder
from officegym.harness.report import MAX_ROWS, MAX_VALUE_CHARS, write_report
from officegym.seed_data.diff import WorldDiff
from officegym.tasks.verdict import Check, Verdict

GOAL = "Move the Acme renewal deal to Closed Won."
ACTIONS = ['click("12")', 'fill("31", "Closed Won")', 'click("40")']
ERROR = 'no element with bid "31" on the page'
STAGE_CHECK = Check(
    "deal stage is Closed Won",
    passed=True,
    detail="crm_deal #7 stage: expected 'Closed Won', found 'Closed Won'",
)
SCOPE_CHECK = Check(
    "no other deal changed",
    passed=False,
    weight=0.5,
    detail="crm_deal #9 changed unexpectedly",
    kind="process",
    required=False,
)
STAGE_UPDATE = {"changes": {"stage": ["Negotiation", "Closed Won"]}, "row": {"id": 7}}
FINAL_DIFF = {"crm_deal": {"updated": {"7": STAGE_UPDATE}}}


def png(color: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), color).save(buffer, format="PNG")
    return buffer.getvalue()


def record(
    directory: Path,
    *,
    goal: str = GOAL,
    actions: list[str] = ACTIONS,
    answer: str | None = None,
    final_diff: dict = FINAL_DIFF,
    screenshots: bool = True,
    finish: bool = True,
) -> Path:
    """An episode recorded with the real Recorder: a reset and one line per action."""
    recorder = Recorder(directory)
    recorder.start(
        {
            "task": {
                "id": "crm.update_deal_stage",
                "goal": goal,
                "user": "dana@acme.test",
                "start_url": "/crm",
                "world": {"seed": 0, "scale": "tiny"},
                "apps": ["crm"],
                "max_steps": 30,
                "params": {"deal": 7},
                "instance_seed": 3,
            },
            "options": {"screenshot": screenshots},
            "agent": "scripted",
            "harness_version": "0.1.0",
            "started_at": "2024-05-01T09:00:00+00:00",
        }
    )
    for number, action in enumerate([None, *actions]):
        recorder.step(
            {
                "step": number,
                "action": action,
                "error": ERROR if number == 2 else None,
                "url": f"http://127.0.0.1:8000/crm/deals/{number}",
                "title": "Deal",
                "obs": {"goal": goal, "url": "/crm", "axtree_txt": f"[{number}] main 'Deal'"},
                "reward": 0.0,
                "terminated": False,
                "truncated": False,
                "timings_ms": {"action": 12.4, "settle": 30, "observe": 8, "total": 50.4},
                "diff": {"crm_deal": {"updated": {"7": STAGE_UPDATE}}} if number == 3 else None,
                "blocked_requests": [],
            },
            png("red") if screenshots and number != 1 else None,
        )
    if finish:
        recorder.finish(
            WorldDiff.from_json(final_diff),
            Verdict([STAGE_CHECK, SCOPE_CHECK]),
            {
                "terminated": True,
                "truncated": False,
                "answer": answer,
                "infeasible": None,
                "steps": len(actions),
                "reward": 1.0,
                "elapsed_s": 4.2,
            },
        )
    else:
        recorder.close()
    return directory


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def text_of(page: str) -> str:
    """The page's text as a reader sees it (tags dropped, entities decoded)."""
    parser = _Text()
    parser.feed(page)
    return "".join(parser.parts)


def test_report_is_one_file_that_references_nothing_outside_itself(tmp_path):
    report = write_report(record(tmp_path / "ep"))
    page = report.read_text(encoding="utf-8")
    references = re.findall(r"""\b(?:src|href|srcset|action|poster)\s*=\s*["']?([^"'\s>]*)""", page)
    assert references
    assert all(ref.startswith("data:") for ref in references)
    assert 'src="//' not in page
    assert "<link" not in page
    assert "<script" not in page
    assert "url(" not in page and "@import" not in page
    assert report == tmp_path / "ep" / "report.html"
    assert not list((tmp_path / "ep").glob("*.tmp"))


def test_report_is_written_where_asked(tmp_path):
    out = tmp_path / "reports" / "one.html"
    assert write_report(record(tmp_path / "ep"), out) == out
    assert GOAL in text_of(out.read_text(encoding="utf-8"))


def test_report_shows_the_task_and_every_action(tmp_path):
    text = text_of(write_report(record(tmp_path / "ep")).read_text(encoding="utf-8"))
    assert GOAL in text
    assert "crm.update_deal_stage" in text
    assert "dana@acme.test" in text
    for action in ACTIONS:
        assert action in text


def test_report_highlights_the_error_of_a_step(tmp_path):
    page = write_report(record(tmp_path / "ep")).read_text(encoding="utf-8")
    errors = re.findall(r'<div class="error">(.*?)</div>', page, re.S)
    assert [html.unescape(e) for e in errors] == [ERROR]


def test_report_lists_every_check_with_its_detail(tmp_path):
    text = text_of(write_report(record(tmp_path / "ep")).read_text(encoding="utf-8"))
    for check in (STAGE_CHECK, SCOPE_CHECK):
        assert check.name in text
        assert check.detail in text
    assert "✓" in text and "✗" in text


def test_report_shows_updated_columns_old_to_new(tmp_path):
    text = text_of(write_report(record(tmp_path / "ep")).read_text(encoding="utf-8"))
    assert "crm_deal" in text
    assert "stage 'Negotiation' → 'Closed Won'" in " ".join(text.split())


def test_step_shows_a_summary_of_its_own_changes(tmp_path):
    page = write_report(record(tmp_path / "ep")).read_text(encoding="utf-8")
    summaries = [
        " ".join(text_of(s).split()) for s in re.findall(r"<summary>(.*?)</summary>", page, re.S)
    ]
    assert "Changes: crm_deal 1 updated" in summaries


def test_report_caps_long_values_and_many_rows(tmp_path):
    inserted = {str(pk): {"id": pk, "body": "x" * 5000} for pk in range(1, MAX_ROWS + 8)}
    page = write_report(
        record(tmp_path / "ep", final_diff={"chat_message": {"inserted": inserted}})
    ).read_text(encoding="utf-8")
    text = text_of(page)
    assert "… 7 more" in text
    assert "x" * 5000 not in page
    assert text.count(f"… ({5002 - MAX_VALUE_CHARS} more characters)") == MAX_ROWS


def test_untrusted_text_is_escaped(tmp_path):
    attack = "<script>alert(1)</script>"
    page = write_report(
        record(tmp_path / "ep", goal=attack, actions=[attack], answer=attack)
    ).read_text(encoding="utf-8")
    assert "<script" not in page
    assert text_of(page).count(attack) >= 3


def test_unfinished_episode_says_it_did_not_finish(tmp_path):
    text = text_of(write_report(record(tmp_path / "ep", finish=False)).read_text(encoding="utf-8"))
    assert "did not finish" in text
    assert ACTIONS[-1] in text


def test_screenshots_are_embedded_as_data_uris(tmp_path):
    episode = record(tmp_path / "ep")
    shots = list((episode / "screens").glob("*.png"))
    page = write_report(episode).read_text(encoding="utf-8")
    assert len(shots) == len(ACTIONS)
    assert page.count("data:image/png;base64,") == len(shots)


def test_episode_without_screenshots_has_no_images(tmp_path):
    page = write_report(record(tmp_path / "ep", screenshots=False)).read_text(encoding="utf-8")
    assert "<img" not in page


@pytest.mark.browser
def test_report_opens_offline_in_chromium(tmp_path, browser):
    report = write_report(record(tmp_path / "ep"))
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(report.as_uri())
        assert page.get_by_text(GOAL, exact=True).is_visible()
        assert page.get_by_text(STAGE_CHECK.name, exact=True).is_visible()
        assert page.locator("img.screenshot").count() == len(ACTIONS)
    finally:
        page.close()
    assert requests
    assert all(url == report.as_uri() or url.startswith("data:") for url in requests)
