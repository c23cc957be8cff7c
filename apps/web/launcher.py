"""The app registry and the launcher page at `/`.

Each app (chat, crm, sheets, booking) is a blueprint that registers itself on import:

    register_app(AppEntry("crm", "CRM", "Accounts, contacts and deals", ICON, "crm.index", bp))

`install_apps(app)` imports the built-in app modules, mounts each blueprint under `/<slug>`
and makes the entries available to the launcher grid and the app switcher.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import Blueprint, Flask, current_app, render_template
from markupsafe import Markup

from officegym.seed_data.clock import now
from officegym.seed_data.schema import Employee, Office, Team

from .auth import current_user, login_required
from .branding import current_company
from .world import get_db

# Modules that call register_app() when imported; apps add themselves here as they land.
BUILTIN_APP_MODULES: tuple[str, ...] = ("officegym.apps.chat", "officegym.apps.crm")

_SLUG = re.compile(r"[a-z][a-z0-9-]{0,31}")
_EXTENSION = "officegym.apps"

bp = Blueprint("launcher", __name__)


@dataclass(frozen=True)
class AppEntry:
    """One app in the launcher: its URL prefix (`slug`), what people see, and where it starts.

    `icon_svg` is trusted inline SVG markup from our own code; `endpoint` is the Flask endpoint
    of the app's home page (e.g. "crm.index"); `blueprint`, if given, is mounted at `/<slug>`.
    """

    slug: str
    name: str
    description: str
    icon_svg: str
    endpoint: str
    blueprint: Blueprint | None = None

    def __post_init__(self) -> None:
        if not _SLUG.fullmatch(self.slug):
            raise ValueError(f"app slug {self.slug!r} must be lowercase letters, digits or '-'")

    @property
    def icon(self) -> Markup:
        return Markup(self.icon_svg)


_registry: dict[str, AppEntry] = {}


def register_app(entry: AppEntry) -> AppEntry:
    """Add an app to the registry (registering the same entry twice is harmless)."""
    existing = _registry.get(entry.slug)
    if existing is not None and existing != entry:
        raise ValueError(f"another app is already registered as {entry.slug!r}")
    _registry[entry.slug] = entry
    return entry


def registered_apps() -> list[AppEntry]:
    """Registered apps in registration order."""
    return list(_registry.values())


def install_apps(app: Flask, entries: Iterable[AppEntry] | None = None) -> None:
    """Mount the apps' blueprints on `app` (default: every built-in, registered app)."""
    if entries is None:
        for module in BUILTIN_APP_MODULES:
            importlib.import_module(module)
        entries = registered_apps()
    entries = tuple(entries)
    for entry in entries:
        if entry.blueprint is not None:
            app.register_blueprint(entry.blueprint, url_prefix=f"/{entry.slug}")
    app.extensions[_EXTENSION] = entries


def installed_apps(app: Flask | None = None) -> tuple[AppEntry, ...]:
    """The apps mounted on `app` (default: the current app), in launcher order."""
    return (app or current_app).extensions.get(_EXTENSION, ())


def _local_time(utc: datetime, timezone: str | None) -> datetime:
    aware = utc.replace(tzinfo=UTC)
    try:
        return aware.astimezone(ZoneInfo(timezone)) if timezone else aware
    except (ZoneInfoNotFoundError, ValueError):
        return aware


def greeting(hour: int) -> str:
    if 5 <= hour < 12:
        return "Good morning"
    if 12 <= hour < 18:
        return "Good afternoon"
    return "Good evening"


@bp.get("/")
@login_required
def index():
    """The launcher: a greeting, the apps, and the signed-in employee's card."""
    db = get_db()
    user = current_user()
    local = _local_time(now(db), user.timezone)
    manager = db.get(Employee, user.manager_id) if user.manager_id else None
    return render_template(
        "launcher.html",
        greeting=greeting(local.hour),
        today=f"{local:%A, %B} {local.day}",
        company=current_company(),
        team=db.get(Team, user.team_id),
        office=db.get(Office, user.office_id),
        manager=manager,
    )


__all__ = [
    "BUILTIN_APP_MODULES",
    "AppEntry",
    "bp",
    "install_apps",
    "installed_apps",
    "register_app",
    "registered_apps",
]
