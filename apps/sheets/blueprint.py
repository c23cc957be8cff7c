"""The sheets app's blueprint: its pages (`views`) and its JSON API (`api`) under `/sheets`."""

from flask import Blueprint

bp = Blueprint(
    "sheets",
    "officegym.apps.sheets",
    template_folder="templates",
    static_folder="static",
    static_url_path="/static",
)

from . import views  # noqa: E402,F401  (registers the routes on bp)
from .api import api_bp  # noqa: E402

bp.register_blueprint(api_bp, url_prefix="/api")

__all__ = ["bp"]
