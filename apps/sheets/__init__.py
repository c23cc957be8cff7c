"""Sheets: an Excel-like app of workbooks, sheets and live formulas, mounted at `/sheets`."""

from officegym.apps.registry import AppEntry, Child

ICON = (
    '<svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" '
    'stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">'
    '<rect x="3" y="3" width="18" height="18" rx="2"/><path d="M3 9h18M3 15h18M9 3v18"/></svg>'
)

APP = AppEntry(
    slug="sheets",
    name="Sheets",
    description="Workbooks with formulas, pivots and charts",
    icon_svg=ICON,
    endpoint="sheets.index",
    blueprint="officegym.apps.sheets.blueprint:bp",
    service="officegym.apps.sheets.service",
    pages="officegym.apps.sheets.pages:main_pages",
    stamps={"sheets_workbook": frozenset({"updated_at"})},
    # Every act on a workbook is logged in its change history in the same transaction.
    children={"sheets_edit": Child("workbook_id", "sheets_workbook", "derived")},
    blanks={
        "sheets_cell": {"number_format": None, "bold": False, "italic": False, "fill": None},
        "sheets_sheet": {"frozen_rows": 0, "filter_range": None, "filter_json": None},
        "sheets_workbook": {"trashed_at": None},
    },
)

__all__ = ["APP"]
