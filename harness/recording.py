"""An episode on disk: what `replay`, `report` and `export-sft` read.

Layout of one episode folder:

    episode.json      task (JSON part), world spec, options, harness version, start time
    steps.jsonl       one line per step; line 0 is the reset (action null)
    screens/NNNN.png  the screenshot after step NNNN (when screenshots are recorded)
    files/            downloads of the episode and files it may upload
    diff.json         WorldDiff from the golden world to the final world
    verdict.json      the final Verdict (and the episode's outcome)

A step line holds: `step`, `action` (string or null), `error`, `url`, `title`, `obs` (the
observation the agent saw after the step, in `codec.encode`'s JSON without its images, and
always with dom_txt; `codec.decode` reads it back), `reward`, `terminated`, `truncated`, `timings_ms` (action, settle, observe,
total), `diff` (WorldDiff JSON of this step's own changes, or null), `screenshot` (relative
path or null), `blocked_requests`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from officegym.seed_data.diff import WorldDiff
from officegym.tasks.verdict import Verdict

from .codec import encode
from .observation import Observation, active_index

EPISODE_FILE = "episode.json"
STEPS_FILE = "steps.jsonl"
DIFF_FILE = "diff.json"
VERDICT_FILE = "verdict.json"
SCREENS_DIR = "screens"
FILES_DIR = "files"
FORMAT_VERSION = 1


class RecordingError(ValueError):
    """A folder is not a readable episode recording."""


class Recorder:
    """Writes one episode folder as the episode runs (steps are flushed line by line)."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / SCREENS_DIR).mkdir(exist_ok=True)
        (self.directory / FILES_DIR).mkdir(exist_ok=True)
        for name in (STEPS_FILE, DIFF_FILE, VERDICT_FILE):
            (self.directory / name).unlink(missing_ok=True)
        for old in (self.directory / SCREENS_DIR).glob("*.png"):
            old.unlink()
        self._steps = (self.directory / STEPS_FILE).open("w", encoding="utf-8")

    @property
    def files_dir(self) -> Path:
        return self.directory / FILES_DIR

    def start(self, meta: Mapping[str, Any]) -> None:
        data = {"format": FORMAT_VERSION, **meta}
        _write_json(self.directory / EPISODE_FILE, data)

    def step(self, record: Mapping[str, Any], screenshot_png: bytes | None = None) -> None:
        line = dict(record)
        if screenshot_png is not None:
            name = f"{SCREENS_DIR}/{int(line['step']):04d}.png"
            (self.directory / name).write_bytes(screenshot_png)
            line["screenshot"] = name
        else:
            line.setdefault("screenshot", None)
        self._steps.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        self._steps.flush()

    def begin(self, task: Mapping[str, Any], options: Mapping[str, Any]) -> None:
        """Write `episode.json` for a live episode: the task, the environment's options, the
        harness version and the start time (the agent is noted later, see `set_agent`)."""
        from officegym import __version__

        self.start(
            {
                "task": dict(task),
                "options": dict(options),
                "agent": None,
                "harness_version": __version__,
                "started_at": datetime.now().astimezone().isoformat(timespec="seconds"),
            }
        )

    def set_agent(self, agent: str) -> None:
        """Note which agent plays the episode in `episode.json`."""
        path = self.directory / EPISODE_FILE
        data = json.loads(path.read_text("utf-8"))
        data["agent"] = agent
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True))

    def record_step(
        self,
        number: int,
        action: str | None,
        obs: Observation,
        *,
        reward: float,
        terminated: bool,
        truncated: bool,
        timings_ms: Mapping[str, float],
        diff: Mapping[str, Any] | None,
        blocked_requests: int,
        screenshot_png: bytes | None = None,
    ) -> None:
        """One step line from the observation after the step (see the module docstring)."""
        titles = obs["open_pages_titles"]
        error = obs["last_action_error"]
        self.step(
            {
                "step": number,
                "action": action,
                "error": error or None,
                "url": obs["url"],
                "title": titles[active_index(obs) or 0] if titles else "",
                "obs": encode(obs, images=False, objects=False),
                "reward": reward,
                "terminated": terminated,
                "truncated": truncated,
                "timings_ms": dict(timings_ms),
                "diff": diff,
                "blocked_requests": blocked_requests,
            },
            screenshot_png,
        )

    def finish(self, final_diff: WorldDiff, verdict: Verdict, outcome: Mapping[str, Any]) -> None:
        _write_json(self.directory / DIFF_FILE, final_diff.to_json())
        _write_json(self.directory / VERDICT_FILE, {**outcome, "verdict": verdict.to_json()})
        self.close()

    def close(self) -> None:
        if not self._steps.closed:
            self._steps.close()


@dataclass(frozen=True)
class Episode:
    """A recorded episode read back from disk."""

    directory: Path
    meta: Mapping[str, Any]
    steps: tuple[Mapping[str, Any], ...]
    diff: WorldDiff | None
    verdict: Verdict | None
    outcome: Mapping[str, Any]

    @property
    def actions(self) -> list[str]:
        """The agent's actions in order (the reset line has none)."""
        return [s["action"] for s in self.steps if s.get("action") is not None]

    @property
    def task_id(self) -> str:
        return str(self.meta.get("task", {}).get("id", "adhoc"))

    @property
    def success(self) -> bool:
        return self.verdict is not None and self.verdict.success

    def screenshot(self, step: Mapping[str, Any]) -> Path | None:
        name = step.get("screenshot")
        return self.directory / name if name else None


def load_episode(directory: Path | str) -> Episode:
    """Read an episode folder; a missing diff/verdict means the episode did not finish."""
    folder = Path(directory)
    meta_path = folder / EPISODE_FILE
    if not meta_path.is_file():
        raise RecordingError(f"{folder} is not an episode recording (no {EPISODE_FILE})")
    meta = _read_json(meta_path)
    steps = tuple(_read_steps(folder / STEPS_FILE))
    diff = (
        WorldDiff.from_json(_read_json(folder / DIFF_FILE))
        if (folder / DIFF_FILE).is_file()
        else None
    )
    outcome: Mapping[str, Any] = {}
    verdict = None
    if (folder / VERDICT_FILE).is_file():
        outcome = _read_json(folder / VERDICT_FILE)
        verdict = Verdict.from_json(outcome.get("verdict", {}))
    return Episode(folder, meta, steps, diff, verdict, outcome)


def find_episodes(paths: list[Path | str]) -> Iterator[Path]:
    """Episode folders among `paths`: each path is an episode or a folder of episodes."""
    for path in map(Path, paths):
        if (path / EPISODE_FILE).is_file():
            yield path
        elif path.is_dir():
            for child in sorted(path.rglob(EPISODE_FILE)):
                yield child.parent
        else:
            raise RecordingError(f"{path} is neither an episode nor a folder of episodes")


def _read_steps(path: Path) -> Iterator[Mapping[str, Any]]:
    if not path.is_file():
        raise RecordingError(f"{path.parent} has no {STEPS_FILE}")
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise RecordingError(f"{path}:{number}: not JSON ({error.msg})") from None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise RecordingError(f"{path}: not JSON ({error.msg})") from None


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True), "utf-8")
    tmp.replace(path)


__all__ = [
    "DIFF_FILE",
    "EPISODE_FILE",
    "Episode",
    "FILES_DIR",
    "Recorder",
    "RecordingError",
    "SCREENS_DIR",
    "STEPS_FILE",
    "VERDICT_FILE",
    "find_episodes",
    "load_episode",
]
