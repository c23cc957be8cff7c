"""Deliberate real-world mess, planted on its own random stream and recorded in world_oddity.

`plant_crm_mess` runs right after the CRM is generated (so sheets and chat see the messy CRM):
duplicate accounts, contacts and leads, stale deals and half-filled records. `plant_phone_conflicts`
runs after chat: it makes some chat messages state a contact's phone number differently from
the CRM.

Duplicates are entered the ways people really enter a record twice: under a nickname (Bob for
Robert), formatted differently (Inc. for Incorporated, "ROBERT SMITH", a middle initial,
"(415) 555-0100" for "+1 415-555-0100"), with a typo (a swapped or dropped letter, Jon for John),
with two digits of the phone number transposed, or as a stale copy: an old record nobody has
touched since, still holding a previous title, phone or website. Each duplicate's oddity
`detail` lists its `variants`. Every pair stays one the CRM's duplicate finder groups (same
email, a nearly identical name at the same account, or the same company name once case,
punctuation and legal suffixes are set aside), with the original the older record.
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta
from difflib import SequenceMatcher

from ..schema.crm import CLOSED_STAGES
from .context import PhoneStatement, Row, World
from .crm import CONTACT_TITLES, LEAD_SOURCES, contact_email
from .names import NICKNAMES, SPELLING
from .places import BY_NAME, phone_number

# Company suffixes and the longer or shorter way someone else typed them.
_SUFFIX_VARIANTS = {"Inc.": "Incorporated", "Corp": "Corporation", "LLC": "L.L.C.",
                    "Co.": "Company", "Ltd": "Limited", "Group": "Grp", "Holdings": "Hldgs",
                    "PLC": "Public Limited Company", "Incorporated": "Inc.",
                    "Corporation": "Corp.", "Limited": "Ltd", "Company": "Co."}  # fmt: skip
_EMAIL_FORMATS = ("first.last", "flast", "first", "first_last")
_INCOMPLETE_FIELDS = {
    "crm_contact": ("email", "phone", "title"),
    "crm_account": ("industry", "phone", "website"),
    "crm_lead": ("email", "phone", "title"),
}
# How a duplicate's name differs, and how its other values do, in the order a world's
# duplicates take them (so a small world shows every kind).
_NAME_KINDS = ("typo", "nickname", "formatting", "typo", "nickname", "typo", "formatting")
_DATA_KINDS = ("transposed_digits", "formatting", "stale_copy", "same", "transposed_digits",
               "stale_copy", "formatting", "none")  # fmt: skip
# The CRM's duplicate finder joins names at least this alike (apps.crm.duplicates).
_ALIKE = 0.85
_STALE_DAYS = (240, 900)

_NICKS: dict[str, tuple[str, ...]] = {}
for _formal, _short in NICKNAMES.items():
    _NICKS.setdefault(_formal, ())
    _NICKS[_formal] += _short
    for _nick in _short:
        _NICKS.setdefault(_nick, ())
        _NICKS[_nick] += (_formal,)


def _alike(a: str, b: str) -> bool:
    matcher = SequenceMatcher(None, a.lower(), b.lower())
    return matcher.quick_ratio() >= _ALIKE and matcher.ratio() >= _ALIKE


def _typo(rng: random.Random, first: str, last: str) -> tuple[str, str] | None:
    """The same name with a slip of the keyboard: two letters swapped, a double letter
    dropped, or another spelling of the first name (Jon/John)."""
    options: list[tuple[str, str]] = []
    if first in SPELLING:
        options.append((SPELLING[first], last))
    for i in range(1, len(last) - 2):
        if last[i] != last[i + 1]:
            options.append((first, last[:i] + last[i + 1] + last[i] + last[i + 2 :]))
            break
    match = re.search(r"(.)\1", last)
    if match:
        options.append((first, last[: match.start()] + last[match.start() + 1 :]))
    return rng.choice(options) if options else None


def _nickname(rng: random.Random, first: str, last: str) -> tuple[str, str] | None:
    """The same person under a nickname, or their full first name for a nickname."""
    options = _NICKS.get(first)
    return (rng.choice(options), last) if options else None


def _formatted(rng: random.Random, first: str, last: str) -> tuple[str, str]:
    """The same name written another way: in capitals or lower case, or with an initial."""
    how = rng.choice(("upper", "lower", "initial"))
    if how == "upper":
        return first, last.upper()
    if how == "lower":
        return first.lower(), last.lower()
    return f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}.", last


def _name_variant(
    rng: random.Random, kind: str, first: str, last: str
) -> tuple[str, tuple[str, str]] | None:
    """(kind, name) of the name as it was entered again: `kind` if the name allows it, else
    the next kind that does."""
    makers = {
        "typo": lambda: _typo(rng, first, last),
        "nickname": lambda: _nickname(rng, first, last),
        "formatting": lambda: _formatted(rng, first, last),
    }
    order = [kind] + [k for k in ("typo", "nickname", "formatting") if k != kind]
    for name in order:
        found = makers[name]()
        if found is not None and found != (first, last):
            return name, found
    return None


def _formatted_phone(rng: random.Random, phone: str) -> str:
    """The same number written another way: "+1 415-555-0100" as "(415) 555-0100",
    "415.555.0100" or "+14155550100"; other countries without spaces or with dashes."""
    digits = re.sub(r"\D", "", phone)
    if phone.startswith("+1 ") and len(digits) == 11:
        area, exchange, line = digits[1:4], digits[4:7], digits[7:]
        return rng.choice(
            (f"({area}) {exchange}-{line}", f"{area}.{exchange}.{line}", f"+{digits}",
             f"{area}-{exchange}-{line}", f"1-{area}-{exchange}-{line}")
        )  # fmt: skip
    return rng.choice((f"+{digits}", phone.replace(" ", "-"), phone.replace(" ", ".")))


def _transposed_phone(rng: random.Random, phone: str) -> str | None:
    """`phone` with two neighbouring digits of the local number swapped, or None if all its
    neighbouring digits are equal."""
    spots = [i for i, ch in enumerate(phone) if ch.isdigit()]
    local = spots[-7:]
    pairs = [(a, b) for a, b in zip(local, local[1:], strict=False) if phone[a] != phone[b]]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    chars = list(phone)
    chars[a], chars[b] = chars[b], chars[a]
    return "".join(chars)


def _account_variant(rng: random.Random, name: str) -> str:
    """'Acme Corp' as someone else typed it: 'ACME Corporation', 'Acme Corp.', 'Acme, Corp',
    'Acme and Sons Corp' for 'Acme & Sons Corp', 'The Acme Corp'."""
    words = name.split()
    options = []
    if len(words) > 1 and words[-1] in _SUFFIX_VARIANTS:
        options.append(" ".join([*words[:-1], _SUFFIX_VARIANTS[words[-1]]]))
        options.append(" ".join(words[:-1]) + ", " + words[-1])
        options.append(" ".join(words[:-1]))
    else:
        options.append(f"{name} {rng.choice(('Inc.', 'LLC', 'Corp', 'Incorporated'))}")
    if "&" in words:
        options.append(name.replace(" & ", " and "))
    options.append(" ".join([words[0].upper(), *words[1:]]))
    options.append(f"The {name}")
    if name.upper() != name:
        options.append(name.upper())
    variant = rng.choice(options)
    if rng.random() < 0.3 and variant.upper() != variant and len(variant.split()) > 1:
        first, rest = variant.split(" ", 1)
        variant = f"{first.upper()} {rest}" if first != "The" else variant
    return variant if variant != name else f"The {name}"


_LEGAL_WORDS = frozenset(
    ("the", "inc", "incorporated", "corp", "corporation", "llc", "co", "company", "ltd",
     "limited", "group", "grp", "holdings", "hldgs", "plc", "public")
)  # fmt: skip


def _company_key(name: str) -> str:
    """A company name with case, punctuation and legal suffixes set aside (how the CRM's
    duplicate finder compares companies)."""
    text = name.lower().replace("&", " and ").replace(".", "")
    return " ".join(w for w in re.split(r"[^0-9a-z]+", text) if w and w not in _LEGAL_WORDS)


def _detail(**values: object) -> str:
    return json.dumps(values, sort_keys=True)


def _stale_created(rng: random.Random, now: datetime, original: Row) -> datetime | None:
    """When a stale copy of `original` was entered: long ago, but after the original."""
    latest = now - timedelta(days=_STALE_DAYS[0])
    earliest = max(original["created_at"] + timedelta(days=1), now - timedelta(days=_STALE_DAYS[1]))
    if earliest >= latest:
        return None
    span = int((latest - earliest).total_seconds() // 60)
    return earliest + timedelta(minutes=rng.randint(0, span))


def _other_title(rng: random.Random, title: str | None) -> str:
    return rng.choice([t for t in CONTACT_TITLES if t != title])


def plant_crm_mess(world: World) -> None:
    """Duplicate accounts, contacts and leads, stale deals and half-filled CRM records."""
    rng = world.rng("mess")
    accounts = list(world.rows("crm_account"))
    contacts = list(world.rows("crm_contact"))
    leads = [lead for lead in world.rows("crm_lead") if lead["status"] != "Converted"]
    owners = sorted({a["owner_id"] for a in accounts})
    _duplicate_accounts(world, rng, accounts, owners)
    _duplicate_contacts(world, rng, contacts, owners)
    _duplicate_leads(world, rng, leads)
    _stale_deals(world, rng)
    # A duplicate pair stays whole: blanking the original's email or phone would hide what
    # makes it a pair (or what a merge picks between).
    paired = {
        (odd["row_table"], i)
        for odd in world.rows("world_oddity")
        for i in (odd["row_id"], odd["other_id"])
    }
    _incomplete_records(
        world,
        rng,
        [c for c in contacts if ("crm_contact", c["id"]) not in paired],
        [a for a in accounts if ("crm_account", a["id"]) not in paired],
        [lead for lead in leads if ("crm_lead", lead["id"]) not in paired],
    )


def _duplicate_accounts(
    world: World, rng: random.Random, accounts: list[Row], owners: list[int]
) -> None:
    """The same company entered again under its name written another way; every other copy
    is stale (entered long ago with the phone and website of the time), the rest recent, with
    a different or mistyped phone."""
    now = world.now
    taken = {a["name"].lower() for a in accounts}
    keys: dict[str, int] = {}
    for account in accounts:
        key = _company_key(account["name"])
        keys[key] = keys.get(key, 0) + 1
    planted = 0
    for original in rng.sample(accounts, len(accounts)):
        if planted == world.scale.duplicate_accounts:
            break
        name = _account_variant(rng, original["name"])
        key = _company_key(name)
        if name.lower() in taken or key != _company_key(original["name"]) or keys[key] != 1:
            continue
        city = BY_NAME[original["billing_city"]]
        variants = ["formatting"]
        stale = planted % 2 == 1
        created = _stale_created(rng, now, original) if stale else None
        if stale and created is None:
            continue
        if stale:
            assert created is not None
            phone = phone_number(rng, city)
            domain = original["website"].split("www.", 1)[-1] if original["website"] else None
            website = f"http://{domain}" if domain else None
            variants.append("stale_copy")
        else:
            created = max(
                original["created_at"] + timedelta(days=1),
                now - timedelta(days=rng.randint(2, 120), minutes=rng.randint(0, 1439)),
            )
            mistyped = _transposed_phone(rng, original["phone"]) if rng.random() < 0.5 else None
            phone = mistyped or phone_number(rng, city)
            website = original["website"]
            if mistyped:
                variants.append("transposed_digits")
        taken.add(name.lower())
        planted += 1
        dup = world.add(
            "crm_account",
            **{
                **{k: v for k, v in original.items() if k != "id"},
                "name": name,
                "account_type": "Prospect",
                "phone": phone,
                "website": website,
                "parent_account_id": None,
                "owner_id": rng.choice(owners),
                "created_at": created,
                "updated_at": created,
            },
        )
        how = "an old copy nobody has updated since" if stale else "entered again by someone else"
        world.oddity(
            "duplicate_account",
            "crm_account",
            dup["id"],
            f"Account {name!r} is a duplicate of {original['name']!r} "
            f"(same company in {original['billing_city']}, {how}).",
            _detail(duplicate_name=name, original_name=original["name"], variants=variants),
            "crm_account",
            original["id"],
        )


def _duplicate_contacts(
    world: World, rng: random.Random, contacts: list[Row], owners: list[int]
) -> None:
    """The same person at the same account entered again: the name with a typo, a nickname
    or another formatting, and the phone mistyped, formatted another way, the same or left
    out; some copies are stale, holding the person's previous title and number."""
    now = world.now
    planted = 0
    for original in rng.sample(contacts, len(contacts)):
        if planted == world.scale.duplicate_contacts:
            break
        found = _name_variant(
            rng,
            _NAME_KINDS[planted % len(_NAME_KINDS)],
            original["first_name"],
            original["last_name"],
        )
        if found is None:
            continue
        name_kind, (first, last) = found
        data_kind = _DATA_KINDS[planted % len(_DATA_KINDS)]
        created = (
            _stale_created(rng, now, original)
            if data_kind == "stale_copy"
            else max(original["created_at"], now - timedelta(days=rng.randint(1, 200)))
        )
        if created is None:
            continue
        variants = [name_kind]
        title = original["title"] if rng.random() < 0.7 else None
        phone = original["phone"] if data_kind == "same" else None
        if data_kind == "formatting" and original["phone"]:
            phone = _formatted_phone(rng, original["phone"])
            variants.append("formatting")
        elif data_kind == "transposed_digits" and original["phone"]:
            phone = _transposed_phone(rng, original["phone"])
            variants += ["transposed_digits"] if phone else []
        elif data_kind == "stale_copy":
            city = BY_NAME.get(original["mailing_city"] or "", BY_NAME["New York"])
            title = _other_title(rng, original["title"])
            phone = phone_number(rng, city)
            variants.append("stale_copy")
        # The copy's email: its own (from the name as typed) when the names are alike enough
        # for the duplicate finder, else the original's, sometimes in other capitals.
        domain = (original["email"] or "@example.com").split("@")[1]
        full, was = f"{first} {last}", f"{original['first_name']} {original['last_name']}"
        if name_kind == "typo" and _alike(full, was):
            email = contact_email(rng.choice(_EMAIL_FORMATS), first, last, domain)
        elif original["email"] and rng.random() < 0.3:
            local, at_domain = original["email"].split("@")
            email = ".".join(p.capitalize() for p in local.split(".")) + "@" + at_domain
        else:
            email = original["email"]
        if email is None and not _alike(full, was):
            continue
        dup = world.add(
            "crm_contact",
            account_id=original["account_id"],
            first_name=first,
            last_name=last,
            title=title,
            email=email,
            phone=phone,
            mailing_city=original["mailing_city"],
            owner_id=rng.choice(owners),
            created_at=created,
            updated_at=created,
        )
        how = {
            "typo": "with the name mistyped",
            "nickname": "under a nickname",
            "formatting": "with the name written another way",
        }[name_kind]
        world.oddity(
            "duplicate_contact",
            "crm_contact",
            dup["id"],
            f"Contact {full} is a duplicate of {was} at the same account, {how}"
            + (
                " (an old copy with a previous title and phone)."
                if "stale_copy" in variants
                else "."
            ),
            _detail(
                duplicate_name=full,
                original_name=was,
                duplicate_email=dup["email"],
                original_email=original["email"],
                variants=list(dict.fromkeys(variants)),
            ),
            "crm_contact",
            original["id"],
        )
        planted += 1


