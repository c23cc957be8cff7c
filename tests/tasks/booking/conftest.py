"""Fixtures for the Booking templates' tests: the small seed-0 golden world (the tiny one lacks
the stays, trips and requests the templates draw on) and each module's instances.

A test module names its templates in `IDS` and its instance seeds in `SEEDS`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from officegym.tasks import registry


@pytest.fixture(scope="module")
def golden(store) -> Path:
    return store.golden(0, "small")


@pytest.fixture(scope="module")
def world(golden):
    conn = sqlite3.connect(f"file:{golden}?mode=ro", uri=True)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def instances(request, golden):
    ids, seeds = request.module.IDS, request.module.SEEDS
    return {tid: [registry.get(tid).instance(golden, s) for s in seeds] for tid in ids}
