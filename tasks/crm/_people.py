"""The CRM's people as templates pick them: who the owner lookups offer first, and who may
edit whose records. Edit rights are the app's own (`officegym.apps.crm.access`), asked
through a read-only session over the template's connection, never re-derived here."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.crm.access import edit_scope, reports_of
from officegym.apps.crm.reads import CRM_DEPARTMENTS
from officegym.seed_data.schema import Employee
from officegym.tasks.pools import per_golden
from officegym.tasks.session import read_session


def crm_people(world: sqlite3.Connection) -> list[tuple[int, str, str, str]]:
    """(id, display name, email, role) of the active people the CRM's owner lookups offer
    first (its departments), by id."""
    marks = ", ".join("?" for _ in CRM_DEPARTMENTS)
    return world.execute(
        f"""
        SELECT e.id, e.display_name, e.email, e.role
        FROM people_employee e JOIN people_team t ON t.id = e.team_id
        WHERE e.is_active AND t.department IN ({marks})
        ORDER BY e.id
        """,
        CRM_DEPARTMENTS,
    ).fetchall()


def crm_person_ids(world: sqlite3.Connection) -> set[int]:
    """Ids of the active people the CRM's owner lookups offer first (its departments)."""
    return {person[0] for person in crm_people(world)}


def unique_person_name(world: sqlite3.Connection, name: str) -> bool:
    """Whether exactly one employee goes by `name`."""
    (count,) = world.execute(
        "SELECT count(*) FROM people_employee WHERE display_name = ?", (name,)
    ).fetchone()
    return count == 1


def email_of(world: sqlite3.Connection, employee_id: int) -> str:
    return world.execute(
        "SELECT email FROM people_employee WHERE id = ?", (employee_id,)
    ).fetchone()[0]


def team_of(world: sqlite3.Connection, manager_id: int) -> set[int]:
    """Everyone below `manager_id` in the org chart (direct and indirect reports)."""
    with read_session(world) as db:
        return reports_of(db, manager_id)


def may_edit(world: sqlite3.Connection, email: str, owner_id: int) -> bool:
    """Whether the employee `email` may edit a record owned by `owner_id`."""
    with read_session(world) as db:
        actor = db.scalars(select(Employee).where(Employee.email == email)).one()
        return edit_scope(db, actor).allows(owner_id)


def _chain(db: Session, employee_id: int) -> list[Employee]:
    """`employee_id` and everyone above them in the org chart, nearest first."""
    chain = [db.get(Employee, employee_id)]
    while chain[-1] is not None and chain[-1].manager_id is not None:
        manager = db.get(Employee, chain[-1].manager_id)
        if manager in chain:
            break
        chain.append(manager)
    return [e for e in chain if e is not None]


@per_golden
def editors(world: sqlite3.Connection, owner_id: int) -> list[tuple[int, str, str]]:
    """(id, email, display name) of the active people who may edit a record of `owner_id`
    without being admins: the owner, then their managers up the org chart."""
    with read_session(world) as db:
        return [
            (e.id, e.email, e.display_name)
            for e in _chain(db, owner_id)
            if e.is_active and not (scope := edit_scope(db, e)).everyone and scope.allows(owner_id)
        ]


def owner_or_manager(world: sqlite3.Connection, owner_id: int, manager: bool) -> str:
    """The email of `owner_id`, or with `manager` of their active manager when that manager
    may edit their records (the owner otherwise)."""
    with read_session(world) as db:
        owner = db.get(Employee, owner_id)
        boss = db.get(Employee, owner.manager_id) if owner.manager_id is not None else None
        if (
            manager
            and boss is not None
            and boss.is_active
            and edit_scope(db, boss).allows(owner_id)
        ):
            return boss.email
        return owner.email


def common_manager(world: sqlite3.Connection, owners: Sequence[int]) -> str:
    """The email of the nearest active employee who may edit records of every one of
    `owners` (one owner: that owner; else their lowest common manager, or an admin)."""
    with read_session(world) as db:
        chains = [[e.id for e in _chain(db, o)] for o in owners]
        shared = [e for e in chains[0] if all(e in c for c in chains[1:])]
        for employee_id in shared:
            employee = db.get(Employee, employee_id)
            scope = edit_scope(db, employee)
            if employee.is_active and all(scope.allows(o) for o in owners):
                return employee.email
        admin = db.scalars(
            select(Employee)
            .where(Employee.role == "admin", Employee.is_active)
            .order_by(Employee.id)
        ).first()
        return admin.email


__all__ = [
    "common_manager",
    "crm_people",
    "crm_person_ids",
    "editors",
    "email_of",
    "may_edit",
    "owner_or_manager",
    "team_of",
    "unique_person_name",
]
