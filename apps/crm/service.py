"""The CRM's domain operations: the only code that writes CRM tables.

Every function takes the caller's session `db` and works inside its transaction (the web kit
commits a request's transaction on success and rolls it back on any error), so each operation,
bulk ones included, is all-or-nothing; nothing here commits. `actor` is the signed-in employee.
Times come from the world clock: one `stamp()` per write operation, shared by every row it
touches. New rows take SQLite's next rowid, so the same actions give the same ids.

Edits follow `access` (owner and role); a refused edit raises Forbidden before anything is
written. The one change outside CRM tables: merging re-points other apps' rows from the records
merged away to the one kept, because the rows they point at are deleted; booking reservations
move through booking's own service (`move_account_reservations`). Every change to an account,
contact, lead or opportunity adds one row per changed field to that object's history table,
with who and when. What the pages show is read by `reads`; the dry runs of a bulk change
(`bulk_plan`) and of an import (`plan_import`) are here because they are those writes'
validation.

Errors: ValidationError (bad input, with a message per field), NotFound, Forbidden, Conflict
(a converted lead, a record other rows still point at) and its `LikelyDuplicate` (a probable
duplicate, with the candidates).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete as sql_delete
from sqlalchemy import func, insert, select
from sqlalchemy import update as sql_update
from sqlalchemy.orm import Session

from officegym.apps.booking import service as booking_service
from officegym.apps.web.errors import AppError, Conflict, Forbidden, NotFound, ValidationError
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.clock import stamp
from officegym.seed_data.schema import Base, Employee
from officegym.seed_data.schema.crm import Account, Contact, Opportunity

from . import csvio, duplicates, lookups
from .access import edit_scope, owner_of, require_edit
from .duplicates import LikelyDuplicate
from .fields import (
    ACCOUNTS,
    CONTACTS,
    LEADS,
    LOST,
    OBJECTS,
    OPPORTUNITIES,
    STAGE_PROBABILITY,
    WON,
    Field,
    FieldError,
    ObjectType,
    parse,
    stored_text,
)
from .listing import quarter_of
from .reads import MERGEABLE, Link, merge_ids, row_of, spec_of, title_of

BULK_FIELDS = {
    "accounts": ("owner_id",),
    "contacts": ("owner_id",),
    "leads": ("owner_id", "status"),
    "opportunities": ("owner_id", "stage"),
    "activities": ("owner_id", "status"),
}


# -- what writes return ----------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    field: str
    old: Any
    new: Any


@dataclass(frozen=True)
class BulkPlan:
    """What a bulk change would do, for the confirmation step."""

    key: str
    field: Field
    value: Any
    value_label: str
    records: tuple[Link, ...]
    forbidden: tuple[Link, ...]
    unchanged: int


@dataclass(frozen=True)
class Conversion:
    account_id: int
    contact_id: int
    opportunity_id: int | None
    created_account: bool
    created_contact: bool


@dataclass(frozen=True)
class ImportReport:
    """An import's outcome: the rows written (all or none) and every rejected row's reasons."""

    imported: int
    rejected: tuple[csvio.RowResult, ...]
    contact_ids: tuple[int, ...]
    total_rows: int


# -- validation -------------------------------------------------------------------------------


def _lookup_account(db: Session, value: Any, label: str) -> int:
    if isinstance(value, int):
        if db.get(Account, value) is None:
            raise FieldError(f"{label}: no account has the id {value}.")
        return value
    text = " ".join(str(value).split())
    ids = lookups.accounts_named(db, text)
    if not ids:
        raise FieldError(
            f"No account named “{text}”: check the spelling, or pick one from the list."
        )
    if len(ids) > 1:
        raise FieldError(f"{len(ids)} accounts are named “{text}”: pick one from the list.")
    return ids[0]


def _lookup_contact(db: Session, value: Any, label: str, account_id: int | None) -> int:
    if isinstance(value, int):
        if db.get(Contact, value) is None:
            raise FieldError(f"{label}: no contact has the id {value}.")
        return value
    text = " ".join(str(value).split())
    ids = lookups.contacts_named(db, text)
    if account_id is not None and len(ids) > 1:
        at_account = select(Contact.id).where(Contact.id.in_(ids), Contact.account_id == account_id)
        ids = list(db.scalars(at_account.order_by(Contact.id))) or ids
    if not ids:
        raise FieldError(
            f"No contact named “{text}”: check the spelling, or pick one from the list."
        )
    if len(ids) > 1:
        raise FieldError(f"{len(ids)} contacts are named “{text}”: pick one from the list.")
    return ids[0]


def _lookup_employee(db: Session, value: Any, label: str) -> int:
    """The active employee `value` names: an id, an email, or a name no one else has."""
    if isinstance(value, int):
        employee = db.get(Employee, value)
        if employee is None:
            raise FieldError(f"{label}: choose someone from the company directory.")
    else:
        text = " ".join(str(value).split())
        found = lookups.people_named(db, text)
        active = [i for i, is_active in found if is_active]
        if len(active) > 1:
            raise FieldError(f"Several people are named “{text}”: pick one from the list.")
        if not found:
            raise FieldError(f"No owner named “{text}”: pick someone from the list.")
        employee = db.get(Employee, active[0] if active else found[0][0])
    if not employee.is_active:
        raise FieldError(f"{label}: {employee.display_name} has left and can't own records.")
    return employee.id


def _lookup_opportunity(db: Session, value: Any, label: str) -> int:
    if not isinstance(value, int) or db.get(Opportunity, value) is None:
        raise FieldError(f"{label}: no such opportunity.")
    return value


def _clean(
    db: Session, spec: ObjectType, values: Mapping[str, Any], row: Any | None
) -> dict[str, Any]:
    """Parse and check `values` for `spec` (all fields when creating, else those given).

    Raises ValidationError with one message per bad field; returns stored values by field.
    """
    errors: dict[str, str] = {}
    clean: dict[str, Any] = {}
    unknown = sorted(k for k in values if not spec.has(k))
    if unknown:
        raise ValidationError(f"{spec.plural} have no field called “{unknown[0]}”.", unknown[0])
    for f in spec.fields:
        if f.name not in values:
            if row is None and f.required and f.name not in _DEFAULTED.get(spec.key, ()):
                errors[f.name] = f"{f.label} is required."
            continue
        try:
            clean[f.name] = parse(f, values[f.name])
        except FieldError as error:
            errors[f.name] = str(error)
            continue
        column = spec.model.__table__.c[f.name]
        if clean[f.name] is None and f.kind in ("text", "textarea") and not column.nullable:
            clean[f.name] = ""  # an emptied optional text stores "" where NULL isn't allowed
    # References, once their text parsed.
    account_hint = clean.get("account_id") if isinstance(clean.get("account_id"), int) else None
    for name, value in list(clean.items()):
        f = spec.field(name)
        if value is None or not f.is_reference or name in errors:
            continue
        try:
            if f.kind == "account":
                clean[name] = _lookup_account(db, value, f.label)
                account_hint = clean[name] if name == "account_id" else account_hint
            elif f.kind == "employee":
                clean[name] = _lookup_employee(db, value, f.label)
            elif f.kind == "opportunity":
                clean[name] = _lookup_opportunity(db, value, f.label)
        except FieldError as error:
            errors[name] = str(error)
    for name, value in list(clean.items()):
        f = spec.field(name)
        if value is None or f.kind != "contact" or name in errors:
            continue
        if account_hint is None and row is not None:
            account_hint = getattr(row, "account_id", None)
        try:
            clean[name] = _lookup_contact(db, value, f.label, account_hint)
        except FieldError as error:
            errors[name] = str(error)
    _check_record(db, spec, clean, row, errors)
    if errors:
        raise ValidationError.of({f.name: errors[f.name] for f in spec.fields if f.name in errors})
    return clean


# Required fields the service fills in when a new record leaves them out.
_DEFAULTED = {
    "accounts": ("account_type", "owner_id"),
    "contacts": ("owner_id",),
    "leads": ("status", "owner_id"),
    "opportunities": ("stage", "owner_id"),
    "activities": ("kind", "status", "priority", "owner_id"),
    "notes": (),
}


def _check_record(
    db: Session, spec: ObjectType, clean: dict[str, Any], row: Any | None, errors: dict
) -> None:
    """Rules across fields and against the record as stored."""

    def current(name: str) -> Any:
        if name in clean:
            return clean[name]
        return getattr(row, name, None) if row is not None else None

    # Only a close date being set is checked: a form that sends back an old deal's stored date
    # unchanged must still save its other fields.
    moved = "close_date" in clean and (row is None or clean["close_date"] != row.close_date)
    if spec.key == "opportunities" and moved and "close_date" not in errors:
        created = row.created_at.date() if row is not None else world_now(db).date()
        close = clean["close_date"]
        if close is not None and close < created:
            when = "today" if row is None else f"the opportunity was created ({created:%Y-%m-%d})"
            errors["close_date"] = f"Close date can't be before {when}."
    lost = current("stage") == LOST
    if spec.key == "opportunities" and clean.get("loss_reason") and not lost:
        errors.setdefault("loss_reason", "Only Closed Lost opportunities have a loss reason.")
    if spec.key == "accounts" and clean.get("parent_account_id") is not None and row is not None:
        parent = clean["parent_account_id"]
        seen = {row.id}
        while parent is not None and "parent_account_id" not in errors:
            if parent in seen:
                errors["parent_account_id"] = "An account can't be its own parent."
            seen.add(parent)
            parent = db.scalar(select(Account.parent_account_id).where(Account.id == parent))
    if spec.key == "notes" and row is None:
        links = [current(n) for n in ("account_id", "contact_id", "opportunity_id")]
        if all(link is None for link in links) and "title" not in errors:
            errors["title"] = "Attach the note to an account, contact or opportunity."
    if spec.key == "leads" and row is not None and row.status == "Converted" and clean:
        raise Conflict(
            "This lead was converted; edit the account, contact or opportunity it became."
        )


# -- history rows -----------------------------------------------------------------------------


def _history(
    db: Session,
    spec: ObjectType,
    record_id: int,
    actor_id: int,
    at: datetime,
    changes: Sequence[tuple[str, Any, Any]],
) -> None:
    if spec.history is None or not changes:
        return
    db.execute(
        insert(spec.history),
        [
            {
                spec.history_key: record_id,
                "field": name,
                "old_value": stored_text(old),
                "new_value": stored_text(new),
                "changed_by_id": actor_id,
                "changed_at": at,
            }
            for name, old, new in changes
        ],
    )


# -- writes: one record -------------------------------------------------------------------


# A call or email is logged once it happened, so it is stored done unless the caller says
# otherwise; a task or meeting is still to do. The record page's composers and the JSON API
# both rely on this one default.
_NEW_ACTIVITY_STATUS = {"call": "Completed", "email": "Completed"}


def _new_row_defaults(db: Session, actor: Employee, spec: ObjectType, clean: dict) -> dict:
    values = dict(clean)
    if spec.owner_field == "owner_id":
        values["owner_id"] = values.get("owner_id") or actor.id
    else:
        values["author_id"] = actor.id
    if spec.key == "accounts":
        values["account_type"] = values.get("account_type") or "Prospect"
    elif spec.key == "leads":
        values["status"] = values.get("status") or "New"
    elif spec.key == "opportunities":
        values["stage"] = values.get("stage") or "Prospecting"
        if values.get("probability") is None or values["stage"] in (WON, LOST):
            values["probability"] = STAGE_PROBABILITY[values["stage"]]
    elif spec.key == "activities":
        values["kind"] = values.get("kind") or "task"
        values["status"] = values.get("status") or _NEW_ACTIVITY_STATUS.get(values["kind"], "Open")
        values["priority"] = values.get("priority") or "Normal"
        values["description"] = values.get("description") or ""
        _fill_activity_links(db, values)
    elif spec.key == "notes":
        _fill_activity_links(db, values)
    return values


def _fill_activity_links(db: Session, values: dict) -> None:
    """An activity or note about a deal or contact also shows on that record's account."""
    if values.get("account_id") is not None:
        return
    if values.get("opportunity_id") is not None:
        values["account_id"] = db.scalar(
            select(Opportunity.account_id).where(Opportunity.id == values["opportunity_id"])
        )
    elif values.get("contact_id") is not None:
        values["account_id"] = db.scalar(
            select(Contact.account_id).where(Contact.id == values["contact_id"])
        )


