"""Sheets' pages."""

from __future__ import annotations

from officegym.apps.web import login_required

from .blueprint import bp


@bp.get("/")
@login_required
def index():
    return "Sheets"
