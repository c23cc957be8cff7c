"""Lead conversion as templates sample and grade it: the leads a goal can name, the accounts
and contacts the convert page matches a lead against, and what converting leaves.

Sampling mirrors the app's own duplicate rules (`officegym.apps.crm.duplicates`) so a lead
picked as "new" converts without the convert page stopping on a probable duplicate.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from officegym.apps.crm.duplicates import company_key, names_alike
from officegym.tasks import expect
from officegym.tasks.match import ci

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


def lead_params(lead: Mapping[str, Any]) -> dict[str, Any]:
    """The params a conversion task keeps of its lead (what `conversion` grades against)."""
    return {
        "lead_id": lead["id"],
        "lead": f"{lead['first_name']} {lead['last_name']}",
        **{key: lead[key] for key in ("first_name", "last_name", "company", "title")},
        **{key: lead[key] for key in ("email", "phone", "source")},
    }


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


__all__ = [
    "PRODUCTS",
    "ContactIndex",
    "account_index",
    "conversion",
    "converted_leads",
    "lead_params",
    "unconverted_leads",
]
