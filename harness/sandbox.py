"""The episode's sandbox: the browser reaches only the suite, and files stay in the episode folder.

Requests to any other origin are aborted (and counted); the agent's `goto` accepts only pages
of the suite (and `about:blank`); downloads are saved into the episode folder; uploads are
taken only from it.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

from playwright.async_api import (
    BrowserContext,
    Download,
    Page,
    Route,
    WebSocketRoute,
)

MAX_BLOCKED_KEPT = 50
# The page's CSP stops some requests before any route sees them; the page reports them here.
_REFUSAL_BINDING = "__officegymRefused"
_REFUSAL_SCRIPT = (
    "document.addEventListener('securitypolicyviolation', e => {"
    f" if (/^(https?|wss?):/.test(e.blockedURI)) window.{_REFUSAL_BINDING}(e.blockedURI); }});"
)


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

    async def install(self, context: BrowserContext) -> None:
        """Abort foreign requests and web sockets, keep downloads in the episode folder."""
        await context.route(self.foreign, self._abort)
        await context.route_web_socket(self.foreign, self._close_socket)
        context.on("page", self._watch_page)
        await context.expose_binding(_REFUSAL_BINDING, self._note_refusal)
        await context.add_init_script(_REFUSAL_SCRIPT)

    async def _abort(self, route: Route) -> None:
        self.block(route.request.url)
        await route.abort("blockedbyclient")

    async def _close_socket(self, socket: WebSocketRoute) -> None:
        self.block(socket.url)
        await socket.close(code=1008, reason="blocked by the officegym sandbox")

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


def _safe_name(name: str) -> str:
    base = PurePosixPath(name.replace("\\", "/")).name.strip().lstrip(".")
    cleaned = "".join(ch for ch in base if ch.isprintable() and ch not in '<>:"|?*')
    return cleaned[:120] or "download"


__all__ = ["Sandbox", "SandboxViolation"]
