"""What the CRM's pages and API show: records, their related lists, activities, notes and
history, the people who own them, and the views a merge or a lead conversion starts from.

Everything here only reads (`service` is the one writer). Everyone signed in reads every record;
`can_edit` on what comes back says whether the reader may change it (see `access`). A record
that doesn't exist, or a kind of record there is no such thing as, raises NotFound.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.web.errors import NotFound, ValidationError
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.crm import Activity, Lead, Note

from . import duplicates
from .access import EditScope, edit_scope, owner_of
from .fields import LEADS, OBJECTS, Field, ObjectType

MERGE_LIMIT = 3
RELATED_LIMIT = 10
MERGEABLE = ("accounts", "contacts", "leads")
# Departments whose people own and work CRM records (offered first by the owner lookups).
CRM_DEPARTMENTS = ("Sales", "Customer Success", "Marketing", "Executive")


# -- read models ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Person:
    id: int
    display_name: str
    title: str
    email: str
    avatar_color: str
    is_active: bool


@dataclass(frozen=True)
class Link:
    """A pointer to a CRM record, with the name people know it by."""

    key: str
    id: int
    title: str


@dataclass(frozen=True)
class FieldValue:
    """A field of a record as shown: the stored value, and who or what it points at."""

    field: Field
    value: Any
    link: Link | None = None
    person: Person | None = None


@dataclass(frozen=True)
class HistoryEntry:
    field: str
    label: str
    old: str | None
    new: str | None
    by: Person
    at: datetime


@dataclass(frozen=True)
class ActivityItem:
    id: int
    kind: str
    subject: str
    description: str
    status: str
    priority: str
    due_date: date | None
    owner: Person
    created_at: datetime
    completed_at: datetime | None
    regarding: Link | None
    can_edit: bool


@dataclass(frozen=True)
class NoteItem:
    id: int
    title: str
    body: str
    author: Person
    created_at: datetime
    regarding: Link | None
    can_edit: bool


@dataclass(frozen=True)
class RelatedList:
    """Records that point at this one: the first few, how many in all, and the full list's
    filter (`filters`, query parameters of the `key` list view)."""

    key: str
    title: str
    rows: tuple[dict[str, Any], ...]
    total: int
    filters: Mapping[str, str]


@dataclass(frozen=True)
class Record:
    key: str
    id: int
    title: str
    owner: Person
    fields: tuple[FieldValue, ...]
    values: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime | None
    can_edit: bool
    edit_rule: str
    related: tuple[RelatedList, ...] = ()
    open_activities: tuple[ActivityItem, ...] = ()
    past_activities: tuple[ActivityItem, ...] = ()
    notes: tuple[NoteItem, ...] = ()
    history: tuple[HistoryEntry, ...] = ()
    converted: Mapping[str, Link] = field(default_factory=dict)


@dataclass(frozen=True)
class MergeView:
    """Records side by side for the merge page: per field, each record's value."""

    key: str
    records: tuple[Record, ...]
    fields: tuple[Field, ...]
    differing: frozenset[str]


# -- people, titles and records --------------------------------------------------------------


_PERSON_COLUMNS = (
    Employee.id,
    Employee.display_name,
    Employee.title,
    Employee.email,
    Employee.avatar_color,
    Employee.is_active,
)


def people(db: Session, ids: Iterable[int]) -> dict[int, Person]:
    """Employees by id, as shown on records."""
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return {}
    rows = db.connection().execute(select(*_PERSON_COLUMNS).where(Employee.id.in_(wanted))).all()
    return {row[0]: Person(*row) for row in rows}


def spec_of(key: str) -> ObjectType:
    """The object type for a URL segment; NotFound for anything else."""
    spec = OBJECTS.get(key)
    if spec is None:
        raise NotFound("There is no such kind of record.")
    return spec


def _title_columns(spec: ObjectType):
    model = spec.model
    if spec.key in ("contacts", "leads"):
        return (model.first_name + " " + model.last_name,)
    if spec.key == "activities":
        return (model.subject,)
    if spec.key == "notes":
        return (model.title,)
    return (model.name,)


def titles(db: Session, key: str, ids: Iterable[int]) -> dict[int, str]:
    """Names of records of one kind, by id."""
    wanted = sorted({i for i in ids if i is not None})
    if not wanted:
        return {}
    spec = OBJECTS[key]
    rows = db.connection().execute(
        select(spec.model.id, *_title_columns(spec)).where(spec.model.id.in_(wanted))
    )
    return {row[0]: row[1] for row in rows}


