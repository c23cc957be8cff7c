"""Who may change which CRM records. Everyone signed in reads everything.

Edit rights follow the owner of a record (for notes, the author) and the signed-in employee's
role, like Salesforce's role hierarchy:

- `member` (sales reps and everyone else): records they own;
- `manager`: records they own and records owned by anyone who reports to them, directly or
  through other managers (their team);
- `admin`: every record.

Anyone may add activities and notes to any record (they read it), and may make a record owned by
any active employee; changing a record, or handing it to someone else, needs edit rights on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.seed_data.schema import Employee


@dataclass(frozen=True)
class EditScope:
    """The owners whose records one employee may edit (`everyone` for admins)."""

    actor_id: int
    role: str
    everyone: bool
    owners: frozenset[int]

    def allows(self, owner_id: int | None) -> bool:
        return self.everyone or owner_id in self.owners

    def rule(self) -> str:
        """The rule in words, for refusals."""
        if self.everyone:
            return "You can edit every record."
        if self.role == "manager":
            return "You can edit records that you or people who report to you own."
        return "You can edit only records you own."


def reports_of(db: Session, manager_id: int) -> set[int]:
    """Everyone below `manager_id` in the org chart (direct and indirect reports)."""
    tree = select(Employee.id).where(Employee.manager_id == manager_id).cte("tree", recursive=True)
    tree = tree.union_all(select(Employee.id).join(tree, Employee.manager_id == tree.c.id))
    return set(db.scalars(select(tree.c.id)))


def edit_scope(db: Session, actor: Employee) -> EditScope:
    """What `actor` may edit, by role (see the module docstring)."""
    if actor.role == "admin":
        return EditScope(actor.id, actor.role, True, frozenset({actor.id}))
    owners = {actor.id}
    if actor.role == "manager":
        owners |= reports_of(db, actor.id)
    return EditScope(actor.id, actor.role, False, frozenset(owners))


__all__ = ["EditScope", "edit_scope", "reports_of"]
