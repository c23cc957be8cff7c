"""Type-ahead lookups: what a lookup box offers as one types a name, and what a name typed
without choosing from the list stands for.

A lookup (the web kit's `lookup` macro with lookup.js) posts two inputs: `<name>` holds the id
chosen from the list, `<name>_text` what the box shows. `submitted` reads the pair: the id when
the box still shows that record's name, else the typed text, which the service resolves to the
one record of exactly that name (case ignored) or refuses with a message naming the problem.

Everyone signed in reads every CRM record (see `access`), so the searches cover everything;
people offered to own records are the active employees (former ones only in list filters),
those of the departments that work the CRM first. Searches match every typed word anywhere in
the name (people also by email), exact names first, then names starting with the text, then
by name; at most LIMIT results, each with a
short detail (a title, a city, an account) so that people and companies of the same name can
be told apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from sqlalchemy import case, func, or_, select
from sqlalchemy.orm import Session, aliased

from officegym.apps.web.typeahead import escape_like, query_words
from officegym.seed_data.schema import Employee, Team
from officegym.seed_data.schema.crm import Account, Contact

from .reads import CRM_DEPARTMENTS

LIMIT = 8
TEXT_SUFFIX = "_text"
# Separates a name from its detail in an option's accessible name ("Ada Lovelace — CFO").
DETAIL_SEPARATOR = " — "


class Choice(TypedDict):
    """One option of a lookup: `id` is what the form posts, `label` what the box then shows."""

    id: int | str
    label: str
    detail: str


def _contains(column, word: str):
    return column.like(f"%{escape_like(word)}%", escape="\\")


def _rank(name, q: str):
    """0 for an exact name, 1 for a name starting with `q`, else 2 (case ignored)."""
    text = " ".join(q.split()).lower()
    return case(
        (func.lower(name) == text, 0),
        (func.lower(name).like(f"{escape_like(text)}%", escape="\\"), 1),
        else_=2,
    )


def _told_apart(found: list[Choice], extra: Mapping[Any, str]) -> list[Choice]:
    """The choices, with `extra[id]` added to the detail of any that read the same as another."""
    seen: dict[tuple[str, str], int] = {}
    for choice in found:
        key = (choice["label"].casefold(), choice["detail"].casefold())
        seen[key] = seen.get(key, 0) + 1
    out = []
    for choice in found:
        key = (choice["label"].casefold(), choice["detail"].casefold())
        if seen[key] > 1 and extra.get(choice["id"]):
            more = extra[choice["id"]]
            detail = f"{choice['detail']} · {more}" if choice["detail"] else more
            choice = Choice(id=choice["id"], label=choice["label"], detail=detail)
        out.append(choice)
    return out


# -- searches -----------------------------------------------------------------------------------


def people(
    db: Session, actor: Employee, q: str, *, former: bool = False, scopes: bool = False
) -> list[Choice]:
    """Employees whose name or email holds every word of `q`: active ones, and with `former`
    those who left too (marked so). `scopes` adds "Me" and "My team" (list filters)."""
    words = query_words(q)
    text = " ".join(words).lower()
    found: list[Choice] = []
    if scopes:
        if "me".startswith(text) or text in ("me", "myself"):
            found.append(Choice(id="me", label="Me", detail=actor.display_name))
        if not text or "my team".startswith(text) or text == "team":
            found.append(Choice(id="team", label="My team", detail="you and your reports"))
    statement = select(
        Employee.id, Employee.display_name, Employee.title, Employee.email, Employee.is_active
    ).join(Team, Team.id == Employee.team_id)
    for word in words:
        statement = statement.where(
            or_(_contains(Employee.display_name, word), _contains(Employee.email, word))
        )
    if not former:
        statement = statement.where(Employee.is_active)
    statement = statement.order_by(
        _rank(Employee.display_name, text),
        Team.department.not_in(CRM_DEPARTMENTS),
        Employee.display_name,
        Employee.id,
    ).limit(LIMIT - len(found))
    emails = {}
    for emp_id, name, title, email, active in db.execute(statement):
        detail = title if active else f"{title} · has left"
        found.append(Choice(id=emp_id, label=name, detail=detail))
        emails[emp_id] = email
    return _told_apart(found, emails)


def accounts(db: Session, q: str) -> list[Choice]:
    """Accounts whose name holds every word of `q`, with their city (or type)."""
    words = query_words(q)
    owner = aliased(Employee)
    statement = select(
        Account.id, Account.name, Account.billing_city, Account.account_type, owner.display_name
    ).join(owner, owner.id == Account.owner_id)
    for word in words:
        statement = statement.where(_contains(Account.name, word))
    statement = statement.order_by(
        _rank(Account.name, " ".join(words)), Account.name, Account.id
    ).limit(LIMIT)
    found, owners = [], {}
    for account_id, name, city, kind, owner_name in db.execute(statement):
        found.append(Choice(id=account_id, label=name, detail=city or kind))
        owners[account_id] = f"owner {owner_name}"
    return _told_apart(found, owners)


def contacts(db: Session, q: str, account_id: int | None = None) -> list[Choice]:
    """Contacts whose name or email holds every word of `q`, with their account (or title);
    the contacts of `account_id` come first."""
    words = query_words(q)
    full = Contact.first_name + " " + Contact.last_name
    statement = select(Contact.id, full, Account.name, Contact.title, Contact.email).outerjoin(
        Account, Account.id == Contact.account_id
    )
    for word in words:
        statement = statement.where(or_(_contains(full, word), _contains(Contact.email, word)))
    order: list[Any] = []
    if account_id is not None:
        order.append(case((Contact.account_id == account_id, 0), else_=1))
    order += [_rank(full, " ".join(words)), Contact.last_name, Contact.first_name, Contact.id]
    statement = statement.order_by(*order).limit(LIMIT)
    found, emails = [], {}
    for contact_id, name, account, title, email in db.execute(statement):
        found.append(Choice(id=contact_id, label=name, detail=account or title or ""))
        emails[contact_id] = email or ""
    return _told_apart(found, emails)


# -- names typed without choosing ---------------------------------------------------------------


def _split_detail(text: str) -> tuple[str, str] | None:
    """("Ada Lovelace", "CFO") for an option's name typed in full ("Ada Lovelace — CFO")."""
    if DETAIL_SEPARATOR.strip() not in text:
        return None
    name, _, detail = text.rpartition(DETAIL_SEPARATOR.strip())
    name, detail = name.strip(), detail.strip()
    return (name, detail) if name and detail else None


