"""The booking app's blueprint under `/booking`: stays, trips and approvals (`views`),
meeting rooms (`rooms`), listing photos (`photos`) and the JSON API (`api`)."""

from flask import Blueprint

bp = Blueprint(
    "booking",
    "officegym.apps.booking",
    template_folder="templates",
    static_folder="static",
    static_url_path="/static",
)

from . import photos, rooms, views  # noqa: E402,F401  (register the routes on bp)
from .api import api_bp  # noqa: E402

bp.register_blueprint(api_bp, url_prefix="/api")

__all__ = ["bp"]
