"""The shared web kit: app factory, world binding, single sign-on, launcher, errors, server."""

from .auth import current_user, login_hint, login_required
from .factory import create_app
from .launcher import AppEntry, install_apps, installed_apps, register_app
from .server import BackgroundServer, serve, start_background_server
from .world import WORLD_HEADER, NoSuchWorld, get_db, world_id

__all__ = [
    "WORLD_HEADER",
    "AppEntry",
    "BackgroundServer",
    "NoSuchWorld",
    "create_app",
    "current_user",
    "get_db",
    "install_apps",
    "installed_apps",
    "login_hint",
    "login_required",
    "register_app",
    "serve",
    "start_background_server",
    "world_id",
]
