"""Shared fixtures: a world store in a per-session temporary home with a tiny golden world."""

from __future__ import annotations

import itertools
import os
import re
import sqlite3
from pathlib import Path

import pytest

from officegym.apps.web import WORLD_HEADER
from officegym.harness.runtime import CHROMIUM, CHROMIUM_ARGS
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore
from tests.xdist_groups import pytest_collection_modifyitems  # noqa: F401  (a hook)

_ids = itertools.count()


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> WorldStore:
    """A store in a home of this test process whose golden worlds are shared by every
    xdist worker of the run: each golden is built once per run, not once per worker (the
    store's file lock makes the first builder's peers wait for it)."""
    home = tmp_path_factory.mktemp("officegym-home")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "officegym-golden"
        shared.mkdir(exist_ok=True)
        (home / "golden").symlink_to(shared, target_is_directory=True)
    store = WorldStore(home)
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
            executable_path=str(CHROMIUM), headless=True, args=list(CHROMIUM_ARGS)
        )
        yield chromium
        chromium.close()


CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_token(client, path: str = "/login", headers: dict | None = None) -> str:
    """The CSRF token of the form on `path` (Flask test client)."""
    page = client.get(path, headers=headers or {})
    match = CSRF_FIELD.search(page.get_data(as_text=True))
    assert match, f"no csrf_token field on {path}"
    return match.group(1)


def login(
    client,
    email: str,
    password: str = DEMO_PASSWORD,
    *,
    world: str | None = None,
    next: str | None = None,
):
    """Post the real login form (in `world`, if given) and return the response."""
    headers = {WORLD_HEADER: world} if world else {}
    data = {"email": email, "password": password, "csrf_token": csrf_token(client, headers=headers)}
    if next is not None:
        data["next"] = next
    return client.post("/login", data=data, headers=headers)
