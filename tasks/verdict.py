"""The grade of one episode: every check with its weight and detail, a strict success and a score.

A `Check` is one claim about the final state, the answer or the process. `success` is strict:
every required check passed. `score` is the weighted share of passed checks in [0, 1], for
partial credit; a verdict whose required checks fail never scores 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["state", "answer", "process"]


@dataclass(frozen=True)
class Check:
    """One graded claim: `detail` says what was expected and what was found."""

    name: str
    passed: bool
    weight: float = 1.0
    detail: str = ""
    kind: Kind = "state"
    required: bool = True

    def __post_init__(self) -> None:
        if not self.weight >= 0:
            raise ValueError(f"check {self.name!r}: weight must be >= 0, got {self.weight!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "weight": self.weight,
            "detail": self.detail,
            "kind": self.kind,
            "required": self.required,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Check:
        return cls(
            name=str(data["name"]),
            passed=bool(data["passed"]),
            weight=float(data.get("weight", 1.0)),
            detail=str(data.get("detail", "")),
            kind=data.get("kind", "state"),
            required=bool(data.get("required", True)),
        )


@dataclass(frozen=True)
class Verdict:
    """Every check of one grading; `success` and `score` are derived from them."""

    checks: tuple[Check, ...] = field(default_factory=tuple)

    def __init__(self, checks: Iterable[Check] = ()) -> None:
        object.__setattr__(self, "checks", tuple(checks))

    @property
    def success(self) -> bool:
        """True when there is at least one check and every required check passed."""
        required = [c for c in self.checks if c.required]
        return bool(required) and all(c.passed for c in required)

    @property
    def score(self) -> float:
        """Weighted share of passed checks in [0, 1]; below 1 whenever success is False."""
        total = sum(c.weight for c in self.checks)
        if total <= 0:
            return 1.0 if self.success else 0.0
        share = sum(c.weight for c in self.checks if c.passed) / total
        if not self.success:
            share = min(share, 0.99)
        return round(share, 6)

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.passed)

    def with_checks(self, *checks: Check) -> Verdict:
        """This verdict plus more checks (the harness adds process checks this way)."""
        return Verdict((*self.checks, *checks))

    def to_json(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "score": self.score,
            "checks": [c.to_json() for c in self.checks],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        return cls(Check.from_json(c) for c in data.get("checks", ()))

    def __str__(self) -> str:
        head = f"{'success' if self.success else 'failure'} · score {self.score:.3f}"
        lines = [head]
        for c in self.checks:
            mark = "✓" if c.passed else "✗"
            optional = "" if c.required else " (optional)"
            lines.append(f"  {mark} [{c.kind}] {c.name} (w={c.weight:g}){optional}: {c.detail}")
        return "\n".join(lines)


__all__ = ["Check", "Kind", "Verdict"]
