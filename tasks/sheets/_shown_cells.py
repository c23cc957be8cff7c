"""A sheet as its page shows it, read the way an agent reads it: the grid's cells by their
accessible names (`G12 = $375`), window by window with the page's "Next rows" link. Answer
oracles work from what they read here, not from the world file.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from officegym.apps.sheets.engine import refs

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_LABEL = re.compile(r"([A-Z]{1,3}[0-9]+)(?: = (.*))?", re.S)


def _window(actions: PageActions) -> tuple[dict[tuple[int, int], str], int]:
    """The shown cells of the grid's current window, and its last row."""
    shown: dict[tuple[int, int], str] = {}
    last = 0
    for node in actions.nodes:
        if node.role != "gridcell":
            continue
        found = _LABEL.fullmatch(node.name or "")
        if found is None:
            continue
        row, col = refs.parse_address(found[1])
        last = max(last, row)
        if found[2] is not None:
            shown[row, col] = found[2]
    return shown, last


def read_rows(actions: PageActions, last_row: int, pages: int = 12) -> dict[int, dict[int, str]]:
    """The shown text of every filled cell in rows 1..`last_row` of the open sheet, by row and
    column, paging down with "Next rows" while rows are missing."""
    rows: dict[int, dict[int, str]] = {}
    seen = 0
    for _ in range(pages):
        shown, last = _window(actions)
        for _look in range(5):
            # The grid swaps its window in after the click's fetch: until the new rows show,
            # look again rather than page on (which would skip a window unread).
            if last > seen:
                break
            actions.noop(200)
            shown, last = _window(actions)
        for (row, col), text in shown.items():
            rows.setdefault(row, {})[col] = text
        if last >= last_row:
            return rows
        seen = last
        actions.click(actions.find("link", "Next rows", exact=True))
    raise LookupError(f"row {last_row} did not come into view after {pages} pages")


def amount(text: str) -> float:
    """The number a cell shows (`$4,200` → 4200.0, `38500` → 38500.0)."""
    return float(re.sub(r"[$,\s]", "", text))


def money(value: float) -> str:
    """An amount to the cent as people write it: `$4,200.00`."""
    return f"${value:,.2f}"


__all__ = ["amount", "money", "read_rows"]