def title_of(spec: ObjectType, row: Any) -> str:
    """The name people know a stored row by (the same as `titles` gives)."""
    if spec.key in ("contacts", "leads"):
        return f"{row.first_name} {row.last_name}"
    if spec.key == "activities":
        return row.subject
    if spec.key == "notes":
        return row.title
    return row.name


def row_of(db: Session, spec: ObjectType, record_id: Any) -> Any:
    """The stored row of a record of kind `spec`; NotFound when there is none (or the id is
    not an id)."""
    row = None
    if isinstance(record_id, int) and not isinstance(record_id, bool):
        row = db.get(spec.model, record_id)
    if row is None:
        raise NotFound(f"That {spec.noun} doesn't exist. It may have been merged or deleted.")
    return row


# -- history ----------------------------------------------------------------------------------


# History events whose values point at a record: a converted lead's account.
_HISTORY_REFERENCES = {"converted": "account"}
_MERGED_ID = re.compile(r" \(#\d+\)")


def _history_entries(db: Session, spec: ObjectType, record_id: int) -> tuple[HistoryEntry, ...]:
    if spec.history is None:
        return ()
    model = spec.history
    rows = db.execute(
        select(model.field, model.old_value, model.new_value, model.changed_by_id, model.changed_at)
        .where(getattr(model, spec.history_key) == record_id)
        .order_by(model.changed_at.desc(), model.id.desc())
    ).all()
    who = people(db, (r[3] for r in rows))
    refs: dict[str, set[int]] = {}
    for name, old, new, _, _ in rows:
        kind = _HISTORY_REFERENCES.get(name)
        if spec.has(name) and spec.field(name).is_reference:
            kind = spec.field(name).kind
        if kind is not None:
            for value in (old, new):
                if value and value.isdecimal():
                    refs.setdefault(kind, set()).add(int(value))
    names: dict[str, dict[int, str]] = {}
    for kind, ids in refs.items():
        if kind == "employee":
            names[kind] = {i: p.display_name for i, p in people(db, ids).items()}
        else:
            names[kind] = titles(db, f"{kind}s" if kind != "opportunity" else "opportunities", ids)

    def shown(name: str, value: str | None) -> str | None:
        if value is None:
            return value
        if name == "merged":  # the titles of the records merged in, stored with their ids
            return _MERGED_ID.sub("", value)
        kind = _HISTORY_REFERENCES.get(name)
        if kind is not None and value.isdecimal():
            return names.get(kind, {}).get(int(value), f"a deleted {kind}")
        if not spec.has(name):
            return value
        f = spec.field(name)
        if f.is_reference and value.isdecimal():
            return names.get(f.kind, {}).get(int(value), f"a deleted {f.kind}")
        if f.kind == "money":
            return f"${int(value):,}" if value.lstrip("-").isdecimal() else value
        if f.kind == "choice":
            return f.choice_label(value)
        return value

    labels = {"created": "Created", "converted": "Converted", "merged": "Merged", "imported": ""}
    out = []
    for name, old, new, by, at in rows:
        label = spec.field(name).label if spec.has(name) else labels.get(name, name)
        out.append(HistoryEntry(name, label, shown(name, old), shown(name, new), who[by], at))
    return tuple(out)


def history(db: Session, key: str, record_id: int) -> tuple[HistoryEntry, ...]:
    """A record's field changes, newest first, with values as people read them."""
    spec = spec_of(key)
    row_of(db, spec, record_id)
    return _history_entries(db, spec, record_id)


# -- a record ----------------------------------------------------------------------------------


def _links(db: Session, key: str, ids: Iterable[int | None]) -> dict[int, Link]:
    return {i: Link(key, i, t) for i, t in titles(db, key, ids).items()}


def _field_values(db: Session, spec: ObjectType, row: Any) -> tuple[FieldValue, ...]:
    refs: dict[str, set[int]] = {}
    for f in spec.fields:
        value = getattr(row, f.name)
        if f.is_reference and value is not None:
            refs.setdefault(f.kind, set()).add(value)
    owners = people(db, refs.get("employee", ()))
    links: dict[str, dict[int, Link]] = {
        kind: _links(db, "opportunities" if kind == "opportunity" else f"{kind}s", ids)
        for kind, ids in refs.items()
        if kind != "employee"
    }
    out = []
    for f in spec.fields:
        value = getattr(row, f.name)
        if f.kind == "employee":
            out.append(FieldValue(f, value, person=owners.get(value)))
        elif f.is_reference:
            out.append(FieldValue(f, value, link=links.get(f.kind, {}).get(value)))
        else:
            out.append(FieldValue(f, value))
    return tuple(out)


