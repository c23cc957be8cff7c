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
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.web.errors import Forbidden
from officegym.seed_data.schema import Employee

from .fields import ObjectType


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


def owner_of(spec: ObjectType, row: Any) -> int:
    """The employee whose record `row` is, for edit rights: its owner (a note's author)."""
    return getattr(row, spec.owner_field)


def can_edit(db: Session, actor: Employee, spec: ObjectType, row: Any) -> bool:
    """Whether `actor` may change the stored record `row` of kind `spec`."""
    return edit_scope(db, actor).allows(owner_of(spec, row))


def require_edit(
    db: Session, actor: Employee, spec: ObjectType, row: Any, scope: EditScope | None = None
) -> None:
    """Forbidden, naming the owner and the rule, unless `actor` may change `row` (`scope`, when
    given, is `actor`'s, to check many rows with one look at the org chart)."""
    scope = scope or edit_scope(db, actor)
    if scope.allows(owner_of(spec, row)):
        return
    owner = db.get(Employee, owner_of(spec, row))
    name = owner.display_name if owner else "someone else"
    raise Forbidden(f"This {spec.noun} belongs to {name}. {scope.rule()}")


__all__ = ["EditScope", "can_edit", "edit_scope", "owner_of", "reports_of", "require_edit"]