def _duplicate_leads(world: World, rng: random.Random, leads: list[Row]) -> None:
    """The same prospect entered again from another source: the name and company written
    another way, the same email (sometimes in other capitals) and the phone as typed."""
    now = world.now
    planted = 0
    for original in rng.sample(leads, len(leads)):
        if planted == world.scale.duplicate_leads:
            break
        found = _name_variant(
            rng,
            _NAME_KINDS[(planted + 1) % len(_NAME_KINDS)],
            original["first_name"],
            original["last_name"],
        )
        if found is None or not original["email"]:
            continue
        name_kind, (first, last) = found
        variants = [name_kind]
        phone = original["phone"]
        if phone and planted % 3 == 0:
            phone = _transposed_phone(rng, phone) or phone
            variants += ["transposed_digits"] if phone != original["phone"] else []
        elif phone and planted % 3 == 1:
            phone = _formatted_phone(rng, phone)
            variants.append("formatting")
        email = original["email"]
        if rng.random() < 0.4:
            email = email.capitalize()
        created = max(
            original["created_at"] + timedelta(hours=1),
            now - timedelta(days=rng.randint(1, 60), minutes=rng.randint(0, 1439)),
        )
        dup = world.add(
            "crm_lead",
            **{
                **{k: v for k, v in original.items() if k != "id"},
                "first_name": first,
                "last_name": last,
                "company": _account_variant(rng, original["company"])
                if rng.random() < 0.5
                else original["company"],
                "email": email,
                "phone": phone,
                "status": "New",
                "source": rng.choice([s for s in LEAD_SOURCES if s != original["source"]]),
                "created_at": created,
                "updated_at": created,
            },
        )
        full, was = f"{first} {last}", f"{original['first_name']} {original['last_name']}"
        world.oddity(
            "duplicate_lead",
            "crm_lead",
            dup["id"],
            f"Lead {full} ({dup['company']}) is a duplicate of {was} ({original['company']}), "
            f"entered again from {dup['source']}.",
            _detail(duplicate_name=full, original_name=was, variants=list(dict.fromkeys(variants))),
            "crm_lead",
            original["id"],
        )
        planted += 1


