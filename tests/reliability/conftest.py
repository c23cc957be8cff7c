"""The reliability suite: the real server under concurrency, faults and hostile input.

`make test` runs every probe at a bounded depth; `make check` sets OFFICEGYM_RELIABILITY=full
for the deeper run (more requests, payloads, kills and fuzz examples). Each module states its
counts at both depths, and the tests assert on behaviour only (no wall-clock limits).
"""

from __future__ import annotations

import os

import pytest

FULL = os.environ.get("OFFICEGYM_RELIABILITY", "").lower() == "full"


def depth(quick: int, full: int) -> int:
    """How many of something a probe does: `quick` under `make test`, `full` under `make check`."""
    return full if FULL else quick


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.reliability)
