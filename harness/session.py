"""The browser side of one episode: a context bound to a world, its tabs, and action execution.

`BrowserSession.open()` makes a fresh context that sends the world header on every request,
freezes the page clock at the world clock, signs in as the task's user and opens the start
page. `execute(action)` runs one parsed action; problems an agent can fix (unknown bid, hidden
or disabled element, timeout, a URL outside the suite) come back as `ActionFailed` with a
message to act on. After every action `settle()` waits until the page is quiet: no request in
flight, the document loaded and pending tasks run — bounded by a timeout, never a fixed sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from playwright.async_api import Browser, BrowserContext, Locator, Page, Request
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from officegym.apps.web import WORLD_HEADER
from officegym.seed_data.passwords import DEMO_PASSWORD

from .actions import Action
from .sandbox import Sandbox, SandboxViolation

VIEWPORT = {"width": 1280, "height": 720}
_CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')
# Playwright's rules: visible = a non-empty box and not visibility:hidden; disabled = a
# disabled form control, one inside a disabled fieldset, or aria-disabled.
_ELEMENT_STATE_JS = """bid => {
    const el = document.querySelector(`[bid="${CSS.escape(bid)}"]`);
    if (!el) return "missing";
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (box.width === 0 || box.height === 0 || style.visibility === "hidden") return "hidden";
    if (el.matches(":disabled") || el.closest("[aria-disabled=true]")) return "disabled";
    return "ok";
}"""
_QUIET_JS = "() => new Promise(done => setTimeout(() => done(document.readyState), 0))"


class ActionFailed(Exception):
    """An action could not be carried out; the message is shown to the agent."""


class LoginFailed(RuntimeError):
    """The task's user could not sign in (unknown or deactivated employee)."""


@dataclass(frozen=True)
class SessionOptions:
    viewport: tuple[int, int] = (VIEWPORT["width"], VIEWPORT["height"])
    action_timeout_ms: float = 3000
    navigation_timeout_ms: float = 10000
    settle_timeout_ms: float = 5000
    locale: str = "en-US"
    timezone: str = "UTC"


class _Traffic:
    """Requests in flight on one page; `quiet` is set while there are none."""

    def __init__(self, page: Page) -> None:
        self.inflight: set[Request] = set()
        self.quiet = asyncio.Event()
        self.quiet.set()
        page.on("request", self._start)
        page.on("requestfinished", self._end)
        page.on("requestfailed", self._end)

    def _start(self, request: Request) -> None:
        self.inflight.add(request)
        self.quiet.clear()

    def _end(self, request: Request) -> None:
        self.inflight.discard(request)
        if not self.inflight:
            self.quiet.set()


