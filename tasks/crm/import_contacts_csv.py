"""crm.import_contacts_csv — import a CSV file of new contacts at one account through the CRM's
import wizard (upload, map columns, check rows, import).

The file (`new_contacts.csv`, handed to the agent) holds 3-6 people made up from the instance's
rng. Some files name a column in a way the wizard does not recognise ("Work Email", "Direct
Line"), so the agent must map it by hand; half of them hold one row the importer rejects (an
email already in the CRM, an email without a domain, a missing last name), and the request then
asks for the valid rows only.
"""

from __future__ import annotations

import csv
import io
import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import CrmTemplate

FILE = "new_contacts.csv"
FIRST_NAMES = (
    "Aisha", "Bruno", "Camille", "Dmitri", "Elena", "Farah", "Gideon", "Hana", "Ivan", "Jolene",
    "Kofi", "Leona", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Soren", "Tamsin",
    "Umar", "Vera", "Wendell", "Ximena", "Yusuf", "Zara",
)  # fmt: skip
LAST_NAMES = (
    "Abernathy", "Bergstrom", "Castellano", "Delacroix", "Eriksen", "Fairbanks", "Galloway",
    "Halvorsen", "Ibarra", "Jablonski", "Kowalczyk", "Lindqvist", "Marchetti", "Nakamura",
    "Okafor", "Pemberton", "Quintero", "Rasmussen", "Szabo", "Thorne", "Underhill", "Vasquez",
    "Whitlock", "Yamamoto", "Zielinski",
)  # fmt: skip
TITLES = (
    "Controller", "Data Analyst", "Director of IT", "Finance Director", "Head of Procurement",
    "IT Manager", "Operations Manager", "Project Manager", "Senior Buyer", "VP Operations",
)  # fmt: skip
# Header spellings: the wizard maps the first of each pair by itself, not the second.
EMAIL_HEADERS = ("Email", "Work Email")
PHONE_HEADERS = ("Phone", "Direct Line")
BAD_ROWS = ("taken", "no_domain", "no_last_name")

_PHRASINGS = (
    "Import the contacts in {file} into the CRM. They all work at {account}.",
    "Here's a list of new people at {account} ({file}): please add them to the CRM as contacts "
    "with the importer.",
    "Could you load {file} into the CRM? It has new contacts for the {account} account.",
)
_BAD = (
    " One row has a problem: import the valid ones and leave that row out.",
    " One of the rows won't go in; just import the valid ones.",
)


def _domain(website: str) -> str:
    host = website.split("://", 1)[-1].split("/", 1)[0].lower()
    return host.removeprefix("www.")


def _email(pattern: str, first: str, last: str, domain: str) -> str:
    local = {"first.last": f"{first}.{last}", "flast": f"{first[0]}{last}", "first": first}
    return f"{local[pattern].lower()}@{domain}"


