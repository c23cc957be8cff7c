"""CRM: a Salesforce-like app of accounts, contacts, leads and opportunities, mounted at `/crm`."""

from flask import Blueprint

from officegym.apps.web import AppEntry, register_app

bp = Blueprint(
    "crm",
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
    '<path d="M3 3v18h18"/><path d="M7 15l4-4 3 3 5-6"/><circle cx="19" cy="8" r="1.5"/></svg>'
)

register_app(AppEntry("crm", "CRM", "Accounts, contacts, leads and deals", ICON, "crm.index", bp))

__all__ = ["bp"]
