"""Booking: office buildings with meeting rooms, hotels and homes where offices and customers
are, their reviews and seasons, city taxes, travel policy, and the company's reservations with
approvals, attendees and weekly series.

Occupancy is tracked while booking so no resource is ever booked beyond its units (less any
availability window), counting pending and confirmed reservations. Every stay is priced and
checked against the traveller's policy by `booking_rules`, the rules the booking app uses.
Listings, seasons, reviews and the planted mess each draw from their own random stream.
"""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta

from ..booking_rules import (
    Quote,
    Rule,
    Terms,
    policy_breaches,
    policy_terms,
    quote,
    refund_cents,
    stay_terms,
)
from ..schema.booking import HOME_TYPES, JOB_LEVELS
from ..schema.crm import CLOSED_STAGES
from .context import Ref, Row, World, render
from .places import BY_NAME, CITIES, City, point_near, street_address, to_utc

_BRANDS = ("Meridian Suites", "Harbor & Vine Hotel", "The Alder", "Parkline Hotel", "Cobalt Inn",
           "Linden House", "Northgate Hotel", "Atrium Grand", "Copperfield Hotel",
           "Riverside Lodge", "Skyline Suites", "The Wren", "Kingsley Hotel", "Marlowe Hotel",
           "Foundry Hotel", "Bayleaf Inn", "Station House Hotel", "Lanterne Hotel",
           "Ashford Court", "Ember Hotel", "Hollis Hotel", "The Greyson", "Juniper Lofts",
           "Quayside Hotel", "Arden Residences")  # fmt: skip
# Room type: name, guests, beds, rate factor, features.
_ROOM_TYPES = (
    ("Standard Queen", 2, 1, 0.9, "queen bed, work desk, rain shower"),
    ("Standard King", 2, 1, 1.0, "king bed, work desk, rain shower"),
    ("Twin Room", 2, 2, 0.95, "two single beds, work desk"),
    ("Deluxe King", 2, 1, 1.25, "king bed, city view, lounge chair, espresso machine"),
    ("Junior Suite", 3, 2, 1.6, "king bed, sofa bed, separate living area"),
    ("Executive Suite", 4, 2, 2.2, "king bed, sofa bed, living room, dining table, lounge access"),
)
# Hotel amenities beyond the basics, with how likely a 3-, 4- and 5-star hotel has each.
_HOTEL_EXTRAS = {
    "gym": (0.5, 0.8, 0.95), "breakfast": (0.6, 0.5, 0.4), "restaurant": (0.3, 0.7, 0.95),
    "bar": (0.3, 0.7, 0.9), "parking": (0.5, 0.4, 0.5), "workspace": (0.4, 0.5, 0.6),
    "pool": (0.05, 0.2, 0.5), "spa": (0.0, 0.15, 0.6), "airport shuttle": (0.15, 0.2, 0.3),
    "pets allowed": (0.15, 0.2, 0.25), "coffee maker": (0.5, 0.5, 0.6), "iron": (0.4, 0.6, 0.8),
    "hair dryer": (0.7, 0.9, 1.0), "city view": (0.05, 0.2, 0.4), "self check-in": (0.2, 0.1, 0.0),
    "washer": (0.05, 0.05, 0.1),
}  # fmt: skip
# Home amenities: how likely each home type has each, in the order of `HOME_TYPES`
# (Apartment, House, Loft, Serviced apartment, Guest suite, Townhouse).
_HOME_AMENITIES = {
    "wifi": (0.97, 0.97, 0.97, 1.0, 0.95, 0.97),
    "kitchen": (0.95, 0.98, 0.95, 0.98, 0.4, 0.98),
    "washer": (0.65, 0.9, 0.6, 0.85, 0.2, 0.9),
    "workspace": (0.5, 0.5, 0.6, 0.9, 0.4, 0.5),
    "parking": (0.25, 0.85, 0.2, 0.35, 0.4, 0.75),
    "tv": (0.8, 0.85, 0.8, 0.95, 0.7, 0.85),
    "heating": (0.9, 0.95, 0.85, 0.95, 0.9, 0.95),
    "air conditioning": (0.55, 0.6, 0.6, 0.8, 0.5, 0.6),
    "self check-in": (0.55, 0.4, 0.6, 0.7, 0.6, 0.45),
    "elevator": (0.5, 0.0, 0.4, 0.9, 0.0, 0.0),
    "balcony": (0.35, 0.3, 0.2, 0.4, 0.1, 0.35),
    "city view": (0.15, 0.05, 0.25, 0.3, 0.0, 0.05),
    "pets allowed": (0.12, 0.3, 0.1, 0.05, 0.1, 0.2),
    "gym": (0.1, 0.0, 0.05, 0.45, 0.0, 0.0),
    "pool": (0.04, 0.1, 0.0, 0.1, 0.0, 0.03),
    "iron": (0.4, 0.5, 0.4, 0.8, 0.4, 0.5),
    "hair dryer": (0.5, 0.55, 0.5, 0.9, 0.5, 0.55),
}
# Appliances that only come with a kitchen or a washer.
_WITH_KITCHEN = {"dishwasher": 0.5, "coffee maker": 0.65}
_WITH_WASHER = {"dryer": 0.5}
# Home type: weight, bedrooms (min, max), rate factor, word in names.
_HOME_TYPES = {
    "Apartment": (34, (0, 3), 1.0, "apartment"),
    "House": (10, (2, 4), 1.0, "house"),
    "Loft": (10, (0, 2), 1.08, "loft"),
    "Serviced apartment": (16, (0, 2), 1.12, "serviced apartment"),
    "Guest suite": (10, (0, 1), 0.82, "guest suite"),
    "Townhouse": (8, (2, 4), 1.05, "townhouse"),
}
_SIZE_FACTOR = {0: 0.55, 1: 0.7, 2: 0.95, 3: 1.25, 4: 1.55}
_HOME_ADJECTIVES = ("Sunny", "Bright", "Quiet", "Modern", "Stylish", "Charming", "Airy",
                    "Renovated", "Light-filled", "Elegant", "Calm", "Central")  # fmt: skip
_SMALL_ADJECTIVES = ("Cosy", "Compact", "Neat", "Snug")
_BIG_ADJECTIVES = ("Spacious", "Roomy", "Family-size", "Generous")
_HOME_NAMES = ("{adj} {size} {kind} near {area}", "{adj} {size} {kind} in {area}",
               "{adj} {kind} with {feature} in {area}", "{adj} {size} {kind} steps from {street}",
               "{adj} {size} {kind} by {street}", "{area} {size} {kind} with {feature}")  # fmt: skip
_FEATURE_PHRASES = {"workspace": "a workspace", "balcony": "a balcony", "city view": "city views",
                    "parking": "parking", "washer": "a washer", "pool": "a pool", "gym": "a gym",
                    "self check-in": "self check-in", "kitchen": "a full kitchen",
                    "wifi": "fast wifi", "pets allowed": "room for pets"}  # fmt: skip
# How a hotel's description names what it offers.
_HOTEL_HIGHLIGHTS = {"gym": "a gym", "pool": "a pool", "spa": "a spa",
                     "restaurant": "a restaurant", "bar": "a bar", "breakfast": "breakfast",
                     "24h front desk": "a 24-hour front desk", "airport shuttle": "an airport shuttle",
                     "parking": "parking", "workspace": "rooms with a workspace",
                     "city view": "city views", "pets allowed": "pets welcome"}  # fmt: skip
_HOME_PITCH = {
    "Apartment": "Well set up for a work trip: good light, a proper table and quiet nights.",
    "House": "Room for a whole team, with a big kitchen table for working sessions.",
    "Loft": "Open-plan and high-ceilinged, with space to spread out after a day of meetings.",
    "Serviced apartment": "Corporate-ready, with weekly housekeeping and fresh linen.",
    "Guest suite": "A private entrance and everything you need for a short visit.",
    "Townhouse": "Several floors of space, good for colleagues travelling together.",
}
_COMPANY_HOSTS = ("{area} Corporate Housing", "{last} Lettings", "Urban Nest Stays",
                  "Keystone Apartments", "Harbourview Residences", "Blue Door Rentals",
                  "{last} & Co. Homes", "Cityline Serviced Apartments", "Lantern Stays",
                  "{area} Short Lets")  # fmt: skip
