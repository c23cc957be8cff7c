"""What group B's CRM templates share: picking a person in an owner menu, reading the rows of
a list view, and the world queries their samplers start from.

Owner menus label people "Name — Title" in forms and plain "Name" in list filters and bulk
menus; `choose_person` picks the right option either way, as an agent reading the menu would.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from officegym.apps.crm.fields import OPEN_STAGES, STAGE_PROBABILITY
from officegym.apps.crm.service import CRM_DEPARTMENTS
from officegym.tasks.match import squash

from .base import field, world_today

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

OPEN = tuple(OPEN_STAGES)


def today(world: sqlite3.Connection) -> str:
    """The world clock's date, ISO-formatted (deal close dates compare with it as text)."""
    return world_today(world).isoformat()


def stage_changes(stage: str, old_probability: int) -> dict[str, object]:
    """The columns a move to `stage` changes besides the stage: the stage's default
    probability, when it differs from the deal's current one."""
    probability = STAGE_PROBABILITY[stage]
    return {} if probability == old_probability else {"probability": probability}


def possessive(name: str) -> str:
    """A name's possessive: "Gloria Baker's", "Benjamin Jennings'"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def choose_person(actions: PageActions, label: str, person: str) -> None:
    """Pick `person` in the owner menu labelled `label` ("Owner", "New owner", "Account
    owner", …), whether its options read "Name" or "Name — Title"."""
    bid, _ = field(actions, label)
    options = set(actions.find_all("option", within=bid, include_hidden=True))
    for node in actions.nodes:
        name = squash(node.name or "")
        if node.bid in options and (name == person or name.startswith(f"{person} — ")):
            actions.select_option(bid, name)
            return
    raise LookupError(f"the menu {label!r} offers no {person!r}")


@dataclass(frozen=True)
class ListRow:
    """One record row of a list view: its selection checkbox and its cells' texts."""

    checkbox: str | None
    title: str
    cells: tuple[str, ...]


def list_rows(actions: PageActions) -> list[ListRow]:
    """The record rows of the list view on the page (the header row left out)."""
    rows = []
    for row in actions.find_all("row"):
        cells = actions.find_all("cell", within=row)
        if not cells:
            continue
        inside = set(cells)
        texts = tuple(squash(n.name or "") for n in actions.nodes if n.bid in inside)
        boxes = actions.find_all("checkbox", within=row)
        title = texts[1] if boxes and len(texts) > 1 else texts[0]
        rows.append(ListRow(boxes[0] if boxes else None, title, texts))
    return rows


def crm_people(world: sqlite3.Connection) -> list[tuple[int, str, str, str]]:
    """(id, display name, email, role) of the active people the CRM's owner menus offer,
    by id."""
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


def duplicated_accounts(world: sqlite3.Connection) -> set[int]:
    """Accounts the world planted a duplicate of (both sides): a request naming one of them
    would be ambiguous."""
    rows = world.execute(
        "SELECT row_id, other_id FROM world_oddity WHERE kind = 'duplicate_account' ORDER BY id"
    ).fetchall()
    return {i for row in rows for i in row if i is not None}


def team_of(world: sqlite3.Connection, manager_id: int) -> set[int]:
    """Everyone below `manager_id` in the org chart (direct and indirect reports)."""
    found: set[int] = set()
    frontier = [manager_id]
    while frontier:
        rows = world.execute(
            f"SELECT id FROM people_employee WHERE manager_id IN ({', '.join('?' * len(frontier))})"
            " ORDER BY id",
            frontier,
        ).fetchall()
        frontier = [r[0] for r in rows if r[0] not in found]
        found.update(frontier)
    return found


def may_edit(world: sqlite3.Connection, email: str, owner_id: int) -> bool:
    """Whether the employee `email` may edit a record owned by `owner_id` (apps/crm/access)."""
    actor_id, role = world.execute(
        "SELECT id, role FROM people_employee WHERE email = ?", (email,)
    ).fetchone()
    if role == "admin" or actor_id == owner_id:
        return True
    return role == "manager" and owner_id in team_of(world, actor_id)


__all__ = [
    "OPEN",
    "ListRow",
    "choose_person",
    "crm_people",
    "duplicated_accounts",
    "list_rows",
    "may_edit",
    "possessive",
    "stage_changes",
    "team_of",
    "today",
]
