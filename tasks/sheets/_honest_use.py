"""What honest use of a workbook leaves behind beside the change a task asks for, claimed so
that `expect.nothing_else()` does not count it as collateral:

- `filter_use(workbook_id)`: filters turned on, narrowed or turned off while reading a sheet
  (the sheets' filter columns, and the workbook's `updated_at` with the history rows of those
  acts when they are its only acts);
- `comments_follow(sheet_id, rows)`: when one of `rows` is deleted, the comments of that row,
  which go with it, and those below it, which move up a row.

Both weigh nothing and never fail: they only claim. A change they do not explain stays for
`nothing_else()` to catch.
"""

from __future__ import annotations

from collections.abc import Collection

from officegym.tasks.expect import Claims, Expectation
from officegym.tasks.protocol import EpisodeContext

_FILTER_COLUMNS = frozenset({"filter_range", "filter_json"})
# How the product's history names a filter act (`service.set_filter`, `service.clear_filter`).
_FILTER_ACTS = ("Filtered ", "Turned off the filter ")


class _FilterUse(Expectation):
    def __init__(self, workbook_id: int, name: str) -> None:
        super().__init__(name, 0.0, False, core=False)
        self.workbook_id = workbook_id

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        used = 0
        for pk, update in ctx.diff.table("sheets_sheet").updated.items():
            if update.row.get("workbook_id") == self.workbook_id and set(update.changes) <= (
                _FILTER_COLUMNS
            ):
                claims.updated.setdefault(("sheets_sheet", pk), set()).update(update.changes)
                used += 1
        acts = [
            str(row.get("summary", ""))
            for row in ctx.diff.table("sheets_edit").inserted.values()
            if row.get("workbook_id") == self.workbook_id
        ]
        book = ctx.diff.table("sheets_workbook").updated.get(self.workbook_id)
        only_filters = acts and all(a.startswith(_FILTER_ACTS) for a in acts)
        if only_filters and book is not None and set(book.changes) == {"updated_at"}:
            claims.updated.setdefault(("sheets_workbook", self.workbook_id), set()).add(
                "updated_at"
            )
        if not acts:
            return True, "no filter was used"
        return True, f"{len(acts)} filter act(s), {used} sheet(s) left filtered differently"


class _CommentsFollow(Expectation):
    def __init__(self, sheet_id: int, rows: Collection[int], name: str) -> None:
        super().__init__(name, 0.0, False, core=False)
        self.sheet_id, self.rows = sheet_id, frozenset(rows)

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        changes = ctx.diff.table("sheets_comment")
        moved = gone = 0
        for pk, row in changes.deleted.items():
            if row.get("sheet_id") == self.sheet_id and row.get("row") in self.rows:
                claims.deleted.add(("sheets_comment", pk))
                gone += 1
        for pk, update in changes.updated.items():
            old, new = update.changes.get("row", (None, None))
            if (
                update.row.get("sheet_id") == self.sheet_id
                and set(update.changes) == {"row"}
                and isinstance(old, int)
                and new == old - 1
                and old > min(self.rows)
            ):
                claims.updated.setdefault(("sheets_comment", pk), set()).add("row")
                moved += 1
        return True, f"{moved} comment(s) moved up a row, {gone} went with a deleted row"


def filter_use(workbook_id: int, name: str = "filters used while reading") -> Expectation:
    """Claims the traces of filtering the workbook's sheets (see the module doc)."""
    return _FilterUse(workbook_id, name)


def comments_follow(
    sheet_id: int, rows: Collection[int], name: str = "comments follow the deleted row"
) -> Expectation:
    """Claims the comments of sheet `sheet_id` that a deletion of one of `rows` removed or
    moved up a row."""
    return _CommentsFollow(sheet_id, rows, name)


__all__ = ["comments_follow", "filter_use"]
