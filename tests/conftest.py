"""Shared fixtures: a world store in a per-session temporary home with a tiny golden world."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from officegym.seed_data.store import WorldStore

_ids = itertools.count()

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> WorldStore:
    """A store whose tiny seed-0 and seed-1 goldens are built once per test process."""
    store = WorldStore(tmp_path_factory.mktemp("officegym-home"))
    store.golden(0, "tiny")
    yield store
    store.close()


@pytest.fixture
def world(store: WorldStore) -> str:
    """A fresh live world (tiny, seed 0) with a unique id, dropped afterwards."""
    world_id = new_world_id()
    store.create(world_id, 0, "tiny")
    yield world_id
    store.drop(world_id)


def new_world_id(prefix: str = "w") -> str:
    return f"{prefix}{next(_ids)}"


def dump(path: Path | str) -> dict[str, list[tuple]]:
    """Every world table's rows in rowid order, read directly (independent of the change log)."""
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        names = [
            n
            for (n,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"
            )
            if not n.startswith(("sqlite_", "_"))
        ]
        return {
            n: conn.execute(f'SELECT rowid, * FROM "{n}" ORDER BY rowid').fetchall() for n in names
        }
    finally:
        conn.close()


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium per test process, shared by every browser suite."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()
