"""Deliberate real-world mess, planted on its own random stream and recorded in world_oddity.

`plant_crm_mess` runs right after the CRM is generated (so sheets and chat see the messy CRM):
duplicate contacts and accounts, stale deals and half-filled records. `plant_phone_conflicts`
runs after chat: it makes some chat messages state a contact's phone number differently from
the CRM.
"""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta

from ..schema.crm import CLOSED_STAGES
from .context import Row, World
from .crm import contact_email
from .places import BY_NAME, phone_number

# Spelling variants of the same first name (each maps to the other).
_NAME_VARIANTS = (("Jon", "John"), ("Katherine", "Catherine"), ("Kathryn", "Katheryn"),
                  ("Steven", "Stephen"), ("Sara", "Sarah"), ("Jeffrey", "Geoffrey"),
                  ("Philip", "Phillip"), ("Ann", "Anne"), ("Brian", "Bryan"), ("Eric", "Erik"),
                  ("Alan", "Allan"), ("Matthew", "Mathew"), ("Michael", "Micheal"),
                  ("Rebecca", "Rebekah"), ("Kristen", "Kirsten"), ("Teresa", "Theresa"),
                  ("Carl", "Karl"), ("Christopher", "Kristopher"), ("Shawn", "Sean"),
                  ("Mark", "Marc"), ("Tracy", "Tracey"), ("Stephanie", "Stefanie"),
                  ("Lindsay", "Lindsey"), ("Kelly", "Kelley"), ("Nicole", "Nichole"),
                  ("Deborah", "Debra"), ("Dennis", "Denis"), ("Jeffery", "Jeffrey"),
                  ("Elizabeth", "Elisabeth"), ("Cathy", "Kathy"), ("Isaac", "Issac"))  # fmt: skip
_VARIANT = {a: b for a, b in _NAME_VARIANTS} | {b: a for a, b in _NAME_VARIANTS}

# Company suffixes and the longer or shorter way someone else typed them.
_SUFFIX_VARIANTS = {"Inc.": "Incorporated", "Corp": "Corporation", "LLC": "L.L.C.",
                    "Co.": "Company", "Ltd": "Limited", "Group": "Grp", "Holdings": "Hldgs",
                    "PLC": "Public Limited Company"}  # fmt: skip
_EMAIL_FORMATS = ("first.last", "flast", "first", "first_last")
_INCOMPLETE_FIELDS = {
    "crm_contact": ("email", "phone", "title"),
    "crm_account": ("industry", "phone", "website"),
    "crm_lead": ("email", "phone", "title"),
}


def _misspell(rng: random.Random, first: str, last: str) -> tuple[str, str] | None:
    """The same person's name as someone else typed it, or None if no plausible variant."""
    options: list[tuple[str, str]] = []
    if first in _VARIANT:
        options.append((_VARIANT[first], last))
    for i in range(1, len(last) - 2):
        if last[i] != last[i + 1]:
            options.append((first, last[:i] + last[i + 1] + last[i] + last[i + 2 :]))
            break
    match = re.search(r"(.)\1", last)
    if match:
        options.append((first, last[: match.start()] + last[match.start() + 1 :]))
    if not options:
        return None
    return options[0] if first in _VARIANT and rng.random() < 0.6 else rng.choice(options)


def _account_variant(rng: random.Random, name: str) -> str:
    """'Acme Corp' as someone else typed it: 'ACME Corporation'."""
    words = name.split()
    if words[-1] in _SUFFIX_VARIANTS and len(words) > 1:
        words[-1] = _SUFFIX_VARIANTS[words[-1]]
    else:
        words.append(rng.choice(("Inc.", "LLC", "Corp")))
    if rng.random() < 0.6 or len(words) == 1:
        words[0] = words[0].upper()
    variant = " ".join(words)
    return variant if variant != name else f"The {name}"


def _detail(**values: object) -> str:
    return json.dumps(values, sort_keys=True)