def _duplicates_for(db: Session, spec: ObjectType, values: Mapping, exclude: int | None) -> list:
    if spec.key == "accounts" and values.get("name"):
        return duplicates.account_matches(db, values["name"], exclude)
    if spec.key == "contacts":
        return duplicates.contact_matches(
            db,
            values.get("first_name"),
            values.get("last_name"),
            values.get("email"),
            values.get("account_id"),
            exclude,
        )
    if spec.key == "leads":
        return duplicates.lead_matches(
            db,
            values.get("first_name"),
            values.get("last_name"),
            values.get("email"),
            values.get("company"),
            exclude,
        )
    return []


def _refuse_duplicates(spec: ObjectType, found: list[duplicates.Candidate]) -> None:
    if found:
        names = ", ".join(f"{c.title} ({c.reason.lower()})" for c in found[:3])
        raise LikelyDuplicate(
            f"This {spec.noun} looks like one that already exists: {names}. Open the existing "
            f"record instead, or confirm that this is a different {spec.noun}.",
            found,
        )


def create(
    db: Session,
    actor: Employee,
    key: str,
    values: Mapping[str, Any],
    *,
    allow_duplicate: bool = False,
) -> int:
    """Create a record of kind `key` from typed `values`; returns its id.

    Accounts, contacts and leads that look like an existing record raise Conflict (with the
    candidates) unless `allow_duplicate`.
    """
    spec = spec_of(key)
    clean = _clean(db, spec, values, None)
    row_values = _new_row_defaults(db, actor, spec, clean)
    if not allow_duplicate:
        _refuse_duplicates(spec, _duplicates_for(db, spec, row_values, None))
    return _insert(db, actor, spec, row_values, stamp(db))


