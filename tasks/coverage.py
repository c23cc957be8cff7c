"""How varied a template's instances are: distinct instances and the spread of right answers.

A template that gives the same instance on many seeds teaches a policy one episode; one whose
right answer is the same on most instances teaches it to say that answer without looking
("1" was right for most unread-mention counts). `instance_stats` samples a template on a
golden world, without a browser, and `InstanceStats.problems` says what breaks these rules:

- at least `MIN_DISTINCT` distinct instances (by params) among instance seeds 0-99, unless the
  template declares a smaller `cardinality` and why;
- no expected answer is the right one for more than `MAX_ANSWER_SHARE` of the instances;
- impossible instances among the samples exactly when the template declares
  `impossible_instances` (so the gate can skip searching for one when it declares none).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from officegym.seed_data.diff import WorldDiff

from . import expect
from .protocol import EpisodeContext
from .registry import Template

MIN_DISTINCT = 30
MAX_ANSWER_SHARE = 0.20
SAMPLES = 200


@dataclass(frozen=True)
class InstanceStats:
    """What sampling `sampled` instances of `template` found."""

    template: str
    sampled: int
    distinct_100: int
    answers: int
    top_answer: str | None
    top_share: float
    impossible: int
    cardinality: int | None = None
    declares_impossible: bool = False

    def problems(self) -> list[str]:
        """The coverage rules this template breaks (empty when it keeps them)."""
        found = []
        floor = MIN_DISTINCT if self.cardinality is None else min(MIN_DISTINCT, self.cardinality)
        if self.distinct_100 < floor:
            found.append(f"{self.distinct_100} distinct instances in seeds 0-99 (at least {floor})")
        if self.answers and self.top_share > MAX_ANSWER_SHARE:
            found.append(
                f"the answer {self.top_answer} is right for {self.top_share:.0%} of "
                f"{self.answers} answer instances (at most {MAX_ANSWER_SHARE:.0%})"
            )
        if self.impossible and not self.declares_impossible:
            found.append(
                f"{self.impossible} of {self.sampled} instances are impossible, but the "
                "template does not declare impossible_instances"
            )
        if self.declares_impossible and not self.impossible:
            found.append(f"declares impossible_instances, but none of {self.sampled} instances is")
        return found


def _answer_key(said: list[Any]) -> str:
    def one(a: Any) -> str:
        value = a.expected
        if isinstance(value, date):
            value = value.isoformat()
        elif isinstance(value, list | tuple):
            value = sorted(map(str, value)) if a.how == "list" else [str(v) for v in value]
        elif isinstance(value, float) and value.is_integer():
            value = int(value)
        return json.dumps(value, sort_keys=True, default=str)

    return " + ".join(one(a) for a in said)


def instance_stats(template: Template, golden: Path, samples: int = SAMPLES) -> InstanceStats:
    """Sample instance seeds 0..`samples`-1 of `template` on the golden world `golden`."""
    distinct: set[str] = set()
    answers: Counter[str] = Counter()
    impossible = 0
    for seed in range(samples):
        task = template.instance(golden, seed)
        if seed < 100:
            distinct.add(json.dumps(task.params, sort_keys=True, default=str))
        if task.params.get("feasible", True) is False:
            impossible += 1
            continue
        ctx = EpisodeContext(task=task, diff=WorldDiff(), world=golden, golden=golden)
        with expect.collect_answers() as said:
            task.verify(ctx)
        if said:
            answers[_answer_key(said)] += 1
    total = sum(answers.values())
    top, count = answers.most_common(1)[0] if answers else (None, 0)
    declared = getattr(template, "cardinality", None)
    return InstanceStats(
        template=template.id,
        sampled=samples,
        distinct_100=len(distinct),
        answers=total,
        top_answer=top,
        top_share=round(count / total, 4) if total else 0.0,
        impossible=impossible,
        cardinality=declared[0] if declared else None,
        declares_impossible=bool(getattr(template, "impossible_instances", False)),
    )


__all__ = ["MAX_ANSWER_SHARE", "MIN_DISTINCT", "SAMPLES", "InstanceStats", "instance_stats"]