def plant_crm_mess(world: World) -> None:
    """Duplicate accounts and contacts, stale deals and half-filled CRM records."""
    rng = world.rng("mess")
    scale = world.scale
    now = world.now
    today = now.date()
    accounts = list(world.rows("crm_account"))
    contacts = list(world.rows("crm_contact"))
    leads = [lead for lead in world.rows("crm_lead") if lead["status"] != "Converted"]
    owners = sorted({a["owner_id"] for a in accounts})

    # Duplicate accounts.
    taken = {a["name"].lower() for a in accounts}
    planted = 0
    for original in rng.sample(accounts, len(accounts)):
        if planted == scale.duplicate_accounts:
            break
        name = _account_variant(rng, original["name"])
        if name.lower() in taken:
            continue
        taken.add(name.lower())
        planted += 1
        city = BY_NAME[original["billing_city"]]
        created = now - timedelta(days=rng.randint(2, 120), minutes=rng.randint(0, 1439))
        dup = world.add(
            "crm_account",
            **{
                **{k: v for k, v in original.items() if k != "id"},
                "name": name,
                "account_type": "Prospect",
                "phone": phone_number(rng, city),
                "parent_account_id": None,
                "owner_id": rng.choice(owners),
                "created_at": created,
                "updated_at": created,
            },
        )
        world.oddity(
            "duplicate_account",
            "crm_account",
            dup["id"],
            f"Account {name!r} is a duplicate of {original['name']!r} "
            f"(same company in {original['billing_city']}, entered again by someone else).",
            _detail(duplicate_name=name, original_name=original["name"]),
            "crm_account",
            original["id"],
        )

    # Duplicate contacts: same person at the same account, name typed differently.
    planted = 0
    for original in rng.sample(contacts, len(contacts)):
        if planted == scale.duplicate_contacts:
            break
        names = _misspell(rng, original["first_name"], original["last_name"])
        if names is None:
            continue
        first, last = names
        domain = (original["email"] or "@example.com").split("@")[1]
        fmt = rng.choice(_EMAIL_FORMATS)
        created = max(original["created_at"], now - timedelta(days=rng.randint(1, 200)))
        dup = world.add(
            "crm_contact",
            account_id=original["account_id"],
            first_name=first,
            last_name=last,
            title=original["title"] if rng.random() < 0.7 else None,
            email=contact_email(fmt, first, last, domain),
            phone=original["phone"] if rng.random() < 0.5 else None,
            mailing_city=original["mailing_city"],
            owner_id=rng.choice(owners),
            created_at=created,
            updated_at=created,
        )
        was = f"{original['first_name']} {original['last_name']}"
        world.oddity(
            "duplicate_contact",
            "crm_contact",
            dup["id"],
            f"Contact {first} {last} is a duplicate of {was} at the same account, "
            "with the name spelled differently.",
            _detail(
                duplicate_name=f"{first} {last}",
                original_name=was,
                duplicate_email=dup["email"],
                original_email=original["email"],
            ),
            "crm_contact",
            original["id"],
        )
        planted += 1

    # Stale deals: open deals whose close date has passed.
    open_deals = [o for o in world.rows("crm_opportunity") if o["stage"] not in CLOSED_STAGES]
    planted = 0
    for opp in rng.sample(open_deals, len(open_deals)):
        if planted == scale.stale_deals:
            break
        earliest = opp["created_at"].date() + timedelta(days=7)
        latest = today - timedelta(days=2)
        if earliest > latest:
            continue
        close = latest - timedelta(days=rng.randint(0, min(150, (latest - earliest).days)))
        opp["close_date"] = close
        opp["updated_at"] = min(opp["updated_at"], now - timedelta(days=(today - close).days + 1))
        opp["updated_at"] = max(opp["updated_at"], opp["created_at"])
        days = (today - close).days
        world.oddity(
            "stale_deal",
            "crm_opportunity",
            opp["id"],
            f"Deal {opp['name']!r} is still in {opp['stage']} but its close date "
            f"{close.isoformat()} passed {days} days ago.",
            _detail(stage=opp["stage"], close_date=close.isoformat(), days_overdue=days),
        )
        planted += 1

    # Half-filled records.
    pools: dict[str, list[Row]] = {
        "crm_contact": contacts,
        "crm_account": accounts,
        "crm_lead": leads,
    }
    plan = ["crm_contact", "crm_account", "crm_lead", "crm_contact"]
    chosen: dict[str, set[int]] = {table: set() for table in pools}
    for i in range(scale.incomplete_records):
        table = plan[i % len(plan)]
        row = rng.choice(pools[table])
        while row["id"] in chosen[table]:
            row = rng.choice(pools[table])
        chosen[table].add(row["id"])
        fields = _INCOMPLETE_FIELDS[table]
        missing = sorted(rng.sample(fields, rng.randint(1, 2)))
        for column in missing:
            row[column] = None
        if table == "crm_account":
            what = f"Account {row['name']!r}"
        elif table == "crm_contact":
            what = f"Contact {row['first_name']} {row['last_name']}"
        else:
            what = f"Lead {row['first_name']} {row['last_name']} ({row['company']})"
        world.oddity(
            "incomplete_record",
            table,
            row["id"],
            f"{what} has no {' or '.join(missing)} on file.",
            _detail(missing=missing),
        )


def plant_phone_conflicts(world: World) -> None:
    """Make some chat messages that state a contact's number disagree with the CRM."""
    rng = world.rng("mess")
    statements = sorted(world.phone_statements, key=lambda s: s.message["id"])
    for statement in rng.sample(statements, min(world.scale.phone_conflicts, len(statements))):
        message, contact = statement.message, statement.contact
        city = BY_NAME.get(contact["mailing_city"] or "", BY_NAME["New York"])
        chat_phone = statement.phone
        while chat_phone == statement.phone or chat_phone == contact["phone"]:
            chat_phone = phone_number(rng, city)
        message["body"] = message["body"].replace(statement.phone, chat_phone)
        name = f"{contact['first_name']} {contact['last_name']}"
        world.oddity(
            "phone_conflict",
            "chat_message",
            message["id"],
            f"A chat message gives {name}'s number as {chat_phone}, "
            f"but the CRM has {contact['phone']}.",
            _detail(chat_phone=chat_phone, crm_phone=contact["phone"]),
            "crm_contact",
            contact["id"],
        )
