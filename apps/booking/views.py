"""Placeholder until written."""

from .blueprint import bp  # noqa: F401


@bp.get("/")
def index():
    return "Booking"