def _insert(
    db: Session, actor: Employee, spec: ObjectType, values: dict, at: datetime, event="created"
) -> int:
    model = spec.model
    row = model(**values, created_at=at)
    if hasattr(model, "updated_at"):
        row.updated_at = at
    if spec.key == "activities" and values.get("status") == "Completed":
        row.completed_at = at
    db.add(row)
    db.flush()
    _history(db, spec, row.id, actor.id, at, [(event, None, None)])
    return row.id


def _apply(
    db: Session,
    actor: Employee,
    spec: ObjectType,
    row: Any,
    clean: Mapping[str, Any],
    at: datetime | None = None,
) -> list[Change]:
    """Write the fields of `clean` that differ from `row`, with history; returns the changes."""
    clean = dict(clean)
    if spec.key == "opportunities":
        stage = clean.get("stage", row.stage)
        if stage != row.stage:
            same = clean.get("probability", row.probability) == row.probability
            if same or stage in (WON, LOST):
                clean["probability"] = STAGE_PROBABILITY[stage]
        elif stage in (WON, LOST) and "probability" in clean:
            clean["probability"] = STAGE_PROBABILITY[stage]
        if clean.get("probability", row.probability) is None:
            clean["probability"] = STAGE_PROBABILITY[stage]
        if stage != LOST:  # reopened or won: the loss reason no longer applies
            clean["loss_reason"] = None
    changes = [
        Change(name, getattr(row, name), value)
        for name, value in clean.items()
        if getattr(row, name) != value
    ]
    if not changes:
        return []
    at = at or stamp(db)
    for change in changes:
        setattr(row, change.field, change.new)
    if spec.key == "activities" and any(c.field == "status" for c in changes):
        row.completed_at = at if row.status == "Completed" else None
    if hasattr(row, "updated_at"):
        row.updated_at = at
    db.flush()
    _history(db, spec, row.id, actor.id, at, [(c.field, c.old, c.new) for c in changes])
    return changes


