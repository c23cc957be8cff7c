"""People: offices in real cities, teams in departments, and employees with a manager tree."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

from ..passwords import DEMO_PASSWORD, hash_password
from .context import Row, World
from .places import BY_NAME, HQ_CITIES, OFFICE_CITIES, City, phone_number, street_address


@dataclass(frozen=True)
class TeamSpec:
    department: str
    name: str
    weight: int
    lead_title: str
    manager_title: str
    titles: tuple[str, ...]
    description: str


TEAMS: tuple[TeamSpec, ...] = (
    TeamSpec("Sales", "Enterprise Sales", 8, "Director, Enterprise Sales", "Regional Sales Manager",
             ("Enterprise Account Executive", "Senior Enterprise Account Executive", "Account Executive", "Solutions Engineer"),
             "New business and expansion with enterprise customers."),
    TeamSpec("Sales", "Mid-Market Sales", 7, "Director, Mid-Market Sales", "Sales Manager",
             ("Account Executive", "Senior Account Executive", "Account Executive", "Solutions Consultant"),
             "Deals with mid-sized companies, from first call to signature."),
    TeamSpec("Sales", "Sales Development", 5, "Sales Development Manager", "Sales Development Team Lead",
             ("Sales Development Representative", "Senior Sales Development Representative", "Business Development Representative"),
             "Outbound prospecting and inbound lead qualification."),
    TeamSpec("Customer Success", "Customer Success", 7, "Director, Customer Success", "Customer Success Team Lead",
             ("Customer Success Manager", "Senior Customer Success Manager", "Renewals Manager", "Onboarding Specialist"),
             "Onboarding, adoption and renewals for existing customers."),
    TeamSpec("Customer Success", "Support", 5, "Support Manager", "Support Team Lead",
             ("Support Engineer", "Senior Support Engineer", "Technical Support Specialist"),
             "Customer tickets, incident communication and the help centre."),
    TeamSpec("Engineering", "Platform", 8, "Engineering Manager, Platform", "Engineering Manager",
             ("Software Engineer", "Senior Software Engineer", "Staff Software Engineer", "Backend Engineer"),
             "Core services, APIs and the data model."),
    TeamSpec("Engineering", "Product Engineering", 9, "Engineering Manager, Product Engineering", "Engineering Manager",
             ("Frontend Engineer", "Senior Frontend Engineer", "Full Stack Engineer", "Software Engineer"),
             "The web and mobile product customers use every day."),
    TeamSpec("Engineering", "Infrastructure", 5, "Engineering Manager, Infrastructure", "Engineering Manager",
             ("Site Reliability Engineer", "Senior Site Reliability Engineer", "DevOps Engineer", "Security Engineer"),
             "Cloud infrastructure, reliability, security and on-call."),
    TeamSpec("Engineering", "Data", 4, "Engineering Manager, Data", "Engineering Manager",
             ("Data Engineer", "Senior Data Engineer", "Data Scientist", "Analytics Engineer"),
             "Pipelines, the warehouse and the analytics features."),
    TeamSpec("Product", "Product Management", 4, "Director of Product", "Group Product Manager",
             ("Product Manager", "Senior Product Manager", "Associate Product Manager"),
             "Roadmap, discovery and launches."),
    TeamSpec("Product", "Design", 3, "Head of Design", "Design Manager",
             ("Product Designer", "Senior Product Designer", "UX Researcher"),
             "Product design, research and the design system."),
    TeamSpec("Marketing", "Growth Marketing", 4, "Director, Growth Marketing", "Marketing Manager",
             ("Growth Marketing Manager", "Demand Generation Manager", "Marketing Operations Specialist", "Content Marketing Manager"),
             "Campaigns, website, events and pipeline generation."),
    TeamSpec("Marketing", "Product Marketing", 3, "Director, Product Marketing", "Product Marketing Lead",
             ("Product Marketing Manager", "Senior Product Marketing Manager", "Competitive Intelligence Analyst"),
             "Positioning, launches and sales enablement."),
    TeamSpec("Finance", "Finance", 4, "Controller", "Finance Manager",
             ("Financial Analyst", "Senior Accountant", "Accounts Payable Specialist", "FP&A Analyst"),
             "Accounting, planning, billing and spend approvals."),
    TeamSpec("People", "People Operations", 3, "Head of People Operations", "People Operations Manager",
             ("People Partner", "People Operations Specialist", "Payroll Specialist"),
             "Onboarding, benefits, payroll and performance cycles."),
    TeamSpec("People", "Recruiting", 3, "Head of Talent Acquisition", "Recruiting Manager",
             ("Technical Recruiter", "Recruiter", "Recruiting Coordinator"),
             "Hiring pipelines and interview loops."),
    TeamSpec("Operations", "IT", 3, "IT Manager", "IT Team Lead",
             ("IT Support Specialist", "Systems Administrator", "IT Support Specialist"),
             "Laptops, accounts, SaaS access and office networks."),
    TeamSpec("Operations", "Business Operations", 3, "Head of Business Operations", "Business Operations Manager",
             ("Business Operations Analyst", "Office Manager", "Revenue Operations Analyst", "Travel Coordinator"),
             "Systems, reporting, offices and travel."),
)  # fmt: skip

DEPARTMENTS = ("Executive", "Sales", "Customer Success", "Engineering", "Product", "Marketing",
               "Finance", "People", "Operations")  # fmt: skip

# Department heads: title and the departments that report to them, per world size.
_EXECS_FULL = (
    ("Chief Revenue Officer", ("Sales",)),
    ("VP Customer Success", ("Customer Success",)),
    ("Chief Technology Officer", ("Engineering",)),
    ("Chief Product Officer", ("Product",)),
    ("Chief Marketing Officer", ("Marketing",)),
    ("Chief Financial Officer", ("Finance",)),
    ("VP People", ("People",)),
    ("Chief Operating Officer", ("Operations",)),
)
_EXECS_TINY = (
    ("Chief Revenue Officer", ("Sales", "Customer Success", "Marketing")),
    ("Chief Technology Officer", ("Engineering", "Product")),
    ("Chief Financial Officer", ("Finance", "People", "Operations")),
)

# Departments that own CRM records.
REVENUE_TEAMS = ("Enterprise Sales", "Mid-Market Sales", "Customer Success")

_STATUSES = (
    ("palm_tree", "On vacation"),
    ("house", "Working from home"),
    ("airplane", "Travelling"),
    ("spiral_calendar", "In meetings all day"),
    ("headphones", "Heads down, slow to reply"),
    ("thermometer", "Out sick"),
    ("coffee", "Back in 10"),
    ("train", "Commuting"),
    ("baby", "On parental leave"),
    ("books", "At a training"),
)
_COLORS = ("#2b6cb0", "#2f855a", "#c05621", "#6b46c1", "#b83280", "#2c7a7b", "#c53030",
           "#4a5568", "#975a16", "#285e61", "#553c9a", "#9b2c2c")  # fmt: skip


def email_local(first: str, last: str) -> str:
    """`first.last` in lowercase ASCII letters (accents folded, punctuation dropped)."""

    def fold(part: str) -> str:
        ascii_part = unicodedata.normalize("NFKD", part).encode("ascii", "ignore").decode()
        return re.sub(r"[^a-z]", "", ascii_part.lower())

    return f"{fold(first)}.{fold(last)}"


def _team_specs(scale_name: str) -> list[TeamSpec]:
    if scale_name != "tiny":
        return list(TEAMS)
    seen: set[str] = set()
    specs = []
    for spec in TEAMS:
        if spec.department not in seen:
            seen.add(spec.department)
            specs.append(spec)
    return specs


def _split(total: int, weights: list[int]) -> list[int]:
    """Split `total` by weights (largest remainder), at least one each."""
    base = [1] * len(weights)
    left = total - len(weights)
    shares = [left * w / sum(weights) for w in weights]
    counts = [int(s) for s in shares]
    order = sorted(range(len(weights)), key=lambda i: (-(shares[i] - counts[i]), i))
    for i in order[: left - sum(counts)]:
        counts[i] += 1
    return [b + c for b, c in zip(base, counts, strict=True)]


def build(world: World) -> None:
    """Make offices, teams and employees (employee 1 is the CEO)."""
    rng = world.rng("people")
    fake = world.faker("people")
    now = world.now
    scale = world.scale

    # Offices: the HQ in a US city, the rest abroad or elsewhere in the US.
    hq_city = BY_NAME[rng.choice(HQ_CITIES)]
    others = [c for c in OFFICE_CITIES if c != hq_city.name]
    rng.shuffle(others)
    office_cities: list[City] = [hq_city, *(BY_NAME[c] for c in others[: scale.offices - 1])]
    offices: list[Row] = []
    for i, city in enumerate(office_cities):
        offices.append(
            world.add(
                "people_office",
                name=f"{city.name} HQ" if i == 0 else f"{city.name} Office",
                city=city.name,
                country=city.country,
                address=street_address(rng, city),
                timezone=city.timezone,
            )
        )
    office_weights = [5] + [2] * (len(offices) - 1)

    execs = _EXECS_TINY if scale.name == "tiny" else _EXECS_FULL
    specs = _team_specs(scale.name)
    exec_team = world.add(
        "people_team",
        name="Executive",
        department="Executive",
        description="The leadership team.",
    )
    teams: list[tuple[TeamSpec, Row]] = []
    for spec in specs:
        row = world.add(
            "people_team", name=spec.name, department=spec.department, description=spec.description
        )
        teams.append((spec, row))

    used_names: set[tuple[str, str]] = set()
    used_emails: set[str] = set()

    def person(
        title: str,
        team: Row,
        manager: Row | None,
        role: str,
        office: Row,
        years: tuple[float, float],
        level: str = "staff",
    ) -> Row:
        while True:
            first, last = fake.first_name(), fake.last_name()
            if (first, last) not in used_names:
                used_names.add((first, last))
                break
        local = email_local(first, last)
        email = f"{local}@{world.company_domain}"
        n = 2
        while email in used_emails:
            email = f"{local}{n}@{world.company_domain}"
            n += 1
        used_emails.add(email)
        city = BY_NAME[office["city"]]
        hired = now.date() - timedelta(days=int(rng.uniform(*years) * 365))
        emp_id = len(world.rows("people_employee")) + 1
        return world.add(
            "people_employee",
            first_name=first,
            last_name=last,
            display_name=f"{first} {last}",
            email=email,
            title=title,
            team_id=team["id"],
            manager_id=manager["id"] if manager else None,
            office_id=office["id"],
            timezone=office["timezone"],
            phone=phone_number(rng, city) if rng.random() < 0.9 else None,
            hire_date=hired,
            role=role,
            job_level=level,
            is_active=True,
            status_emoji="",
            status_text="",
            avatar_color=rng.choice(_COLORS),
            password_hash=hash_password(DEMO_PASSWORD, salt=f"{world.seed}-{emp_id}"),
        )

    def pick_office() -> Row:
        return rng.choices(offices, weights=office_weights)[0]

    hq = offices[0]
    ceo = person("Chief Executive Officer", exec_team, None, "admin", hq, (6.0, 9.0), "executive")
    head_of: dict[str, Row] = {}
    for title, departments in execs:
        head = person(
            title,
            exec_team,
            ceo,
            "manager",
            hq if rng.random() < 0.7 else pick_office(),
            (1.0, 7.0),
            "executive",
        )
        for dept in departments:
            head_of[dept] = head
    if scale.name != "tiny":
        person("Executive Assistant", exec_team, ceo, "member", hq, (0.5, 5.0))

    remaining = scale.employees - len(world.rows("people_employee"))
    sizes = _split(remaining, [spec.weight for spec, _ in teams])
    members: list[Row] = []
    for (spec, team), size in zip(teams, sizes, strict=True):
        head = head_of[spec.department]
        if size < 3:
            for _ in range(size):
                members.append(
                    person(
                        rng.choice(spec.titles), team, head, "member", pick_office(), (0.05, 6.0)
                    )
                )
            continue
        lead = person(spec.lead_title, team, head, "manager", pick_office(), (1.0, 6.0), "director")
        rest = size - 1
        groups = [rest] if rest <= 9 else _split(rest, [1] * -(-rest // 8))
        for group in groups:
            boss = lead
            count = group
            if len(groups) > 1:
                boss = person(
                    spec.manager_title, team, lead, "manager", pick_office(), (1.0, 6.0), "manager"
                )
                count -= 1
            for _ in range(count):
                members.append(
                    person(
                        rng.choice(spec.titles), team, boss, "member", pick_office(), (0.05, 6.0)
                    )
                )

    # IT admins, a few former employees, and chat statuses.
    it_team = next((row for spec, row in teams if spec.name == "IT"), None)
    it_members = [m for m in members if it_team and m["team_id"] == it_team["id"]]
    for admin in it_members[:2]:
        admin["role"] = "admin"
        admin["title"] = "Systems Administrator"
    leavers = [m for m in members if m["role"] == "member"]
    for leaver in rng.sample(leavers, max(1, len(leavers) // 30)):
        leaver["is_active"] = False
        leaver["hire_date"] = now.date() - timedelta(days=rng.randint(500, 1800))
    for emp in world.rows("people_employee"):
        if emp["is_active"] and rng.random() < 0.15:
            emp["status_emoji"], emp["status_text"] = rng.choice(_STATUSES)
