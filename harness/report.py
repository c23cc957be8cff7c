"""One recorded episode as a single self-contained HTML file a person can open offline.

The report holds the task, the outcome, the verdict's checks, the final diff and every step
(action, error, URL, timings, the step's own diff, screenshot, observation). Screenshots are
embedded as data URIs and the CSS is inline, so the file references nothing outside itself and
needs no JavaScript. Agent text and world data are escaped by the template's autoescaping.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader

from officegym.seed_data.diff import TableDiff, WorldDiff

from .codec import decode, png_data_uri
from .recording import Episode, load_episode

REPORT_FILE = "report.html"
MAX_VALUE_CHARS = 200
MAX_ROWS = 50
_TIMINGS = ("action", "settle", "observe", "total")

_env = Environment(
    loader=PackageLoader("officegym.harness", "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


def write_report(episode_dir: Path | str, out: Path | str | None = None) -> Path:
    """Render the episode at `episode_dir` to `out` (default `<episode_dir>/report.html`)."""
    episode = load_episode(episode_dir)
    target = Path(out) if out is not None else episode.directory / REPORT_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            _env.get_template("report.html").stream(_context(episode)).dump(f)
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _context(episode: Episode) -> dict[str, Any]:
    task = episode.meta.get("task") or {}
    world = task.get("world") or {}
    outcome = episode.outcome
    verdict = episode.verdict
    status = "did not finish"
    if verdict is not None:
        status = "success" if verdict.success else "failure"
    return {
        "task_id": episode.task_id,
        "goal": task.get("goal", ""),
        "user": task.get("user"),
        "start_url": task.get("start_url"),
        "apps": task.get("apps") or [],
        "params": task.get("params"),
        "instance_seed": task.get("instance_seed"),
        "max_steps": task.get("max_steps"),
        "world_seed": world.get("seed"),
        "world_scale": world.get("scale"),
        "agent": episode.meta.get("agent"),
        "harness_version": episode.meta.get("harness_version"),
        "started_at": episode.meta.get("started_at"),
        "episode": episode.directory.name,
        "status": status,
        "finished": verdict is not None,
        "score": verdict.score if verdict is not None else None,
        "outcome": {
            key: outcome.get(key)
            for key in (
                "steps",
                "terminated",
                "truncated",
                "answer",
                "infeasible",
                "reward",
                "elapsed_s",
            )
        },
        "checks": list(verdict.checks) if verdict is not None else [],
        "diff": _diff_view(episode.diff) if episode.diff is not None else None,
        "steps": [_step_view(episode, step) for step in episode.steps],
    }


def _step_view(episode: Episode, step: Mapping[str, Any]) -> dict[str, Any]:
    obs = decode(step.get("obs") or {})
    raw_diff = step.get("diff")
    step_diff = WorldDiff.from_json(raw_diff) if raw_diff else None
    timings = step.get("timings_ms") or {}
    return {
        "number": step.get("step"),
        "action": step.get("action"),
        "error": step.get("error") or obs.get("last_action_error") or None,
        "url": step.get("url") or obs.get("url"),
        "title": step.get("title"),
        "reward": step.get("reward"),
        "timings": [(name, _ms(timings[name])) for name in sorted(timings, key=_timing_order)],
        "diff": _diff_view(step_diff) if step_diff else None,
        "screenshot": _screenshot(episode, step),
        "axtree": obs.get("axtree_txt"),
        "blocked": list(step.get("blocked_requests") or []),
    }


def _screenshot(episode: Episode, step: Mapping[str, Any]) -> dict[str, str] | None:
    path = episode.screenshot(step)
    if path is None:
        return None
    if not path.is_file():
        return {"missing": str(step.get("screenshot"))}
    return {"src": png_data_uri(path.read_bytes())}


def _diff_view(diff: WorldDiff) -> list[dict[str, Any]]:
    return [_table_view(name, diff.tables[name]) for name in sorted(diff.tables)]


def _table_view(name: str, table: TableDiff) -> dict[str, Any]:
    sections = []
    for kind, rows in (("inserted", table.inserted), ("deleted", table.deleted)):
        if not rows:
            continue
        shown = sorted(rows)[:MAX_ROWS]
        columns = list(dict.fromkeys(c for pk in shown for c in rows[pk]))
        sections.append(
            {
                "kind": kind,
                "columns": columns,
                "rows": [
                    (pk, [_value(rows[pk][c]) if c in rows[pk] else "" for c in columns])
                    for pk in shown
                ],
                "more": len(rows) - len(shown),
            }
        )
    if table.updated:
        shown = sorted(table.updated)[:MAX_ROWS]
        sections.append(
            {
                "kind": "updated",
                "rows": [
                    (
                        pk,
                        [
                            (column, _value(old), _value(new))
                            for column, (old, new) in table.updated[pk].changes.items()
                        ],
                    )
                    for pk in shown
                ],
                "more": len(table.updated) - len(shown),
            }
        )
    counts = {
        "inserted": len(table.inserted),
        "updated": len(table.updated),
        "deleted": len(table.deleted),
    }
    return {"name": name, "counts": counts, "sections": sections}


def _value(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    text = repr(value)
    if len(text) > MAX_VALUE_CHARS:
        return f"{text[:MAX_VALUE_CHARS]}… ({len(text) - MAX_VALUE_CHARS} more characters)"
    return text


def _timing_order(name: str) -> tuple[int, str]:
    return (_TIMINGS.index(name) if name in _TIMINGS else len(_TIMINGS), name)


def _ms(value: Any) -> str:
    if isinstance(value, int | float):
        return f"{value:.0f} ms"
    return str(value)


__all__ = ["REPORT_FILE", "write_report"]