_PERSON_ABOUT = (
    "Hi, I'm {first}. I've lived in {city} for {years} years and enjoy hosting people who "
    "are in town for work.",
    "{first} here. I look after my place in {area} myself and reply quickly, usually within "
    "the hour.",
    "I'm {first}, a {job} who loves {city}. Happy to share tips on where to eat around {area}.",
    "Hello! {first} here. My home in {area} is where I stay when I'm not travelling myself.",
)
_COMPANY_ABOUT = (
    "{name} manages furnished apartments across {city} for business travellers, relocations "
    "and project teams.",
    "{name} has let homes in {area} and nearby since {since}. Invoices for companies on request.",
    "A small local team running {count} homes in {city}, with 24/7 support by phone.",
)
_HOST_JOBS = ("teacher", "architect", "nurse", "designer", "photographer", "software engineer",
              "chef", "musician", "translator", "doctor")  # fmt: skip
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
# How likely a meeting room has each feature (video conferencing: see `_room_features`).
_FEATURE_ODDS = {"screen": 0.8, "whiteboard": 0.6, "speakerphone": 0.3, "standing desks": 0.15,
                 "wheelchair accessible": 0.5}  # fmt: skip
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
_RECURRING = ("Weekly {team} sync", "{team} sprint planning", "{team} retro", "{team} standup",
              "Pipeline review", "Roadmap review", "1:1")  # fmt: skip
_JUSTIFICATIONS = {
    "nightly_cap": ("Only hotel near the customer site with rooms left that week.",
                    "Everything under the cap was sold out because of a conference in town.",
                    "Closest place to the customer's office with availability.",
                    "Standard rooms were gone; this was the cheapest room left."),
    "total": ("Week-long onsite for the rollout, cheaper than flying back and forth.",
              "Two of us sharing the place for the whole workshop week.",
              "Extended stay for the implementation kickoff."),
    "advance": ("Client meeting moved up at short notice.",
                "The customer asked us to come in earlier than planned.",
                "Covering for a colleague who fell ill.",
                "Last-minute executive briefing requested by the account."),
    "length": ("Onsite for the whole migration window, as agreed with my manager.",
               "Relocating; staying until my flat is ready.",
               "Two-week onboarding at the office."),
    "preferred": ("Preferred hotels were full for those dates.",
                  "Needed a kitchen for a longer stay and no preferred place had one.",
                  "The preferred hotel is across town from the customer."),
}  # fmt: skip
# Seasons: name, (month, day) of the first and last night, percent; the last night may fall
# in the next year. Northern and southern hemisphere calendars.
_NORTH_SEASONS = (("Holidays", (12, 20), (1, 2), 30), ("Winter low", (1, 7), (2, 28), -15),
                  ("Spring conferences", (4, 14), (5, 22), 10),
                  ("Summer peak", (6, 15), (8, 31), 20), ("Autumn low", (11, 3), (11, 30), -10))  # fmt: skip
_SOUTH_SEASONS = (("Summer holidays", (12, 20), (1, 26), 30),
                  ("Autumn conferences", (3, 10), (4, 20), 10),
                  ("Winter low", (6, 1), (8, 15), -15))  # fmt: skip
_EVENTS = (("Trade fair week", 35), ("Tech conference week", 30), ("Marathon weekend", 25),
           ("Design week", 25), ("Film festival", 20))  # fmt: skip
# Taxes on stays per city: name, percent, flat cents per night.
_CITY_TAXES = {
    "San Francisco": ("Transient occupancy tax", 14.0, 250),
    "New York": ("Hotel room occupancy tax", 14.75, 350),
    "Austin": ("Hotel occupancy tax", 15.0, 0),
    "Boston": ("Room occupancy excise", 14.95, 0),
    "Seattle": ("Lodging tax", 15.7, 200),
    "Chicago": ("Hotel accommodations tax", 16.4, 0),
    "Denver": ("Lodger's tax", 15.75, 0),
    "Atlanta": ("Hotel-motel tax", 16.0, 0),
    "Los Angeles": ("Transient occupancy tax", 14.0, 150),
    "Dallas": ("Hotel occupancy tax", 15.0, 0),
    "Miami": ("Tourist development and resort tax", 13.0, 0),
    "Minneapolis": ("Lodging tax", 13.4, 0),
    "Philadelphia": ("Hotel room rental tax", 15.5, 0),
    "Toronto": ("Municipal accommodation tax", 6.0, 0),
    "Vancouver": ("Municipal and regional district tax", 11.0, 0),
    "London": ("Accommodation levy", 5.0, 100),
    "Manchester": ("City visitor charge", 5.0, 130),
    "Dublin": ("Accommodation VAT", 13.5, 0),
    "Berlin": ("City tax", 7.5, 0),
    "Munich": ("Overnight stay tax", 5.0, 0),
    "Amsterdam": ("Tourist tax", 12.5, 300),
    "Paris": ("Taxe de séjour", 5.0, 350),
    "Madrid": ("Accommodation VAT", 10.0, 0),
    "Stockholm": ("Accommodation VAT", 12.0, 0),
    "Zurich": ("City tax and VAT", 5.0, 250),
    "Singapore": ("Goods and services tax", 9.0, 0),
    "Tokyo": ("Consumption and accommodation tax", 10.0, 150),
    "Sydney": ("Goods and services tax", 10.0, 0),
    "Melbourne": ("Goods and services tax", 10.0, 0),
}
# Nightly caps of the higher job levels as multiples of the staff cap.
_LEVEL_CAP = {"staff": 1.0, "manager": 1.2, "director": 1.45, "executive": 1.8}
# Review sentences: openings by rating, what the location and an amenity were like, closings.
_OPENINGS = {
    5: ("Excellent stay.", "Would book again without hesitation.",
        "Everything was exactly as described.", "One of the best places I've stayed for work."),
    4: ("Very good stay overall.", "Solid choice for a work trip.",
        "Comfortable and well run.", "Good value for the area."),
    3: ("It was fine for a short trip.", "Decent, but not great value.",
        "OK for a night or two.", "Mixed feelings about this one."),
    2: ("Not what I expected.", "Below average for the price.", "Would look elsewhere next time."),
    1: ("Disappointing.", "Not as described.", "Would not stay again."),
}  # fmt: skip
_PLACE_GOOD = ("The {area} location made it easy to get to meetings.",
               "Great base in {area}, lots of places to eat nearby.",
               "{area} is quiet at night but close to everything.",
               "Easy walk from {area} to the office district.")  # fmt: skip
_PLACE_BAD = ("{area} was noisier at night than I expected.",
              "Getting from {area} to the centre took longer than the listing suggests.")  # fmt: skip
_AMENITY_GOOD = {
    "wifi": "Fast wifi, so video calls were no problem.",
    "workspace": "The workspace was handy for a few hours of work each evening.",
    "kitchen": "Having a full kitchen saved eating out every night.",
    "parking": "Parking on site made the drive in easy.",
    "washer": "The washer was a lifesaver on a week-long trip.",
    "gym": "The gym was small but had what I needed.",
    "breakfast": "Breakfast was good, with plenty of choice.",
    "pool": "A swim in the pool after work was a treat.",
    "24h front desk": "Late arrival was no problem with the 24-hour front desk.",
    "self check-in": "Self check-in was smooth, the code worked first time.",
    "balcony": "Coffee on the balcony in the morning was lovely.",
    "restaurant": "The restaurant downstairs was good enough for a client dinner.",
    "airport shuttle": "The airport shuttle saved a taxi fare.",
}
_AMENITY_BAD = {
    "wifi": "The wifi kept dropping during calls.",
    "parking": "Parking was harder to find than expected.",
    "air conditioning": "The air conditioning was loud and hard to adjust.",
    "heating": "The heating took ages to warm the place up.",
    "breakfast": "Breakfast was the same every day and ran out early.",
    "kitchen": "The kitchen was missing basics like a sharp knife.",
    "elevator": "The elevator was out of order for two days.",
    "self check-in": "Self check-in instructions were confusing.",
}
_HOME_CLOSINGS = ("{host} was quick to reply.", "Thanks, {host}!", "{host} was a great host.",
                  "{host} left clear instructions for everything.")  # fmt: skip
_HOTEL_CLOSINGS = ("Staff at the front desk were friendly.", "Housekeeping was thorough.",
                   "Check-in took a while, but the staff were helpful.")  # fmt: skip


def _day_time(day: date) -> datetime:
    return datetime.combine(day, time())


def _round_to(value: float, step: int) -> int:
    return int(round(value / step) * step)


class _Occupancy:
    """Units in use per (resource, day) for stays and booked intervals for rooms."""

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


def _listing(names: Sequence[str]) -> str:
    """Stored amenities: the vocabulary's words, sorted, ", "-separated."""
    return ", ".join(sorted(set(names)))