@register
class ImportContactsCsv(CrmTemplate):
    id = "crm.import_contacts_csv"
    difficulty = 4
    difficulty_reason = (
        "a three-step import wizard with a file upload, sometimes a column to map by hand, "
        "and a bad row to leave out"
    )
    tags = ("navigation", "form", "multi-step")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        accounts = world.execute(
            """
            SELECT a.id, a.name, a.website, a.phone, a.billing_city, e.email, e.id
            FROM crm_account a JOIN people_employee e ON e.id = a.owner_id
            WHERE e.is_active AND a.website IS NOT NULL AND a.phone IS NOT NULL
              AND lower(a.name) IN (
                  SELECT lower(name) FROM crm_account GROUP BY lower(name) HAVING count(*) = 1)
            ORDER BY a.id
            """
        ).fetchall()
        account_id, account, website, phone, city, user, user_id = rng.choice(accounts)
        domain = _domain(website)
        taken_names = {
            f"{first} {last}".lower()
            for first, last in world.execute(
                "SELECT first_name, last_name FROM crm_contact "
                "UNION SELECT first_name, last_name FROM crm_lead"
            )
        }
        taken_emails = {
            e.lower()
            for (e,) in world.execute("SELECT email FROM crm_contact WHERE email NOT NULL")
        }
        bad = rng.choice(BAD_ROWS) if rng.random() < 0.5 else None
        existing = world.execute(
            "SELECT first_name, last_name, title, email, phone FROM crm_contact "
            "WHERE account_id = ? AND email IS NOT NULL ORDER BY id",
            (account_id,),
        ).fetchall()
        if bad == "taken" and not existing:
            bad = "no_domain"
        count = rng.randint(3, 5) if bad else rng.randint(3, 6)
        pattern = rng.choice(("first.last", "flast", "first"))
        contacts: list[dict[str, Any]] = []
        while len(contacts) < count:
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            email = _email(pattern, first, last, domain)
            names = {f"{c['first_name']} {c['last_name']}".lower() for c in contacts}
            emails = {c["email"] for c in contacts}
            full = f"{first} {last}".lower()
            if full in taken_names or full in names or email in taken_emails or email in emails:
                continue
            digits = "".join(rng.choice("0123456789") for _ in range(4))
            contacts.append(
                {
                    "first_name": first,
                    "last_name": last,
                    "title": rng.choice(TITLES),
                    "email": email,
                    "phone": phone[:-4] + digits if phone[-4:].isdigit() else phone,
                    "mailing_city": city,
                }
            )
        rejected = None
        if bad == "taken":
            first, last, title, email, their_phone = rng.choice(existing)
            rejected = [first, last, title, email, their_phone or ""]
        elif bad is not None:
            # A made-up row with the problem (never a duplicate of a good row's person).
            first = next(f for f in FIRST_NAMES if f not in {c["first_name"] for c in contacts})
            last = next(n for n in LAST_NAMES if n not in {c["last_name"] for c in contacts})
            email = _email(pattern, first, last, domain)
            if bad == "no_domain":
                email = email.split("@")[0] + "@" + domain.split(".")[0]
            rejected = [first, "" if bad == "no_last_name" else last, rng.choice(TITLES), email]
            rejected.append(phone[:-4] + "0000" if phone[-4:].isdigit() else phone)
        with_city = rng.random() < 0.5
        headers = [
            "First Name",
            "Last Name",
            "Title",
            rng.choice(EMAIL_HEADERS),
            rng.choice(PHONE_HEADERS),
            rng.choice(("Account", "Company")),
        ]
        if with_city:
            headers.append("City")
        rows = [
            [c["first_name"], c["last_name"], c["title"], c["email"], c["phone"], account]
            + ([city] if with_city else [])
            for c in contacts
        ]
        if rejected is not None:
            rows.insert(
                rng.randint(1, len(rows)), [*rejected, account] + ([city] if with_city else [])
            )
        if not with_city:
            for c in contacts:
                c["mailing_city"] = None
        manual = {h: label for h, label in (("Work Email", "Email"), ("Direct Line", "Phone"))}
        return {
            "account_id": account_id,
            "account": account,
            "file": FILE,
            "headers": headers,
            "rows": rows,
            "contacts": contacts,
            "bad": bad,
            "manual": {h: manual[h] for h in headers if h in manual},
            "skip": None,
            "user": user,
            "user_id": user_id,
            # The near miss: import the file without its phone numbers.
            "decoy": {"skip": headers[4]},
        }

    def files(self, params: Mapping[str, Any]) -> Mapping[str, bytes]:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(params["headers"])
        writer.writerows(params["rows"])
        return {params["file"]: out.getvalue().encode("utf-8")}

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        text = rng.choice(_PHRASINGS).format(**params)
        return text + (rng.choice(_BAD) if params["bad"] else "")

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        actions.click(actions.find("link", "Import", exact=True))
        actions.upload_file(actions.find("button", "CSV file", exact=True), params["file"])
        actions.click(actions.find("button", "Next: map columns", exact=True))
        mapping = dict(params["manual"])
        if params["skip"]:
            mapping[params["skip"]] = "— Don't import —"
        for header, label in mapping.items():
            actions.select_option(
                actions.find("combobox", f"Field for column {header}", exact=True), label
            )
        if mapping:
            actions.click(actions.find("button", "Check again with this mapping", exact=True))
        actions.click(actions.find("button", f"Import {len(params['contacts'])} contact"))
        actions.send_msg_to_user(
            f"Imported {len(params['contacts'])} contacts at {params['account']}"
            + (" and left out the row the importer rejected." if params["bad"] else ".")
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        checks = [
            expect.inserted(
                "crm_contact",
                name=f"contact {c['first_name']} {c['last_name']} imported",
                account_id=params["account_id"],
                owner_id=params["user_id"],
                first_name=c["first_name"],
                last_name=c["last_name"],
                title=c["title"],
                email=c["email"],
                phone=c["phone"],
                mailing_city=c["mailing_city"],
            )
            for c in params["contacts"]
        ]
        return expect.grade(ctx, *checks, expect.nothing_else())