@dataclass
class BrowserSession:
    """One episode's context and tabs. Use `await BrowserSession.open(...)`."""

    context: BrowserContext
    sandbox: Sandbox
    options: SessionOptions
    pages: list[Page] = field(default_factory=list)
    active: int = 0
    visited: list[str] = field(default_factory=list)
    _traffic: dict[Page, _Traffic] = field(default_factory=dict)

    @classmethod
    async def prepare(
        cls,
        browser: Browser,
        *,
        origin: str,
        world_id: str,
        sandbox: Sandbox,
        options: SessionOptions | None = None,
    ) -> BrowserSession:
        """A context bound to `world_id` with one blank tab, not yet signed in.

        Environments prepare the next episode's context while the current one runs, so a
        reset only signs in and loads the start page.
        """
        options = options or SessionOptions()
        width, height = options.viewport
        context = await browser.new_context(
            base_url=origin,
            extra_http_headers={WORLD_HEADER: world_id},
            viewport={"width": width, "height": height},
            accept_downloads=True,
            locale=options.locale,
            timezone_id=options.timezone,
            service_workers="block",
        )
        session = cls(context, sandbox, options)
        try:
            context.set_default_timeout(options.action_timeout_ms)
            context.set_default_navigation_timeout(options.navigation_timeout_ms)
            await sandbox.install(context)
            context.on("page", session._adopt)
            await context.new_page()
        except BaseException:
            await session.close()
            raise
        return session

    async def start(self, *, origin: str, world_now: datetime, user: str, start_url: str) -> None:
        """Freeze the page clock at `world_now`, sign in as `user` and open `start_url`."""
        frozen = world_now if world_now.tzinfo else world_now.replace(tzinfo=UTC)
        await self.context.clock.set_fixed_time(frozen)
        await self._sign_in(origin, user)
        self.visited.clear()
        await self.page.goto(start_url, wait_until="load")
        await self.settle()

    async def _sign_in(self, origin: str, user: str) -> None:
        form = await self.context.request.get(f"{origin}/login")
        match = _CSRF.search(await form.text())
        if match is None:
            raise LoginFailed(f"no sign-in form at {origin}/login (HTTP {form.status})")
        reply = await self.context.request.post(
            f"{origin}/login",
            form={"email": user, "password": DEMO_PASSWORD, "csrf_token": match.group(1)},
            max_redirects=0,
        )
        if reply.status != 302:
            raise LoginFailed(f"cannot sign in as {user!r}: HTTP {reply.status} from /login")

    def _adopt(self, page: Page) -> None:
        """A new tab (ours or opened by the page) becomes the active one, as in a browser."""
        self._traffic[page] = _Traffic(page)
        page.on("framenavigated", lambda frame: self._visit(page, frame))
        page.on("close", lambda _: self._forget(page))
        # The apps open no JS dialogs; one from elsewhere would block the page, so dismiss it.
        page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
        self.pages.append(page)
        self.active = len(self.pages) - 1

    def _visit(self, page: Page, frame: Any) -> None:
        if frame == page.main_frame:
            self.visited.append(frame.url)

    def _forget(self, page: Page) -> None:
        if page in self.pages:
            index = self.pages.index(page)
            self.pages.remove(page)
            self._traffic.pop(page, None)
            if self.active >= index and self.active > 0:
                self.active -= 1

    @property
    def page(self) -> Page:
        return self.pages[self.active]

    async def settle(self, timeout_ms: float | None = None) -> bool:
        """Wait until the active page is quiet; False if the timeout came first."""
        budget = (timeout_ms if timeout_ms is not None else self.options.settle_timeout_ms) / 1000
        deadline = time.monotonic() + budget
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            page = self.page
            traffic = self._traffic.get(page)
            try:
                if traffic is not None and not traffic.quiet.is_set():
                    await asyncio.wait_for(traffic.quiet.wait(), remaining)
                state = await asyncio.wait_for(page.evaluate(_QUIET_JS), remaining)
                if state != "complete":
                    await page.wait_for_load_state("load", timeout=remaining * 1000)
                    continue
            except (TimeoutError, PlaywrightTimeout):
                return False
            except PlaywrightError:
                # The document was replaced mid-check (a navigation): check the new one.
                if page.is_closed():
                    return True
                continue
            if traffic is None or traffic.quiet.is_set():
                break
        if self.sandbox.saving:
            # A download is being written into the episode folder: let it land first.
            _, pending = await asyncio.wait(
                set(self.sandbox.saving), timeout=max(0.0, deadline - time.monotonic())
            )
            return not pending
        return True

    def locate(self, bid: str) -> Locator:
        return self.page.locator(f"[bid={_css_string(bid)}]")

    async def _element(self, bid: str, *, enabled: bool = True) -> Locator:
        """The element with this bid, after one check that it exists, shows and is enabled."""
        state = await self.page.evaluate(_ELEMENT_STATE_JS, bid)
        if state == "missing":
            raise ActionFailed(
                f"no element with bid {bid!r} on this page; use a bid from the latest axtree_txt"
            )
        if state == "hidden":
            raise ActionFailed(
                f"element {bid!r} is not visible (hidden, collapsed or zero-size); "
                "open the menu or section that shows it first"
            )
        if enabled and state == "disabled":
            raise ActionFailed(f"element {bid!r} is disabled")
        return self.locate(bid).first

    async def execute(self, action: Action) -> None:
        """Run one action on the active tab (raises ActionFailed with an agent-facing message)."""
        try:
            await self._execute(action.name, action.kwargs)
        except SandboxViolation as error:
            raise ActionFailed(str(error)) from None
        except PlaywrightTimeout as error:
            raise ActionFailed(f"{action.name}: timed out — {_first_line(error)}") from None
        except PlaywrightError as error:
            raise ActionFailed(f"{action.name}: {_first_line(error)}") from None

    async def _execute(self, name: str, a: dict[str, Any]) -> None:
        page = self.page
        mouse_button = a.get("button", "left")
        if name in ("click", "dblclick"):
            element = await self._element(a["bid"])
            method = element.click if name == "click" else element.dblclick
            await method(button=mouse_button, modifiers=list(a.get("modifiers", ())))
        elif name == "hover":
            await (await self._element(a["bid"], enabled=False)).hover()
        elif name == "fill":
            await (await self._element(a["bid"])).fill(a["value"])
        elif name == "clear":
            await (await self._element(a["bid"])).clear()
        elif name == "select_option":
            options = a["options"]
            choice = [options] if isinstance(options, str) else list(options)
            await (await self._element(a["bid"])).select_option(choice)
        elif name in ("check", "uncheck"):
            await (await self._element(a["bid"])).set_checked(name == "check")
        elif name == "press":
            await (await self._element(a["bid"], enabled=False)).press(a["key_comb"])
        elif name == "focus":
            await (await self._element(a["bid"], enabled=False)).focus()
        elif name == "scroll":
            await page.mouse.wheel(a["delta_x"], a["delta_y"])
        elif name == "drag_and_drop":
            source = await self._element(a["from_bid"])
            target = await self._element(a["to_bid"], enabled=False)
            await source.drag_to(target)
        elif name == "upload_file":
            files = a["file"]
            paths = self.sandbox.upload_paths([files] if isinstance(files, str) else list(files))
            await (await self._element(a["bid"])).set_input_files(paths)
        elif name == "goto":
            await page.goto(self.sandbox.resolve_url(a["url"], page.url), wait_until="load")
        elif name in ("go_back", "go_forward"):
            move = page.go_back if name == "go_back" else page.go_forward
            before = page.url
            if await move(wait_until="load") is None and page.url == before:
                where = "previous" if name == "go_back" else "next"
                raise ActionFailed(f"{name}: there is no {where} page in this tab's history")
        elif name == "new_tab":
            await self.context.new_page()
        elif name == "tab_focus":
            index = a["index"]
            if not 0 <= index < len(self.pages):
                raise ActionFailed(
                    f"tab_focus: no tab {index}; open tabs are 0..{len(self.pages) - 1}"
                )
            self.active = index
            await self.page.bring_to_front()
        elif name == "tab_close":
            await page.close()
            if not self.pages:
                await self.context.new_page()
            self.active = min(self.active, len(self.pages) - 1)
            await self.page.bring_to_front()
        elif name == "mouse_move":
            await page.mouse.move(a["x"], a["y"])
        elif name in ("mouse_click", "mouse_dblclick"):
            clicks = 1 if name == "mouse_click" else 2
            await page.mouse.click(a["x"], a["y"], button=mouse_button, click_count=clicks)
        elif name in ("mouse_down", "mouse_up"):
            await page.mouse.move(a["x"], a["y"])
            press = page.mouse.down if name == "mouse_down" else page.mouse.up
            await press(button=mouse_button)
        elif name == "keyboard_type":
            await page.keyboard.type(a["text"])
        elif name == "keyboard_press":
            await page.keyboard.press(a["key"])
        elif name == "noop":
            # Wait for the page to be quiet, at most wait_ms (nothing changes without traffic).
            await self.settle(a.get("wait_ms", 1000))
        elif name in ("send_msg_to_user", "report_infeasible"):
            pass  # episode control, handled by the environment
        else:  # pragma: no cover - the parser admits only known names
            raise ActionFailed(f"unsupported action {name!r}")

    async def close(self) -> None:
        with contextlib.suppress(PlaywrightError):  # already closed with its browser
            await self.context.close()


def _css_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    for marker in ("\nCall log:", "\n=========="):
        text = text.split(marker)[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[:3])[:400] or error.__class__.__name__


__all__ = ["ActionFailed", "BrowserSession", "LoginFailed", "SessionOptions", "VIEWPORT"]
