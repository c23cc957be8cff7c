"""CRM: customer accounts in real cities, their contacts, leads, deals, activities and notes.

Deals are named "<Account> — <product> <new business|expansion|renewal>". Open deals close in the
future here; stale ones are planted later by `mess`, which records them.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timedelta

from faker import Faker

from ..schema.crm import STAGES
from .context import Row, World
from .people import REVENUE_TEAMS, email_local
from .places import BY_NAME, CITIES, City, phone_number, street_address

# Industry, with nouns that make a company name sound like it belongs there.
INDUSTRIES: dict[str, tuple[str, ...]] = {
    "Logistics": ("Logistics", "Freight", "Shipping", "Transport"),
    "Healthcare": ("Health", "Medical Group", "Health Partners", "Clinics"),
    "Financial Services": ("Capital", "Financial", "Bank", "Insurance", "Credit Union"),
    "Manufacturing": ("Manufacturing", "Industries", "Components", "Fabrication"),
    "Retail": ("Retail", "Outfitters", "Market", "Home Goods"),
    "Software": ("Software", "Technologies", "Systems", "Labs"),
    "Energy": ("Energy", "Solar", "Power", "Utilities"),
    "Media": ("Media", "Studios", "Publishing"),
    "Education": ("Learning", "Education", "Academy"),
    "Hospitality": ("Hospitality", "Hotels & Resorts", "Restaurant Group"),
    "Construction": ("Construction", "Builders", "Engineering"),
    "Biotechnology": ("Biosciences", "Therapeutics", "Pharma"),
    "Telecommunications": ("Telecom", "Communications", "Networks"),
    "Food & Beverage": ("Foods", "Brewing", "Beverages", "Farms"),
    "Real Estate": ("Realty", "Properties", "Real Estate"),
    "Professional Services": ("Consulting", "Advisors", "Partners"),
}
_PREFIXES = ("Summit", "Bluewater", "Red Rock", "Ironclad", "Silver Creek", "Pinecone", "Harbor",
             "Northstar", "Cedar", "Granite", "Vertex", "Atlas", "Beacon", "Crescent", "Evergreen",
             "Falcon", "Golden Gate", "Highland", "Keystone", "Lakeside", "Maple", "Oakridge",
             "Pioneer", "Quarry", "Riverbend", "Sterling", "Trident", "Union", "Vista", "Willow",
             "Apex", "Bright", "Coastal", "Frontier", "Horizon", "Liberty", "Pacific", "Prairie",
             "Redwood", "Sapphire", "Sunrise", "Tri-County", "Westfield", "Zenith", "Alpine",
             "Blue Ridge", "Copper", "Eastgate", "Great Lakes", "Heritage", "Metro", "Orchard",
             "Polaris", "Rockport", "Seaside", "Timberline", "Valley", "Anchor", "Cardinal")  # fmt: skip
SUFFIXES = ("Inc.", "Corp", "LLC", "Group", "Co.", "Ltd", "Holdings")

PRODUCTS = ("Platform", "Enterprise plan", "Team plan", "Analytics add-on", "Data Connectors",
            "Premium Support", "SSO & Audit add-on", "Professional Services", "Onboarding package",
            "API access tier")  # fmt: skip
LEAD_SOURCES = (
    "Web",
    "Webinar",
    "Trade Show",
    "Referral",
    "Outbound",
    "Partner",
    "Content Download",
)
CONTACT_TITLES = ("VP of Engineering", "Director of IT", "Chief Financial Officer",
                   "Head of Procurement", "Operations Manager", "Chief Technology Officer",
                   "VP Sales", "Chief Data Officer", "IT Manager", "Procurement Specialist",
                   "Head of Analytics", "Chief Operating Officer", "Finance Director",
                   "Senior Buyer", "Project Manager", "Data Analyst", "VP Operations",
                   "Director of Customer Experience", "Head of Security", "Controller")  # fmt: skip
_NEXT_STEPS = ("Schedule technical deep dive", "Send revised proposal",
               "Security review with their IT team", "Confirm budget with finance",
               "Get legal redlines back", "Book executive sponsor meeting", "Pilot kickoff",
               "Send order form for signature", "Reference call with an existing customer",
               "Agree on success criteria for the pilot")  # fmt: skip
_OPEN_STAGE_WEIGHTS = {"Prospecting": 15, "Qualification": 18, "Needs Analysis": 17,
                       "Proposal": 15, "Negotiation": 10}  # fmt: skip
STAGE_PROBABILITY = dict(STAGES)

_ACTIVITY_SUBJECTS = {
    "call": ("Call with {contact}", "Discovery call with {account}",
             "Check-in call with {contact} about {opp}"),
    "meeting": ("Demo for {account}", "QBR with {account}", "Pricing review with {contact}",
                "Onsite workshop at {account}"),
    "email": ("Send proposal to {contact}", "Follow up on {opp}",
              "Email {contact} the security questionnaire"),
    "task": ("Update close plan for {opp}", "Prepare order form for {account}",
             "Log notes from the {contact} call"),
}  # fmt: skip
_ACTIVITY_DESCRIPTIONS = (
    "Walk {contact} through the timeline for {opp} and agree on next steps.",
    "{contact} asked for updated pricing; bring the revised numbers for {opp}.",
    "Cover open questions from {account} on rollout, SSO and data residency.",
    "Confirm who signs for {account} and when procurement needs the paperwork.",
    "",
)
# How a deal's kind reads at the end of its name.
_KIND_LABEL = {"new": "new business", "expansion": "expansion", "renewal": "renewal"}
# Notes: title, body, and the deal kinds the note makes sense for.
_NOTES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Discovery call notes",
     "Spoke with {contact} about {opp}. They are comparing us against two other vendors and "
     "want a decision before the end of the quarter. Next step: {next_step}.",
     ("new", "expansion")),
    ("Technical evaluation",
     "{contact} confirmed budget for {opp} is approved, pending a security review. "
     "{account} needs SSO and audit logs on day one.",
     ("new", "expansion", "renewal")),
    ("Executive sponsor meeting",
     "Met {contact} ({title}). {account} is expanding to two more regions and wants the "
     "rollout plan for {opp} in writing.",
     ("expansion", "renewal")),
    ("Legal review status",
     "Legal at {account} sent redlines on the MSA. {contact} thinks we can close {opp} once "
     "the liability cap is agreed.",
     ("new", "expansion", "renewal")),
    ("Renewal risk",
     "{contact} flagged that usage dropped last month; {opp} is at risk unless we get the "
     "new team onboarded.",
     ("renewal",)),
    ("Pricing discussion",
     "Pricing call with {contact}: they asked for a multi-year discount on {opp}. "
     "Offered 8% for a two-year term, waiting on their answer.",
     ("new", "expansion", "renewal")),
    ("Champion update",
     "{contact} is our champion at {account} and is presenting {opp} to their leadership "
     "next week. Sent them the ROI summary.",
     ("new", "expansion")),
)  # fmt: skip


def company_name(rng, fake: Faker, taken: set[str]) -> tuple[str, str]:
    """A new, unused company name and its industry."""
    while True:
        industry = rng.choice(sorted(INDUSTRIES))
        noun = rng.choice(INDUSTRIES[industry])
        form = rng.random()
        if form < 0.45:
            name = f"{rng.choice(_PREFIXES)} {noun}"
        elif form < 0.75:
            name = f"{fake.last_name()} {noun}"
        elif form < 0.85:
            name = f"{fake.last_name()} & {fake.last_name()}"
        else:
            name = fake.company()
            if "," in name:
                continue
        if rng.random() < 0.45 and not name.endswith(SUFFIXES):
            name = f"{name} {rng.choice(SUFFIXES)}"
        key = name.lower()
        if key not in taken:
            taken.add(key)
            return name, industry


def _domain(name: str, taken: set[str]) -> str:
    words = [w for w in re.sub(r"[^a-z0-9 ]", "", name.lower()).split() if w]
    words = [w for w in words if w not in {s.lower().rstrip(".") for s in SUFFIXES}] or words
    base = "".join(words)[:24]
    domain = f"{base}.com"
    n = 2
    while domain in taken:
        domain = f"{base}{n}.com"
        n += 1
    taken.add(domain)
    return domain


def contact_email(fmt: str, first: str, last: str, domain: str) -> str:
    """Email in one of the company formats: first.last, flast, first, first_last."""
    local = email_local(first, last)
    given, family = local.split(".")
    return {
        "first.last": f"{given}.{family}",
        "flast": f"{given[:1]}{family}",
        "first": given,
        "first_last": f"{given}_{family}",
    }[fmt] + f"@{domain}"


def _stamp(rng, start: datetime, end: datetime) -> datetime:
    """A random whole-minute time in [start, end] (end if the window is empty)."""
    span = int((end - start).total_seconds() // 60)
    if span <= 0:
        return end
    return start + timedelta(minutes=rng.randint(0, span))


def _at(day: date, rng) -> datetime:
    return datetime.combine(day, datetime.min.time()) + timedelta(
        hours=rng.randint(13, 23), minutes=rng.choice((0, 15, 30, 45))
    )


def build(world: World) -> None:
    """Make accounts, contacts, opportunities, leads, activities and notes."""
    rng = world.rng("crm")
    fake = world.faker("crm")
    now = world.now
    today = now.date()
    scale = world.scale
    employees = world.rows("people_employee")
    teams = {t["id"]: t["name"] for t in world.rows("people_team")}
    revenue = [e for e in employees if e["is_active"] and teams[e["team_id"]] in REVENUE_TEAMS]
    by_team = {name: [e for e in revenue if teams[e["team_id"]] == name] for name in REVENUE_TEAMS}
    enterprise = by_team["Enterprise Sales"] or revenue
    midmarket = by_team["Mid-Market Sales"] or by_team["Enterprise Sales"] or revenue
    success = by_team["Customer Success"] or revenue
    sdrs = [
        e for e in employees if e["is_active"] and teams[e["team_id"]] == "Sales Development"
    ] or revenue

    office_cities = {o["city"] for o in world.rows("people_office")}
    city_weights = [
        (3 if c.name in office_cities else 1) * (2 if c.country == "United States" else 1)
        for c in CITIES
    ]
    taken_names: set[str] = set()
    taken_domains: set[str] = set()
    used_people = {(e["first_name"], e["last_name"]) for e in employees}

    def new_person() -> tuple[str, str]:
        while True:
            first, last = fake.first_name(), fake.last_name()
            if (first, last) not in used_people:
                used_people.add((first, last))
                return first, last

    # Accounts.
    accounts: list[Row] = []
    formats: dict[int, str] = {}
    domains: dict[int, str] = {}
    n_accounts = scale.accounts - scale.duplicate_accounts
    for _ in range(n_accounts):
        name, industry = company_name(rng, fake, taken_names)
        city: City = rng.choices(CITIES, weights=city_weights)[0]
        size = int(math.exp(rng.uniform(math.log(40), math.log(60_000))))
        kind = rng.choices(("Customer", "Prospect", "Partner", "Former Customer"), (50, 35, 5, 10))[
            0
        ]
        if size >= 2_000:
            owner = rng.choice(success if kind == "Customer" and rng.random() < 0.3 else enterprise)
        else:
            owner = rng.choice(success if kind == "Customer" and rng.random() < 0.4 else midmarket)
        created = now - timedelta(days=rng.randint(30, 1500), minutes=rng.randint(0, 1439))
        domain = _domain(name, taken_domains)
        account = world.add(
            "crm_account",
            name=name,
            account_type=kind,
            industry=industry,
            website=f"https://www.{domain}",
            phone=phone_number(rng, city),
            billing_street=street_address(rng, city),
            billing_city=city.name,
            billing_country=city.country,
            employee_count=size,
            annual_revenue=round(size * rng.uniform(80_000, 400_000), -5),
            parent_account_id=None,
            owner_id=owner["id"],
            created_at=created,
            updated_at=_stamp(rng, created, now),
        )
        accounts.append(account)
        formats[account["id"]] = rng.choices(
            ("first.last", "flast", "first", "first_last"), (6, 3, 1, 1)
        )[0]
        domains[account["id"]] = domain
    for account in accounts[1:]:
        if rng.random() < 0.02:
            parent = rng.choice(accounts[: account["id"] - 1])
            account["parent_account_id"] = parent["id"]

    # Contacts: at least one per account, more at bigger companies.
    n_contacts = scale.contacts - scale.duplicate_contacts
    per_account = [1] * len(accounts)
    weights = [math.log10(a["employee_count"]) for a in accounts]
    for i in rng.choices(range(len(accounts)), weights=weights, k=n_contacts - len(accounts)):
        per_account[i] += 1
    contacts_of: dict[int, list[Row]] = {}
    for account, count in zip(accounts, per_account, strict=True):
        city = BY_NAME[account["billing_city"]]
        for _ in range(count):
            first, last = new_person()
            created = _stamp(rng, account["created_at"], now)
            contact = world.add(
                "crm_contact",
                account_id=account["id"],
                first_name=first,
                last_name=last,
                title=rng.choice(CONTACT_TITLES),
                email=contact_email(formats[account["id"]], first, last, domains[account["id"]]),
                phone=phone_number(rng, city),
                mailing_city=city.name if rng.random() < 0.9 else rng.choice(CITIES).name,
                owner_id=account["owner_id"],
                created_at=created,
                updated_at=_stamp(rng, created, now),
            )
            contacts_of.setdefault(account["id"], []).append(contact)

    # Opportunities.
    opp_weights = [
        {"Customer": 4, "Prospect": 2, "Partner": 1, "Former Customer": 1}[a["account_type"]]
        for a in accounts
    ]
    opp_names: set[str] = set()
    opportunities: list[Row] = []
    for account in rng.choices(accounts, weights=opp_weights, k=scale.opportunities):
        kind_type = account["account_type"]
        if kind_type == "Prospect":
            kind = "new"
            stage = rng.choices(
                (*_OPEN_STAGE_WEIGHTS, "Closed Lost"), (*_OPEN_STAGE_WEIGHTS.values(), 15)
            )[0]
        elif kind_type == "Former Customer":
            kind = rng.choice(("renewal", "expansion", "new"))
            stage = rng.choice(("Closed Lost", "Closed Won", "Closed Lost"))
        else:
            kind = rng.choices(("new", "expansion", "renewal"), (3, 4, 4))[0]
            stage = rng.choices(
                (*_OPEN_STAGE_WEIGHTS, "Closed Won", "Closed Lost"),
                (*_OPEN_STAGE_WEIGHTS.values(), 22, 12),
            )[0]
        name = ""
        for _ in range(12):
            name = f"{account['name']} — {rng.choice(PRODUCTS)} {_KIND_LABEL[kind]}"
            if name not in opp_names:
                break
        base, n = name, 2
        while name in opp_names:
            name = f"{base} {n}"
            n += 1
        opp_names.add(name)
        big = account["employee_count"] >= 2_000
        amount = max(
            2_000,
            round(math.exp(rng.gauss(math.log(30_000 if not big else 90_000), 0.7)) / 500) * 500,
        )
        probability = STAGE_PROBABILITY[stage]
        if stage not in ("Closed Won", "Closed Lost") and rng.random() < 0.25:
            probability = min(95, max(5, probability + rng.choice((-10, -5, 5, 10))))
        closed = stage in ("Closed Won", "Closed Lost")
        if closed:
            close = today - timedelta(days=rng.randint(1, 540))
            created = max(
                account["created_at"],
                datetime.combine(close, datetime.min.time()) - timedelta(days=rng.randint(20, 200)),
            )
            updated = min(now, _at(close, rng))
        else:
            close = today + timedelta(days=rng.randint(1, 270))
            created = _stamp(rng, max(account["created_at"], now - timedelta(days=300)), now)
            updated = _stamp(rng, created, now)
        contacts = contacts_of[account["id"]]
        owner_pool = (
            success
            if kind == "renewal" and rng.random() < 0.6
            else [e for e in revenue if e["id"] == account["owner_id"]]
        )
        owner = rng.choice(owner_pool or revenue)
        opportunities.append(
            world.add(
                "crm_opportunity",
                name=name,
                account_id=account["id"],
                primary_contact_id=rng.choice(contacts)["id"] if rng.random() < 0.85 else None,
                owner_id=owner["id"],
                stage=stage,
                amount=amount,
                probability=probability,
                close_date=close,
                lead_source=rng.choice(LEAD_SOURCES) if kind == "new" else None,
                next_step=None if closed else rng.choice(_NEXT_STEPS),
                created_at=created,
                updated_at=max(created, updated),
            )
        )

    # Leads; a few converted into an account, contact and deal.
    converted = [o for o in opportunities if o["lead_source"] and o["primary_contact_id"]]
    rng.shuffle(converted)
    converted = converted[: scale.leads // 10]
    for i in range(scale.leads - scale.duplicate_leads):
        if i < len(converted):
            opp = converted[i]
            contact = world.get("crm_contact", opp["primary_contact_id"])
            account = world.get("crm_account", opp["account_id"])
            created = opp["created_at"] - timedelta(days=rng.randint(3, 40))
            world.add(
                "crm_lead",
                first_name=contact["first_name"],
                last_name=contact["last_name"],
                company=account["name"],
                title=contact["title"],
                email=contact["email"],
                phone=contact["phone"],
                status="Converted",
                source=opp["lead_source"],
                owner_id=rng.choice(sdrs)["id"],
                converted_account_id=account["id"],
                converted_contact_id=contact["id"],
                converted_opportunity_id=opp["id"],
                created_at=created,
                updated_at=opp["created_at"],
            )
            continue
        first, last = new_person()
        if rng.random() < 0.15:
            # Someone new at a company we already know signs up (an expansion lead).
            known = rng.choice(accounts)
            company, city = known["name"], BY_NAME[known["billing_city"]]
            email = contact_email(formats[known["id"]], first, last, domains[known["id"]])
        else:
            company, _ = company_name(rng, fake, taken_names)
            city = rng.choices(CITIES, weights=city_weights)[0]
            email = contact_email("first.last", first, last, _domain(company, taken_domains))
        created = now - timedelta(days=rng.randint(1, 200), minutes=rng.randint(0, 1439))
        world.add(
            "crm_lead",
            first_name=first,
            last_name=last,
            company=company,
            title=rng.choice(CONTACT_TITLES),
            email=email,
            phone=phone_number(rng, city),
            status=rng.choices(("New", "Working", "Qualified", "Unqualified"), (4, 4, 2, 2))[0],
            source=rng.choice(LEAD_SOURCES),
            owner_id=rng.choice(sdrs)["id"],
            converted_account_id=None,
            converted_contact_id=None,
            converted_opportunity_id=None,
            created_at=created,
            updated_at=_stamp(rng, created, now),
        )

    # Activities and notes, naming the deal's contact, account and the deal itself.
    for opp in opportunities:
        account = world.get("crm_account", opp["account_id"])
        contact = (
            world.get("crm_contact", opp["primary_contact_id"])
            if opp["primary_contact_id"]
            else rng.choice(contacts_of[account["id"]])
        )
        slots = {
            "contact": world.ref("crm_contact", contact),
            "account": world.ref("crm_account", account),
            "opp": world.ref("crm_opportunity", opp),
            "title": contact["title"],
            "next_step": (opp["next_step"] or "send the renewal paperwork").lower(),
        }
        closed = opp["stage"] in ("Closed Won", "Closed Lost")
        for _ in range(rng.randint(1, 4) if not closed else rng.randint(0, 2)):
            kind = rng.choices(("task", "call", "meeting", "email"), (3, 3, 2, 3))[0]
            created = _stamp(rng, opp["created_at"], now)
            done = closed or rng.random() < 0.55
            if done:
                completed = _stamp(rng, created, min(now, opp["updated_at"] + timedelta(days=2)))
                due = completed.date()
            else:
                completed = None
                due = today + timedelta(days=rng.randint(-10, 30))
            activity = world.add(
                "crm_activity",
                kind=kind,
                subject="",
                description="",
                status="Completed" if done else "Open",
                priority=rng.choices(("High", "Normal", "Low"), (2, 6, 1))[0],
                due_date=due,
                owner_id=opp["owner_id"],
                account_id=account["id"],
                contact_id=contact["id"],
                opportunity_id=opp["id"],
                created_at=created,
                completed_at=completed,
            )
            world.say(
                "crm_activity", activity, "subject", rng.choice(_ACTIVITY_SUBJECTS[kind]), **slots
            )
            world.say(
                "crm_activity", activity, "description", rng.choice(_ACTIVITY_DESCRIPTIONS), **slots
            )
        if rng.random() < 0.7:
            words = opp["name"].rsplit(" — ", 1)[1].split()
            kind = next((w for w in reversed(words) if w in ("expansion", "renewal")), "new")
            title, body, _ = rng.choice([n for n in _NOTES if kind in n[2]])
            note = world.add(
                "crm_note",
                title=title,
                body="",
                author_id=opp["owner_id"],
                account_id=account["id"],
                contact_id=contact["id"],
                opportunity_id=opp["id"],
                created_at=_stamp(rng, opp["created_at"], opp["updated_at"]),
            )
            world.say("crm_note", note, "body", body, **slots)
