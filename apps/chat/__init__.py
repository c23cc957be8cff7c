"""Chat: a Slack-like app of channels, direct messages and threads, mounted at `/chat`."""

from flask import Blueprint

from officegym.apps.web import AppEntry, register_app

bp = Blueprint(
    "chat",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/static",
)

from . import views  # noqa: E402,F401  (registers the routes on bp)
from .api import api_bp  # noqa: E402

bp.register_blueprint(api_bp, url_prefix="/api")

ICON = (
    '<svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" '
    'stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">'
    '<path d="M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.4-4.9A8 8 0 1 1 21 12z"/>'
    '<path d="M9 10.5h6M9 13.5h4"/></svg>'
)

register_app(
    AppEntry("chat", "Chat", "Channels, direct messages and threads", ICON, "chat.index", bp)
)

__all__ = ["bp"]
