"""Sheets' main pages in a world, as the owner of the largest workbook sees them: home, the
workbook's longest sheet, a second sheet, version history, sharing, settings, find and replace,
comments, and the pivot table and chart forms over that sheet's data."""

from __future__ import annotations

from pathlib import Path

from officegym.apps.registry import MainPage
from officegym.seed_data.connect import connect


def main_pages(world: Path) -> list[MainPage]:
    conn = connect(world, read_only=True)
    try:
        (book, sheet, email) = conn.execute(
            "SELECT w.id, s.id, e.email FROM sheets_workbook w "
            "JOIN sheets_sheet s ON s.workbook_id = w.id "
            "JOIN people_employee e ON e.id = w.owner_id "
            "JOIN sheets_cell c ON c.sheet_id = s.id "
            "WHERE e.is_active AND w.trashed_at IS NULL "
            "GROUP BY s.id ORDER BY count(*) DESC, s.id LIMIT 1"
        ).fetchone()
        other = conn.execute(
            "SELECT id FROM sheets_sheet WHERE workbook_id = ? AND id != ? ORDER BY position LIMIT 1",
            (book, sheet),
        ).fetchone()
        (last_row, last_col) = conn.execute(
            "SELECT max(row), max(col) FROM sheets_cell WHERE sheet_id = ?", (sheet,)
        ).fetchone()
    finally:
        conn.close()
    letters = ""
    n = last_col
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    data = f"A1:{letters}{last_row}"
    base = f"/sheets/w/{book}"
    pages = [
        ("home", "/sheets/"),
        ("sheet", f"{base}/s/{sheet}"),
        ("sheet far down", f"{base}/s/{sheet}?cell=B{max(1, last_row - 3)}"),
        ("history", f"{base}/history"),
        ("share", f"{base}/share"),
        ("workbook settings", f"{base}/settings"),
        ("sheet settings", f"{base}/s/{sheet}/settings"),
        ("find and replace", f"{base}/s/{sheet}/find?find=Total"),
        ("comments", f"{base}/s/{sheet}/comments"),
        ("pivot table", f"{base}/s/{sheet}/pivot?source={data}"),
        ("chart", f"{base}/s/{sheet}/chart?source={data}"),
    ]
    if other is not None:
        pages.append(("second sheet", f"{base}/s/{other[0]}"))
    return [MainPage("sheets", name, path, email) for name, path in pages]
