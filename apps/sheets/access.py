"""Who may see and change which workbook.

A workbook's owner may do everything; a share gives someone else `view` (read, comment,
export) or `edit` (also change cells, sheets and sharing). To anyone else a workbook does not
exist: every lookup raises NotFound with the same message as for an id never used. A workbook
in the trash is visible to its owner only, and read-only until restored. Pages, the API and
exports all ask here before they touch a row.
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.web.errors import Conflict, Forbidden, NotFound
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.sheets import Share, Sheet, Workbook

Role = Literal["owner", "edit", "view"]
_RANK = {"view": 0, "edit": 1, "owner": 2}


def workbook_not_found() -> NotFound:
    return NotFound("That workbook doesn't exist or you don't have access to it.")


def row_id(value: object) -> int | None:
    """`value` if it can be a row id (an int SQLite can store, not a bool), else None: ids
    arrive from URLs and JSON, where any size of integer parses."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63:
        return value
    return None


def role_of(db: Session, actor: Employee, book: Workbook) -> Role | None:
    """The actor's role on the workbook, or None if it is not theirs or shared with them."""
    if book.owner_id == actor.id:
        return "owner"
    if book.trashed_at is not None:
        return None
    permission = db.scalar(
        select(Share.permission).where(Share.workbook_id == book.id, Share.employee_id == actor.id)
    )
    return permission  # type: ignore[return-value]


def workbook_for(
    db: Session, actor: Employee, workbook_id: object, need: Role = "view"
) -> Workbook:
    """The workbook if the actor holds at least `need` on it.

    NotFound when they may not see it; Forbidden when they may see but not do this;
    Conflict for a change to a workbook in the trash.
    """
    book = db.get(Workbook, workbook_id) if row_id(workbook_id) else None
    role = role_of(db, actor, book) if book is not None else None
    if book is None or role is None:
        raise workbook_not_found()
    if _RANK[role] < _RANK[need]:
        if need == "owner":
            raise Forbidden("Only the owner of this workbook can do that.")
        raise Forbidden(
            "You can view this workbook but not edit it. Ask its owner for edit access."
        )
    if need != "view" and book.trashed_at is not None and role == "owner":
        raise Conflict("This workbook is in the trash. Restore it to make changes.")
    return book


def sheet_for(
    db: Session, actor: Employee, workbook_id: object, sheet_id: object, need: Role = "view"
) -> tuple[Workbook, Sheet]:
    """The workbook and one of its sheets, with the same checks as `workbook_for`."""
    book = workbook_for(db, actor, workbook_id, need)
    sheet = db.get(Sheet, sheet_id) if row_id(sheet_id) else None
    if sheet is None or sheet.workbook_id != book.id:
        raise NotFound("That sheet doesn't exist in this workbook.")
    return book, sheet


__all__ = ["Role", "role_of", "row_id", "sheet_for", "workbook_for", "workbook_not_found"]