def _said(items: Sequence[str]) -> str:
    """ "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _room_features(rng: random.Random, capacity: int) -> str:
    features = [f for f, odds in _FEATURE_ODDS.items() if rng.random() < odds]
    if capacity >= 6 or rng.random() < 0.4:
        features.append("video conferencing")
    return _listing(features or ["screen"])


def _hotel_amenities(rng: random.Random, stars: int) -> list[str]:
    tier = stars - 3
    found = ["wifi", "tv", "heating"]
    if stars >= 4 or rng.random() < 0.6:
        found.append("24h front desk")
    if rng.random() < 0.9:
        found.append("elevator")
    if rng.random() < 0.85:
        found.append("air conditioning")
    found += [a for a, odds in _HOTEL_EXTRAS.items() if rng.random() < odds[tier]]
    return found


def _home_amenities(rng: random.Random, home_type: str) -> list[str]:
    column = HOME_TYPES.index(home_type)
    found = [a for a, odds in _HOME_AMENITIES.items() if rng.random() < odds[column]]
    if "kitchen" in found:
        found += [a for a, odds in _WITH_KITCHEN.items() if rng.random() < odds]
    if "washer" in found:
        found += [a for a, odds in _WITH_WASHER.items() if rng.random() < odds]
    return found


def _house_rules(rng: random.Random, amenities: Sequence[str], home: bool) -> str:
    rules = ["No smoking anywhere on the property." if home else "No smoking in rooms."]
    if "pets allowed" in amenities:
        rules.append(
            "Pets welcome, please tell us in advance."
            if home
            else "Pets welcome for a cleaning fee."
        )
    else:
        rules.append("No pets, except assistance animals.")
    quiet = rng.choice(("22:00", "22:00", "23:00"))
    rules.append(f"Quiet hours from {quiet} to 07:00.")
    if home:
        rules += rng.sample(
            (
                "No parties or events.",
                "Please take the rubbish out before check-out.",
                "Shoes off indoors, please.",
                "Only registered guests may stay overnight.",
                "Please turn off the heating and lights when you go out.",
            ),
            rng.randint(1, 3),
        )
    else:
        rules.append("Guests must be 18 or over to check in.")
    return " ".join(rules)


def _bed_layout(rng: random.Random, bedrooms: int, beds: int) -> tuple[str, int]:
    """Which beds a home has (as listed) and how many guests they sleep."""
    doubles = max(1, min(beds, bedrooms + (1 if rng.random() < 0.3 else 0)))
    singles = beds - doubles
    parts = [f"{doubles} double bed{'s' if doubles > 1 else ''}"]
    if singles:
        parts.append(f"{singles} single bed{'s' if singles > 1 else ''}")
    return ", ".join(parts), 2 * doubles + singles


def _rooms_text(bedrooms: int, beds: int, bathrooms: float) -> str:
    baths = f"{bathrooms:g} bathroom{'s' if bathrooms > 1 else ''}"
    bed_text = f"{beds} bed{'s' if beds > 1 else ''}"
    if bedrooms == 0:
        return f"a studio with {bed_text} and {baths}"
    return f"{bedrooms} bedroom{'s' if bedrooms > 1 else ''}, {bed_text} and {baths}"


def _km_from_centre(city: City, lat: float, lon: float) -> float:
    north = (lat - city.latitude) * 111.32
    east = (lon - city.longitude) * 111.32 * math.cos(math.radians(city.latitude))
    return math.hypot(north, east)


def _season_dates(year: int, first: tuple[int, int], last: tuple[int, int]) -> tuple[date, date]:
    start = date(year, *first)
    end_year = year + 1 if last < first else year
    end_month, end_day = last
    if (end_month, end_day) == (2, 28) and end_year % 4 == 0:
        end_day = 29
    return start, date(end_year, end_month, end_day)


def _overlaps(a: tuple[date, date], b: tuple[date, date]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _city_seasons(rng: random.Random, city: City, today: date) -> list[tuple[str, date, date, int]]:
    """The named seasons of `city` from about seven months before the clock to seven after,
    never overlapping, by start date."""
    calendar = _SOUTH_SEASONS if city.latitude < 0 else _NORTH_SEASONS
    window = (today - timedelta(days=210), today + timedelta(days=210))
    seasons: list[tuple[str, date, date, int]] = []
    for year in (today.year - 1, today.year, today.year + 1):
        for name, first, last, percent in calendar:
            start, end = _season_dates(year, first, last)
            if _overlaps((start, end), window):
                seasons.append((name, start, end, percent))
    event, percent = rng.choice(_EVENTS)
    for _ in range(6):
        start = today + timedelta(days=rng.randint(-150, 150))
        end = start + timedelta(days=3 if "weekend" in event else rng.randint(4, 6))
        if not any(_overlaps((start, end), (s[1], s[2])) for s in seasons):
            seasons.append((f"{city.name} {event.lower()}", start, end, percent))
            break
    return sorted(seasons, key=lambda s: s[1])


class _Stays:
    """Where stays can be had: hotels and homes per city, their listings, seasons and taxes."""

    def __init__(self) -> None:
        self.hotels_in: dict[str, list[Row]] = defaultdict(list)
        self.homes_in: dict[str, list[Row]] = defaultdict(list)
        self.listings: dict[int, list[Row]] = {}
        self.seasons: dict[int, list[Row]] = defaultdict(list)
        self.taxes: dict[str, Row] = {}
        # How guests address a host in reviews: a person by first name, a company by name.
        self.host_called: dict[int, str] = {}
        self._terms: dict[int, tuple[Terms, tuple[str, ...]]] = {}

    def price(self, prop: Row, resource: Row, check_in: date, nights: int) -> Quote:
        """The quote the booking app gives for this stay (terms read once per listing, after
        seasons and taxes are made)."""
        if resource["id"] not in self._terms:
            self._terms[resource["id"]] = stay_terms(
                resource, prop, self.seasons[prop["id"]], self.taxes.get(prop["city"])
            )
        terms, names = self._terms[resource["id"]]
        return quote(terms, check_in, check_in + timedelta(days=nights), names)

    def candidates(self, rng: random.Random, places: list[Row], count: int) -> list[Row]:
        """Up to `count` of `places` in random order, preferred ones first."""
        preferred = [p for p in places if p["is_preferred"]]
        others = [p for p in places if not p["is_preferred"]]
        picked = rng.sample(preferred, min(count, len(preferred)))
        return picked + rng.sample(others, min(count - len(picked), len(others)))


def build(world: World) -> None:
    """Make offices with meeting rooms, hotels, homes and hosts, availability windows,
    seasons, reviews, city taxes, policies with level caps, reservations, approvals,
    attendees and series, and the booking mess."""
    rng = world.rng("booking")
    scale = world.scale
    offices = world.rows("people_office")
    occupancy = _Occupancy()
    stays = _Stays()

    rooms_at, office_property = _offices(world, rng)

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
    _hotels(world, rng, per_city, stays)
    names = _Names(world)
    _homes(world, names, office_cities, cities, demand, stays)
    _double_listings(world, stays)
    _availability(world, rng, occupancy)
    _seasons(world, stays)
    _reviews(world, names, stays)
    for city in CITIES:
        if stays.hotels_in.get(city.name) or stays.homes_in.get(city.name):
            name, percent, per_night = _CITY_TAXES[city.name]
            stays.taxes[city.name] = world.add(
                "booking_city_tax",
                city=city.name,
                name=name,
                percent=percent,
                per_night_cents=per_night,
            )
    policies, default_policy = _policies(world, rng, office_cities, cities, stays)
    # Reservations: stays, then weekly series and one-off room bookings; the planted mess
    # (two stays, one room booking) is part of the scale's count.
    trips = _Trips(world, rng, occupancy, stays, policies, default_policy, office_property)
    n_stays = int(scale.reservations * 0.55)
    trips.book_stays(n_stays - 2)
    meetings = _Meetings(world, rng, occupancy, rooms_at)
    meetings.series(scale.room_series)
    meetings.book(scale.reservations - n_stays - meetings.made - 1)
    mess = world.rng("booking.mess")
    trips.stale_approval(mess)
    trips.departed_guest(mess)
    meetings.departed_organizer(mess)


def _offices(world: World, rng: random.Random) -> tuple[dict[int, list[Row]], dict[int, Row]]:
    """The company's office buildings and their meeting rooms."""
    room_names = list(_ROOM_NAMES)
    rng.shuffle(room_names)
    office_property: dict[int, Row] = {}
    rooms_at: dict[int, list[Row]] = {}
    # Offices sit downtown: within 2 km of the centre (their own stream, so placing them
    # draws nothing from the rooms' or the stays').
    where = world.rng("booking.office_location")
    for i, office in enumerate(world.rows("people_office")):
        latitude, longitude = point_near(where, BY_NAME[office["city"]], 2.0)
        prop = world.add(
            "booking_property",
            kind="office",
            name=office["name"],
            city=office["city"],
            country=office["country"],
            address=office["address"],
            latitude=latitude,
            longitude=longitude,
            description=f"{world.company_name} office in {office['city']}.",
            star_rating=None,
            guest_rating=None,
            amenities="badge access, kitchen, phone booths, bike storage",
            office_id=office["id"],
            is_preferred=False,
        )
        office_property[office["id"]] = prop
        count = (
            {"tiny": 3, "small": 8, "large": 12}[world.scale.name]
            if i == 0
            else {"tiny": 2, "small": 4, "large": 7}[world.scale.name]
        )
        rooms_at[office["id"]] = []
        for _ in range(count):
            capacity = rng.choice((4, 4, 6, 6, 8, 10, 12, 16, 20))
            rooms_at[office["id"]].append(
                world.add(
                    "booking_resource",
                    property_id=prop["id"],
                    kind="meeting_room",
                    name=room_names.pop(),
                    capacity=capacity,
                    units=1,
                    nightly_rate=None,
                    features=_room_features(rng, capacity),
                )
            )
    return rooms_at, office_property


