"""One signed-in user's calls to the apps' JSON APIs in one world.

Every call is a real HTTP request through the whole web stack (world binding by the
`X-OfficeGym-World` header, the session cookie, the CSRF header guard on writes, the
service's permission checks, the JSON error envelope), so a tool can do exactly what the API
lets that user do. By default the requests go in process to the WSGI app over the caller's
`WorldStore` (`httpx.WSGITransport`: no port, no server thread, the same app object
`officegym serve` runs); `ApiSession.remote(url, ...)` sends them to a running server instead.

Sign-in is the product's own: the `/login` form with its CSRF token, as the harness does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from officegym.apps import registry as app_registry
from officegym.apps.web.jsonapi import CSRF_HEADER, CSRF_HEADER_VALUE
from officegym.apps.web.world import WORLD_HEADER
from officegym.harness.session import LoginFailed, check_signed_in, sign_in_fields
from officegym.seed_data.ids import validate_world_id
from officegym.seed_data.store import WorldNotFound, WorldStore

from .operations import READ_METHODS

# The in-process app answers any host; this one keeps the session cookie host-bound.
IN_PROCESS_ORIGIN = "http://officegym.internal"
TIMEOUT_S = 60.0

_apps: dict[tuple[WorldStore, tuple[str, ...] | None], Any] = {}
_apps_lock = threading.Lock()


class ApiSessionError(RuntimeError):
    """The session cannot start (no such world, a bad server URL)."""


@dataclass(frozen=True)
class ApiReply:
    """An API answer: its status, content type and body bytes."""

    status: int
    content_type: str
    content: bytes

    @property
    def ok(self) -> bool:
        return self.status < 400

    @property
    def is_json(self) -> bool:
        return self.content_type.split(";")[0].strip() == "application/json"

    def json(self) -> Any:
        return json.loads(self.content)

    def error_message(self) -> str:
        """The API's own words for a refusal: `HTTP 403 Forbidden: <message>` plus the
        per-field messages when it gives them."""
        if self.is_json:
            try:
                error = self.json().get("error", {})
            except (ValueError, AttributeError):
                error = {}
            if isinstance(error, dict) and error.get("message"):
                text = f"HTTP {self.status} {error.get('title', '')}".rstrip()
                text += f": {error['message']}"
                fields = error.get("fields")
                if isinstance(fields, dict) and fields:
                    text += " " + "; ".join(f"{k}: {v}" for k, v in sorted(fields.items()))
                return text
        snippet = self.content[:300].decode("utf-8", "replace").strip()
        return f"HTTP {self.status}" + (f": {snippet}" if snippet else "")


def wsgi_app(store: WorldStore, apps: Sequence[str] | None = None) -> Any:
    """The WSGI application over `store` mounting `apps` (default: every app); one per store
    and app set for the process's life, as the harness keeps one server per runtime (its
    world engines follow the store's drops). Mounting only the apps a server publishes spares
    it the others' start-up (the sheets engine alone takes seconds to import)."""
    key = (store, tuple(sorted(apps)) if apps is not None else None)
    with _apps_lock:
        app = _apps.get(key)
        if app is None:
            from officegym.apps.web.factory import create_app

            config: dict[str, Any] = {"WORLD_STORE": store}
            if apps is not None:
                config["APPS"] = [app_registry.entry(slug) for slug in key[1]]
            app = create_app(config)
            _apps[key] = app
        return app


class ApiSession:
    """`user` signed in to world `world_id`; `request` sends one API call as them.

    Thread-safe: calls may come from several worker threads (an MCP server handles
    concurrent tool calls); the cookie jar is shared.
    """

    def __init__(self, client: httpx.Client, world_id: str, user: str) -> None:
        self.client = client
        self.world_id = validate_world_id(world_id)
        self.user = user
        self.client.headers[WORLD_HEADER] = self.world_id
        self.calls: list[str] = []
        self._lock = threading.Lock()

    @classmethod
    def in_process(
        cls, store: WorldStore, world_id: str, user: str, apps: Sequence[str] | None = None
    ) -> ApiSession:
        """A session against the WSGI app over `store` (mounting `apps`), signed in."""
        if not store.exists(world_id):
            raise WorldNotFound(f"no world {world_id!r} in {store.worlds_dir}")
        transport = httpx.WSGITransport(app=wsgi_app(store, apps))
        client = httpx.Client(transport=transport, base_url=IN_PROCESS_ORIGIN, timeout=TIMEOUT_S)
        return cls._signed_in(client, world_id, user)

    @classmethod
    def remote(cls, url: str, world_id: str, user: str) -> ApiSession:
        """A session against a running `officegym serve` at `url`, signed in."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ApiSessionError(f"the server must be an http(s) URL, got {url!r}")
        client = httpx.Client(base_url=f"{parts.scheme}://{parts.netloc}", timeout=TIMEOUT_S)
        return cls._signed_in(client, world_id, user)

    @classmethod
    def _signed_in(cls, client: httpx.Client, world_id: str, user: str) -> ApiSession:
        session = cls(client, world_id, user)
        try:
            session.sign_in()
        except BaseException:
            client.close()
            raise
        return session

    @property
    def origin(self) -> str:
        return str(self.client.base_url).rstrip("/")

    def sign_in(self) -> None:
        """Sign in through the `/login` form; LoginFailed names the user when it refuses."""
        form = self.client.get("/login")
        if form.status_code == 404:
            raise ApiSessionError(f"the server knows no world {self.world_id!r}")
        fields = sign_in_fields(self.origin, self.user, form.text, form.status_code)
        reply = self.client.post("/login", data=fields, follow_redirects=False)
        check_signed_in(self.user, reply.status_code)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        files: Mapping[str, tuple[str, bytes]] | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> ApiReply:
        """Send one call (`path` from the site root) as the signed-in user."""
        headers = {"Accept": "application/json"}
        if method.upper() not in READ_METHODS:
            headers[CSRF_HEADER] = CSRF_HEADER_VALUE
        kwargs: dict[str, Any] = {"params": dict(params or {}), "headers": headers}
        if files is not None:
            kwargs["files"] = dict(files)
            kwargs["data"] = dict(data or {})
        elif json_body is not None:
            kwargs["json"] = json_body
        with self._lock:
            self.calls.append(f"{self.origin}{path}")
        reply = self.client.request(method.upper(), path, follow_redirects=False, **kwargs)
        if reply.status_code == 401:
            # The world forgot the session (dropped and made again, or signed out elsewhere);
            # a 401 comes before any view runs, so the call is sent again once signed in.
            self.sign_in()
            reply = self.client.request(method.upper(), path, follow_redirects=False, **kwargs)
        return ApiReply(reply.status_code, reply.headers.get("content-type", ""), reply.content)

    def document(self, app: str) -> dict[str, Any]:
        """The OpenAPI document `app` serves (`/<app>/api/openapi.json`)."""
        reply = self.request("GET", f"/{app}/api/openapi.json")
        if not reply.ok or not reply.is_json:
            raise ApiSessionError(f"no OpenAPI document for {app!r}: {reply.error_message()}")
        return reply.json()

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> ApiSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


__all__ = [
    "IN_PROCESS_ORIGIN",
    "ApiReply",
    "ApiSession",
    "ApiSessionError",
    "LoginFailed",
    "wsgi_app",
]
