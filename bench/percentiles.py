"""The nearest-rank percentile the benchmark scripts report (p50, p95)."""

from __future__ import annotations


def percentile(samples: list[float], q: float) -> float:
    """The sample at rank round(q * (n - 1)) of the sorted samples (q in [0, 1])."""
    if not 0 <= q <= 1:
        raise ValueError(f"percentile q must be in [0, 1], not {q!r} (p95 is 0.95)")
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]
