"""The benchmarks' nearest-rank percentile, and its guard against a percent passed as q."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from percentiles import percentile  # noqa: E402


def test_nearest_rank_of_the_sorted_samples():
    samples = [float(n) for n in range(100, 0, -1)]
    assert percentile(samples, 0.5) == 51.0
    assert percentile(samples, 0.95) == 95.0
    assert percentile(samples, 0) == 1.0 and percentile(samples, 1) == 100.0


@pytest.mark.parametrize("q", [95, -0.1, 1.5])
def test_a_q_outside_zero_to_one_is_refused(q):
    with pytest.raises(ValueError, match="p95 is 0.95"):
        percentile([1.0, 2.0], q)