def update(
    db: Session,
    actor: Employee,
    key: str,
    record_id: int,
    values: Mapping[str, Any],
    *,
    allow_duplicate: bool = True,
) -> list[Change]:
    """Change the given fields of a record; returns what changed (nothing if all equal).

    Fields left out of `values` keep their values; fields the forms don't show (an activity's
    or note's links) can be sent unchanged but not changed. A stage change on an opportunity also sets
    the probability to the stage's default unless the same call changes the probability.
    """
    spec = spec_of(key)
    row = row_of(db, spec, record_id)
    require_edit(db, actor, spec, row)
    clean = _clean(db, spec, values, row)
    fixed = [n for n, v in clean.items() if not spec.field(n).form and v != getattr(row, n)]
    if fixed:
        label = spec.field(fixed[0]).label
        raise ValidationError(
            f"The {label.lower()} of {spec.singular.lower()} records is set when they are created "
            "and can't be changed.",
            fixed[0],
        )
    if not allow_duplicate and spec.key in MERGEABLE:
        merged = {f.name: getattr(row, f.name) for f in spec.fields} | clean
        _refuse_duplicates(spec, _duplicates_for(db, spec, merged, row.id))
    return _apply(db, actor, spec, row, clean)


def update_field(
    db: Session, actor: Employee, key: str, record_id: int, name: str, raw: Any
) -> list[Change]:
    """Inline edit: change one field."""
    spec = spec_of(key)
    if not spec.has(name) or not spec.field(name).form:
        raise ValidationError(f"{spec.plural} have no editable field called “{name}”.", name)
    return update(db, actor, key, record_id, {name: raw})


