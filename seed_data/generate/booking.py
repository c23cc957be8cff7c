"""Booking: office buildings with meeting rooms, hotels where offices and customers are,
travel policy, and the company's reservations with approvals.

Occupancy is tracked while booking so no resource is ever booked beyond its units (less any
availability window), counting pending and confirmed reservations.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import date, datetime, time, timedelta

from ..schema.crm import CLOSED_STAGES
from .context import Row, World
from .places import BY_NAME, CITIES, City, street_address, to_utc

_BRANDS = ("Meridian Suites", "Harbor & Vine Hotel", "The Alder", "Parkline Hotel", "Cobalt Inn",
           "Linden House", "Northgate Hotel", "Atrium Grand", "Copperfield Hotel",
           "Riverside Lodge", "Skyline Suites", "The Wren", "Kingsley Hotel", "Marlowe Hotel",
           "Foundry Hotel", "Bayleaf Inn", "Station House Hotel", "Lanterne Hotel",
           "Ashford Court", "Ember Hotel", "Hollis Hotel", "The Greyson", "Juniper Lofts",
           "Quayside Hotel", "Arden Residences")  # fmt: skip
# Room type: name, guests, rate factor, features.
_ROOM_TYPES = (
    ("Standard Queen", 2, 0.9, "queen bed, work desk, rain shower"),
    ("Standard King", 2, 1.0, "king bed, work desk, rain shower"),
    ("Twin Room", 2, 0.95, "two single beds, work desk"),
    ("Deluxe King", 2, 1.25, "king bed, city view, lounge chair, espresso machine"),
    ("Junior Suite", 3, 1.6, "king bed, sofa bed, separate living area"),
    ("Executive Suite", 4, 2.2, "king bed, living room, dining table, lounge access"),
)
_AMENITIES = ("free wifi", "fitness centre", "breakfast included", "24h front desk", "bar",
              "restaurant", "meeting rooms", "laundry service", "parking", "airport shuttle",
              "spa", "rooftop terrace", "business centre", "pool")  # fmt: skip
_ROOM_NAMES = ("Ada", "Turing", "Hopper", "Curie", "Lovelace", "Tesla", "Darwin", "Kepler",
               "Noether", "Franklin", "Galileo", "Newton", "Faraday", "Bohr", "Fermi", "Meitner",
               "Pascal", "Euler", "Gauss", "Hubble", "Sagan", "Goodall", "Feynman", "Babbage",
               "Everest", "Denali", "Kilimanjaro", "Matterhorn", "Fuji", "Rainier", "Olympus",
               "Aconcagua", "Elbrus", "Kosciuszko", "Whitney", "Shasta", "Hood", "Baker",
               "Amazon", "Danube", "Nile", "Yukon", "Rhine", "Thames", "Mekong", "Volga",
               "Orinoco", "Zambezi", "Columbia", "Hudson", "Seine", "Tagus", "Shannon", "Elbe",
               "Lyra", "Orion", "Vega", "Sirius", "Altair", "Rigel", "Deneb", "Polaris",
               "Andromeda", "Cassiopeia", "Pegasus", "Draco", "Phoenix", "Hydra", "Cygnus",
               "Aquila", "Carina", "Centaurus")  # fmt: skip
_ROOM_FEATURES = ("video conferencing", "whiteboard", "TV display", "speakerphone",
                  "standing desks", "wheelchair accessible")  # fmt: skip
_VISIT_KINDS = ("discovery workshop", "executive briefing", "quarterly business review",
                "technical deep dive", "contract negotiation", "kickoff", "renewal review",
                "security review", "pilot check-in")  # fmt: skip
_INTERNAL_TRIPS = ("Quarterly planning at {office}", "Team offsite at {office}",
                   "Onboarding week at {office}", "Sales kickoff at {office}",
                   "Hiring loop at {office}", "Leadership summit at {office}")  # fmt: skip
_MEETINGS = ("Weekly {team} sync", "{team} sprint planning", "{team} retro", "1:1",
             "Interview loop", "Design review", "Board prep", "All-hands rehearsal",
             "Customer call with {account}", "{account} QBR prep", "Pipeline review",
             "Budget review", "Roadmap review", "Vendor demo")  # fmt: skip


def _day_time(day: date) -> datetime:
    return datetime.combine(day, time())


class _Occupancy:
    """Units in use per (resource, day) for hotels and booked intervals for rooms."""

    def __init__(self) -> None:
        self.nights: dict[tuple[int, date], int] = defaultdict(int)
        self.slots: dict[int, list[tuple[datetime, datetime]]] = defaultdict(list)
        self.limits: dict[int, list[tuple[date, date, int]]] = defaultdict(list)

    def units_on(self, resource: Row, day: date) -> int:
        units = resource["units"]
        for start, end, limit in self.limits[resource["id"]]:
            if start <= day <= end:
                units = min(units, limit)
        return units

    def stay_fits(self, resource: Row, check_in: date, nights: int) -> bool:
        days = [check_in + timedelta(days=i) for i in range(nights)]
        return all(self.nights[resource["id"], d] < self.units_on(resource, d) for d in days)

    def take_stay(self, resource: Row, check_in: date, nights: int) -> None:
        for i in range(nights):
            self.nights[resource["id"], check_in + timedelta(days=i)] += 1

    def slot_fits(self, resource: Row, start: datetime, end: datetime) -> bool:
        if self.units_on(resource, start.date()) < 1:
            return False
        return all(end <= s or start >= e for s, e in self.slots[resource["id"]])

    def take_slot(self, resource: Row, start: datetime, end: datetime) -> None:
        self.slots[resource["id"]].append((start, end))


def _hotel_name(rng: random.Random, city: City, taken: set[str], unique_hoods: set[str]) -> str:
    while True:
        brand = rng.choice(_BRANDS)
        hood = rng.choice(city.neighborhoods)
        for name in (
            f"{brand} {city.name}",
            f"{brand} {hood}" if hood in unique_hoods else f"{brand} {city.name} {hood}",
            f"{brand} {city.name} {hood}",
        ):
            if name not in taken:
                taken.add(name)
                return name


def build(world: World) -> None:
    """Make properties, resources, availability windows, policies, reservations, approvals."""
    rng = world.rng("booking")
    now = world.now
    today = now.date()
    scale = world.scale
    employees = world.rows("people_employee")
    active = [e for e in employees if e["is_active"]]
    teams = {t["id"]: t for t in world.rows("people_team")}
    offices = world.rows("people_office")
    occupancy = _Occupancy()

    # Office buildings and their meeting rooms.
    room_names = list(_ROOM_NAMES)
    rng.shuffle(room_names)
    office_property: dict[int, Row] = {}
    rooms_at: dict[int, list[Row]] = {}
    for i, office in enumerate(offices):
        prop = world.add(
            "booking_property",
            kind="office",
            name=office["name"],
            city=office["city"],
            country=office["country"],
            address=office["address"],
            description=f"{world.company_name} office in {office['city']}.",
            star_rating=None,
            guest_rating=None,
            amenities="badge access, kitchen, phone booths, bike storage",
            office_id=office["id"],
            is_preferred=False,
        )
        office_property[office["id"]] = prop
        count = (
            {"tiny": 3, "small": 8, "large": 12}[scale.name]
            if i == 0
            else {"tiny": 2, "small": 4, "large": 7}[scale.name]
        )
        rooms_at[office["id"]] = []
        for _ in range(count):
            capacity = rng.choice((4, 4, 6, 6, 8, 10, 12, 16, 20))
            features = sorted(rng.sample(_ROOM_FEATURES, rng.randint(1, 3)))
            if "video conferencing" not in features and capacity >= 6:
                features = sorted([*features, "video conferencing"])
            rooms_at[office["id"]].append(
                world.add(
                    "booking_resource",
                    property_id=prop["id"],
                    kind="meeting_room",
                    name=room_names.pop(),
                    capacity=capacity,
                    units=1,
                    nightly_rate=None,
                    features=", ".join(features),
                )
            )

    # Hotels: every office city, then customer cities by how many accounts are there.
    accounts = world.rows("crm_account")
    demand: dict[str, int] = defaultdict(int)
    for account in accounts:
        if account["billing_city"]:
            demand[account["billing_city"]] += 1
    for office in offices:
        demand[office["city"]] += max(3, len(accounts) // 20)
    cities = sorted(demand, key=lambda c: (-demand[c], c))
    n_hotels = scale.properties - len(offices)
    per_city: dict[str, int] = defaultdict(int)
    office_cities = [o["city"] for o in offices]
    for city_name in (office_cities + cities)[:n_hotels]:
        per_city[city_name] += 1
    left = n_hotels - sum(per_city.values())
    if left > 0:
        for city_name in rng.choices(cities, weights=[demand[c] for c in cities], k=left):
            per_city[city_name] += 1
    hood_count: dict[str, int] = defaultdict(int)
    for city in CITIES:
        for hood in city.neighborhoods:
            hood_count[hood] += 1
    unique_hoods = {h for h, n in hood_count.items() if n == 1}
    taken: set[str] = set()
    hotels_in: dict[str, list[Row]] = defaultdict(list)
    room_types: dict[int, list[Row]] = {}
    for city in CITIES:
        for _ in range(per_city.get(city.name, 0)):
            stars = rng.choices((3, 4, 5), (3, 5, 2))[0]
            name = _hotel_name(rng, city, taken, unique_hoods)
            hotel = world.add(
                "booking_property",
                kind="hotel",
                name=name,
                city=city.name,
                country=city.country,
                address=street_address(rng, city),
                description=f"{stars}-star hotel in {rng.choice(city.neighborhoods)}, {city.name}.",
                star_rating=stars,
                guest_rating=round(rng.uniform(3.4, 4.9), 1),
                amenities=", ".join(sorted(rng.sample(_AMENITIES, rng.randint(3, 7)))),
                office_id=None,
                is_preferred=rng.random() < 0.3,
            )
            hotels_in[city.name].append(hotel)
            kinds = sorted(rng.sample(range(len(_ROOM_TYPES)), rng.randint(2, 4)))
            room_types[hotel["id"]] = []
            for k in kinds:
                label, guests, factor, features = _ROOM_TYPES[k]
                rate = (
                    city.hotel_rate * (0.75 + 0.2 * (stars - 3)) * factor * rng.uniform(0.85, 1.15)
                )
                room_types[hotel["id"]].append(
                    world.add(
                        "booking_resource",
                        property_id=hotel["id"],
                        kind="hotel_room",
                        name=label,
                        capacity=guests,
                        units=rng.choice((2, 4, 6, 10, 20, 40)),
                        nightly_rate=int(round(rate / 5) * 5),
                        features=features,
                    )
                )

    # Availability windows: renovations and closures.
    resources = world.rows("booking_resource")
    closing = {r["id"] for r in resources if rng.random() < 0.06} or {rng.choice(resources)["id"]}
    for resource in resources:
        if resource["id"] in closing:
            start = today + timedelta(days=rng.randint(-60, 75))
            end = start + timedelta(days=rng.randint(2, 21))
            if resource["kind"] == "meeting_room":
                units, reason = 0, rng.choice(("AV upgrade", "Repainting", "Furniture replacement"))
            elif rng.random() < 0.5:
                units, reason = 0, "Closed for renovation"
            else:
                units = max(1, resource["units"] // 2)
                reason = "One floor under refurbishment"
            world.add(
                "booking_availability",
                resource_id=resource["id"],
                start_date=start,
                end_date=end,
                units=units,
                reason=reason,
            )
            occupancy.limits[resource["id"]].append((start, end, units))

    # Travel policy: a default and one per major city.
    default_policy = world.add(
        "booking_policy",
        name="Standard travel policy",
        city=None,
        max_nightly_rate=225,
        approval_over_total=1500,
        min_advance_days=7,
        notes="Book at least a week ahead. Stays over the nightly cap or the total need "
        "your manager's approval.",
    )
    policies: dict[str, Row] = {}
    for city_name in sorted(set(office_cities) | set(cities[:6])):
        city = BY_NAME[city_name]
        policies[city_name] = world.add(
            "booking_policy",
            name=f"{city_name} travel policy",
            city=city_name,
            max_nightly_rate=int(round(city.hotel_rate * 1.1 / 25) * 25),
            approval_over_total=2500 if city.hotel_rate >= 280 else 2000,
            min_advance_days=14 if city.hotel_rate >= 280 else 7,
            notes=f"Preferred hotels in {city_name} are flagged in search.",
        )

    managers = {e["id"]: e["manager_id"] for e in employees}
    bookers = [
        e
        for e in active
        if e["title"] in ("Travel Coordinator", "Office Manager", "Executive Assistant")
    ]
    opportunities = [
        o
        for o in world.rows("crm_opportunity")
        if hotels_in.get(world.get("crm_account", o["account_id"])["billing_city"] or "")
    ]
    employees_at: dict[int, list[Row]] = defaultdict(list)
    for e in active:
        employees_at[e["office_id"]].append(e)
    revenue_ids = {o["owner_id"] for o in world.rows("crm_opportunity")}

    def created_before(start: datetime, lead_days: int) -> datetime:
        created = start - timedelta(
            days=lead_days, hours=rng.randint(0, 9), minutes=rng.randint(0, 59)
        )
        if created >= now:
            created = now - timedelta(hours=rng.randint(1, 96), minutes=rng.randint(0, 59))
        return created

    def book_stay(
        guest: Row, city_name: str, check_in: date, nights: int
    ) -> tuple[Row, Row] | None:
        hotels = list(hotels_in[city_name])
        rng.shuffle(hotels)
        hotels.sort(key=lambda h: not h["is_preferred"])
        for hotel in hotels[:4]:
            for resource in rng.sample(room_types[hotel["id"]], len(room_types[hotel["id"]])):
                if occupancy.stay_fits(resource, check_in, nights):
                    return hotel, resource
        return None

    n_stays = int(scale.reservations * 0.55)
    n_rooms = scale.reservations - n_stays
    stays = 0
    attempts = 0
    while stays < n_stays and attempts < n_stays * 5:
        attempts += 1
        # The first two stays are a pending approval and a cancellation, so every world has both.
        force = ("pending", "cancelled")[stays] if stays < 2 else None
        customer_trip = opportunities and rng.random() < 0.6
        nights = rng.choices((1, 2, 3, 4, 5), (3, 4, 3, 2, 1))[0]
        account = opp = None
        if customer_trip:
            opp = rng.choice(opportunities)
            account = world.get("crm_account", opp["account_id"])
            city_name = account["billing_city"]
            guest = world.get("people_employee", opp["owner_id"])
            if opp["stage"] in CLOSED_STAGES:
                anchor = opp["close_date"] - timedelta(days=rng.randint(3, 40))
                check_in = max(anchor, today - timedelta(days=150))
            else:
                check_in = today + timedelta(days=rng.randint(-60, 45))
        else:
            office = rng.choice(offices)
            city_name = office["city"]
            travellers = [e for e in active if e["office_id"] != office["id"]]
            guest = rng.choice(travellers)
            check_in = today + timedelta(days=rng.randint(-120, 60))
        if force == "pending":
            check_in = today + timedelta(days=rng.randint(7, 40))
            if managers[guest["id"]] is None:
                continue
        if not guest["is_active"] or not hotels_in.get(city_name):
            continue
        found = book_stay(guest, city_name, check_in, nights)
        if found is None:
            continue
        hotel, resource = found
        rate = resource["nightly_rate"]
        policy = policies.get(city_name, default_policy)
        if force == "pending":
            nights = max(nights, policy["approval_over_total"] // rate + 1)
            if nights > 21 or not occupancy.stay_fits(resource, check_in, nights):
                continue
        start = _day_time(check_in)
        end = start + timedelta(days=nights)
        total = rate * nights
        breach = rate > policy["max_nightly_rate"] or total > policy["approval_over_total"]
        lead_days = rng.choice((2, 5, 9, 14, 21, 30, 45))
        created = created_before(start, lead_days)
        approver_id = managers[guest["id"]]
        status, approval = "confirmed", None
        cancelled_at = None
        if force == "cancelled" or (force is None and rng.random() < 0.08):
            status = "cancelled"
            cancelled_at = created + (min(start, now) - created) * rng.uniform(0.1, 0.9)
            cancelled_at = cancelled_at.replace(second=0, microsecond=0)
        elif breach and approver_id is not None:
            roll = 0.0 if force == "pending" else rng.random()
            if start.date() > today:
                approval = "pending" if roll < 0.5 else ("approved" if roll < 0.9 else "rejected")
            else:
                approval = "approved" if roll < 0.85 else "rejected"
            status = {
                "pending": "pending_approval",
                "approved": "confirmed",
                "rejected": "rejected",
            }[approval]
        if status in ("confirmed", "pending_approval"):
            occupancy.take_stay(resource, check_in, nights)
        booked_by = guest
        if bookers and rng.random() < 0.12:
            booked_by = rng.choice(bookers)
        reservation = world.add(
            "booking_reservation",
            resource_id=resource["id"],
            guest_id=guest["id"],
            booked_by_id=booked_by["id"],
            start_at=start,
            end_at=end,
            status=status,
            purpose="",
            total_cost=total,
            account_id=account["id"] if account else None,
            opportunity_id=opp["id"] if opp else None,
            created_at=created,
            cancelled_at=cancelled_at,
        )
        if account is not None:
            world.say(
                "booking_reservation",
                reservation,
                "purpose",
                "{account} " + rng.choice(_VISIT_KINDS),
                account=world.ref("crm_account", account),
            )
        else:
            office_prop = office_property[next(o["id"] for o in offices if o["city"] == city_name)]
            world.say(
                "booking_reservation",
                reservation,
                "purpose",
                rng.choice(_INTERNAL_TRIPS),
                office=world.ref("booking_property", office_prop),
            )
        if approval is not None:
            decided = None
            comment = ""
            if approval != "pending":
                decided = created + (min(start, now) - created) * rng.uniform(0.05, 0.5)
                decided = decided.replace(second=0, microsecond=0)
                comment = (
                    "Approved, customer-facing trip."
                    if approval == "approved" and account
                    else "Approved."
                    if approval == "approved"
                    else f"Please pick a hotel under the ${policy['max_nightly_rate']} cap."
                )
            world.add(
                "booking_approval",
                reservation_id=reservation["id"],
                approver_id=approver_id,
                status=approval,
                comment=comment,
                created_at=created,
                decided_at=decided,
            )
        stays += 1

    # Meeting-room bookings, by the hour in each office's local time.
    booked = 0
    attempts = 0
    while booked < n_rooms and attempts < n_rooms * 5:
        attempts += 1
        office = rng.choice(offices)
        people_here = employees_at[office["id"]]
        if not people_here or not rooms_at[office["id"]]:
            continue
        day = today + timedelta(days=rng.randint(-30, 21))
        if day.weekday() >= 5:
            continue
        city = BY_NAME[office["city"]]
        minutes = rng.choice((30, 60, 60, 60, 90, 120))
        local = datetime.combine(day, time(rng.randint(8, 16), rng.choice((0, 30))))
        start = to_utc(city, local)
        end = start + timedelta(minutes=minutes)
        room = rng.choice(rooms_at[office["id"]])
        if not occupancy.slot_fits(room, start, end):
            continue
        organizer = rng.choice(people_here)
        template = rng.choice(_MEETINGS)
        account = None
        if "{account}" in template:
            if organizer["id"] not in revenue_ids:
                template = "Pipeline review"
            else:
                owned = [a for a in accounts if a["owner_id"] == organizer["id"]]
                account = rng.choice(owned) if owned else None
                if account is None:
                    template = "Pipeline review"
        cancelled = rng.random() < 0.07
        created = created_before(start, rng.randint(0, 10))
        if not cancelled:
            occupancy.take_slot(room, start, end)
        reservation = world.add(
            "booking_reservation",
            resource_id=room["id"],
            guest_id=organizer["id"],
            booked_by_id=organizer["id"],
            start_at=start,
            end_at=end,
            status="cancelled" if cancelled else "confirmed",
            purpose="",
            total_cost=0,
            account_id=account["id"] if account else None,
            opportunity_id=None,
            created_at=created,
            cancelled_at=(created + (min(start, now) - created) / 2).replace(
                second=0, microsecond=0
            )
            if cancelled
            else None,
        )
        slots: dict[str, object] = {"team": teams[organizer["team_id"]]["name"]}
        if account is not None:
            slots["account"] = world.ref("crm_account", account)
        world.say("booking_reservation", reservation, "purpose", template, **slots)
        booked += 1
