"""Chat's people pickers: who a type-ahead box offers as one types, and who a name typed
without choosing from the list stands for.

A picker (the web kit's `lookup` macro with lookup.js, `multiple`) posts each chosen person's
id as `<name>` and what is still typed in the box as `<name>_text`. The people one may pick
are the active employees other than oneself (and, to add to a channel, those not in it yet).
A typed name stands for the one such person whose name or email it is (case ignored), or who
reads as it in the list ("Dana Lee — Account Executive"); none or several is a form error
that says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym.apps.web.errors import ValidationError
from officegym.apps.web.typeahead import matching_people
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.chat import Membership

LIMIT = 10
TEXT_SUFFIX = "_text"
# Separates a name from its detail in an option's accessible name ("Dana Lee — CFO").
DETAIL_SEPARATOR = "—"


class Choice(TypedDict):
    """One option of a picker: `id` is what the form posts, `label` the person's name."""

    id: int
    label: str
    detail: str


def _pickable(actor: Employee, channel_id: int | None):
    """Active employees other than the actor (and not in `channel_id`, when given)."""
    statement = select(Employee).where(Employee.is_active.is_(True), Employee.id != actor.id)
    if channel_id is not None:
        members = select(Membership.employee_id).where(Membership.channel_id == channel_id)
        statement = statement.where(Employee.id.not_in(members))
    return statement


def people(db: Session, actor: Employee, q: str, channel_id: int | None = None) -> list[Choice]:
    """The people one may pick whose name or email holds every word of `q`: exact names first,
    then names starting with `q`, then by name; at most LIMIT, each with their title (and
    email where two read the same)."""
    found = matching_people(db, _pickable(actor, channel_id), q, LIMIT)
    seen: dict[tuple[str, str], int] = {}
    for e in found:
        key = (e.display_name.casefold(), e.title.casefold())
        seen[key] = seen.get(key, 0) + 1
    return [
        Choice(
            id=e.id,
            label=e.display_name,
            detail=e.title
            if seen[e.display_name.casefold(), e.title.casefold()] == 1
            else f"{e.title} · {e.email}",
        )
        for e in found
    ]


def person_named(
    db: Session, actor: Employee, text: str, channel_id: int | None = None, field: str = ""
) -> int:
    """The id of the one person one may pick who is called `text` (see the module docstring);
    raises ValidationError naming the problem when no one or several are."""
    typed = " ".join(text.split())
    wanted = typed.lower()
    statement = _pickable(actor, channel_id).with_only_columns(Employee.id).order_by(Employee.id)
    found = list(
        db.scalars(
            statement.where(
                or_(
                    func.lower(Employee.display_name) == wanted,
                    func.lower(Employee.email) == wanted,
                )
            )
        )
    )
    name, _, detail = wanted.rpartition(DETAIL_SEPARATOR)
    if not found and name.strip() and detail.strip():
        found = list(
            db.scalars(
                statement.where(
                    func.lower(Employee.display_name) == name.strip(),
                    or_(
                        func.lower(Employee.title) == detail.strip(),
                        func.lower(Employee.title + " · " + Employee.email) == detail.strip(),
                    ),
                )
            )
        )
    if len(found) == 1:
        return found[0]
    if found:
        raise ValidationError(
            f"{len(found)} people are called “{typed}”: choose the one you mean from the list.",
            field,
        )
    raise ValidationError(f"No one you can add is called “{typed}”: choose from the list.", field)


def chosen(
    db: Session,
    actor: Employee,
    ids: Iterable[int],
    text: str,
    channel_id: int | None = None,
    field: str = "",
) -> list[int]:
    """The people a submitted picker stands for: the chosen `ids`, then the one called `text`
    (what was typed without choosing), if anything was."""
    out = list(dict.fromkeys(ids))
    if " ".join(text.split()):
        person = person_named(db, actor, text, channel_id, field)
        if person not in out:
            out.append(person)
    return out


def labelled(db: Session, ids: Iterable[int]) -> tuple[list[int], list[str]]:
    """The ids of real people among `ids` (in that order) and their display names, for the
    chips of a picker shown again."""
    wanted = list(dict.fromkeys(ids))
    found = dict(
        db.execute(select(Employee.id, Employee.display_name).where(Employee.id.in_(wanted))).all()
    )
    known = [i for i in wanted if i in found]
    return known, [found[i] for i in known]


__all__ = [
    "DETAIL_SEPARATOR",
    "LIMIT",
    "TEXT_SUFFIX",
    "Choice",
    "chosen",
    "labelled",
    "people",
    "person_named",
]
