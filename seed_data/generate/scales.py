"""World sizes: how many of each thing a `tiny`, `small` or `large` world holds."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scale:
    """Target counts for one world size. Counts are totals including planted mess."""

    name: str
    employees: int
    offices: int
    channels: int
    messages: int
    accounts: int
    contacts: int
    leads: int
    opportunities: int
    workbooks: int
    properties: int  # offices and hotels
    homes: int  # homes let by hosts, double listings included
    reservations: int
    room_series: int  # weekly meeting-room series
    duplicate_contacts: int
    phone_conflicts: int
    stale_deals: int
    incomplete_records: int
    duplicate_accounts: int
    duplicate_leads: int
    double_listings: int


SCALES: dict[str, Scale] = {
    "tiny": Scale(
        name="tiny",
        employees=20,
        offices=3,
        channels=8,
        messages=250,
        accounts=25,
        contacts=80,
        leads=12,
        opportunities=40,
        workbooks=3,
        properties=8,
        homes=20,
        reservations=50,
        room_series=2,
        duplicate_contacts=2,
        phone_conflicts=1,
        stale_deals=2,
        incomplete_records=4,
        duplicate_accounts=1,
        duplicate_leads=1,
        double_listings=1,
    ),
    "small": Scale(
        name="small",
        employees=150,
        offices=6,
        channels=40,
        messages=5_000,
        accounts=400,
        contacts=1_500,
        leads=200,
        opportunities=600,
        workbooks=25,
        properties=100,
        homes=120,
        reservations=1_000,
        room_series=6,
        duplicate_contacts=24,
        phone_conflicts=6,
        stale_deals=36,
        incomplete_records=48,
        duplicate_accounts=4,
        duplicate_leads=8,
        double_listings=2,
    ),
    "large": Scale(
        name="large",
        employees=1_500,
        offices=8,
        channels=400,
        messages=50_000,
        accounts=4_000,
        contacts=15_000,
        leads=2_000,
        opportunities=6_000,
        workbooks=250,
        properties=1_000,
        homes=400,
        reservations=10_000,
        room_series=16,
        duplicate_contacts=240,
        phone_conflicts=60,
        stale_deals=360,
        incomplete_records=480,
        duplicate_accounts=40,
        duplicate_leads=80,
        double_listings=3,
    ),
}
