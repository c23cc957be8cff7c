"""Recorded episodes as chat-format JSONL for supervised fine-tuning.

Each line is one decision of the agent: the text it saw before acting (as a user message that
also holds the goal, the page, the open tabs, the last error and its recent actions) and the
action it chose (as the assistant message). Every example is self-contained.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .actionspec import INSTRUCTIONS, SPECS
from .codec import decode
from .observation import Observation, active_index
from .recording import Episode, find_episodes, load_episode

PageText = Literal["axtree", "dom", "both"]

HISTORY_LENGTH = 10

SYSTEM_PROMPT = (
    "You operate a web browser to complete a task for a user of an office suite (chat, CRM, "
    "spreadsheets, room booking). Each turn you get the goal, the current URL and open tabs, "
    "your recent actions, the error of your last action if it failed, and the page as text. "
    "In the accessibility tree each element is a line `[bid] role 'name'`; in the DOM it "
    "carries a `bid` attribute.\n\n"
    "Reply with the next action: a call with literal arguments, strings in double quotes, "
    'such as click("12"). The actions:\n'
    + "\n".join(f"- {spec.doc}" for spec in SPECS.values())
    + "\n\n"
    + INSTRUCTIONS
)


class SftExportError(ValueError):
    """An episode lacks what the export was asked to include (e.g. the DOM text)."""


@dataclass(frozen=True)
class ExportStats:
    """What one export read and wrote."""

    episodes_seen: int
    episodes_used: int
    skipped_failed: int
    skipped_unfinished: int
    examples: int


def export_sft(
    paths: Iterable[Path | str],
    out: Path | str,
    *,
    include_failed: bool = False,
    observation: PageText = "axtree",
    max_obs_chars: int = 40_000,
    system_prompt: str | None = None,
) -> ExportStats:
    """Write one JSONL line per (observation → action) pair of the episodes under `paths`.

    Only successful episodes are used unless `include_failed`; unfinished ones never are.
    `max_obs_chars` bounds the page text of one example (split evenly for "both"). The file
    appears at `out` only when complete; episodes are read in path order, steps in order.
    """
    if observation not in ("axtree", "dom", "both"):
        raise ValueError(f"observation must be 'axtree', 'dom' or 'both', got {observation!r}")
    if max_obs_chars < 1:
        raise ValueError(f"max_obs_chars must be positive, got {max_obs_chars!r}")
    system = SYSTEM_PROMPT if system_prompt is None else system_prompt
    folders = sorted({folder.resolve(): folder for folder in find_episodes(list(paths))}.items())
    if not folders:
        where = ", ".join(map(str, paths)) or "no paths"
        raise SftExportError(f"no episode recordings under {where}")

    seen = used = failed = unfinished = examples = 0
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            for _, folder in folders:
                seen += 1
                episode = load_episode(folder)
                if episode.verdict is None:
                    unfinished += 1
                    continue
                if not episode.success and not include_failed:
                    failed += 1
                    continue
                used += 1
                for example in _examples(episode, system, observation, max_obs_chars):
                    f.write(json.dumps(example, ensure_ascii=False) + "\n")
                    examples += 1
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return ExportStats(seen, used, failed, unfinished, examples)


def _examples(
    episode: Episode, system: str, observation: PageText, max_obs_chars: int
) -> Iterator[dict[str, Any]]:
    goal = str(episode.meta.get("task", {}).get("goal", ""))
    score = episode.verdict.score if episode.verdict is not None else None
    history: list[tuple[int, str]] = []
    for before, step in zip(episode.steps, episode.steps[1:], strict=False):
        action = step.get("action")
        if action is None:
            continue
        number = int(step["step"])
        obs = decode(before.get("obs") or {})
        if not obs:
            raise SftExportError(
                f"{episode.directory}: no observation recorded before step {number}"
            )
        prompt = _user_message(
            obs, goal, history[-HISTORY_LENGTH:], observation, max_obs_chars, episode, number
        )
        yield {
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
                {"role": "assistant", "content": action},
            ],
            "metadata": {
                "task_id": episode.task_id,
                "episode": episode.directory.name,
                "step": number,
                "score": score,
                "success": episode.success,
            },
        }
        history.append((number, action))


def _user_message(
    obs: Observation,
    goal: str,
    history: list[tuple[int, str]],
    observation: PageText,
    max_obs_chars: int,
    episode: Episode,
    number: int,
) -> str:
    parts = [f"# Goal\n{obs.get('goal') or goal}", f"# Current page\nURL: {obs.get('url', '')}"]
    urls = obs.get("open_pages_urls") or []
    if urls:
        titles = obs.get("open_pages_titles") or [""] * len(urls)
        active = active_index(obs)
        tabs = [
            f"{i}. {title} ({url})" + (" [active]" if i == active else "")
            for i, (url, title) in enumerate(zip(urls, titles, strict=False))
        ]
        parts.append("# Open tabs\n" + "\n".join(tabs))
    if history:
        parts.append("# Previous actions\n" + "\n".join(f"{n}. {a}" for n, a in history))
    else:
        parts.append("# Previous actions\nNone yet.")
    error = obs.get("last_action_error")
    if error:
        parts.append(f"# Error from the last action\n{error}")
    if obs.get("focused_element_bid"):
        parts.append(f"# Focused element\n{obs['focused_element_bid']}")

    wanted = {"axtree": ["axtree_txt"], "dom": ["dom_txt"], "both": ["axtree_txt", "dom_txt"]}
    keys = wanted[observation]
    budget = max(1, max_obs_chars // len(keys))
    headings = {"axtree_txt": "# Accessibility tree", "dom_txt": "# DOM"}
    for key in keys:
        text = obs.get(key)
        if text is None:
            hint = "; export with observation='axtree'" if key == "dom_txt" else ""
            raise SftExportError(
                f"{episode.directory}: the observation before step {number} has no {key}{hint}"
            )
        parts.append(f"{headings[key]}\n{_truncate(str(text), budget)}")
    return "\n\n".join(parts)


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… [truncated {len(text) - limit} characters]"


__all__ = ["SYSTEM_PROMPT", "ExportStats", "SftExportError", "export_sft"]