def move_stage(db: Session, actor: Employee, opportunity_id: int, stage: Any) -> list[Change]:
    """Move a deal to another stage (the pipeline board's move)."""
    return update(db, actor, "opportunities", opportunity_id, {"stage": stage})


def complete_activity(db: Session, actor: Employee, activity_id: int) -> list[Change]:
    return update(db, actor, "activities", activity_id, {"status": "Completed"})


def _references(spec: ObjectType) -> list[tuple[Any, Any]]:
    """(table, column) of every foreign key pointing at `spec`'s table, history aside."""
    history = spec.history.__tablename__ if spec.history is not None else None
    found = []
    for table in Base.metadata.sorted_tables:
        if table.name == history:
            continue
        for fk in sorted(table.foreign_keys, key=lambda f: f.parent.name):
            if fk.column.table.name == spec.table:
                found.append((table, fk.parent))
    return found


def delete(db: Session, actor: Employee, key: str, record_id: int) -> str:
    """Delete a record nothing else points at; returns its title.

    Records that other rows still refer to (an account with contacts, a contact on a deal)
    raise Conflict: merge them into another record instead.
    """
    spec = spec_of(key)
    row = row_of(db, spec, record_id)
    require_edit(db, actor, spec, row)
    if spec.key == "leads" and row.status == "Converted":
        raise Conflict("Converted leads are kept as a record of the conversion.")
    uses = []
    for table, column in _references(spec):
        count = db.scalar(select(func.count()).select_from(table).where(column == row.id))
        if count:
            noun = table.name.split("_", 1)[1].replace("_", " ")
            uses.append(f"{count} {noun}{'' if count == 1 else 's'}")
    if uses:
        raise Conflict(
            f"{title_of(spec, row)} can't be deleted: {', '.join(uses)} still refer to it. "
            "Merge it into another record instead."
        )
    title = title_of(spec, row)
    if spec.history is not None:
        db.execute(
            sql_delete(spec.history).where(getattr(spec.history, spec.history_key) == row.id)
        )
    db.delete(row)
    db.flush()
    return title


# -- writes: bulk ---------------------------------------------------------------------------


def _bulk_field(spec: ObjectType, name: str) -> Field:
    if name not in BULK_FIELDS.get(spec.key, ()):
        allowed = " or ".join(spec.field(n).label for n in BULK_FIELDS.get(spec.key, ()))
        raise ValidationError(
            f"Bulk changes to {spec.plural.lower()} can set {allowed or 'nothing'}.", "field"
        )
    return spec.field(name)


def _bulk_ids(ids: Iterable[Any]) -> list[int]:
    clean: list[int] = []
    for value in ids:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValidationError("Choose records from the list.", "ids")
        if value not in clean:
            clean.append(value)
    if not clean:
        raise ValidationError("Select at least one record.", "ids")
    return clean


def bulk_plan(
    db: Session, actor: Employee, key: str, ids: Iterable[Any], name: str, raw: Any
) -> BulkPlan:
    """Check a bulk change without writing: the records, and any the actor can't edit."""
    spec = spec_of(key)
    f = _bulk_field(spec, name)
    wanted = _bulk_ids(ids)
    try:
        value = parse(f, raw)
        if f.kind == "employee" and value is not None:
            value = _lookup_employee(db, value, f.label)
    except FieldError as error:
        raise ValidationError(str(error), "value") from None
    if value is None:
        raise ValidationError(f"Choose the new {f.label.lower()}.", "value")
    rows = {r.id: r for r in db.scalars(select(spec.model).where(spec.model.id.in_(wanted)))}
    missing = [i for i in wanted if i not in rows]
    if missing:
        raise NotFound(f"{len(missing)} of the selected {spec.plural.lower()} no longer exist.")
    scope = edit_scope(db, actor)
    records, forbidden, unchanged = [], [], 0
    for record_id in wanted:
        row = rows[record_id]
        link = Link(spec.key, row.id, title_of(spec, row))
        if not scope.allows(owner_of(spec, row)):
            forbidden.append(link)
        records.append(link)
        unchanged += getattr(row, name) == value
    label = db.get(Employee, value).display_name if f.kind == "employee" else f.choice_label(value)
    return BulkPlan(spec.key, f, value, label, tuple(records), tuple(forbidden), unchanged)


