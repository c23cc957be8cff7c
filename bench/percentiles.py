"""The nearest-rank percentile the benchmark scripts report (p50, p95)."""

from __future__ import annotations


def percentile(samples: list[float], q: float) -> float:
    """The sample at rank round(q * (n - 1)) of the sorted samples (q in [0, 1])."""
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]
