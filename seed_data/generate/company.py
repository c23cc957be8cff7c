"""The company the world is about: its name, email domain and the frozen world clock."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

_FIRST = ("Northwind", "Bluepeak", "Ironwood", "Brightline", "Clearwater", "Redwood", "Lumen",
          "Harborview", "Silverline", "Granite", "Evergreen", "Kestrel", "Meridian", "Tidewater",
          "Copperleaf", "Summit", "Fairway", "Lakeshore", "Beacon", "Cobalt", "Juniper", "Pinecrest",
          "Stonebridge", "Westbrook", "Driftwood", "Larkspur", "Ridgeline", "Oakhurst", "Bellwether",
          "Foxglove", "Halcyon", "Quill", "Sable", "Aster", "Cascade", "Trailhead")  # fmt: skip
_SECOND = ("Analytics", "Systems", "Labs", "Software", "Cloud", "Data", "Networks", "Technologies",
           "Insights", "Logic", "Works", "Digital")  # fmt: skip

_CLOCK_START = date(2025, 9, 1)
_CLOCK_END = date(2026, 6, 30)


@dataclass(frozen=True)
class Company:
    """Who the world is about and when it is: `now` is naive UTC."""

    name: str
    domain: str
    now: datetime


def choose_company(seed: int) -> Company:
    """Pick the company name, its email domain and `now` (a weekday at 14:30 UTC) from the seed."""
    rng = random.Random(f"{seed}:company")
    name = f"{rng.choice(_FIRST)} {rng.choice(_SECOND)}"
    domain = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".com"
    days = (_CLOCK_END - _CLOCK_START).days + 1
    weekdays = [
        d for d in (_CLOCK_START + timedelta(days=i) for i in range(days)) if d.weekday() < 5
    ]
    day = rng.choice(weekdays)
    now = datetime.combine(day, time(14, 30))  # naive UTC, like every stored datetime
    return Company(name, domain, now)