def _hotels(world: World, rng: random.Random, per_city: dict[str, int], stays: _Stays) -> None:
    hood_count: dict[str, int] = defaultdict(int)
    for city in CITIES:
        for hood in city.neighborhoods:
            hood_count[hood] += 1
    unique_hoods = {h for h, n in hood_count.items() if n == 1}
    taken: set[str] = set()
    for city in CITIES:
        for _ in range(per_city.get(city.name, 0)):
            stars = rng.choices((3, 4, 5), (3, 5, 2))[0]
            name = _hotel_name(rng, city, taken, unique_hoods)
            area = rng.choice(city.neighborhoods)
            latitude, longitude = point_near(rng, city, 8.0)
            address = street_address(rng, city)
            amenities = _hotel_amenities(rng, stars)
            check_in, check_out = (
                rng.choice(("14:00", "15:00", "15:00", "16:00")),
                rng.choice(("11:00", "11:00", "12:00")),
            )
            kinds = sorted(rng.sample(range(len(_ROOM_TYPES)), rng.randint(2, 4)))
            offered = [_HOTEL_HIGHLIGHTS[a] for a in amenities if a in _HOTEL_HIGHLIGHTS]
            highlights = rng.sample(offered, min(3, len(offered))) or ["free wifi"]
            hotel = world.add(
                "booking_property",
                kind="hotel",
                property_type="Hotel",
                name=name,
                city=city.name,
                area=area,
                country=city.country,
                address=address,
                latitude=latitude,
                longitude=longitude,
                description=(
                    f"{stars}-star hotel in {area}, {city.name}, on {address.strip('0123456789 ')}"
                    f", about {_km_from_centre(city, latitude, longitude):.1f} km from the "
                    f"centre. {len(kinds)} room types from {_ROOM_TYPES[kinds[0]][0].lower()} "
                    f"to {_ROOM_TYPES[kinds[-1]][0].lower()}. The hotel has {_said(highlights)}."
                ),
                star_rating=stars,
                guest_rating=None,
                amenities=_listing(amenities),
                house_rules=_house_rules(rng, amenities, home=False),
                check_in_time=check_in,
                check_out_time=check_out,
                cancellation_policy=rng.choices(("flexible", "moderate", "strict"), (4, 5, 1))[0],
                instant_book=rng.random() < 0.9,
                service_fee_pct=0,
                host_id=None,
                office_id=None,
                is_preferred=rng.random() < 0.3,
            )
            stays.hotels_in[city.name].append(hotel)
            # Business hotels are often cheaper at weekends, a few are dearer.
            weekend = None
            if rng.random() < 0.45:
                weekend = rng.uniform(0.75, 0.9) if rng.random() < 0.65 else rng.uniform(1.1, 1.25)
            weekly = 10 if rng.random() < 0.25 else 0
            stays.listings[hotel["id"]] = []
            for k in kinds:
                label, guests, beds, factor, features = _ROOM_TYPES[k]
                rate = (
                    city.hotel_rate * (0.75 + 0.2 * (stars - 3)) * factor * rng.uniform(0.85, 1.15)
                )
                nightly = _round_to(rate, 5)
                stays.listings[hotel["id"]].append(
                    world.add(
                        "booking_resource",
                        property_id=hotel["id"],
                        kind="hotel_room",
                        name=label,
                        capacity=guests,
                        units=rng.choice((2, 4, 6, 10, 20, 40)),
                        bedrooms=1,
                        beds=beds,
                        bathrooms=1.0,
                        nightly_rate=nightly,
                        weekend_rate=_round_to(nightly * weekend, 5) if weekend else None,
                        cleaning_fee=0,
                        min_nights=1,
                        weekly_discount_pct=weekly,
                        features=features,
                    )
                )


class _Names:
    """People's names for hosts and reviewers: first and last names drawn once from Faker,
    then combined by each part's own random stream (Faker is slow per name)."""

    def __init__(self, world: World, size: int = 300) -> None:
        fake = world.faker("booking")
        self.first = [fake.first_name() for _ in range(size)]
        self.last = [fake.last_name() for _ in range(size)]

    def pick(self, rng: random.Random) -> tuple[str, str]:
        return rng.choice(self.first), rng.choice(self.last)


def _host(
    world: World, rng: random.Random, names: _Names, city: City, company: bool, stays: _Stays
) -> Row:
    today = world.now.date()
    joined = today - timedelta(days=rng.randint(120, 3600))
    area = rng.choice(city.neighborhoods)
    if company:
        name = rng.choice(_COMPANY_HOSTS).format(area=area, last=names.pick(rng)[1])
        about = rng.choice(_COMPANY_ABOUT).format(
            name=name, city=city.name, area=area, since=joined.year, count=rng.randint(6, 40)
        )
        superhost = rng.random() < 0.5
        response = rng.randint(95, 100)
    else:
        first, last = names.pick(rng)
        name = f"{first} {last}"
        about = rng.choice(_PERSON_ABOUT).format(
            first=first,
            city=city.name,
            area=area,
            years=rng.randint(3, 25),
            job=rng.choice(_HOST_JOBS),
        )
        superhost = rng.random() < 0.25
        response = rng.randint(90, 100) if superhost else rng.randint(62, 100)
    host = world.add(
        "booking_host",
        name=name,
        about=about,
        joined_on=joined,
        is_superhost=superhost,
        response_rate=response,
    )
    stays.host_called[host["id"]] = name if company else name.split()[0]
    return host


def _home_name(
    rng: random.Random,
    taken: set[str],
    home_type: str,
    bedrooms: int,
    area: str,
    street: str,
    amenities: Sequence[str],
) -> str:
    """A listing title the way hosts write them ("Sunny 2BR loft near SoMa"), unique."""
    word = _HOME_TYPES[home_type][3]
    size = f"{bedrooms}BR"
    if bedrooms == 0:
        size, word = {
            "Apartment": ("", "studio"),
            "Serviced apartment": ("serviced", "studio"),
            "Loft": ("studio", "loft"),
            "Guest suite": ("", "guest suite"),
        }[home_type]
    adjectives = (
        _SMALL_ADJECTIVES + _HOME_ADJECTIVES
        if bedrooms <= 1
        else _BIG_ADJECTIVES + _HOME_ADJECTIVES
        if bedrooms >= 3
        else _HOME_ADJECTIVES
    )
    features = [_FEATURE_PHRASES[a] for a in amenities if a in _FEATURE_PHRASES]
    templates = [t for t in _HOME_NAMES if features or "{feature}" not in t]
    for attempt in range(40):
        name = rng.choice(templates).format(
            adj=rng.choice(adjectives),
            size=size,
            kind=word,
            area=area,
            street=street,
            feature=rng.choice(features) if features else "",
        )
        name = " ".join(name.split())
        name = name[0].upper() + name[1:]
        if attempt >= 30:
            name = f"{name}, {street}"
        if name not in taken:
            taken.add(name)
            return name
    raise RuntimeError(f"no free name for a {home_type.lower()} in {area}")


