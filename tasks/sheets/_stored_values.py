"""Whether what a sheet stores beside its inputs is what those inputs compute.

Checks grade a workbook recomputed from its typed inputs (`_model.Book`), so a value written
into the stored columns without the product computing it (a `value_text` edited by hand) is
invisible to them; this compares the stored columns with the recomputation, cell by cell.
"""

from __future__ import annotations

import sqlite3

from officegym.apps.sheets.cells import loaded
from officegym.apps.sheets.engine import refs

from ._checks import same
from ._model import Book


def forged(conn: sqlite3.Connection, book: Book, sheet: str) -> str:
    """The first cell of `sheet` whose stored value differs from what `book` computes, as
    "A1 stores ... but computes ..." ('' when every cell agrees)."""
    cells = conn.execute(
        "SELECT row, col, value_type, value_num, value_text FROM sheets_cell WHERE sheet_id = ? "
        "ORDER BY row, col",
        (book.sheet_ids[sheet],),
    )
    for row, col, kind, num, text in cells:
        have, want = loaded(kind, num, text), book.values.get((sheet, row, col))
        if not same(have, want) and not (have in (None, "") and want in (None, "")):
            return f"{refs.address(row, col)} stores {have!r} but computes {want!r}"
    return ""


__all__ = ["forged"]
