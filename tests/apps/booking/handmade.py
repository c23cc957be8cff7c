"""A small booking world made by hand, for tests where every rate, date and person matters.

The world's clock stands at Wednesday 17 September 2025, 14:30 UTC. People (ids fixed):

    1 Ava Chen      Chief Executive Officer   executive  no manager
    2 Ben Ortiz     Director of Sales         director   reports to 1
    3 Cleo Park     Sales Manager             manager    reports to 2
    4 Dan Reyes     Account Executive         staff      reports to 3   (the usual traveller)
    5 Eve Novak     Solutions Engineer        staff      reports to 3   (a peer of Dan)
    6 Finn Walsh    Travel Coordinator        staff      reports to 2
    7 Gia Moreau    Backend Engineer          staff      reports to 2   (a stranger to Dan's trips)
    8 Hal Ito       Account Executive         staff      reports to 3, left the company
    9 Ivy Stone     Executive Assistant       staff      reports to 1

Stays (whole-dollar rates; see each constant): a preferred Seattle hotel with an autumn peak
season (+25% from 1 to 15 October), a Seattle home with fees, a minimum stay and a weekly
discount, and an Austin hotel (no city policy there) closed 20–25 October. Seattle stays are
taxed 10% plus $3.00 a night. Policies: the default (cap $225, approval over $1,500, 7 days
ahead, 14 nights) and Seattle's (cap $250, approval over $2,500, 7 days ahead, 14 nights,
preferred properties only) with caps by job level.

Meeting rooms: Denali (6 seats) and Everest (4 seats, closed Wednesday 24 September) at Seattle
HQ (America/Los_Angeles), Thames (8 seats) at the London office (Europe/London).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.schema import Base, Employee
from officegym.seed_data.schema.booking import (
    Availability,
    CityTax,
    Host,
    PolicyCap,
    Property,
    Resource,
    Season,
    TravelPolicy,
)
from officegym.seed_data.schema.crm import Account, Opportunity
from officegym.seed_data.schema.meta import WorldMeta
from officegym.seed_data.schema.people import Office, Team


def utc(*parts: int) -> datetime:
    """A naive UTC datetime, as the world stores times."""
    return datetime(*parts, tzinfo=UTC).replace(tzinfo=None)


NOW = utc(2025, 9, 17, 14, 30)
TODAY = NOW.date()

CEO, DIRECTOR, MANAGER, TRAVELLER, PEER, COORDINATOR, STRANGER, LEFT, ASSISTANT = range(1, 10)
LEVELS = {CEO: "executive", DIRECTOR: "director", MANAGER: "manager", TRAVELLER: "staff"}

HARBOR, LOFT, AUSTIN, SEATTLE_HQ, LONDON = range(1, 6)  # properties
KING, SUITE, HOME, TWIN, DENALI, EVEREST, THAMES = range(1, 8)  # resources
KING_RATE, KING_WEEKEND = 200, 240
SUITE_RATE = 400
HOME_RATE, HOME_WEEKEND, HOME_CLEANING, HOME_MIN_NIGHTS = 150, 180, 80, 2
HOME_DISCOUNT, HOME_SERVICE = 10, 12
TWIN_RATE = 120
PEAK = (date(2025, 10, 1), date(2025, 10, 15), 25)
SEATTLE_TAX = (10.0, 300)
AUSTIN_CLOSED = (date(2025, 10, 20), date(2025, 10, 25))
EVEREST_CLOSED = date(2025, 9, 24)
SEATTLE_CAPS = {"staff": 250, "manager": 300, "director": 400, "executive": 500}
ACCOUNT, OTHER_ACCOUNT, OPPORTUNITY = 1, 2, 1

_PEOPLE = (
    (CEO, "Ava", "Chen", "Chief Executive Officer", None, "executive", "admin", True),
    (DIRECTOR, "Ben", "Ortiz", "Director of Sales", CEO, "director", "manager", True),
    (MANAGER, "Cleo", "Park", "Sales Manager", DIRECTOR, "manager", "manager", True),
    (TRAVELLER, "Dan", "Reyes", "Account Executive", MANAGER, "staff", "member", True),
    (PEER, "Eve", "Novak", "Solutions Engineer", MANAGER, "staff", "member", True),
    (COORDINATOR, "Finn", "Walsh", "Travel Coordinator", DIRECTOR, "staff", "member", True),
    (STRANGER, "Gia", "Moreau", "Backend Engineer", DIRECTOR, "staff", "member", True),
    (LEFT, "Hal", "Ito", "Account Executive", MANAGER, "staff", "member", False),
    (ASSISTANT, "Ivy", "Stone", "Executive Assistant", CEO, "staff", "member", True),
)


def build(path: Path) -> Path:
    """Write the world to `path` (a new file)."""
    engine = make_engine(path)
    try:
        Base.metadata.create_all(engine)
        with Session(engine) as db, db.begin():
            db.add(
                WorldMeta(
                    id=1,
                    schema_version=0,
                    seed=0,
                    scale="handmade",
                    now=NOW,
                    clock_ticks=0,
                    company_name="Ridgeline Analytics",
                    company_domain="ridgeline.test",
                    timezone="America/Los_Angeles",
                    currency="USD",
                )
            )
            db.add_all(
                [
                    Office(
                        id=1,
                        name="Seattle HQ",
                        city="Seattle",
                        country="United States",
                        address="1 Union Street",
                        timezone="America/Los_Angeles",
                    ),
                    Office(
                        id=2,
                        name="London Office",
                        city="London",
                        country="United Kingdom",
                        address="2 King Street",
                        timezone="Europe/London",
                    ),
                    Team(id=1, name="Sales", department="Sales"),
                ]
            )
            db.flush()
            for emp_id, first, last, title, manager, level, role, active in _PEOPLE:
                db.add(
                    Employee(
                        id=emp_id,
                        first_name=first,
                        last_name=last,
                        display_name=f"{first} {last}",
                        email=f"{first.lower()}@ridgeline.test",
                        title=title,
                        team_id=1,
                        manager_id=manager,
                        office_id=1,
                        timezone="America/Los_Angeles",
                        phone=None,
                        hire_date=date(2020, 1, 6),
                        role=role,
                        job_level=level,
                        is_active=active,
                        password_hash="x",
                    )
                )
                db.flush()
            db.add(Host(id=1, name="Marta Lind", joined_on=date(2019, 5, 1), is_superhost=True))
            db.add_all(
                [
                    Property(
                        id=HARBOR,
                        kind="hotel",
                        property_type="Hotel",
                        name="Harbor Hotel Seattle",
                        city="Seattle",
                        country="United States",
                        address="10 Alaskan Way",
                        cancellation_policy="moderate",
                        is_preferred=True,
                        star_rating=4,
                    ),
                    Property(
                        id=LOFT,
                        kind="home",
                        property_type="Loft",
                        name="Queen Anne Loft",
                        city="Seattle",
                        country="United States",
                        address="5 Queen Anne Ave",
                        cancellation_policy="strict",
                        service_fee_pct=HOME_SERVICE,
                        host_id=1,
                        is_preferred=False,
                    ),
                    Property(
                        id=AUSTIN,
                        kind="hotel",
                        property_type="Hotel",
                        name="Cobalt Inn Austin",
                        city="Austin",
                        country="United States",
                        address="7 Congress Ave",
                        cancellation_policy="flexible",
                        is_preferred=False,
                    ),
                    Property(
                        id=SEATTLE_HQ,
                        kind="office",
                        name="Seattle HQ",
                        city="Seattle",
                        country="United States",
                        address="1 Union Street",
                        office_id=1,
                    ),
                    Property(
                        id=LONDON,
                        kind="office",
                        name="London Office",
                        city="London",
                        country="United Kingdom",
                        address="2 King Street",
                        office_id=2,
                    ),
                ]
            )
            db.flush()
            db.add_all(
                [
                    Resource(
                        id=KING,
                        property_id=HARBOR,
                        kind="hotel_room",
                        name="Standard King",
                        capacity=2,
                        units=2,
                        nightly_rate=KING_RATE,
                        weekend_rate=KING_WEEKEND,
                    ),
                    Resource(
                        id=SUITE,
                        property_id=HARBOR,
                        kind="hotel_room",
                        name="Executive Suite",
                        capacity=4,
                        units=1,
                        nightly_rate=SUITE_RATE,
                    ),
                    Resource(
                        id=HOME,
                        property_id=LOFT,
                        kind="home",
                        name="Queen Anne Loft",
                        capacity=16,
                        units=1,
                        bedrooms=6,
                        beds=8,
                        bathrooms=3,
                        nightly_rate=HOME_RATE,
                        weekend_rate=HOME_WEEKEND,
                        cleaning_fee=HOME_CLEANING,
                        min_nights=HOME_MIN_NIGHTS,
                        weekly_discount_pct=HOME_DISCOUNT,
                    ),
                    Resource(
                        id=TWIN,
                        property_id=AUSTIN,
                        kind="hotel_room",
                        name="Twin Room",
                        capacity=2,
                        units=5,
                        nightly_rate=TWIN_RATE,
                    ),
                    Resource(
                        id=DENALI,
                        property_id=SEATTLE_HQ,
                        kind="meeting_room",
                        name="Denali",
                        capacity=6,
                        units=1,
                        features="screen, whiteboard",
                    ),
                    Resource(
                        id=EVEREST,
                        property_id=SEATTLE_HQ,
                        kind="meeting_room",
                        name="Everest",
                        capacity=4,
                        units=1,
                    ),
                    Resource(
                        id=THAMES,
                        property_id=LONDON,
                        kind="meeting_room",
                        name="Thames",
                        capacity=8,
                        units=1,
                    ),
                ]
            )
            db.flush()
            db.add_all(
                [
                    Season(
                        property_id=HARBOR,
                        name="Autumn peak",
                        start_date=PEAK[0],
                        end_date=PEAK[1],
                        percent=PEAK[2],
                    ),
                    CityTax(
                        city="Seattle",
                        name="Seattle lodging tax",
                        percent=SEATTLE_TAX[0],
                        per_night_cents=SEATTLE_TAX[1],
                    ),
                    Availability(
                        resource_id=TWIN,
                        start_date=AUSTIN_CLOSED[0],
                        end_date=AUSTIN_CLOSED[1],
                        units=0,
                        reason="Closed for renovation",
                    ),
                    Availability(
                        resource_id=EVEREST,
                        start_date=EVEREST_CLOSED,
                        end_date=EVEREST_CLOSED,
                        units=0,
                        reason="AV upgrade",
                    ),
                    TravelPolicy(
                        id=1,
                        name="Standard travel policy",
                        city=None,
                        max_nightly_rate=225,
                        approval_over_total=1500,
                        min_advance_days=7,
                        max_nights=14,
                        preferred_only=False,
                    ),
                    TravelPolicy(
                        id=2,
                        name="Seattle travel policy",
                        city="Seattle",
                        max_nightly_rate=250,
                        approval_over_total=2500,
                        min_advance_days=7,
                        max_nights=14,
                        preferred_only=True,
                    ),
                ]
            )
            db.flush()
            db.add_all(
                PolicyCap(policy_id=2, job_level=level, max_nightly_rate=cap)
                for level, cap in SEATTLE_CAPS.items()
                if level != "staff"
            )
            db.add_all(
                [
                    Account(
                        id=ACCOUNT,
                        name="Northwind Traders",
                        billing_city="Seattle",
                        owner_id=TRAVELLER,
                        created_at=NOW,
                        updated_at=NOW,
                    ),
                    Account(
                        id=OTHER_ACCOUNT,
                        name="Northwind Traders Inc",
                        billing_city="Seattle",
                        owner_id=TRAVELLER,
                        created_at=NOW,
                        updated_at=NOW,
                    ),
                ]
            )
            db.flush()
            db.add(
                Opportunity(
                    id=OPPORTUNITY,
                    name="Northwind renewal",
                    account_id=ACCOUNT,
                    owner_id=TRAVELLER,
                    stage="Negotiation",
                    amount=50_000,
                    probability=60,
                    close_date=date(2025, 11, 30),
                    created_at=NOW,
                    updated_at=NOW,
                )
            )
    finally:
        engine.dispose()
    return path


@contextmanager
def session(path: Path) -> Iterator[Session]:
    """A write session on the world at `path`, as a request's (BEGIN IMMEDIATE, nothing
    commits itself)."""
    engine = make_engine(path, create=False)
    db = Session(writer(engine))
    try:
        yield db
    finally:
        db.close()
        engine.dispose()


def copy(template: Path, path: Path) -> Path:
    shutil.copyfile(template, path)
    return path


def counts(db: Session) -> dict[str, object]:
    """Row counts of every table and the clock's ticks, as seen inside `db`'s transaction."""
    found: dict[str, object] = {
        table.name: db.scalar(select(func.count()).select_from(table))
        for table in Base.metadata.sorted_tables
    }
    found["clock_ticks"] = db.scalar(text("SELECT clock_ticks FROM world_meta"))
    return found


def state(db: Session) -> dict[str, list[tuple]]:
    """Every row of every booking table and the world clock, inside `db`'s transaction: equal
    before and after means nothing was written."""
    found = {
        table.name: [tuple(r) for r in db.execute(select(table).order_by(*table.primary_key))]
        for table in Base.metadata.sorted_tables
        if table.name.startswith("booking_")
    }
    found["world_meta"] = [tuple(r) for r in db.execute(text("SELECT * FROM world_meta"))]
    return found


def employee(db: Session, emp_id: int) -> Employee:
    return db.get(Employee, emp_id)


@contextmanager
def refused(db: Session, error: type[Exception], match: str | None = None) -> Iterator[object]:
    """Expect the act in the block to raise `error` (its message matching `match`) and to have
    written nothing: every booking row and the world clock are the same afterwards."""
    before = state(db)
    with pytest.raises(error, match=match) as caught:
        yield caught
    assert state(db) == before


def set_clock(db: Session, now: datetime) -> None:
    """Move the world's frozen clock (as if days passed between two acts)."""
    db.execute(update(WorldMeta).where(WorldMeta.id == 1).values(now=now))