def _homes(
    world: World,
    names: _Names,
    office_cities: list[str],
    cities: list[str],
    demand: dict[str, int],
    stays: _Stays,
) -> None:
    """Homes let by hosts in the office cities and the biggest customer cities."""
    rng = world.rng("booking.homes")
    scale = world.scale
    total = scale.homes - scale.double_listings
    extra = [c for c in cities if c not in office_cities][: max(2, total // 20)]
    home_cities = list(dict.fromkeys(office_cities + extra))
    count = dict.fromkeys(home_cities, 0)
    for city_name in home_cities:
        count[city_name] = 2 if city_name in office_cities else 1
    left = total - sum(count.values())
    if left > 0:
        weights = [demand[c] for c in home_cities]
        for city_name in rng.choices(home_cities, weights=weights, k=left):
            count[city_name] += 1
    taken = {p["name"] for p in world.rows("booking_property")}
    types = list(_HOME_TYPES)
    for city in CITIES:
        wanted = count.get(city.name, 0)
        while wanted > 0:
            company = rng.random() < 0.15
            host = _host(world, rng, names, city, company, stays)
            n = min(wanted, rng.randint(3, 6) if company else rng.choices((1, 2, 3), (6, 3, 1))[0])
            for _ in range(n):
                if company:
                    home_type = rng.choice(
                        ("Serviced apartment", "Serviced apartment", "Apartment")
                    )
                else:
                    home_type = rng.choices(types, [_HOME_TYPES[t][0] for t in types])[0]
                _add_home(world, rng, city, host, home_type, company, taken, stays)
            wanted -= n


def _add_home(
    world: World,
    rng: random.Random,
    city: City,
    host: Row,
    home_type: str,
    company: bool,
    taken: set[str],
    stays: _Stays,
) -> Row:
    _weight, (low, high), type_factor, _word = _HOME_TYPES[home_type]
    bedrooms = rng.randint(low, high)
    beds = max(1, bedrooms + rng.choices((0, 1, 2), (5, 3, 1))[0])
    layout, sleeps = _bed_layout(rng, bedrooms, beds)
    bathrooms = 1.0
    if bedrooms == 2:
        bathrooms = rng.choice((1.0, 1.5, 2.0))
    elif bedrooms >= 3:
        bathrooms = rng.choice((2.0, 2.5, 3.0))
    area = rng.choice(city.neighborhoods)
    street = rng.choice(city.streets)
    address = street_address(rng, city, street)
    latitude, longitude = point_near(rng, city, 8.0)
    amenities = _home_amenities(rng, home_type)
    name = _home_name(rng, taken, home_type, bedrooms, area, street, amenities)
    nightly = round(city.hotel_rate * _SIZE_FACTOR[bedrooms] * type_factor * rng.uniform(0.85, 1.2))
    roll = rng.random()
    weekend = (
        round(nightly * rng.uniform(1.08, 1.3))
        if roll < 0.55
        else round(nightly * rng.uniform(0.85, 0.95))
        if roll < 0.65
        else None
    )
    shown = [
        _FEATURE_PHRASES[a] for a in amenities if a in _FEATURE_PHRASES and a != "self check-in"
    ]
    shown = rng.sample(shown, min(3, len(shown))) or ["heating"]
    description = (
        f"{'A private' if home_type == 'Guest suite' else 'An entire'} "
        f"{_HOME_TYPES[home_type][3]} in {area}, {city.name}: "
        f"{_rooms_text(bedrooms, beds, bathrooms)}, sleeping up to {sleeps}. "
        f"About {_km_from_centre(city, latitude, longitude):.1f} km from the centre, on "
        f"{street}. Guests have {_said(shown)}. {_HOME_PITCH[home_type]}"
    )
    if "self check-in" in amenities:
        description += " Self check-in with a keypad."
    home = world.add(
        "booking_property",
        kind="home",
        property_type=home_type,
        name=name,
        city=city.name,
        area=area,
        country=city.country,
        address=address,
        latitude=latitude,
        longitude=longitude,
        description=description,
        star_rating=None,
        guest_rating=None,
        amenities=_listing(amenities),
        house_rules=_house_rules(rng, amenities, home=True),
        check_in_time=rng.choice(("14:00", "15:00", "15:00", "16:00", "17:00")),
        check_out_time=rng.choice(("10:00", "10:00", "11:00", "11:00", "12:00")),
        cancellation_policy=rng.choices(("flexible", "moderate", "strict"), (35, 40, 25))[0],
        instant_book=rng.random() < (0.85 if company else 0.55),
        service_fee_pct=12,
        host_id=host["id"],
        office_id=None,
        is_preferred=company and home_type == "Serviced apartment" and rng.random() < 0.5,
    )
    stays.homes_in[city.name].append(home)
    stays.listings[home["id"]] = [
        world.add(
            "booking_resource",
            property_id=home["id"],
            kind="home",
            name=f"Entire {_HOME_TYPES[home_type][3]}"
            if home_type != "Guest suite"
            else "Private guest suite",
            capacity=sleeps,
            units=1,
            bedrooms=bedrooms,
            beds=beds,
            bathrooms=bathrooms,
            nightly_rate=nightly,
            weekend_rate=weekend,
            cleaning_fee=max(25, min(180, _round_to(25 + 22 * bedrooms + rng.randint(0, 45), 5))),
            min_nights=rng.choices((1, 2, 3, 4, 5), (30, 30, 20, 8, 12))[0]
            if home_type != "Serviced apartment"
            else rng.choice((2, 3, 4, 5)),
            weekly_discount_pct=rng.choices((0, 5, 10, 15, 20), (25, 15, 30, 15, 15))[0],
            features=layout,
        )
    ]
    return home


def _double_listings(world: World, stays: _Stays) -> None:
    """A host lists the same home twice under two names (planted and recorded)."""
    rng = world.rng("booking.mess")
    homes = [h for city in sorted(stays.homes_in) for h in stays.homes_in[city]]
    taken = {p["name"] for p in world.rows("booking_property")}
    for original in rng.sample(homes, min(world.scale.double_listings, len(homes))):
        resource = stays.listings[original["id"]][0]
        city = BY_NAME[original["city"]]
        amenities = original["amenities"].split(", ")
        street = original["address"].strip("0123456789 ")
        name = original["name"]
        while name == original["name"]:
            name = _home_name(
                rng,
                taken,
                original["property_type"],
                resource["bedrooms"],
                original["area"],
                street,
                amenities,
            )
        copy = world.add(
            "booking_property",
            **{
                **{k: v for k, v in original.items() if k != "id"},
                "name": name,
                "instant_book": not original["instant_book"],
                "is_preferred": False,
            },
        )
        stays.homes_in[city.name].append(copy)
        rate = max(1, resource["nightly_rate"] + rng.choice((-10, -5, 5, 10)))
        stays.listings[copy["id"]] = [
            world.add(
                "booking_resource",
                **{
                    **{k: v for k, v in resource.items() if k != "id"},
                    "property_id": copy["id"],
                    "nightly_rate": rate,
                },
            )
        ]
        host = world.get("booking_host", original["host_id"])
        world.oddity(
            "double_listing",
            "booking_property",
            copy["id"],
            f"Home {name!r} is the same place as {original['name']!r}: {host['name']} listed "
            f"it twice (same address, {original['address']}, {original['city']}).",
            json.dumps(
                {
                    "duplicate_name": name,
                    "original_name": original["name"],
                    "host": host["name"],
                    "address": original["address"],
                    "nightly_rates": [resource["nightly_rate"], rate],
                },
                sort_keys=True,
            ),
            "booking_property",
            original["id"],
        )


def _availability(world: World, rng: random.Random, occupancy: _Occupancy) -> None:
    """Availability windows: renovations, closures and homes the host has blocked."""
    today = world.now.date()
    resources = world.rows("booking_resource")
    closing = {r["id"] for r in resources if rng.random() < 0.06} or {rng.choice(resources)["id"]}
    for resource in resources:
        if resource["id"] not in closing:
            continue
        start = today + timedelta(days=rng.randint(-60, 75))
        end = start + timedelta(days=rng.randint(2, 21))
        if resource["kind"] == "meeting_room":
            units, reason = 0, rng.choice(("AV upgrade", "Repainting", "Furniture replacement"))
        elif resource["kind"] == "home":
            units = 0
            reason = rng.choice(("Blocked by the host", "Host staying there", "Repairs"))
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


def _seasons(world: World, stays: _Stays) -> None:
    """Each city's named seasons, applied to most (not all) of its hotels and homes."""
    rng = world.rng("booking.seasons")
    today = world.now.date()
    for city in CITIES:
        props = stays.hotels_in.get(city.name, []) + stays.homes_in.get(city.name, [])
        if not props:
            continue
        calendar = _city_seasons(rng, city, today)
        for prop in sorted(props, key=lambda p: p["id"]):
            if rng.random() < 0.25:
                continue
            for name, start, end, percent in calendar:
                if rng.random() < 0.15:
                    continue
                step = rng.choice((-5, 0, 0, 0, 5))
                stays.seasons[prop["id"]].append(
                    world.add(
                        "booking_season",
                        property_id=prop["id"],
                        name=name,
                        start_date=start,
                        end_date=end,
                        percent=percent + step if (percent + step) * percent > 0 else percent,
                    )
                )


def _review_body(rng: random.Random, prop: Row, rating: int, host: str | None) -> str:
    band = rating
    parts = [rng.choice(_OPENINGS[band])]
    amenities = [a for a in prop["amenities"].split(", ") if a]
    area = prop["area"]
    if rating >= 4:
        parts.append(rng.choice(_PLACE_GOOD).format(area=area))
        good = [a for a in amenities if a in _AMENITY_GOOD]
        if good:
            parts.append(_AMENITY_GOOD[rng.choice(good)])
    else:
        parts.append(
            rng.choice(_PLACE_BAD if rating <= 2 else _PLACE_GOOD + _PLACE_BAD).format(area=area)
        )
        bad = [a for a in amenities if a in _AMENITY_BAD]
        if bad:
            parts.append(_AMENITY_BAD[rng.choice(bad)])
    if rng.random() < 0.4:
        nights = rng.randint(1, 7)
        parts.insert(
            1,
            f"Stayed {nights} night{'s' if nights > 1 else ''} for "
            f"{rng.choice(('a client visit', 'a conference', 'a team offsite', 'training'))}.",
        )
    if rating >= 4 and rng.random() < 0.6:
        parts.append(
            rng.choice(_HOME_CLOSINGS).format(host=host) if host else rng.choice(_HOTEL_CLOSINGS)
        )
    return " ".join(parts)


def _reviews(world: World, names: _Names, stays: _Stays) -> None:
    """Guest reviews of hotels and homes; a listing's guest rating is their mean."""
    rng = world.rng("booking.reviews")
    today = world.now.date()
    for prop in world.rows("booking_property"):
        if prop["kind"] == "office":
            continue
        host = world.get("booking_host", prop["host_id"]) if prop["host_id"] else None
        if rng.random() < 0.15:
            continue
        count = int(rng.triangular(1, 30, 6))
        quality = rng.uniform(3.8, 4.9) if rng.random() < 0.88 else rng.uniform(2.6, 3.8)
        first_day = today - timedelta(days=900)
        if host is not None:
            first_day = max(first_day, host["joined_on"] + timedelta(days=14))
        span = max(0, (today - timedelta(days=2) - first_day).days)
        ratings = []
        for _ in range(count):
            rating = max(1, min(5, round(rng.gauss(quality, 0.75))))
            ratings.append(rating)
            first_name, last_name = names.pick(rng)
            # Homes show reviewers by first name and initial, hotels by full name.
            author = f"{first_name} {last_name[0]}." if host else f"{first_name} {last_name}"
            world.add(
                "booking_review",
                property_id=prop["id"],
                author_name=author,
                rating=rating,
                body=_review_body(
                    rng,
                    prop,
                    rating,
                    stays.host_called[host["id"]] if host else None,
                ),
                created_on=first_day + timedelta(days=rng.randint(0, span)),
            )
        prop["guest_rating"] = round(sum(ratings) / len(ratings), 2)


def _policies(
    world: World,
    rng: random.Random,
    office_cities: list[str],
    cities: list[str],
    stays: _Stays,
) -> tuple[dict[str, Row], Row]:
    """The default travel policy and one per major city, each with a cap per job level."""

    def caps(policy: Row) -> None:
        for level in JOB_LEVELS:
            world.add(
                "booking_policy_cap",
                policy_id=policy["id"],
                job_level=level,
                max_nightly_rate=_round_to(policy["max_nightly_rate"] * _LEVEL_CAP[level], 25),
            )

    default_policy = world.add(
        "booking_policy",
        name="Standard travel policy",
        city=None,
        max_nightly_rate=225,
        approval_over_total=1500,
        min_advance_days=7,
        max_nights=14,
        preferred_only=False,
        notes="Book at least a week ahead and for at most 14 nights. Stays over your level's "
        "nightly cap or the total need your manager's approval.",
    )
    caps(default_policy)
    policy_cities = sorted(set(office_cities) | set(cities[:6]))
    with_preferred = [
        c
        for c in policy_cities
        if sum(p["is_preferred"] for p in stays.hotels_in.get(c, []) + stays.homes_in.get(c, []))
        >= 1
    ]
    strict = set(
        rng.sample(with_preferred, min(len(with_preferred), 1 if world.scale.name == "tiny" else 2))
    )
    policies: dict[str, Row] = {}
    for city_name in policy_cities:
        city = BY_NAME[city_name]
        max_nights = rng.choices((14, 10, 21), (6, 2, 2))[0]
        advance = 14 if city.hotel_rate >= 280 else 7
        only = city_name in strict
        notes = f"Preferred hotels in {city_name} are flagged in search."
        if only:
            notes = f"Only preferred hotels and homes are in policy in {city_name}."
        notes += f" Book at least {advance} days ahead; stays of up to {max_nights} nights."
        policies[city_name] = world.add(
            "booking_policy",
            name=f"{city_name} travel policy",
            city=city_name,
            max_nightly_rate=_round_to(city.hotel_rate * 1.1, 25),
            approval_over_total=2500 if city.hotel_rate >= 280 else 2000,
            min_advance_days=advance,
            max_nights=max_nights,
            preferred_only=only,
            notes=notes,
        )
        caps(policies[city_name])
    return policies, default_policy


def _justification(rng: random.Random, breaches: Sequence[Rule]) -> str:
    """The traveller's reason for a stay out of policy: one line per broken rule, two at most."""
    return " ".join(rng.choice(_JUSTIFICATIONS[rule.code]) for rule in breaches[:2])


def _approval_comment(approval: str, breaches: Sequence[Rule], cap: int, customer: bool) -> str:
    codes = [rule.code for rule in breaches]
    if approval == "approved":
        if "advance" in codes:
            return "Approved. Please book further ahead next time."
        return "Approved, customer-facing trip." if customer else "Approved."
    if "preferred" in codes:
        return "Please pick one of the preferred places."
    if "nightly_cap" in codes:
        return f"Please pick a place under the ${cap:,} cap."
    if "length" in codes:
        return "Too long for one trip; please split it or talk to me."
    if "total" in codes:
        return "Over budget for this trip, let's discuss."
    return "Please rebook once the dates are firm."


class _Trips:
    """Stays the company's people book: customer visits and trips to other offices, each
    priced and checked against the traveller's policy as the booking app would."""

    def __init__(
        self,
        world: World,
        rng: random.Random,
        occupancy: _Occupancy,
        stays: _Stays,
        policies: dict[str, Row],
        default_policy: Row,
        office_property: dict[int, Row],
    ) -> None:
        self.world = world
        self.rng = rng
        self.occupancy = occupancy
        self.stays = stays
        self.policies = policies
        self.default_policy = default_policy
        self.now = world.now
        self.today = world.now.date()
        self.employees = world.rows("people_employee")
        self.active = [e for e in self.employees if e["is_active"]]
        self.offices = world.rows("people_office")
        self.office_in = {}
        for office in self.offices:
            self.office_in.setdefault(office["city"], office_property[office["id"]])
        self.managers = {e["id"]: e["manager_id"] for e in self.employees}
        self.travellers = {
            o["id"]: [e for e in self.active if e["office_id"] != o["id"]] for o in self.offices
        }
        self.bookers = [
            e
            for e in self.active
            if e["title"] in ("Travel Coordinator", "Office Manager", "Executive Assistant")
        ]
        self.caps: dict[int, list[Row]] = defaultdict(list)
        for cap in world.rows("booking_policy_cap"):
            self.caps[cap["policy_id"]].append(cap)
        self.opportunities = [
            o
            for o in world.rows("crm_opportunity")
            if stays.hotels_in.get(world.get("crm_account", o["account_id"])["billing_city"] or "")
        ]
        self.made = 0

    def created_before(self, start: datetime, lead_days: int) -> datetime:
        rng = self.rng
        created = start - timedelta(
            days=lead_days, hours=rng.randint(0, 9), minutes=rng.randint(0, 59)
        )
        if created >= self.now:
            created = self.now - timedelta(hours=rng.randint(1, 96), minutes=rng.randint(0, 59))
        return created

    def find(
        self, city: str, check_in: date, nights: int, home: bool
    ) -> tuple[Row, Row, int] | None:
        """A free listing in `city` (a home if asked and one is free, else a hotel room),
        preferred places first, with the nights stretched to a home's minimum stay."""
        rng = self.rng
        if home:
            for prop in self.stays.candidates(rng, self.stays.homes_in.get(city, []), 6):
                resource = self.stays.listings[prop["id"]][0]
                stay = max(nights, resource["min_nights"])
                if self.occupancy.stay_fits(resource, check_in, stay):
                    return prop, resource, stay
        for hotel in self.stays.candidates(rng, self.stays.hotels_in.get(city, []), 4):
            listings = rng.sample(
                self.stays.listings[hotel["id"]], len(self.stays.listings[hotel["id"]])
            )
            if rng.random() < 0.65:  # most travellers take the cheapest room that is free
                listings.sort(key=lambda r: r["nightly_rate"])
            for resource in listings:
                if self.occupancy.stay_fits(resource, check_in, nights):
                    return hotel, resource, nights
        return None

    def book(
        self,
        guest: Row,
        city: str,
        check_in: date,
        nights: int,
        *,
        home: bool,
        account: Row | None = None,
        opp: Row | None = None,
        created: datetime | None = None,
        force: str | None = None,
    ) -> Row | None:
        """Book a stay and, when it breaks policy, ask the guest's manager. `force` makes it
        "pending" (waiting for approval; `stale` too, whatever its dates), "cancelled" or
        "confirmed". Returns the reservation, or None when nothing fits."""
        world, rng, now, today = self.world, self.rng, self.now, self.today
        found = self.find(city, check_in, nights, home)
        if found is None:
            return None
        prop, resource, nights = found
        price = self.stays.price(prop, resource, check_in, nights)
        start = _day_time(check_in)
        if created is None:
            lead = rng.choices((2, 5, 9, 14, 21, 30, 45), (1, 1, 2, 4, 5, 4, 3))[0]
            created = self.created_before(start, lead)
        policy = self.policies.get(city, self.default_policy)
        terms = policy_terms(policy, self.caps[policy["id"]], guest["job_level"])
        breaches = policy_breaches(
            terms, price, today=created.date(), check_in=check_in, preferred=prop["is_preferred"]
        )
        approver_id = self.managers[guest["id"]]
        if force in ("pending", "stale") and (not breaches or approver_id is None):
            return None
        cancel = force == "cancelled" or (force is None and rng.random() < 0.08)
        status, approval = ("cancelled" if cancel else "confirmed"), None
        if breaches and approver_id is not None:
            roll = rng.random()
            if cancel or force == "confirmed":
                approval = "approved"
            elif force in ("pending", "stale"):
                approval = "pending"
            elif check_in > today:
                approval = "pending" if roll < 0.5 else ("approved" if roll < 0.9 else "rejected")
            else:
                approval = "approved" if roll < 0.85 else "rejected"
            if not cancel:
                status = {"pending": "pending_approval", "approved": "confirmed"}.get(
                    approval, "rejected"
                )
        cancelled_at = refund = None
        if cancel:
            cancelled_at = created + (min(start, now) - created) * rng.uniform(0.1, 0.9)
            cancelled_at = cancelled_at.replace(second=0, microsecond=0)
            refund = refund_cents(
                prop["cancellation_policy"], cancelled_at.date(), check_in, price.total
            )
        if status in ("confirmed", "pending_approval"):
            self.occupancy.take_stay(resource, check_in, nights)
        if resource["kind"] == "home":
            guests = min(resource["capacity"], rng.choices((1, 2, 3, 4), (5, 3, 2, 1))[0])
        else:
            guests = 2 if resource["capacity"] >= 2 and rng.random() < 0.12 else 1
        booked_by = guest
        if self.bookers and rng.random() < 0.12:
            booked_by = rng.choice(self.bookers)
        reservation = world.add(
            "booking_reservation",
            resource_id=resource["id"],
            guest_id=guest["id"],
            booked_by_id=booked_by["id"],
            start_at=start,
            end_at=start + timedelta(days=nights),
            status=status,
            purpose="",
            guests=guests,
            total_cents=price.total,
            price_json=json.dumps(price.to_json(), sort_keys=True),
            refund_cents=refund,
            justification=_justification(rng, breaches),
            policy_json=json.dumps(
                [{"code": r.code, "message": r.message} for r in breaches], sort_keys=True
            ),
            series_id=None,
            account_id=account["id"] if account else None,
            opportunity_id=opp["id"] if opp else None,
            created_at=created,
            updated_at=None,
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
            world.say(
                "booking_reservation",
                reservation,
                "purpose",
                rng.choice(_INTERNAL_TRIPS),
                office=world.ref("booking_property", self.office_in[city]),
            )
        if approval is not None:
            decided, comment = None, ""
            if approval != "pending":
                until = cancelled_at or min(start, now)
                decided = created + (until - created) * rng.uniform(0.05, 0.5)
                decided = decided.replace(second=0, microsecond=0)
                comment = _approval_comment(approval, breaches, terms.nightly_cap, bool(account))
            world.add(
                "booking_approval",
                reservation_id=reservation["id"],
                approver_id=approver_id,
                status=approval,
                comment=comment,
                created_at=created,
                decided_at=decided,
            )
        self.made += 1
        return reservation

    def book_stays(self, count: int) -> None:
        """`count` stays; the first two are a pending approval and a cancellation, so every
        world has both."""
        world, rng, today = self.world, self.rng, self.today
        attempts = 0
        start_count = self.made
        while self.made - start_count < count and attempts < count * 6:
            attempts += 1
            made = self.made - start_count
            force = ("pending", "cancelled")[made] if made < 2 else None
            account = opp = None
            created = None
            if self.opportunities and rng.random() < 0.6:
                opp = rng.choice(self.opportunities)
                account = world.get("crm_account", opp["account_id"])
                city = account["billing_city"]
                guest = world.get("people_employee", opp["owner_id"])
                if opp["stage"] in CLOSED_STAGES:
                    anchor = opp["close_date"] - timedelta(days=rng.randint(3, 40))
                    check_in = max(anchor, today - timedelta(days=150))
                else:
                    check_in = today + timedelta(days=rng.randint(-60, 45))
                home = bool(self.stays.homes_in.get(city)) and rng.random() < 0.08
                nights = rng.choices((1, 2, 3, 4, 5), (3, 4, 3, 2, 1))[0]
            else:
                office = rng.choice(self.offices)
                city = office["city"]
                guest = rng.choice(self.travellers[office["id"]])
                check_in = today + timedelta(days=rng.randint(-120, 60))
                home = bool(self.stays.homes_in.get(city)) and rng.random() < 0.25
                nights = (
                    rng.choices((2, 3, 4, 5, 7, 10, 12, 16), (3, 4, 4, 3, 3, 2, 1, 1))[0]
                    if home
                    else rng.choices((1, 2, 3, 4, 5), (3, 4, 3, 2, 1))[0]
                )
            if force == "pending":
                # Booked at short notice, so it needs the manager's approval.
                check_in = today + timedelta(days=rng.randint(2, 5))
                created = self.now - timedelta(hours=rng.randint(1, 20), minutes=rng.randint(0, 59))
            if not guest["is_active"] or not self.stays.hotels_in.get(city):
                continue
            self.book(
                guest,
                city,
                check_in,
                nights,
                home=home,
                account=account,
                opp=opp,
                created=created,
                force=force,
            )

    def stale_approval(self, mess: random.Random) -> None:
        """A request still waiting for the manager although its check-in date has passed."""
        for _ in range(200):
            guest = mess.choice(self.active)
            office = mess.choice(self.offices)
            if office["id"] == guest["office_id"] or self.managers[guest["id"]] is None:
                continue
            check_in = self.today - timedelta(days=mess.randint(1, 6))
            created = _day_time(check_in) - timedelta(days=3, hours=mess.randint(1, 9))
            nights = mess.randint(2, 4)
            row = self.book(
                guest, office["city"], check_in, nights, home=False, created=created, force="stale"
            )
            if row is None:
                continue
            manager = self.world.get("people_employee", self.managers[guest["id"]])
            approval = self.world.rows("booking_approval")[-1]
            self.world.oddity(
                "stale_approval",
                "booking_reservation",
                row["id"],
                f"{guest['display_name']}'s stay from {check_in.isoformat()} is still waiting "
                f"for {manager['display_name']}'s approval, though check-in has passed.",
                json.dumps(
                    {"check_in": check_in.isoformat(), "approver": manager["display_name"]},
                    sort_keys=True,
                ),
                "booking_approval",
                approval["id"],
            )
            return

    def departed_guest(self, mess: random.Random) -> None:
        """A confirmed upcoming stay of someone who has since left the company."""
        leavers = [e for e in self.employees if not e["is_active"]]
        for _ in range(200):
            if not leavers:
                return
            guest = mess.choice(leavers)
            office = mess.choice(self.offices)
            if office["id"] == guest["office_id"]:
                continue
            check_in = self.today + timedelta(days=mess.randint(5, 40))
            created = self.now - timedelta(days=mess.randint(20, 60), hours=mess.randint(0, 9))
            nights = mess.randint(1, 4)
            row = self.book(
                guest, office["city"], check_in, nights, home=False, created=created,
                force="confirmed",
            )  # fmt: skip
            if row is None:
                continue
            self.world.oddity(
                "departed_guest",
                "booking_reservation",
                row["id"],
                f"{guest['display_name']} has left the company but still has a confirmed stay "
                f"in {office['city']} from {check_in.isoformat()}.",
                json.dumps(
                    {"guest": guest["display_name"], "check_in": check_in.isoformat()},
                    sort_keys=True,
                ),
                "people_employee",
                guest["id"],
            )
            return


class _Meetings:
    """Meeting-room bookings by the hour in each office's local time, with invited
    colleagues, and weekly series."""

    def __init__(
        self,
        world: World,
        rng: random.Random,
        occupancy: _Occupancy,
        rooms_at: dict[int, list[Row]],
    ) -> None:
        self.world = world
        self.rng = rng
        self.occupancy = occupancy
        self.rooms_at = rooms_at
        self.now = world.now
        self.today = world.now.date()
        self.employees = world.rows("people_employee")
        self.active = [e for e in self.employees if e["is_active"]]
        self.teams = {t["id"]: t for t in world.rows("people_team")}
        self.offices = world.rows("people_office")
        self.accounts = world.rows("crm_account")
        self.revenue_ids = {o["owner_id"] for o in world.rows("crm_opportunity")}
        self.employees_at: dict[int, list[Row]] = defaultdict(list)
        for e in self.active:
            self.employees_at[e["office_id"]].append(e)
        self.ids_at = {o["id"]: [e["id"] for e in self.employees_at[o["id"]]] for o in self.offices}
        self.ids_away = {
            o["id"]: [e["id"] for e in self.active if e["office_id"] != o["id"]]
            for o in self.offices
        }
        self.made = 0

    def invite(self, rng: random.Random, organizer: Row, room: Row, template: str) -> list[int]:
        """Colleagues invited: mostly from the same office, never the organizer, no one twice."""
        wanted = 1 if template == "1:1" else rng.randint(1, min(8, room["capacity"] - 1))
        here = self.ids_at[organizer["office_id"]]
        elsewhere = self.ids_away[organizer["office_id"]]
        if len(here) == 1 and here[0] == organizer["id"]:
            here = []
        chosen: list[int] = []
        for _ in range(wanted * 4 + 8):
            if len(chosen) == wanted:
                break
            pool = here if here and (rng.random() < 0.8 or not elsewhere) else elsewhere
            if not pool:
                break
            pick = rng.choice(pool)
            if pick not in chosen and pick != organizer["id"]:
                chosen.append(pick)
        return sorted(chosen)

    def purpose(self, organizer: Row, template: str) -> tuple[str, dict[str, object]]:
        """The meeting's title template and its slots; an account the organizer owns, or a
        pipeline review when they own none."""
        slots: dict[str, object] = {"team": self.teams[organizer["team_id"]]["name"]}
        if "{account}" in template:
            owned = (
                [a for a in self.accounts if a["owner_id"] == organizer["id"]]
                if organizer["id"] in self.revenue_ids
                else []
            )
            if not owned:
                return "Pipeline review", slots
            slots["account"] = self.world.ref("crm_account", self.rng.choice(owned))
        return template, slots

    def add(
        self,
        room: Row,
        organizer: Row,
        start: datetime,
        end: datetime,
        *,
        template: str,
        slots: dict[str, object],
        attendees: list[int],
        created: datetime,
        cancelled: bool = False,
        series: Row | None = None,
    ) -> Row:
        world = self.world
        if not cancelled:
            self.occupancy.take_slot(room, start, end)
        account = slots.get("account")
        reservation = world.add(
            "booking_reservation",
            resource_id=room["id"],
            guest_id=organizer["id"],
            booked_by_id=organizer["id"],
            start_at=start,
            end_at=end,
            status="cancelled" if cancelled else "confirmed",
            purpose="",
            guests=1 + len(attendees),
            total_cents=0,
            price_json="",
            refund_cents=None,
            justification="",
            policy_json="",
            series_id=series["id"] if series else None,
            account_id=account.id if isinstance(account, Ref) else None,
            opportunity_id=None,
            created_at=created,
            updated_at=None,
            cancelled_at=(created + (min(start, self.now) - created) / 2).replace(
                second=0, microsecond=0
            )
            if cancelled
            else None,
        )
        world.say("booking_reservation", reservation, "purpose", template, **slots)
        for employee_id in attendees:
            world.add("booking_attendee", reservation_id=reservation["id"], employee_id=employee_id)
        self.made += 1
        return reservation

    def created_before(self, start: datetime, days: int) -> datetime:
        rng = self.rng
        created = start - timedelta(days=days, hours=rng.randint(0, 9), minutes=rng.randint(0, 59))
        if created >= self.now:
            created = self.now - timedelta(hours=rng.randint(1, 96), minutes=rng.randint(0, 59))
        return created

    def series(self, count: int) -> None:
        """Weekly meetings for four to eight weeks, same room and local time each week."""
        world, rng, today = self.world, self.rng, self.today
        made = 0
        for _ in range(count * 10):
            if made == count:
                return
            office = rng.choice(self.offices)
            people_here = self.employees_at[office["id"]]
            if len(people_here) < 2 or not self.rooms_at[office["id"]]:
                continue
            city = BY_NAME[office["city"]]
            organizer = rng.choice(people_here)
            room = rng.choice(self.rooms_at[office["id"]])
            weeks = rng.randint(4, 8)
            monday = today - timedelta(days=today.weekday(), weeks=rng.randint(1, 4))
            first = monday + timedelta(days=rng.randint(0, 4))
            at = time(rng.randint(8, 16), rng.choice((0, 30)))
            minutes = rng.choice((30, 45, 60, 60))
            starts = [
                to_utc(city, datetime.combine(first + timedelta(weeks=w), at)) for w in range(weeks)
            ]
            spans = [(s, s + timedelta(minutes=minutes)) for s in starts]
            if not all(self.occupancy.slot_fits(room, s, e) for s, e in spans):
                continue
            template, slots = self.purpose(organizer, rng.choice(_RECURRING))
            title, _refs = render(template, **slots)
            created = self.created_before(starts[0], rng.randint(1, 14))
            series = world.add(
                "booking_series",
                organizer_id=organizer["id"],
                resource_id=room["id"],
                title=title,
                weeks=weeks,
                created_at=created,
            )
            attendees = self.invite(rng, organizer, room, template)
            for start, end in spans:
                self.add(
                    room, organizer, start, end, template=template, slots=slots,
                    attendees=attendees, created=created, series=series,
                )  # fmt: skip
            made += 1

    def book(self, count: int) -> None:
        """`count` one-off meeting-room bookings from a month ago to three weeks ahead."""
        rng, today = self.rng, self.today
        booked = attempts = 0
        while booked < count and attempts < count * 5:
            attempts += 1
            office = rng.choice(self.offices)
            people_here = self.employees_at[office["id"]]
            if not people_here or not self.rooms_at[office["id"]]:
                continue
            day = today + timedelta(days=rng.randint(-30, 21))
            if day.weekday() >= 5:
                continue
            city = BY_NAME[office["city"]]
            minutes = rng.choice((30, 60, 60, 60, 90, 120))
            local = datetime.combine(day, time(rng.randint(8, 16), rng.choice((0, 30))))
            start = to_utc(city, local)
            end = start + timedelta(minutes=minutes)
            room = rng.choice(self.rooms_at[office["id"]])
            if not self.occupancy.slot_fits(room, start, end):
                continue
            organizer = rng.choice(people_here)
            template, slots = self.purpose(organizer, rng.choice(_MEETINGS))
            cancelled = rng.random() < 0.07
            created = self.created_before(start, rng.randint(0, 10))
            attendees = self.invite(rng, organizer, room, template)
            self.add(
                room, organizer, start, end, template=template, slots=slots,
                attendees=attendees, created=created, cancelled=cancelled,
            )  # fmt: skip
            booked += 1

    def departed_organizer(self, mess: random.Random) -> None:
        """An upcoming room booking whose organizer has left the company."""
        leavers = [
            e for e in self.employees if not e["is_active"] and self.rooms_at.get(e["office_id"])
        ]
        for _ in range(200):
            if not leavers:
                return
            organizer = mess.choice(leavers)
            office = self.world.get("people_office", organizer["office_id"])
            day = self.today + timedelta(days=mess.randint(1, 12))
            if day.weekday() >= 5:
                continue
            local = datetime.combine(day, time(mess.randint(9, 15), mess.choice((0, 30))))
            start = to_utc(BY_NAME[office["city"]], local)
            end = start + timedelta(minutes=mess.choice((30, 60)))
            room = mess.choice(self.rooms_at[office["id"]])
            if not self.occupancy.slot_fits(room, start, end):
                continue
            template, slots = self.purpose(organizer, mess.choice(_RECURRING))
            created = self.now - timedelta(days=mess.randint(30, 90), hours=mess.randint(0, 9))
            reservation = self.add(
                room, organizer, start, end, template=template, slots=slots,
                attendees=self.invite(mess, organizer, room, template), created=created,
            )  # fmt: skip
            self.world.oddity(
                "departed_organizer",
                "booking_reservation",
                reservation["id"],
                f"{organizer['display_name']} has left the company but still holds "
                f"{room['name']} on {day.isoformat()} for {reservation['purpose']!r}.",
                json.dumps(
                    {"organizer": organizer["display_name"], "room": room["name"]},
                    sort_keys=True,
                ),
                "people_employee",
                organizer["id"],
            )
            return