def bulk_update(
    db: Session, actor: Employee, key: str, ids: Iterable[Any], name: str, raw: Any
) -> int:
    """Set one field on many records at once; all of them or, if any is refused, none.

    Only owner (every object), stage (opportunities) and status (leads, activities) can be set
    in bulk. Returns how many records changed.
    """
    plan = bulk_plan(db, actor, key, ids, name, raw)
    if plan.forbidden:
        names = ", ".join(link.title for link in plan.forbidden[:3])
        more = len(plan.forbidden) - 3
        raise Forbidden(
            f"You can't edit {len(plan.forbidden)} of the selected records ({names}"
            f"{f' and {more} more' if more > 0 else ''}). {edit_scope(db, actor).rule()} "
            "Nothing was changed."
        )
    if name == "status" and key == "leads" and plan.value == "Converted":
        raise ValidationError("Convert leads one at a time from the lead's page.", "value")
    spec = OBJECTS[key]
    at = stamp(db)
    changed = 0
    rows = db.scalars(select(spec.model).where(spec.model.id.in_([r.id for r in plan.records])))
    by_id = {r.id: r for r in rows}
    for link in plan.records:
        row = by_id[link.id]
        if spec.key == "leads" and row.status == "Converted":
            raise Conflict(f"{link.title} was converted and can't be changed.")
        changed += bool(_apply(db, actor, spec, row, {name: plan.value}, at))
    return changed


# -- writes: activities and notes -------------------------------------------------------------


def log_activity(db: Session, actor: Employee, values: Mapping[str, Any]) -> int:
    """Log a call, meeting or email, or create a task, about any record (everyone may)."""
    return create(db, actor, "activities", values)


def add_note(db: Session, actor: Employee, values: Mapping[str, Any]) -> int:
    return create(db, actor, "notes", values)


# -- writes: lead conversion ----------------------------------------------------------------


def convert_lead(
    db: Session,
    actor: Employee,
    lead_id: int,
    *,
    account_id: int | None = None,
    account_name: str | None = None,
    contact_id: int | None = None,
    create_opportunity: bool = True,
    opportunity_name: str | None = None,
    owner_id: Any = None,
    allow_duplicate: bool = False,
) -> Conversion:
    """Turn a lead into an account, a contact and (optionally) an opportunity.

    With `account_id` the lead joins that account, else a new account is made (named
    `account_name`, default the lead's company); with `contact_id` (a contact of that account)
    the lead is that person, else a new contact is made. Creating an account or contact that
    looks like an existing one raises Conflict with the candidates unless `allow_duplicate`.
    The lead becomes Converted and points at what it became.
    """
    lead = row_of(db, LEADS, lead_id)
    require_edit(db, actor, LEADS, lead)
    if lead.status == "Converted":
        raise Conflict("This lead was already converted.")
    errors: dict[str, str] = {}
    owner = actor.id
    if owner_id not in (None, ""):
        try:
            owner = _lookup_employee(db, parse(LEADS.field("owner_id"), owner_id), "Record owner")
        except FieldError as error:
            errors["owner_id"] = str(error)
    account = None
    if account_id is not None:
        account = db.get(Account, account_id) if isinstance(account_id, int) else None
        if account is None:
            errors["account_id"] = "Choose an existing account, or create a new one."
    name = " ".join((account_name or lead.company or "").split())
    if account is None and not name:
        errors["account_name"] = "Name the new account."
    contact = None
    if contact_id is not None:
        contact = db.get(Contact, contact_id) if isinstance(contact_id, int) else None
        if contact is None:
            errors["contact_id"] = "Choose an existing contact, or create a new one."
        elif account is None or contact.account_id != account.id:
            errors["contact_id"] = "The existing contact must belong to the chosen account."
    opp_name = " ".join((opportunity_name or "").split())
    if create_opportunity and len(opp_name) > 200:
        errors["opportunity_name"] = "Opportunity name can be at most 200 characters."
    if errors:
        raise ValidationError.of(errors)
    if not allow_duplicate:
        if account is None:
            _refuse_duplicates(ACCOUNTS, duplicates.account_matches(db, name))
        if contact is None:
            _refuse_duplicates(
                CONTACTS,
                duplicates.contact_matches(
                    db,
                    lead.first_name,
                    lead.last_name,
                    lead.email,
                    account.id if account else None,
                ),
            )

    at = stamp(db)
    created_account = account is None
    if account is None:
        new_id = _insert(
            db,
            actor,
            ACCOUNTS,
            {"name": name, "account_type": "Prospect", "phone": lead.phone, "owner_id": owner},
            at,
        )
        account = db.get(Account, new_id)
    created_contact = contact is None
    if contact is None:
        new_id = _insert(
            db,
            actor,
            CONTACTS,
            {
                "account_id": account.id,
                "first_name": lead.first_name,
                "last_name": lead.last_name,
                "title": lead.title,
                "email": lead.email,
                "phone": lead.phone,
                "owner_id": owner,
            },
            at,
        )
        contact = db.get(Contact, new_id)
    opportunity_id = None
    if create_opportunity:
        _, quarter_end = quarter_of(at.date())
        opportunity_id = _insert(
            db,
            actor,
            OPPORTUNITIES,
            {
                "name": opp_name or f"{account.name} — new business",
                "account_id": account.id,
                "primary_contact_id": contact.id,
                "owner_id": owner,
                "stage": "Prospecting",
                "probability": STAGE_PROBABILITY["Prospecting"],
                "close_date": quarter_end,
                "lead_source": lead.source,
            },
            at,
        )
    before = lead.status
    lead.status = "Converted"
    lead.converted_account_id = account.id
    lead.converted_contact_id = contact.id
    lead.converted_opportunity_id = opportunity_id
    lead.updated_at = at
    db.flush()
    _history(
        db,
        LEADS,
        lead.id,
        actor.id,
        at,
        [("status", before, "Converted"), ("converted", None, account.id)],
    )
    return Conversion(account.id, contact.id, opportunity_id, created_account, created_contact)