def _stale_deals(world: World, rng: random.Random) -> None:
    """Open deals whose close date has passed. They cluster: a rep who lets one deal go stale
    usually lets a few go (two to four of their open deals)."""
    now = world.now
    today = now.date()
    open_deals = [o for o in world.rows("crm_opportunity") if o["stage"] not in CLOSED_STAGES]
    by_owner: dict[int, list[Row]] = {}
    for opp in open_deals:
        by_owner.setdefault(opp["owner_id"], []).append(opp)
    planted = 0
    for owner in rng.sample(sorted(by_owner), len(by_owner)):
        mine = by_owner[owner]
        for opp in rng.sample(mine, min(len(mine), rng.choice((2, 2, 3, 4)))):
            if planted == world.scale.stale_deals:
                return
            earliest = opp["created_at"].date() + timedelta(days=7)
            latest = today - timedelta(days=2)
            if earliest > latest:
                continue
            close = latest - timedelta(days=rng.randint(0, min(150, (latest - earliest).days)))
            opp["close_date"] = close
            opp["updated_at"] = min(
                opp["updated_at"], now - timedelta(days=(today - close).days + 1)
            )
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


def _incomplete_records(
    world: World, rng: random.Random, contacts: list[Row], accounts: list[Row], leads: list[Row]
) -> None:
    """Records with a field or two never filled in."""
    pools: dict[str, list[Row]] = {
        "crm_contact": contacts,
        "crm_account": accounts,
        "crm_lead": leads,
    }
    plan = ["crm_contact", "crm_account", "crm_lead", "crm_contact"]
    chosen: dict[str, set[int]] = {table: set() for table in pools}
    for i in range(world.scale.incomplete_records):
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
    """Make some chat messages that state a contact's number disagree with the CRM: every
    other one with two digits of the number transposed (mistyped in chat), the rest with
    another number altogether."""
    rng = world.rng("mess")
    statements = sorted(world.phone_statements, key=lambda s: s.message["id"])
    # A conflict is the number its poster last gave for the contact, one per contact, and
    # planted where colleagues can come across it: public channels first.
    last_given = {(s.contact["id"], s.message["author_id"]): s for s in statements}
    latest = [s for s in statements if last_given[s.contact["id"], s.message["author_id"]] is s]
    public = [
        s for s in latest if not world.get("chat_channel", s.message["channel_id"])["is_private"]
    ]
    rest = [s for s in statements if s not in public]
    picked: list[PhoneStatement] = []
    contacts: set[int] = set()
    for pool in (rng.sample(public, len(public)), rng.sample(rest, len(rest))):
        for statement in pool:
            if (
                len(picked) < world.scale.phone_conflicts
                and statement.contact["id"] not in contacts
            ):
                picked.append(statement)
                contacts.add(statement.contact["id"])
    for i, statement in enumerate(picked):
        message, contact = statement.message, statement.contact
        city = BY_NAME.get(contact["mailing_city"] or "", BY_NAME["New York"])
        chat_phone = statement.phone
        if i % 2 == 0:
            chat_phone = _transposed_phone(rng, statement.phone) or chat_phone
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
