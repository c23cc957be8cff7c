"""Workbooks as templates pick them: who may edit or only view each one, and the sheets whose
figures a task can be about (a header row, rows of data, a Total row), read from the world."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    """A block of data on a sheet: header row 1, data rows 2..`last`, and the Total row's
    number (0 when the sheet has none)."""

    workbook_id: int
    workbook: str
    sheet_id: int
    sheet: str
    headers: tuple[str, ...]
    last: int
    total_row: int


def editors(world: sqlite3.Connection, workbook_id: int) -> list[tuple[int, str]]:
    """(id, email) of the active people who may edit the workbook: its owner, then editors."""
    return world.execute(
        """
        SELECT e.id, e.email FROM sheets_workbook w JOIN people_employee e ON e.id = w.owner_id
        WHERE w.id = ? AND e.is_active
        UNION ALL
        SELECT e.id, e.email FROM sheets_share s JOIN people_employee e ON e.id = s.employee_id
        WHERE s.workbook_id = ? AND s.permission = 'edit' AND e.is_active
        """,
        (workbook_id, workbook_id),
    ).fetchall()


def viewers(world: sqlite3.Connection, workbook_id: int) -> list[tuple[int, str]]:
    """(id, email) of the active people the workbook is shared with for viewing only."""
    return world.execute(
        """
        SELECT e.id, e.email FROM sheets_share s JOIN people_employee e ON e.id = s.employee_id
        WHERE s.workbook_id = ? AND s.permission = 'view' AND e.is_active ORDER BY e.id
        """,
        (workbook_id,),
    ).fetchall()


def outsiders(world: sqlite3.Connection, workbook_id: int) -> list[tuple[int, str]]:
    """(id, email) of active people with no access to the workbook at all."""
    return world.execute(
        """
        SELECT e.id, e.email FROM people_employee e WHERE e.is_active
        AND e.id != (SELECT owner_id FROM sheets_workbook WHERE id = ?)
        AND e.id NOT IN (SELECT employee_id FROM sheets_share WHERE workbook_id = ?)
        ORDER BY e.id
        """,
        (workbook_id, workbook_id),
    ).fetchall()


def tables(world: sqlite3.Connection, sheet_name: str | None = None) -> list[Table]:
    """Every sheet (optionally of one name) laid out as a table, by workbook id."""
    found = []
    sheets = world.execute(
        """
        SELECT s.id, s.name, w.id, w.name FROM sheets_sheet s
        JOIN sheets_workbook w ON w.id = s.workbook_id
        WHERE w.trashed_at IS NULL ORDER BY w.id, s.position
        """
    ).fetchall()
    for sheet_id, name, workbook_id, workbook in sheets:
        if sheet_name is not None and name != sheet_name:
            continue
        headers = [
            raw
            for (raw,) in world.execute(
                "SELECT raw FROM sheets_cell WHERE sheet_id = ? AND row = 1 ORDER BY col",
                (sheet_id,),
            )
        ]
        total = world.execute(
            "SELECT row FROM sheets_cell WHERE sheet_id = ? AND col = 1 AND raw = 'Total'",
            (sheet_id,),
        ).fetchone()
        (last,) = world.execute(
            "SELECT max(row) FROM sheets_cell WHERE sheet_id = ? AND col = 1 AND row > 1"
            + (" AND row < ?" if total else ""),
            (sheet_id, total[0]) if total else (sheet_id,),
        ).fetchone()
        if last:
            found.append(
                Table(
                    workbook_id,
                    workbook,
                    sheet_id,
                    name,
                    tuple(headers),
                    last,
                    total[0] if total else 0,
                )
            )
    return found


def column_values(
    world: sqlite3.Connection, table: Table, col: int
) -> list[tuple[int, str, float | None]]:
    """(row, value_type, value_num) of the data rows of column `col`."""
    return world.execute(
        "SELECT row, value_type, value_num FROM sheets_cell WHERE sheet_id = ? AND col = ? "
        "AND row BETWEEN 2 AND ? ORDER BY row",
        (table.sheet_id, col, table.last),
    ).fetchall()


def unique_workbook(world: sqlite3.Connection, name: str) -> bool:
    (count,) = world.execute(
        "SELECT count(*) FROM sheets_workbook WHERE name = ? AND trashed_at IS NULL", (name,)
    ).fetchone()
    return count == 1


__all__ = ["Table", "column_values", "editors", "outsiders", "tables", "unique_workbook", "viewers"]