# -- writes: merge ----------------------------------------------------------------------------


def merge(
    db: Session,
    actor: Employee,
    key: str,
    ids: Iterable[Any],
    master_id: int,
    picks: Mapping[str, Any] | None = None,
) -> int:
    """Merge 2–3 records into `master_id`, keeping for each field the value of the record
    named in `picks[field]` (default: the master's). Everything that pointed at the others
    (contacts, deals, activities, notes, converted leads, and other apps' rows such as
    reservations) is moved to the master, their history is dropped, and they are deleted.
    The actor must be able to edit every record involved. Returns the master's id."""
    spec = spec_of(key)
    if spec.key not in MERGEABLE:
        raise NotFound(f"{spec.plural} can't be merged.")
    wanted = merge_ids(ids)
    if master_id not in wanted:
        raise ValidationError("Choose which record to keep.", "master_id")
    rows = {i: row_of(db, spec, i) for i in wanted}
    scope = edit_scope(db, actor)
    for row in rows.values():
        require_edit(db, actor, spec, row, scope)
    if spec.key == "leads" and any(r.status == "Converted" for r in rows.values()):
        raise Conflict("Converted leads can't be merged.")
    master = rows[master_id]
    others = [i for i in wanted if i != master_id]
    chosen: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, source in (picks or {}).items():
        if not spec.has(name) or not spec.field(name).form:
            errors[name] = f"{spec.plural} have no field called “{name}”."
        elif source not in rows:
            errors[name] = f"Pick the {spec.field(name).label.lower()} of one of the records."
        else:
            chosen[name] = getattr(rows[source], name)
    if errors:
        raise ValidationError.of(errors)
    if spec.key == "accounts" and chosen.get("parent_account_id") in wanted:
        chosen["parent_account_id"] = None
    at = stamp(db)
    for table, column in _references(spec):
        if table.name == spec.table:  # child accounts of a merged account
            db.execute(
                sql_update(table)
                .where(column.in_(others), table.c.id.not_in(wanted))
                .values({column.name: master_id})
            )
            db.execute(
                sql_update(table)
                .where(column.in_(wanted), table.c.id.in_(wanted))
                .values({column.name: None})
            )
        elif (table.name, column.name) == ("booking_reservation", "account_id"):
            for other in others:
                booking_service.move_account_reservations(db, other, master_id)
        else:
            db.execute(sql_update(table).where(column.in_(others)).values({column.name: master_id}))
    if spec.history is not None:
        db.execute(
            sql_delete(spec.history).where(getattr(spec.history, spec.history_key).in_(others))
        )
    merged_titles = [f"{title_of(spec, rows[i])} (#{i})" for i in others]
    for i in others:
        db.delete(rows[i])
    db.flush()
    db.refresh(master)
    _apply(db, actor, spec, master, chosen, at)
    _history(db, spec, master.id, actor.id, at, [("merged", "; ".join(merged_titles), None)])
    if hasattr(master, "updated_at"):
        master.updated_at = at
    db.flush()
    return master.id


# -- writes: CSV import -------------------------------------------------------------------


