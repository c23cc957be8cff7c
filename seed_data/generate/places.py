"""Real cities the world happens in: offices, customers and hotels, with local time rules.

Daylight saving is computed from the rule of each region rather than the system tz database,
so a world is byte-identical on machines with or without tzdata installed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta


@dataclass(frozen=True)
class City:
    """A city with what the generator needs to make addresses, phones and local times."""

    name: str
    country: str
    timezone: str
    utc_offset: int  # standard-time offset from UTC in hours
    dst: str  # daylight saving rule: us, eu, au or none
    phone: str  # pattern, each '#' becomes a digit
    street_first: bool  # "Friedrichstrasse 68" rather than "68 Market Street"
    streets: tuple[str, ...]
    neighborhoods: tuple[str, ...]
    hotel_rate: int  # typical nightly rate of a business hotel, USD
    slug: str
    latitude: float  # the city centre, degrees north
    longitude: float  # the city centre, degrees east


# City-centre coordinates (a central square or station), degrees.
_CENTRES: dict[str, tuple[float, float]] = {
    "San Francisco": (37.7793, -122.4193), "New York": (40.7128, -74.0060),
    "Austin": (30.2672, -97.7431), "Boston": (42.3601, -71.0589),
    "Seattle": (47.6062, -122.3321), "Chicago": (41.8781, -87.6298),
    "Denver": (39.7392, -104.9903), "Atlanta": (33.7490, -84.3880),
    "Los Angeles": (34.0522, -118.2437), "Dallas": (32.7767, -96.7970),
    "Miami": (25.7617, -80.1918), "Minneapolis": (44.9778, -93.2650),
    "Philadelphia": (39.9526, -75.1652), "Toronto": (43.6532, -79.3832),
    "Vancouver": (49.2827, -123.1207), "London": (51.5074, -0.1278),
    "Manchester": (53.4808, -2.2426), "Dublin": (53.3498, -6.2603),
    "Berlin": (52.5200, 13.4050), "Munich": (48.1351, 11.5820),
    "Amsterdam": (52.3676, 4.9041), "Paris": (48.8566, 2.3522),
    "Madrid": (40.4168, -3.7038), "Stockholm": (59.3293, 18.0686),
    "Zurich": (47.3769, 8.5417), "Singapore": (1.2903, 103.8520),
    "Tokyo": (35.6812, 139.7671), "Sydney": (-33.8688, 151.2093),
    "Melbourne": (-37.8136, 144.9631),
}  # fmt: skip


def _city(
    name: str,
    country: str,
    timezone: str,
    utc_offset: int,
    dst: str,
    phone: str,
    streets: tuple[str, ...],
    neighborhoods: tuple[str, ...],
    hotel_rate: int,
    street_first: bool = False,
) -> City:
    slug = name.lower().replace(" ", "-").replace(".", "")
    latitude, longitude = _CENTRES[name]
    return City(
        name,
        country,
        timezone,
        utc_offset,
        dst,
        phone,
        street_first,
        streets,
        neighborhoods,
        hotel_rate,
        slug,
        latitude,
        longitude,
    )


CITIES: tuple[City, ...] = (
    _city("San Francisco", "United States", "America/Los_Angeles", -8, "us", "+1 415-###-####",
          ("Market Street", "Mission Street", "Howard Street", "Folsom Street", "Sansome Street", "Brannan Street"),
          ("SoMa", "Union Square", "Embarcadero", "Nob Hill", "Mission Bay"), 310),
    _city("New York", "United States", "America/New_York", -5, "us", "+1 212-###-####",
          ("Broadway", "Park Avenue South", "West 33rd Street", "Hudson Street", "Madison Avenue", "Water Street"),
          ("Midtown", "Flatiron", "Chelsea", "Financial District", "SoHo"), 340),
    _city("Austin", "United States", "America/Chicago", -6, "us", "+1 512-###-####",
          ("Congress Avenue", "Lavaca Street", "East 6th Street", "West 2nd Street", "Guadalupe Street"),
          ("Downtown", "South Congress", "The Domain", "Rainey Street"), 230),
    _city("Boston", "United States", "America/New_York", -5, "us", "+1 617-###-####",
          ("Boylston Street", "Summer Street", "Atlantic Avenue", "Newbury Street", "Congress Street"),
          ("Back Bay", "Seaport", "Downtown Crossing", "Cambridge"), 290),
    _city("Seattle", "United States", "America/Los_Angeles", -8, "us", "+1 206-###-####",
          ("Pike Street", "2nd Avenue", "Westlake Avenue", "Western Avenue", "Union Street"),
          ("Downtown", "South Lake Union", "Belltown", "Pioneer Square"), 260),
    _city("Chicago", "United States", "America/Chicago", -6, "us", "+1 312-###-####",
          ("Wacker Drive", "LaSalle Street", "Michigan Avenue", "Randolph Street", "Clark Street"),
          ("The Loop", "River North", "West Loop", "Magnificent Mile"), 250),
    _city("Denver", "United States", "America/Denver", -7, "us", "+1 303-###-####",
          ("17th Street", "Larimer Street", "Wynkoop Street", "Blake Street", "California Street"),
          ("LoDo", "Union Station", "RiNo", "Cherry Creek"), 210),
    _city("Atlanta", "United States", "America/New_York", -5, "us", "+1 404-###-####",
          ("Peachtree Street", "Spring Street", "West Peachtree Street", "Marietta Street"),
          ("Midtown", "Buckhead", "Downtown"), 200),
    _city("Los Angeles", "United States", "America/Los_Angeles", -8, "us", "+1 213-###-####",
          ("Wilshire Boulevard", "Figueroa Street", "Sunset Boulevard", "Grand Avenue"),
          ("Downtown", "Santa Monica", "Century City", "Hollywood"), 270),
    _city("Dallas", "United States", "America/Chicago", -6, "us", "+1 214-###-####",
          ("Main Street", "McKinney Avenue", "Elm Street", "Commerce Street"),
          ("Uptown", "Downtown", "Deep Ellum"), 190),
    _city("Miami", "United States", "America/New_York", -5, "us", "+1 305-###-####",
          ("Brickell Avenue", "Biscayne Boulevard", "Collins Avenue", "Flagler Street"),
          ("Brickell", "Downtown", "Miami Beach"), 240),
    _city("Minneapolis", "United States", "America/Chicago", -6, "us", "+1 612-###-####",
          ("Nicollet Mall", "Hennepin Avenue", "Washington Avenue", "Marquette Avenue"),
          ("Downtown", "North Loop", "Mill District"), 180),
    _city("Philadelphia", "United States", "America/New_York", -5, "us", "+1 215-###-####",
          ("Market Street", "Chestnut Street", "Walnut Street", "Arch Street"),
          ("Center City", "Old City", "Rittenhouse"), 210),
    _city("Toronto", "Canada", "America/Toronto", -5, "us", "+1 416-###-####",
          ("King Street West", "Bay Street", "Front Street West", "Queen Street West", "Spadina Avenue"),
          ("Financial District", "King West", "Yorkville", "Liberty Village"), 230),
    _city("Vancouver", "Canada", "America/Vancouver", -8, "us", "+1 604-###-####",
          ("Granville Street", "West Hastings Street", "Burrard Street", "Howe Street"),
          ("Downtown", "Gastown", "Yaletown", "Coal Harbour"), 220),
    _city("London", "United Kingdom", "Europe/London", 0, "eu", "+44 20 7### ####",
          ("Old Street", "Shoreditch High Street", "Bishopsgate", "Farringdon Road", "Southwark Street", "Baker Street"),
          ("Shoreditch", "King's Cross", "Canary Wharf", "Covent Garden", "South Bank"), 290),
    _city("Manchester", "United Kingdom", "Europe/London", 0, "eu", "+44 161 ### ####",
          ("Deansgate", "Portland Street", "Oxford Road", "Quay Street"),
          ("Spinningfields", "Northern Quarter", "Piccadilly"), 160),
    _city("Dublin", "Ireland", "Europe/Dublin", 0, "eu", "+353 1 ### ####",
          ("Grand Canal Street", "Harcourt Street", "Sir John Rogerson's Quay", "Baggot Street"),
          ("Docklands", "Temple Bar", "Ballsbridge", "St Stephen's Green"), 230),
    _city("Berlin", "Germany", "Europe/Berlin", 1, "eu", "+49 30 ########",
          ("Friedrichstrasse", "Torstrasse", "Rosenthaler Strasse", "Schlesische Strasse", "Kurfuerstendamm"),
          ("Mitte", "Kreuzberg", "Prenzlauer Berg", "Charlottenburg", "Friedrichshain"), 170, True),
    _city("Munich", "Germany", "Europe/Berlin", 1, "eu", "+49 89 ########",
          ("Leopoldstrasse", "Maximilianstrasse", "Sendlinger Strasse", "Arnulfstrasse"),
          ("Altstadt", "Schwabing", "Maxvorstadt"), 190, True),
    _city("Amsterdam", "Netherlands", "Europe/Amsterdam", 1, "eu", "+31 20 ### ####",
          ("Keizersgracht", "Herengracht", "Wibautstraat", "Stadhouderskade"),
          ("Centrum", "Jordaan", "De Pijp", "Zuidas"), 240, True),
    _city("Paris", "France", "Europe/Paris", 1, "eu", "+33 1 ## ## ## ##",
          ("Rue de Rivoli", "Boulevard Haussmann", "Rue du Faubourg Saint-Antoine", "Avenue de l'Opera"),
          ("Le Marais", "Saint-Germain", "La Defense", "Opera"), 260),
    _city("Madrid", "Spain", "Europe/Madrid", 1, "eu", "+34 91 ### ## ##",
          ("Calle de Alcala", "Gran Via", "Paseo de la Castellana", "Calle de Serrano"),
          ("Salamanca", "Chamberi", "Sol"), 180, True),
    _city("Stockholm", "Sweden", "Europe/Stockholm", 1, "eu", "+46 8 ### ## ##",
          ("Drottninggatan", "Birger Jarlsgatan", "Kungsgatan", "Sveavagen"),
          ("Norrmalm", "Sodermalm", "Ostermalm"), 210, True),
    _city("Zurich", "Switzerland", "Europe/Zurich", 1, "eu", "+41 44 ### ## ##",
          ("Bahnhofstrasse", "Limmatquai", "Hardstrasse", "Seefeldstrasse"),
          ("Altstadt", "Zurich West", "Seefeld"), 300, True),
    _city("Singapore", "Singapore", "Asia/Singapore", 8, "none", "+65 6### ####",
          ("Robinson Road", "Cecil Street", "Orchard Road", "Beach Road", "Anson Road"),
          ("Marina Bay", "Tanjong Pagar", "Orchard", "Raffles Place"), 250),
    _city("Tokyo", "Japan", "Asia/Tokyo", 9, "none", "+81 3 #### ####",
          ("Marunouchi", "Roppongi", "Shibuya", "Ginza"),
          ("Marunouchi", "Shibuya", "Shinjuku", "Minato"), 230),
    _city("Sydney", "Australia", "Australia/Sydney", 10, "au", "+61 2 #### ####",
          ("George Street", "Pitt Street", "Kent Street", "Harris Street", "Macquarie Street"),
          ("CBD", "Barangaroo", "Surry Hills", "Darling Harbour"), 240),
    _city("Melbourne", "Australia", "Australia/Melbourne", 10, "au", "+61 3 #### ####",
          ("Collins Street", "Flinders Lane", "Bourke Street", "Swanston Street"),
          ("CBD", "Southbank", "Docklands"), 210),
)  # fmt: skip

BY_NAME: dict[str, City] = {c.name: c for c in CITIES}

# Where the headquarters may be, and the other office cities, in preference order.
HQ_CITIES = ("San Francisco", "New York", "Austin", "Boston", "Seattle", "Chicago", "Denver")
OFFICE_CITIES = ("London", "Berlin", "Dublin", "Toronto", "Amsterdam", "Singapore", "Sydney",
                 "Paris", "New York", "Austin", "Chicago", "Denver")  # fmt: skip


def phone_number(rng: random.Random, city: City) -> str:
    """A plausible direct line in `city`'s national format."""
    digits = iter(str(rng.randint(2, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(12)))
    return "".join(next(digits) if ch == "#" else ch for ch in city.phone)


def street_address(rng: random.Random, city: City, street: str | None = None) -> str:
    """A street address line in the local order of number and street."""
    street = street or rng.choice(city.streets)
    number = rng.randint(1, 220) if city.street_first else rng.randint(10, 2400)
    return f"{street} {number}" if city.street_first else f"{number} {street}"


def _nth_sunday(year: int, month: int, n: int) -> date:
    """The n-th Sunday of a month (n = -1 for the last one)."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(6 - first.weekday()) % 7 + 7 * (n - 1))
    last = (date(year, month + 1, 1) if month < 12 else date(year + 1, 1, 1)) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() + 1) % 7)


def _is_dst(city: City, day: date) -> bool:
    if city.dst == "us":
        return _nth_sunday(day.year, 3, 2) <= day < _nth_sunday(day.year, 11, 1)
    if city.dst == "eu":
        return _nth_sunday(day.year, 3, -1) <= day < _nth_sunday(day.year, 10, -1)
    if city.dst == "au":
        return not (_nth_sunday(day.year, 4, 1) <= day < _nth_sunday(day.year, 10, 1))
    return False


def to_utc(city: City, local: datetime) -> datetime:
    """Convert a naive local wall-clock time in `city` to naive UTC (daytime hours only)."""
    offset = city.utc_offset + (1 if _is_dst(city, local.date()) else 0)
    return local - timedelta(hours=offset)


def to_local(city: City, utc: datetime) -> datetime:
    """Convert naive UTC to the naive local wall-clock time in `city`."""
    offset = city.utc_offset + (1 if _is_dst(city, utc.date()) else 0)
    return utc + timedelta(hours=offset)


def point_near(rng: random.Random, city: City, km: float) -> tuple[float, float]:
    """A (latitude, longitude) within `km` of `city`'s centre, uniform over the disc, to six
    decimals (about 10 cm)."""
    distance = km * math.sqrt(rng.random())
    bearing = rng.uniform(0, 2 * math.pi)
    north = distance * math.cos(bearing) / 111.32
    east = distance * math.sin(bearing) / (111.32 * math.cos(math.radians(city.latitude)))
    return round(city.latitude + north, 6), round(city.longitude + east, 6)
