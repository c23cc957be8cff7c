"""The episode's sandbox: the browser reaches only the suite, and files stay in the episode folder.

Requests to any other origin are aborted (and counted); the agent's `goto` accepts only pages
of the suite (and `about:blank`); downloads are saved into the episode folder; uploads are
taken only from it. Web sockets are closed by `context.route_web_socket` where Playwright has
it (1.48+); older versions (BrowserGym pins 1.44) get an init script that refuses them in every
page and frame instead — it does not reach into workers, where the apps' CSP still applies.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urljoin, urlsplit

from playwright.async_api import BrowserContext, Download, Page, Route

MAX_BLOCKED_KEPT = 50
# The page's CSP stops some requests before any route sees them; the page reports them here.
_REFUSAL_BINDING = "__officegymRefused"
_REFUSAL_SCRIPT = (
    "document.addEventListener('securitypolicyviolation', e => {"
    f" if (/^(https?|wss?):/.test(e.blockedURI)) window.{_REFUSAL_BINDING}(e.blockedURI); }});"
)
# `route_web_socket` for versions without it: a socket to a URL off the origin (the same test as
# `Sandbox.foreign`) never connects; the page gets a closed socket, an error and a close event
# with code 1008, and the refusal is counted through the binding.
_WEB_SOCKET_SCRIPT = """(origin => {
  const key = Symbol.for("officegym.sockets");
  if (window[key] || typeof window.WebSocket !== "function") return;
  const Native = window.WebSocket;
  const local = url => url.startsWith(origin)
    && (url.length === origin.length || "/?#".includes(url[origin.length]));
  const refuse = url => {
    const socket = new EventTarget();
    for (const name of ["onopen", "onmessage", "onerror", "onclose"]) socket[name] = null;
    Object.assign(socket, {
      url, readyState: Native.CLOSED, protocol: "", extensions: "", bufferedAmount: 0,
      binaryType: "blob", close() {},
      send() { throw new DOMException("the socket is closed", "InvalidStateError"); },
    });
    setTimeout(() => {
      const error = new Event("error");
      socket.dispatchEvent(error);
      if (socket.onerror) socket.onerror(error);
      const close = new CloseEvent("close", {
        code: 1008, reason: "blocked by the officegym sandbox", wasClean: false,
      });
      socket.dispatchEvent(close);
      if (socket.onclose) socket.onclose(close);
    }, 0);
    return socket;
  };
  function WebSocket(url, protocols) {
    if (!new.target) throw new TypeError("Failed to construct 'WebSocket': use 'new'.");
    // The URL the browser would open (http becomes ws), tested as route_web_socket tests it.
    const target = new URL(String(url), location.href);
    target.protocol = target.protocol.replace(/^http/, "ws");
    const href = target.href;
    const args = [url, protocols].slice(0, arguments.length);
    if (local(href)) return Reflect.construct(Native, args, new.target);
    try { window.__BINDING__(href); } catch (error) { }
    return refuse(href);
  }
  WebSocket.prototype = Native.prototype;
  for (const name of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) WebSocket[name] = Native[name];
  Object.defineProperty(window, key, { value: true });
  window.WebSocket = WebSocket;
})""".replace("__BINDING__", _REFUSAL_BINDING)


class SandboxViolation(ValueError):
    """The agent asked for something outside the sandbox (another site, a local file...)."""


@dataclass
class Sandbox:
    """The allowed origin and what was refused, for one episode."""

    origin: str
    folder: Path
    blocked: int = 0
    blocked_urls: list[str] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    saving: set[asyncio.Task] = field(default_factory=set)

    def __post_init__(self) -> None:
        parts = urlsplit(self.origin)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.folder = Path(self.folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)

    @property
    def foreign(self) -> re.Pattern[str]:
        """Every URL that is not on the origin (matched by Playwright, not per request here)."""
        return re.compile(r"^(?!" + re.escape(self.origin) + r"(?:[/?#]|$))")

    def rebind(self, folder: Path) -> None:
        """Start a new episode in `folder`: counters and downloads start from zero."""
        self.folder = Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.blocked = 0
        self.blocked_urls = []
        self.downloads = []

    def block(self, url: str) -> None:
        self.blocked += 1
        if len(self.blocked_urls) < MAX_BLOCKED_KEPT:
            self.blocked_urls.append(url[:500])

    def resolve_url(self, url: str, current: str) -> str:
        """The absolute URL `goto(url)` may open, or SandboxViolation saying why not."""
        text = url.strip()
        if text == "about:blank":
            return text
        scheme = urlsplit(text).scheme.lower()
        if scheme and scheme not in ("http", "https"):
            self.block(text)
            raise SandboxViolation(
                f"goto: {scheme}: URLs are not allowed; open pages of this suite "
                f"({self.origin}/...) or a path such as '/chat/'"
            )
        base = current if current.startswith(self.origin) else self.origin + "/"
        target = urljoin(base, text)
        parts = urlsplit(target)
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            self.block(target)
            raise SandboxViolation(
                f"goto: {target} is outside this suite; only {self.origin}/... can be opened"
            )
        return target

    def upload_paths(self, files: list[str]) -> list[str]:
        """Absolute paths of `files`, each of which must lie inside the episode folder."""
        paths = []
        for name in files:
            path = Path(name)
            candidate = (path if path.is_absolute() else self.folder / path).resolve()
            if not candidate.is_relative_to(self.folder):
                raise SandboxViolation(
                    f"upload_file: {name!r} is outside the episode folder; "
                    f"upload files from {self.folder}"
                )
            if not candidate.is_file():
                available = sorted(p.name for p in self.folder.iterdir() if p.is_file())
                raise SandboxViolation(
                    f"upload_file: no file {name!r} in the episode folder; "
                    f"available: {', '.join(available) or 'none'}"
                )
            paths.append(str(candidate))
        return paths

    async def install(self, context: BrowserContext, *, native_sockets: bool | None = None) -> None:
        """Abort foreign requests and web sockets, keep downloads in the episode folder.

        `native_sockets` picks `route_web_socket` (True) or the init script (False); by default
        `route_web_socket` when this Playwright has it.
        """
        await context.route(self.foreign, self._abort)
        if native_sockets is None:
            native_sockets = routes_web_sockets(context)
        if native_sockets:
            await context.route_web_socket(self.foreign, self._close_socket)
        context.on("page", self._watch_page)
        await context.expose_binding(_REFUSAL_BINDING, self._note_refusal)
        await context.add_init_script(_REFUSAL_SCRIPT)
        if not native_sockets:
            await context.add_init_script(self.web_socket_script())

    def install_sync(self, context: Any, *, native_sockets: bool | None = None) -> None:
        """`install` for a sync-API context made by others (BrowserGym's): foreign requests
        and web sockets are refused and counted; downloads are left to that context's owner."""
        context.route(self.foreign, self._abort_sync)
        if native_sockets is None:
            native_sockets = routes_web_sockets(context)
        if native_sockets:
            context.route_web_socket(self.foreign, self._close_socket_sync)
        context.expose_binding(_REFUSAL_BINDING, self._note_refusal)
        context.add_init_script(_REFUSAL_SCRIPT)
        if not native_sockets:
            context.add_init_script(self.web_socket_script())

    def web_socket_script(self) -> str:
        """The init script that refuses web sockets off the origin (without route_web_socket)."""
        return f"{_WEB_SOCKET_SCRIPT}({json.dumps(self.origin)})"

    async def _abort(self, route: Route) -> None:
        self.block(route.request.url)
        await route.abort("blockedbyclient")

    async def _close_socket(self, socket: Any) -> None:
        self.block(socket.url)
        await socket.close(code=1008, reason="blocked by the officegym sandbox")

    def _abort_sync(self, route: Any) -> None:
        self.block(route.request.url)
        route.abort("blockedbyclient")

    def _close_socket_sync(self, socket: Any) -> None:
        self.block(socket.url)
        socket.close(code=1008, reason="blocked by the officegym sandbox")

    def _watch_page(self, page: Page) -> None:
        page.on("download", self._start_download)

    def _note_refusal(self, _source: object, url: object) -> None:
        """Count requests the page's CSP refused to other origins (they never reach a route)."""
        if isinstance(url, str) and self.foreign.search(url):
            self.block(url)

    def _start_download(self, download: Download) -> None:
        task = asyncio.ensure_future(self._save_download(download))
        self.saving.add(task)
        task.add_done_callback(self.saving.discard)

    async def _save_download(self, download: Download) -> None:
        name = _safe_name(download.suggested_filename)
        target = self.folder / name
        stem, suffix, n = target.stem, target.suffix, 1
        while target.exists():
            n += 1
            target = self.folder / f"{stem} ({n}){suffix}"
        await download.save_as(target)
        self.downloads.append(target.name)


def routes_web_sockets(context: Any) -> bool:
    """Whether this Playwright has `context.route_web_socket` (1.48+)."""
    return hasattr(context, "route_web_socket")


def _safe_name(name: str) -> str:
    base = PurePosixPath(name.replace("\\", "/")).name.strip().lstrip(".")
    cleaned = "".join(ch for ch in base if ch.isprintable() and ch not in '<>:"|?*')
    return cleaned[:120] or "download"


__all__ = ["Sandbox", "SandboxViolation", "routes_web_sockets"]
