"""What the stay-picking templates (best rated, homes with amenities, near an office, booked
for a colleague) read of the world and do on the pages beyond `_world` and `ui`: guest
ratings and office distances as the stays search computes them, searching near an office,
telling a home's card from a hotel room's, and reserving for another traveller.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from officegym.apps.booking.reads import haversine_km
from officegym.tasks.crm.ui import choose, field
from officegym.tasks.match import squash
from officegym.tasks.pools import per_golden

from . import _world
from .ui import SORTS, fill_field, nav, page_says

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

    from .ui import Card


# ---- the world ----------------------------------------------------------------------------


@per_golden
def ratings(world: sqlite3.Connection) -> Mapping[int, float | None]:
    """Each stay property's guest rating (two decimals; None before any review), by id."""
    return dict(
        world.execute("SELECT id, guest_rating FROM booking_property WHERE kind != 'office'")
    )


def rating_of(world: sqlite3.Connection, item: _world.Listing) -> float | None:
    """The guest rating search shows on the listing's card, rounded as it shows it."""
    found = ratings(world).get(item.property_id)
    return None if found is None else round(found, 2)


@dataclass(frozen=True)
class Office(_world.Kept):
    """A company office as the search's distance filter lists it."""

    id: int
    name: str
    city: str
    latitude: float
    longitude: float


@per_golden
def offices(world: sqlite3.Connection) -> tuple[Office, ...]:
    """The offices with a map location (the others measure no distance), by name."""
    rows = world.execute(
        "SELECT id, name, city, latitude, longitude FROM booking_property "
        "WHERE kind = 'office' AND latitude IS NOT NULL AND longitude IS NOT NULL "
        "ORDER BY name, id"
    )
    return tuple(Office(*row) for row in rows)


@per_golden
def _places(world: sqlite3.Connection) -> Mapping[int, tuple[float, float] | None]:
    rows = world.execute(
        "SELECT id, latitude, longitude FROM booking_property WHERE kind != 'office'"
    )
    return {
        pid: (lat, lon) if lat is not None and lon is not None else None for pid, lat, lon in rows
    }


def distance_km(world: sqlite3.Connection, office: Office, item: _world.Listing) -> float:
    """How far the listing is from the office, as the search measures it (inf: unknown)."""
    place = _places(world).get(item.property_id)
    if place is None:
        return math.inf
    return haversine_km(office.latitude, office.longitude, *place)


def same_name(a: str, b: str) -> bool:
    """Whether one name holds the other (ignoring case): an answer naming one may read as
    naming both."""
    x, y = squash(a).casefold(), squash(b).casefold()
    return x in y or y in x


# ---- the pages ----------------------------------------------------------------------------


def _open_filters(actions: PageActions) -> None:
    toggle = next(
        (
            n
            for n in actions.nodes
            if n.bid and n.role == "DisclosureTriangle" and squash(n.name).startswith("Filters")
        ),
        None,
    )
    if toggle is None:
        raise LookupError("the search has no Filters toggle")
    if "expanded=true" not in toggle.states:
        actions.click(toggle.bid)


def search_near(
    actions: PageActions,
    where: str,
    check_in: date,
    check_out: date,
    guests: int,
    office: str,
    km: float | None,
    sort: str = "total",
) -> None:
    """From anywhere in Booking: search stays in `where` for the dates and guests, measuring
    distances from `office` and keeping those within `km` of it (None: any distance), sorted
    by `sort` (a key of `ui.SORTS`)."""
    nav(actions, "Stays")
    fill_field(actions, "combobox", "Where", where)
    fill_field(actions, "Date", "Check-in", check_in.isoformat())
    fill_field(actions, "Date", "Check-out", check_out.isoformat())
    fill_field(actions, "spinbutton", "Guests", str(guests))
    _open_filters(actions)
    actions.select_option(actions.find("combobox", "Office", exact=True), office)
    if km is not None:
        fill_field(actions, "textbox", "Within km", f"{km:g}")
    actions.select_option(actions.find("combobox", "Sort by", exact=True), SORTS[sort])
    actions.click(actions.find("button", "Search", exact=True))


def is_hotel(card: Card) -> bool:
    """Whether the result card is a hotel room: its facts read "Hotel in <area>, <city> ·
    ..." (after the name, where the card's text holds it)."""
    text = card.text.removeprefix(card.name).strip()
    return text.startswith("Hotel in ")


def place_name(card: Card) -> str:
    """The name of the place a card offers: a home's title, a room's hotel."""
    name = re.sub(r" \([^()]*\)$", "", card.name)
    return name.split(" · ")[0] if is_hotel(card) else name


def reserve_for(actions: PageActions, traveller: str | None, trip: str) -> bool:
    """On a listing page with dates chosen: Reserve, pick `traveller` (None: oneself) and have
    the policy checked for them; when the stay is within it, name the trip and book, and say
    True; else leave the page as it is and say False."""
    actions.click(actions.find("button", "Reserve", exact=True))
    if traveller is not None:
        box = actions.find("combobox", "Traveller", exact=True)
        choose(actions, box, "Traveller", traveller)
        actions.click(actions.find("button", "Check policy for this traveller", exact=True))
    if not page_says(actions, "In policy: this stay meets"):
        return False
    bid, _role = field(actions, "Trip name")
    actions.fill(bid, trip)
    actions.click(actions.find("button", "Confirm and book", exact=True))
    return True


__all__ = [
    "Office",
    "distance_km",
    "is_hotel",
    "offices",
    "place_name",
    "rating_of",
    "ratings",
    "reserve_for",
    "same_name",
    "search_near",
]
