"""Fixtures for the harness tests: async Playwright on a `LoopThread`, the app on a real server,
and signed-in pages.

The harness is async; tests are sync and drive it through `loop.run(coro)`. `loop` and
`live_server` live for the whole test process; `signed_in_page(world_id)` opens a fresh
browser context (bound to the world by the world header) per call and closes it after the test.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest
from playwright.async_api import Browser, Page, Playwright, async_playwright

from officegym.apps.web import WORLD_HEADER, BackgroundServer, start_background_server
from officegym.harness.loop import LoopThread
from officegym.harness.runtime import CHROMIUM, CHROMIUM_ARGS
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore

T = TypeVar("T")

VIEWPORT = {"width": 1280, "height": 800}
TIMEOUT_MS = 10_000
_CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass(frozen=True)
class BrowserLoop:
    """An event loop thread with async Playwright and one launched Chromium on it."""

    thread: LoopThread
    playwright: Playwright
    browser: Browser

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run `coro` on the loop and return its result."""
        return self.thread.run(coro, timeout)


@pytest.fixture(scope="session")
def loop() -> Iterator[BrowserLoop]:
    """Async Playwright and headless Debian Chromium on a `LoopThread`, for the whole session."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    thread = LoopThread("officegym-test-browser")

    async def start() -> tuple[Playwright, Browser]:
        playwright = await async_playwright().start()
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=list(CHROMIUM_ARGS)
        )
        return playwright, browser

    playwright, browser = thread.run(start(), 60)
    yield BrowserLoop(thread, playwright, browser)
    thread.run(browser.close(), 30)
    thread.run(playwright.stop(), 30)
    thread.stop()


@pytest.fixture(scope="session")
def live_server(store: WorldStore) -> Iterator[BackgroundServer]:
    """The whole app on a real waitress server on a free port, serving every world of `store`."""
    server = start_background_server(store, config={"SECRET_KEY": "harness-tests"})
    yield server
    server.stop()


def first_active_email(store: WorldStore, world_id: str) -> str:
    """The email of the active employee with the lowest id in the world."""
    conn = sqlite3.connect(f"file:{store.world_path(world_id).resolve()}?mode=ro", uri=True)
    try:
        (email,) = conn.execute(
            "SELECT email FROM people_employee WHERE is_active ORDER BY id LIMIT 1"
        ).fetchone()
        return email
    finally:
        conn.close()


async def open_signed_in_page(
    browser: Browser, origin: str, world_id: str, email: str, path: str = "/"
) -> Page:
    """A page of a new context in `world_id`, signed in as `email`, showing `path`."""
    context = await browser.new_context(
        extra_http_headers={WORLD_HEADER: world_id}, viewport=VIEWPORT
    )
    context.set_default_timeout(TIMEOUT_MS)
    form = await context.request.get(f"{origin}/login")
    match = _CSRF_FIELD.search(await form.text())
    assert match, "no csrf_token field on /login"
    response = await context.request.post(
        f"{origin}/login",
        form={"email": email, "password": DEMO_PASSWORD, "csrf_token": match.group(1)},
        max_redirects=0,
    )
    assert response.status == 302, f"login as {email} failed: HTTP {response.status}"
    page = await context.new_page()
    await page.goto(origin + path)
    return page


@pytest.fixture
def signed_in_page(
    loop: BrowserLoop, live_server: BackgroundServer, store: WorldStore
) -> Iterator[Callable[..., Page]]:
    """`signed_in_page(world_id, path="/", email=None) -> Page` (async API, on `loop`).

    Signs in as `email` (default: the world's first active employee) in a new browser context;
    the contexts are closed after the test.
    """
    pages: list[Page] = []

    def open_page(world_id: str, path: str = "/", email: str | None = None) -> Page:
        who = email or first_active_email(store, world_id)
        page = loop.run(open_signed_in_page(loop.browser, live_server.url, world_id, who, path))
        pages.append(page)
        return page

    yield open_page
    for page in pages:
        loop.run(page.context.close())