def plan_import(
    db: Session, actor: Employee, table: csvio.Table, mapping: Mapping[int, str]
) -> list[csvio.RowResult]:
    """Check every row of a contact import against the fields and the CRM (reads only).

    A row is rejected when a field is invalid, a required field is empty, its account or owner
    doesn't exist, or its email belongs to an existing contact or an earlier row of the file.
    """
    fields_by_column = csvio.check_mapping(CONTACTS, table, mapping)
    accounts: dict[str, list[int]] = {}
    for account_id, name in db.execute(select(Account.id, Account.name)):
        accounts.setdefault(name.lower(), []).append(account_id)
    owners = {
        email.lower(): (emp_id, active)
        for emp_id, email, active in db.execute(
            select(Employee.id, Employee.email, Employee.is_active)
        )
    }
    taken = {e.lower() for e in db.scalars(select(Contact.email).where(Contact.email.is_not(None)))}
    results = []
    for line, cells in table.rows:
        errors: dict[str, str] = {}
        values: dict[str, Any] = {}
        for column, name in fields_by_column.items():
            raw = cells[column] if column < len(cells) else ""
            spec_field = CONTACTS.field(name)
            if spec_field.kind in ("account", "employee"):
                values[name] = raw.strip() or None
                continue
            try:
                values[name] = parse(spec_field, raw)
            except FieldError as error:
                errors[name] = str(error)
        for f in CONTACTS.fields:
            if f.required and f.name != "owner_id" and values.get(f.name) is None:
                errors.setdefault(f.name, f"{f.label} is required.")
        account = values.get("account_id")
        if account is not None:
            found = accounts.get(account.lower(), [])
            if len(found) != 1:
                errors["account_id"] = (
                    f"No account is named “{account}”."
                    if not found
                    else f"{len(found)} accounts are named “{account}”."
                )
            else:
                values["account_id"] = found[0]
        owner = values.get("owner_id")
        if owner is not None:
            match = owners.get(owner.lower())
            if match is None:
                errors["owner_id"] = f"No employee has the email “{owner}”."
            elif not match[1]:
                errors["owner_id"] = f"{owner} has left and can't own records."
            else:
                values["owner_id"] = match[0]
        email = values.get("email")
        if email and "email" not in errors:
            if email.lower() in taken:
                errors["email"] = f"A contact with the email {email} already exists."
            taken.add(email.lower())
        results.append(csvio.RowResult(line, values, errors))
    return results


def import_contacts(
    db: Session, actor: Employee, table: csvio.Table, mapping: Mapping[int, str]
) -> ImportReport:
    """Import contacts from a parsed CSV file with a column → field mapping.

    Not all-or-nothing across the file: rows with errors are rejected and reported row by row,
    and every valid row is imported. The valid rows are written in one transaction, so either
    all of them are imported or, if writing fails, none are. Contacts without an owner column
    belong to the importer. Each imported contact's history says it was imported.
    """
    results = plan_import(db, actor, table, mapping)
    good = [r for r in results if r.ok]
    rejected = tuple(r for r in results if not r.ok)
    ids: list[int] = []
    if good:
        at = stamp(db)
        fields_all = [f.name for f in CONTACTS.fields]
        rows = [
            {name: r.values.get(name) for name in fields_all}
            | {"owner_id": r.values.get("owner_id") or actor.id, "created_at": at}
            | {"updated_at": at}
            for r in good
        ]
        first = (db.scalar(select(func.max(Contact.id))) or 0) + 1
        db.execute(insert(Contact), rows)
        ids = list(db.scalars(select(Contact.id).where(Contact.id >= first).order_by(Contact.id)))
        if len(ids) != len(rows):
            raise AppError("The import was interrupted; nothing was imported.")
        _history_many(db, CONTACTS, ids, actor.id, at, "imported")
    return ImportReport(len(ids), rejected, tuple(ids), len(results))


def _history_many(
    db: Session, spec: ObjectType, ids: Sequence[int], actor_id: int, at: datetime, event: str
) -> None:
    db.execute(
        insert(spec.history),
        [
            {
                spec.history_key: i,
                "field": event,
                "old_value": None,
                "new_value": None,
                "changed_by_id": actor_id,
                "changed_at": at,
            }
            for i in ids
        ],
    )


__all__ = [
    "BULK_FIELDS",
    "BulkPlan",
    "Change",
    "Conversion",
    "ImportReport",
    "add_note",
    "bulk_plan",
    "bulk_update",
    "complete_activity",
    "convert_lead",
    "create",
    "delete",
    "import_contacts",
    "log_activity",
    "merge",
    "move_stage",
    "plan_import",
    "update",
    "update_field",
]
