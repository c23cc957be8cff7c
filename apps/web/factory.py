"""The application factory: one Flask app serving every world, the login, the launcher and apps."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, g
from flask_wtf.csrf import CSRFProtect

from officegym.seed_data.ids import DEFAULT_WORLD
from officegym.seed_data.store import WorldStore

from . import auth, branding, errors, inputs, launcher, world

# Everything the pages load comes from this server: no CDN, no inline script, no <style>.
# Style attributes are allowed: the pages set a sheet's column widths, cell fills and frozen
# rows with them, always from values the server checked (numbers, #RRGGBB).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "style-src-attr 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; object-src 'none'"
)

# Without OFFICEGYM_SECRET, sessions are signed with a key that lives as long as the process.
_PROCESS_SECRET = secrets.token_hex(32)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. Config keys (all optional):

    WORLD_STORE         the WorldStore whose worlds are served (default: WorldStore())
    DEFAULT_WORLD       world id for requests without the X-OfficeGym-World header
    SECRET_KEY          signs session cookies (default: $OFFICEGYM_SECRET, else random per process)
    WORLD_ENGINE_CACHE  how many worlds keep an open engine (LRU, default 32)
    APPS                the AppEntry list to mount (default: every registered built-in app)
    """
    app = Flask(__name__)
    app.config.from_mapping(
        SECRET_KEY=os.environ.get("OFFICEGYM_SECRET") or _PROCESS_SECRET,
        DEFAULT_WORLD=DEFAULT_WORLD,
        WORLD_ENGINE_CACHE=32,
        SESSION_COOKIE_NAME="officegym_session",
        SESSION_COOKIE_SAMESITE="Lax",
        # Tokens last as long as the session; validity never depends on the wall clock.
        WTF_CSRF_TIME_LIMIT=None,
        MAX_CONTENT_LENGTH=16 * 1024 * 1024,
    )
    app.config.from_mapping(config or {})
    store = app.config.get("WORLD_STORE") or WorldStore()
    app.config["WORLD_STORE"] = store
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True

    # The world is bound before CSRF is checked: a bad world header is a 404 whatever else.
    world.init_app(
        app, store, app.config["DEFAULT_WORLD"], max_engines=app.config["WORLD_ENGINE_CACHE"]
    )
    # Hostile input is refused before the CSRF check reads the form, and `int` in URL rules
    # is bounded before any blueprint adds a rule.
    inputs.init_app(app)
    CSRFProtect(app)
    errors.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(launcher.bp)
    launcher.install_apps(app, app.config.get("APPS"))

    app.add_template_filter(branding.initials, "initials")
    app.add_template_filter(branding.mark_color, "mark_color")
    app.context_processor(_layout_context)
    app.after_request(_security_headers)
    return app


def _layout_context() -> dict[str, Any]:
    """What base.html needs on every page: the company, the user and the app switcher."""
    if g.get("plain_layout"):
        return {"user": None, "company": None, "apps": ()}
    return {
        "user": auth.current_user(),
        "company": branding.current_company(),
        "apps": launcher.installed_apps(),
    }


def _security_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.mimetype == "text/html":
        response.headers.setdefault("Cache-Control", "no-store")
        response.vary.add(world.WORLD_HEADER)
        response.vary.add("Cookie")
    return response
