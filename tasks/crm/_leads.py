"""What group C's CRM templates share: picking leads, planted duplicates and their people from
the world, the moves of the lead-conversion and merge pages, and the expectations a merge
leaves behind.

Sampling mirrors the app's own duplicate rules (`officegym.apps.crm.duplicates`) so a lead
picked as "new" converts without the convert page stopping on a probable duplicate.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from officegym.apps.crm.duplicates import company_key, names_alike
from officegym.tasks import expect
from officegym.tasks.match import ci, is_set, squash

from .base import open_record

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

# Products the world's deals are named after ("Cole Ltd — Analytics add-on expansion").
PRODUCTS = (
    "Analytics add-on",
    "API access tier",
    "Enterprise plan",
    "Onboarding package",
    "Platform",
    "Premium Support",
    "Team plan",
)

Row = tuple[Any, ...]
LEAD_COLUMNS = (
    "id",
    "first_name",
    "last_name",
    "company",
    "title",
    "email",
    "phone",
    "source",
    "status",
)


# -- the world -------------------------------------------------------------------------------


def row(world: sqlite3.Connection, table: str, pk: int) -> dict[str, Any]:
    """Row `pk` of `table` as a dict."""
    cursor = world.execute(f"SELECT * FROM {table} WHERE id = ?", (pk,))
    names = [d[0] for d in cursor.description]
    found = cursor.fetchone()
    if found is None:
        raise LookupError(f"{table} has no row {pk}")
    return dict(zip(names, found, strict=True))


def email_of(world: sqlite3.Connection, employee_id: int) -> str:
    return world.execute(
        "SELECT email FROM people_employee WHERE id = ?", (employee_id,)
    ).fetchone()[0]


def owner_or_manager(world: sqlite3.Connection, owner_id: int, manager: bool) -> str:
    """The email of `owner_id`, or with `manager` of their active manager (who may edit their
    team's records too; the owner when there is none)."""
    found = world.execute(
        "SELECT m.email FROM people_employee e JOIN people_employee m ON m.id = e.manager_id "
        "WHERE e.id = ? AND m.is_active",
        (owner_id,),
    ).fetchone()
    return found[0] if manager and found else email_of(world, owner_id)


def _chain(world: sqlite3.Connection, employee_id: int) -> list[int]:
    """`employee_id` and everyone above them in the org chart, nearest first."""
    chain = [employee_id]
    while True:
        (manager,) = world.execute(
            "SELECT manager_id FROM people_employee WHERE id = ?", (chain[-1],)
        ).fetchone()
        if manager is None or manager in chain:
            return chain
        chain.append(manager)


def common_manager(world: sqlite3.Connection, owners: Sequence[int]) -> str:
    """The email of the nearest active employee who may edit records of every one of
    `owners` (one owner: that owner; else their lowest common manager, or an admin)."""
    chains = [_chain(world, o) for o in owners]
    shared = [e for e in chains[0] if all(e in c for c in chains[1:])]
    for employee in shared:
        role, active = world.execute(
            "SELECT role, is_active FROM people_employee WHERE id = ?", (employee,)
        ).fetchone()
        if active and (len(set(owners)) == 1 or role in ("manager", "admin")):
            return email_of(world, employee)
    (admin,) = world.execute(
        "SELECT email FROM people_employee WHERE role = 'admin' AND is_active ORDER BY id"
    ).fetchone()
    return admin


def account_index(world: sqlite3.Connection) -> dict[str, list[tuple[int, str]]]:
    """(id, name) of the accounts by company key (what the convert page matches a lead's
    company on), in id order."""
    index: dict[str, list[tuple[int, str]]] = {}
    for account_id, name in world.execute("SELECT id, name FROM crm_account ORDER BY id"):
        key = company_key(name)
        if key:
            index.setdefault(key, []).append((account_id, name))
    return index


@dataclass(frozen=True)
class ContactIndex:
    """The world's contacts, looked up the way the app's `contact_matches` finds them: by
    email, by account and by last name (all lower-cased)."""

    by_email: Mapping[str, tuple[Row, ...]]
    by_account: Mapping[int, tuple[Row, ...]]
    by_last: Mapping[str, tuple[Row, ...]]

    @classmethod
    def of(cls, world: sqlite3.Connection) -> ContactIndex:
        by_email: dict[str, list[Row]] = {}
        by_account: dict[int, list[Row]] = {}
        by_last: dict[str, list[Row]] = {}
        for contact in world.execute(
            "SELECT id, first_name, last_name, email, account_id FROM crm_contact ORDER BY id"
        ):
            if contact[3]:
                by_email.setdefault(contact[3].lower(), []).append(contact)
            if contact[4] is not None:
                by_account.setdefault(contact[4], []).append(contact)
            by_last.setdefault(contact[2].lower(), []).append(contact)

        def freeze(index: dict[Any, list[Row]]) -> dict[Any, tuple[Row, ...]]:
            return {key: tuple(rows) for key, rows in index.items()}

        return cls(freeze(by_email), freeze(by_account), freeze(by_last))

    def clash(self, lead: Mapping[str, Any], account_id: int | None) -> bool:
        """Whether converting `lead` into a new contact (at `account_id`, None for a new
        account) would meet a probable duplicate contact, so the convert page stops."""
        email = (lead["email"] or "").strip().lower()
        if email and email in self.by_email:
            return True
        person = " ".join(f"{lead['first_name']} {lead['last_name']}".lower().split())
        near = [
            *self.by_last.get((lead["last_name"] or "").strip().lower(), ()),
            *(self.by_account.get(account_id, ()) if account_id is not None else ()),
        ]
        return any(
            names_alike(person, " ".join(f"{first} {last}".lower().split()))
            and (account_id is None or other_account in (account_id, None))
            for _, first, last, _, other_account in near
        )


def unconverted_leads(world: sqlite3.Connection) -> list[dict[str, Any]]:
    """Open leads of active owners whose full name no other lead has, by id."""
    return _leads(world, "l.status != 'Converted'")


def converted_leads(world: sqlite3.Connection) -> list[dict[str, Any]]:
    """Converted leads of active owners whose full name no other lead has, by id."""
    return _leads(world, "l.status = 'Converted'")


def _leads(world: sqlite3.Connection, status: str) -> list[dict[str, Any]]:
    rows = world.execute(
        f"""
        SELECT l.id, l.first_name, l.last_name, l.company, l.title, l.email, l.phone, l.source,
               l.status, l.owner_id
        FROM crm_lead l JOIN people_employee e ON e.id = l.owner_id
        WHERE {status} AND e.is_active
          AND (SELECT count(*) FROM crm_lead o
               WHERE o.first_name = l.first_name AND o.last_name = l.last_name) = 1
        ORDER BY l.id
        """
    ).fetchall()
    return [dict(zip((*LEAD_COLUMNS, "owner_id"), r, strict=True)) for r in rows]


def references(world: sqlite3.Connection, table: str, ids: Sequence[int]) -> list[list[Any]]:
    """[table, pk, column] of every row outside `table`'s history that points at one of
    `ids` of `table` (what a merge re-points at the record kept), in a stable order."""
    if not ids:
        return []
    found: list[list[Any]] = []
    tables = [
        name
        for (name,) in world.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
    ]
    marks = ", ".join("?" for _ in ids)
    for other in tables:
        if other == f"{table}_history":
            continue
        keys = world.execute(f"PRAGMA foreign_key_list('{other}')").fetchall()
        for column in sorted(k[3] for k in keys if k[2] == table):
            rows = world.execute(
                f"SELECT id FROM {other} WHERE {column} IN ({marks}) ORDER BY id", tuple(ids)
            ).fetchall()
            found += [[other, pk, column] for (pk,) in rows if not (other == table and pk in ids)]
    return found


# -- the pages -------------------------------------------------------------------------------


def open_lead(actions: PageActions, name: str) -> None:
    """Open the lead called `name` from the CRM's global search."""
    open_record(actions, "Leads", name)


def open_duplicate_group(actions: PageActions, section: str, title: str) -> None:
    """From anywhere in the CRM: the Duplicates page of `section` ("Accounts", "Contacts"),
    then "Compare and merge" on the group headed by the record called `title`."""
    actions.click(actions.find("link", "Duplicates", exact=True))
    tabs = actions.find("navigation", "Object", exact=True)
    actions.click(actions.find("link", section, exact=True, within=tabs))
    heading = f"{title} — "
    seen = False
    for node in actions.nodes:
        if node.role == "heading" and squash(node.name).startswith(heading):
            seen = True
        elif seen and node.bid and node.role == "link" and node.name == "Compare and merge":
            actions.click(node.bid)
            return
    raise LookupError(f"no duplicate group headed {title!r}")


def merge_column(actions: PageActions, title: str) -> int:
    """On the merge page: the 0-based column of the record called `title`."""
    headers = [
        squash(n.name)
        for n in actions.nodes
        if n.role == "columnheader" and squash(n.name) != "Field"
    ]
    for index, header in enumerate(headers):
        if header.startswith(f"{title} · "):
            return index
    raise LookupError(f"the merge page has no column for {title!r}; columns: {headers}")


def merge_records(actions: PageActions, keep: int, picks: Mapping[str, int]) -> None:
    """On the merge page: keep the record of column `keep`, take each field labelled in
    `picks` from the record of the given column (fields whose values differ), and merge."""
    actions.click(actions.find("radio", "Keep this record", exact=True, nth=keep))
    for label, column in picks.items():
        radios = actions.find_all("radio", f"(keep for {label})")
        if radios:
            actions.click(radios[column])
    actions.click(actions.find("button", "Merge", exact=True))


def convert_form(actions: PageActions, opportunity: str | None) -> None:
    """On the convert page: name the opportunity (or create none) and press Convert."""
    if opportunity:
        actions.fill(actions.find("textbox", "Opportunity name", exact=True), opportunity)
    else:
        actions.uncheck(actions.find("checkbox", "Create an opportunity", exact=True))
    actions.click(actions.find("button", "Convert", exact=True))


# -- grading ---------------------------------------------------------------------------------


def conversion(params: Mapping[str, Any], account: Any) -> list[expect.Expectation]:
    """What converting the lead of `params` leaves: a contact copied from the lead at
    `account` (an id, or a reference to a new account's row), the opportunity if one was
    asked for, and the lead marked Converted and pointing at them.

    The product copies the lead's title, email and phone onto the contact and its source onto
    the opportunity (`service.convert_lead`), so those columns are named with the lead's
    values; every other column a user could fill in must stay blank (`expect.BLANKS`)."""
    contact = expect.inserted(
        "crm_contact",
        name=f"contact {params['lead']} created",
        account_id=account,
        first_name=params["first_name"],
        last_name=params["last_name"],
        title=params["title"],
        email=params["email"],
        phone=params["phone"],
    )
    checks: list[expect.Expectation] = [contact]
    links: dict[str, Any] = {}
    if params["opportunity"]:
        deal = expect.inserted(
            "crm_opportunity",
            name=f"opportunity {params['opportunity']} created",
            columns={"name": ci(params["opportunity"])},
            account_id=account,
            primary_contact_id=contact.pk,
            lead_source=params["source"],
        )
        checks.append(deal)
        links["converted_opportunity_id"] = deal.pk
    checks.append(
        expect.updated(
            "crm_lead",
            params["lead_id"],
            name=f"lead {params['lead']} converted",
            status="Converted",
            converted_account_id=account,
            converted_contact_id=contact.pk,
            **links,
        )
    )
    return checks


def merged(
    table: str,
    master: int,
    others: Sequence[int],
    changes: Mapping[str, Any],
    moved: Sequence[Sequence[Any]],
) -> list[expect.Expectation]:
    """What merging `others` into `master` of `table` leaves: the others deleted (their
    history with them), the master changed by `changes` (at least its stamp: the merge always
    touches it) and every row in `moved` ([table, pk, column]) re-pointed at the master.

    The merge's point is the records going away: the master's new values and the moved rows
    only count once that happened (`core=False`), so setting the asked values on the master
    without merging earns nothing."""
    checks: list[expect.Expectation] = [
        expect.deleted(table, pk, name=f"{table} #{pk} merged away") for pk in others
    ]
    checks.append(
        expect.updated(
            table,
            master,
            name=f"{table} #{master} kept",
            core=False,
            columns=dict(changes) or {"updated_at": is_set()},
        )
    )
    for other, pk, column in moved:
        checks.append(
            expect.updated(
                other,
                pk,
                name=f"{other} #{pk} moved to the kept record",
                core=False,
                columns={column: master},
            )
        )
    return checks


__all__ = [
    "PRODUCTS",
    "ContactIndex",
    "account_index",
    "common_manager",
    "conversion",
    "convert_form",
    "converted_leads",
    "email_of",
    "merge_column",
    "merge_records",
    "merged",
    "open_duplicate_group",
    "open_lead",
    "owner_or_manager",
    "references",
    "row",
    "unconverted_leads",
]
