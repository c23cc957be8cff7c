"""The browser side of one episode: a context bound to a world, its tabs, and action execution.

`BrowserSession.open()` makes a fresh context that sends the world header on every request,
freezes the page clock at the world clock, signs in as the task's user and opens the start
page. The clock uses Playwright's `clock.set_fixed_time` where it exists (1.45+) and an init
script with the same effect on older versions (BrowserGym pins 1.44). `execute(action)` runs
one parsed action with its spec's handler; problems an agent can fix (unknown bid, hidden
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
from .actionspec import ActionFailed
from .sandbox import Sandbox, SandboxViolation

VIEWPORT = {"width": 1280, "height": 720}
SIGN_IN_TIMEOUT_MS = 30_000
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
# Counts the page's own fetches, XHRs and response-body reads still running, each until one
# task after it ends, so the code awaiting it (a grid swapping in its next rows) has run too.
# The network events alone arrive too late to say so: a click's fetch may not be reported yet
# when the click returns, and a finished request still has its body read and used after.
_PENDING_JS = """(() => {
  const key = Symbol.for("officegym.pending");
  if (Object.prototype.hasOwnProperty.call(window, key)) return;
  let pending = 0;
  Object.defineProperty(window, key, { get: () => pending });
  const end = () => { setTimeout(() => { pending -= 1; }, 0); };
  const track = (promise) => { pending += 1; promise.then(end, end); return promise; };
  const fetch0 = window.fetch;
  window.fetch = function (...args) { return track(fetch0.apply(this, args)); };
  for (const name of ["text", "json", "blob", "arrayBuffer", "formData"]) {
    const read = Response.prototype[name];
    Response.prototype[name] = function (...args) { return track(read.apply(this, args)); };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    pending += 1;
    this.addEventListener("loadend", end, { once: true });
    try { return send.apply(this, args); } catch (error) { end(); throw error; }
  };
})();"""
# Resolves once nothing the page started is pending, one task later: the document's state.
_QUIET_JS = """() => new Promise(done => {
  const key = Symbol.for("officegym.pending");
  const check = () => (window[key] || 0) > 0
    ? setTimeout(check, 5)
    : setTimeout(() => done(document.readyState), 0);
  check();
})"""
# Playwright's `clock.set_fixed_time` for versions without it: `Date.now()`, `new Date()` and
# `Date()` read the fixed time, timers keep running. The time lives in its own slot, so a later
# freeze replaces an earlier one.
_FROZEN_CLOCK_JS = """(fixed => {
  window[Symbol.for("officegym.now")] = fixed;
  const key = Symbol.for("officegym.frozen");
  if (Date[key]) return;
  const NativeDate = Date;
  const now = () => window[Symbol.for("officegym.now")];
  function FrozenDate(...args) {
    if (!new.target) return new NativeDate(now()).toString();
    return Reflect.construct(NativeDate, args.length ? args : [now()], new.target);
  }
  FrozenDate.prototype = NativeDate.prototype;
  NativeDate.prototype.constructor = FrozenDate;
  FrozenDate.now = now;
  FrozenDate.parse = NativeDate.parse;
  FrozenDate.UTC = NativeDate.UTC;
  Object.defineProperty(FrozenDate, key, { value: true });
  Object.defineProperty(FrozenDate, "name", { value: "Date" });
  FrozenDate.toString = () => NativeDate.toString();
  window.Date = FrozenDate;
})"""


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
            await context.add_init_script(_PENDING_JS)
            context.on("page", session._adopt)
            await context.new_page()
        except BaseException:
            await session.close()
            raise
        return session

    async def start(self, *, origin: str, world_now: datetime, user: str, start_url: str) -> None:
        """Freeze the page clock at `world_now`, sign in as `user` and open `start_url`."""
        await freeze_clock(self.context, world_now)
        await self._sign_in(origin, user)
        self.visited.clear()
        await self.page.goto(start_url, wait_until="load")
        await self.settle()

    async def _sign_in(self, origin: str, user: str) -> None:
        # Its own timeout: the context's short action timeout is for the agent's actions, and
        # a loaded server may take longer to answer the sign-in.
        wait = SIGN_IN_TIMEOUT_MS
        form = await self.context.request.get(f"{origin}/login", timeout=wait)
        fields = sign_in_fields(origin, user, await form.text(), form.status)
        reply = await self.context.request.post(
            f"{origin}/login", form=fields, max_redirects=0, timeout=wait
        )
        check_signed_in(user, reply.status)

    def _adopt(self, page: Page) -> None:
        """A new tab (ours or opened by the page) becomes the active one, as in a browser."""
        self._traffic[page] = _Traffic(page)
        page.on("framenavigated", lambda frame: self._visit(page, frame))
        page.on("close", lambda _: self._forget(page))
        # The apps open no JS dialogs; one from elsewhere would block the page, so dismiss it.
        page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
        # File choosers stay intercepted from the tab's birth. Subscribing only around an
        # upload races the click: Playwright sends the subscription without waiting, and a
        # chooser that opens first is lost (2 of 20 uploads on a fresh page here).
        page.on("filechooser", _leave_to_the_action)
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

    async def element(self, bid: str, *, enabled: bool = True) -> Locator:
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
        """Run one action on the active tab with its spec's handler (raises ActionFailed with an
        agent-facing message)."""
        try:
            await action.spec.handler(self, **action.kwargs)
        except SandboxViolation as error:
            raise ActionFailed(str(error)) from None
        except PlaywrightTimeout as error:
            raise ActionFailed(f"{action.name}: timed out — {_first_line(error)}") from None
        except PlaywrightError as error:
            raise ActionFailed(f"{action.name}: {_first_line(error)}") from None

    async def history(self, delta: int) -> bool:
        """Go back (-1) or forward (1) in the active tab; False when there was nowhere to go."""
        page = self.page
        move = page.go_back if delta < 0 else page.go_forward
        before = page.url
        return not (await move(wait_until="load") is None and page.url == before)

    async def activate(self, index: int) -> None:
        """Make the tab at `index` the active one and bring it to the front."""
        self.active = index
        await self.page.bring_to_front()

    async def close_tab(self) -> None:
        """Close the active tab; the one before it becomes active (a new blank one if none)."""
        await self.page.close()
        if not self.pages:
            await self.context.new_page()
        await self.activate(min(self.active, len(self.pages) - 1))

    async def close(self) -> None:
        with contextlib.suppress(PlaywrightError):  # already closed with its browser
            await self.context.close()


def sign_in_fields(origin: str, user: str, login_html: str, status: int) -> dict[str, str]:
    """The sign-in form for `user`, with the CSRF token of the `/login` page `login_html`."""
    match = _CSRF.search(login_html)
    if match is None:
        raise LoginFailed(f"no sign-in form at {origin}/login (HTTP {status})")
    return {"email": user, "password": DEMO_PASSWORD, "csrf_token": match.group(1)}


def check_signed_in(user: str, status: int) -> None:
    """Raise LoginFailed unless the sign-in POST answered with its redirect."""
    if status != 302:
        raise LoginFailed(f"cannot sign in as {user!r}: HTTP {status} from /login")


def bind_context_sync(
    context: Any,
    *,
    origin: str,
    world_id: str,
    world_now: datetime,
    user: str,
    sandbox: Sandbox,
    native: bool | None = None,
) -> None:
    """Do to a sync-API context what `prepare` and `start` do to ours, short of opening a page:
    the world header, the sandbox, the frozen clock, and the session of `user`.

    For contexts made by others (BrowserGym's). `native` picks Playwright's clock and
    `route_web_socket` (True) or their init scripts (False); by default whichever exists.
    """
    context.set_extra_http_headers({WORLD_HEADER: world_id})
    sandbox.install_sync(context, native_sockets=native)
    frozen = world_now if world_now.tzinfo else world_now.replace(tzinfo=UTC)
    if native is None:
        native = has_clock(context)
    if native:
        context.clock.set_fixed_time(frozen)
    else:
        script = frozen_clock_script(frozen)
        context.add_init_script(script)
        for page in context.pages:
            page.evaluate(script)
    wait = SIGN_IN_TIMEOUT_MS
    form = context.request.get(f"{origin}/login", timeout=wait)
    fields = sign_in_fields(origin, user, form.text(), form.status)
    reply = context.request.post(f"{origin}/login", form=fields, max_redirects=0, timeout=wait)
    check_signed_in(user, reply.status)


async def freeze_clock(
    context: BrowserContext, world_now: datetime, *, native: bool | None = None
) -> None:
    """Fix `Date` in every page of `context` at `world_now` (naive means UTC), timers running.

    `native` picks Playwright's clock (True) or the init script (False); by default the clock
    when this Playwright has it.
    """
    frozen = world_now if world_now.tzinfo else world_now.replace(tzinfo=UTC)
    if native is None:
        native = has_clock(context)
    if native:
        await context.clock.set_fixed_time(frozen)
        return
    script = frozen_clock_script(frozen)
    await context.add_init_script(script)
    for page in context.pages:
        with contextlib.suppress(PlaywrightError):  # closed or navigating: the init script runs
            await page.evaluate(script)


def has_clock(context: Any) -> bool:
    """Whether this Playwright has `context.clock` (1.45+)."""
    return hasattr(context, "clock")


def frozen_clock_script(world_now: datetime) -> str:
    """The init script that fixes `Date` at `world_now` (aware) in a page."""
    return f"{_FROZEN_CLOCK_JS}({int(world_now.timestamp() * 1000)})"


def _leave_to_the_action(chooser: Any) -> None:
    """A chooser nobody expects is dropped; an upload action waits for its own."""


def _css_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    for marker in ("\nCall log:", "\n=========="):
        text = text.split(marker)[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[:3])[:400] or error.__class__.__name__


__all__ = [
    "ActionFailed",
    "BrowserSession",
    "LoginFailed",
    "SessionOptions",
    "VIEWPORT",
    "bind_context_sync",
    "check_signed_in",
    "freeze_clock",
    "frozen_clock_script",
    "has_clock",
    "sign_in_fields",
]