def _activity_items(
    db: Session, scope: EditScope, rows: Sequence[Activity], with_regarding: bool = True
) -> list[ActivityItem]:
    """Activities as shown; `with_regarding` names the record each is about (for lists that
    mix records; a record's own page leaves it out)."""
    who = people(db, (a.owner_id for a in rows))
    opps: dict[int, Link] = {}
    contacts: dict[int, Link] = {}
    accounts: dict[int, Link] = {}
    if with_regarding:
        opps = _links(db, "opportunities", (a.opportunity_id for a in rows))
        contacts = _links(db, "contacts", (a.contact_id for a in rows))
        accounts = _links(db, "accounts", (a.account_id for a in rows))
    out = []
    for a in rows:
        regarding = None
        if with_regarding:
            regarding = (
                opps.get(a.opportunity_id)
                or contacts.get(a.contact_id)
                or accounts.get(a.account_id)
            )
        out.append(
            ActivityItem(
                a.id,
                a.kind,
                a.subject,
                a.description,
                a.status,
                a.priority,
                a.due_date,
                who[a.owner_id],
                a.created_at,
                a.completed_at,
                regarding,
                scope.allows(a.owner_id),
            )
        )
    return out


def _note_items(
    db: Session, scope: EditScope, rows: Sequence[Note], with_regarding: bool = True
) -> list[NoteItem]:
    who = people(db, (n.author_id for n in rows))
    opps: dict[int, Link] = {}
    contacts: dict[int, Link] = {}
    if with_regarding:
        opps = _links(db, "opportunities", (n.opportunity_id for n in rows))
        contacts = _links(db, "contacts", (n.contact_id for n in rows))
    out = []
    for n in rows:
        regarding = opps.get(n.opportunity_id) or contacts.get(n.contact_id)
        out.append(
            NoteItem(
                n.id,
                n.title,
                n.body,
                who[n.author_id],
                n.created_at,
                regarding,
                scope.allows(n.author_id),
            )
        )
    return out


def _through(statement, model: type, column: str):
    """`statement` told to find rows through the index of `column` (a foreign key). Without
    statistics SQLite may instead walk an index that matches the ORDER BY, scanning the whole
    table to find one record's few children."""
    return statement.with_hint(
        model, f"INDEXED BY ix_{model.__tablename__}_{column}", dialect_name="sqlite"
    )


def _related_rows(db: Session, key: str, column: str, record_id: int) -> RelatedList:
    spec = OBJECTS[key]
    model = spec.model
    where = getattr(model, column) == record_id
    total = db.scalar(select(func.count()).select_from(model).where(where)) or 0
    if key == "contacts":
        order = (model.last_name, model.first_name, model.id)
    elif key == "opportunities":
        order = (model.close_date.desc(), model.id.desc())
    else:
        order = (model.name, model.id)
    statement = select(model).where(where).order_by(*order).limit(RELATED_LIMIT)
    rows = db.scalars(_through(statement, model, column)).all()
    owners = people(db, (r.owner_id for r in rows))
    out = []
    for r in rows:
        item: dict[str, Any] = {"id": r.id, "title": title_of(spec, r), "owner": owners[r.owner_id]}
        if key == "contacts":
            item |= {"title_text": r.title, "email": r.email, "phone": r.phone}
        elif key == "opportunities":
            item |= {"stage": r.stage, "amount": r.amount, "close_date": r.close_date}
        elif key == "accounts":
            item |= {"account_type": r.account_type, "billing_city": r.billing_city}
        out.append(item)
    filters = {column: str(record_id)}
    if key == "opportunities" and column == "primary_contact_id":
        filters = {"contact_id": str(record_id)}
    title = spec.plural if column != "parent_account_id" else "Child accounts"
    return RelatedList(key, title, tuple(out), total, filters)


