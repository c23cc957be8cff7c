"""The launcher page at `/` and the mounting of the apps.

Each app declares itself once (`officegym.apps.registry.AppEntry`, as `APP` in its package).
`install_apps(app)` mounts every built-in app's blueprint under `/<slug>` and makes the
entries available to the launcher grid and the app switcher. `register_app` adds an app from
outside the package (a plugin, a test) to the ones installed by default.
"""

from __future__ import annotations

from collections.abc import Iterable

from flask import Blueprint, Flask, current_app, render_template

from officegym.apps import registry
from officegym.apps.registry import AppEntry
from officegym.seed_data.clock import now
from officegym.seed_data.schema import Employee, Office, Team

from .auth import current_user, login_required
from .branding import current_company
from .localtime import to_local
from .world import get_db

_EXTENSION = "officegym.apps"

bp = Blueprint("launcher", __name__)

_registry: dict[str, AppEntry] = {}


def register_app(entry: AppEntry) -> AppEntry:
    """Add an app from outside the package (registering the same entry twice is harmless)."""
    existing = _registry.get(entry.slug)
    if existing is not None and existing != entry:
        raise ValueError(f"another app is already registered as {entry.slug!r}")
    if any(app.slug == entry.slug for app in registry.entries()):
        raise ValueError(f"{entry.slug!r} is a built-in app")
    _registry[entry.slug] = entry
    return entry


def registered_apps() -> list[AppEntry]:
    """The built-in apps, then the registered ones in registration order."""
    return [*registry.entries(), *_registry.values()]


def install_apps(app: Flask, entries: Iterable[AppEntry] | None = None) -> None:
    """Mount the apps' blueprints on `app` (default: every built-in and registered app)."""
    entries = tuple(registered_apps() if entries is None else entries)
    for entry in entries:
        blueprint = entry.load_blueprint()
        if blueprint is not None:
            app.register_blueprint(blueprint, url_prefix=f"/{entry.slug}")
    app.extensions[_EXTENSION] = entries


def installed_apps(app: Flask | None = None) -> tuple[AppEntry, ...]:
    """The apps mounted on `app` (default: the current app), in launcher order."""
    return (app or current_app).extensions.get(_EXTENSION, ())


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
    local = to_local(now(db), user.timezone)
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
    "AppEntry",
    "bp",
    "install_apps",
    "installed_apps",
    "register_app",
    "registered_apps",
]