def people_named(db: Session, text: str) -> list[tuple[int, bool]]:
    """(id, is_active) of every employee whose name or email is `text` (case ignored), or who
    reads as `text` in a lookup ("Name — Title"), by id."""
    wanted = " ".join(text.split()).lower()
    columns = select(Employee.id, Employee.is_active).order_by(Employee.id)
    found = db.execute(
        columns.where(
            (func.lower(Employee.display_name) == wanted) | (func.lower(Employee.email) == wanted)
        )
    ).all()
    parts = _split_detail(wanted)
    if not found and parts:
        found = db.execute(
            columns.where(
                func.lower(Employee.display_name) == parts[0],
                func.lower(Employee.title) == parts[1].removesuffix(" · has left"),
            )
        ).all()
    return [(row[0], bool(row[1])) for row in found]


def accounts_named(db: Session, text: str) -> list[int]:
    """Ids of the accounts named `text` (case ignored), or reading as `text` in a lookup
    ("Name — City")."""
    wanted = " ".join(text.split()).lower()
    columns = select(Account.id).order_by(Account.id)
    found = list(db.scalars(columns.where(func.lower(Account.name) == wanted)))
    parts = _split_detail(wanted)
    if not found and parts:
        found = list(
            db.scalars(
                columns.where(
                    func.lower(Account.name) == parts[0],
                    func.lower(func.coalesce(Account.billing_city, Account.account_type))
                    == parts[1],
                )
            )
        )
    return found


def contacts_named(db: Session, text: str) -> list[int]:
    """Ids of the contacts whose full name is `text` (case ignored), or reading as `text` in
    a lookup ("Name — Account")."""
    wanted = " ".join(text.split()).lower()
    full = func.lower(Contact.first_name + " " + Contact.last_name)
    columns = select(Contact.id).order_by(Contact.id)
    found = list(db.scalars(columns.where(full == wanted)))
    parts = _split_detail(wanted)
    if not found and parts:
        found = list(
            db.scalars(
                columns.outerjoin(Account, Account.id == Contact.account_id).where(
                    full == parts[0], func.lower(Account.name) == parts[1]
                )
            )
        )
    return found


def label_of(db: Session, kind: str, record_id: int) -> str | None:
    """The name a lookup of `kind` (employee, account, contact) shows for `record_id`."""
    if kind == "employee":
        return db.scalar(select(Employee.display_name).where(Employee.id == record_id))
    if kind == "account":
        return db.scalar(select(Account.name).where(Account.id == record_id))
    if kind == "contact":
        full = Contact.first_name + " " + Contact.last_name
        return db.scalar(select(full).where(Contact.id == record_id))
    raise ValueError(f"no lookup for {kind!r}")


def submitted(form: Mapping[str, Any], name: str, label: Callable[[int], str | None]) -> Any:
    """What the lookup `name` of a submitted form stands for: the chosen id (an int) while the
    box still shows its name (`label(id)`), else the typed text ("" for an empty box). A form
    without the box's text input (a script, an old form) posts the id alone: that is used."""
    chosen = str(form.get(name, "") or "").strip()
    text_name = name + TEXT_SUFFIX
    if text_name not in form:
        return chosen
    text = " ".join(str(form.get(text_name) or "").split())
    if not text:
        return ""
    if chosen.isdecimal() and len(chosen) < 12:
        shown = label(int(chosen))
        if shown is not None and " ".join(shown.split()).casefold() == text.casefold():
            return int(chosen)
    return text


__all__ = [
    "DETAIL_SEPARATOR",
    "LIMIT",
    "TEXT_SUFFIX",
    "Choice",
    "accounts",
    "accounts_named",
    "contacts",
    "contacts_named",
    "label_of",
    "people",
    "people_named",
    "submitted",
]