def record(
    db: Session, actor: Employee, key: str, record_id: int, *, related: bool = True
) -> Record:
    """A record with its fields, and (unless `related=False`) its related lists, activities,
    notes and change history."""
    spec = spec_of(key)
    row = row_of(db, spec, record_id)
    scope = edit_scope(db, actor)
    owner_id = owner_of(spec, row)
    owner = people(db, [owner_id])[owner_id]
    values = {f.name: getattr(row, f.name) for f in spec.fields}
    can = scope.allows(owner_id)
    if key == "leads" and row.status == "Converted":
        can = False
    rule = scope.rule() if not can else ""
    if key == "leads" and row.status == "Converted":
        rule = "Converted leads are read-only."
    lists: list[RelatedList] = []
    open_items: list[ActivityItem] = []
    past_items: list[ActivityItem] = []
    notes: list[NoteItem] = []
    converted: dict[str, Link] = {}
    if related:
        column = {
            "accounts": "account_id",
            "contacts": "contact_id",
            "opportunities": "opportunity_id",
        }
        if key == "accounts":
            lists = [
                _related_rows(db, "contacts", "account_id", row.id),
                _related_rows(db, "opportunities", "account_id", row.id),
                _related_rows(db, "accounts", "parent_account_id", row.id),
            ]
        elif key == "contacts":
            lists = [_related_rows(db, "opportunities", "primary_contact_id", row.id)]
        if key in column:
            where = getattr(Activity, column[key]) == row.id
            open_rows = db.scalars(
                _through(
                    select(Activity)
                    .where(where, Activity.status != "Completed")
                    .order_by(Activity.due_date.is_(None), Activity.due_date, Activity.id)
                    .limit(50),
                    Activity,
                    column[key],
                )
            ).all()
            past_rows = db.scalars(
                _through(
                    select(Activity)
                    .where(where, Activity.status == "Completed")
                    .order_by(Activity.completed_at.desc(), Activity.id.desc())
                    .limit(50),
                    Activity,
                    column[key],
                )
            ).all()
            both = _activity_items(db, scope, [*open_rows, *past_rows], with_regarding=False)
            open_items, past_items = both[: len(open_rows)], both[len(open_rows) :]
            note_rows = db.scalars(
                select(Note)
                .where(getattr(Note, column[key]) == row.id)
                .order_by(Note.created_at.desc(), Note.id.desc())
                .limit(50)
            ).all()
            notes = _note_items(db, scope, note_rows, with_regarding=False)
        if key == "leads" and row.status == "Converted":
            for name, link_key, value in (
                ("account", "accounts", row.converted_account_id),
                ("contact", "contacts", row.converted_contact_id),
                ("opportunity", "opportunities", row.converted_opportunity_id),
            ):
                if value is not None:
                    link = _links(db, link_key, [value]).get(value)
                    if link is not None:
                        converted[name] = link
    return Record(
        key=key,
        id=row.id,
        title=title_of(spec, row),
        owner=owner,
        fields=_field_values(db, spec, row),
        values=values,
        created_at=row.created_at,
        updated_at=getattr(row, "updated_at", None),
        can_edit=can,
        edit_rule=rule,
        related=tuple(lists),
        open_activities=tuple(open_items),
        past_activities=tuple(past_items),
        notes=tuple(notes),
        history=_history_entries(db, spec, row.id) if related else (),
        converted=converted,
    )


# -- lead conversion and merge ---------------------------------------------------------------


def conversion_candidates(
    db: Session, actor: Employee, lead_id: int
) -> tuple[Lead, list[duplicates.Candidate], list[duplicates.Candidate]]:
    """The lead, and the accounts and contacts it may already be (for the convert page)."""
    lead = row_of(db, LEADS, lead_id)
    accounts = duplicates.account_matches(db, lead.company)
    account_ids = [a.id for a in accounts]
    contacts = duplicates.contact_matches(
        db, lead.first_name, lead.last_name, lead.email, account_ids[0] if account_ids else None
    )
    return lead, accounts, contacts


def merge_view(db: Session, actor: Employee, key: str, ids: Iterable[Any]) -> MergeView:
    """2 to MERGE_LIMIT records of one mergeable kind side by side, for the merge page."""
    spec = spec_of(key)
    if spec.key not in MERGEABLE:
        raise NotFound(f"{spec.plural} can't be merged.")
    wanted = merge_ids(ids)
    records = tuple(record(db, actor, key, i, related=False) for i in wanted)
    fields_shown = spec.form_fields
    differing = frozenset(
        f.name for f in fields_shown if len({repr(r.values[f.name]) for r in records}) > 1
    )
    return MergeView(key, records, fields_shown, differing)


def merge_ids(ids: Iterable[Any]) -> list[int]:
    """The distinct ids of a merge, in the order given; ValidationError unless there are 2 to
    MERGE_LIMIT of them."""
    wanted: list[int] = []
    for value in ids:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValidationError("Choose records to merge.", "ids")
        if value not in wanted:
            wanted.append(value)
    if not 2 <= len(wanted) <= MERGE_LIMIT:
        raise ValidationError(f"Choose 2 to {MERGE_LIMIT} records to merge.", "ids")
    return wanted


__all__ = [
    "CRM_DEPARTMENTS",
    "MERGEABLE",
    "MERGE_LIMIT",
    "ActivityItem",
    "FieldValue",
    "HistoryEntry",
    "Link",
    "MergeView",
    "NoteItem",
    "Person",
    "Record",
    "RelatedList",
    "conversion_candidates",
    "history",
    "merge_ids",
    "merge_view",
    "people",
    "record",
    "row_of",
    "spec_of",
    "title_of",
    "titles",
]
