"""Bearer-token access for the serving commands (`serve-env`, `mcp --transport http`).

A server with a token admits only requests carrying `Authorization: Bearer <token>`; a server
without one binds only to loopback, since anyone who reaches its port could otherwise drive its
browser or act as its user. Standard library only, so every server shares one rule.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

LOOPBACK_NAMES = ("localhost",)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class PublicWithoutToken(ValueError):
    """A server was asked to listen beyond loopback without a token."""


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def require_token_off_loopback(host: str, token: str | None) -> None:
    """Refuse a non-loopback `host` for a server without a token."""
    if token is None and not is_loopback(host):
        raise PublicWithoutToken(
            f"serving on {host} needs a token (--token or $OFFICEGYM_TOKEN): without one only "
            "loopback addresses are allowed"
        )


def authorized(header: str | None, token: str | None) -> bool:
    """Whether an `Authorization` header carries the server's bearer token (any, without one)."""
    if token is None:
        return True
    scheme, _, value = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        value.strip().encode(), token.encode()
    )


class BearerAuth:
    """ASGI middleware: HTTP requests without the token get 401 (JSON, with
    `WWW-Authenticate: Bearer`), WebSockets are closed with code 1008; lifespan passes."""

    def __init__(self, app: App, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or authorized(
            _header(scope, b"authorization"), self.token
        ):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send(
                {"type": "websocket.close", "code": 1008, "reason": "missing or wrong token"}
            )
            return
        body = json.dumps(
            {"error": "missing or wrong bearer token: send 'Authorization: Bearer <token>'"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b"Bearer"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


__all__ = [
    "BearerAuth",
    "PublicWithoutToken",
    "authorized",
    "is_loopback",
    "require_token_off_loopback",
]
