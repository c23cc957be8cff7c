"""What the stays, trips and approvals pages read: stay search, a listing with its reviews and
calendar, a person's trips, one trip's price lines, and a manager's approval requests.

Reads never write. Search is set-based whatever the number of listings: one query for the
listings that pass the filters SQL can check, `availability.units_left_many` for the dates,
one query each for the seasons and city taxes that price them. Prices are the exact quotes
of the pricing rules (`booking_rules.quote` on `booking_rules.stay_terms`, as
`service.quote_stay` charges), so a card's total is the total the listing page and the
booking show. A quote is made only where it decides something: for every candidate when
results are sorted by price or filtered by total, for those a nightly range can't settle from
the listing's rates alone (`_Pricer.nightly_bounds`), and for the shown page.

Measured on the large world (3,339 stays, 10,000 reservations; CPU time, bench/booking.py):
a city search with dates and three filters takes about 11 ms of reads and 17 ms for the whole
page; searching every city with dates, about 85 ms, and sorted by total, about 300 ms.
"""

from __future__ import annotations

import json
import math
import re
import weakref
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import Engine, func, literal, or_, select
from sqlalchemy.orm import Session, aliased

from officegym.apps.web.errors import NotFound
from officegym.apps.web.inputs import parse_int
from officegym.apps.web.typeahead import escape_like
from officegym.seed_data import booking_rules
from officegym.seed_data.booking_rules import MAX_GUESTS, MAX_NIGHTS, Quote
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import (
    PROPERTY_TYPES,
    Approval,
    Availability,
    CityTax,
    Host,
    Property,
    Reservation,
    Resource,
    Review,
    Season,
)
from officegym.seed_data.schema.crm import Account, Opportunity

from . import availability

STAY_KINDS = ("hotel_room", "home")
PER_PAGE = 20
REVIEWS_SHOWN = 4
REVIEWS_PER_PAGE = 10
EARTH_KM = 6371.0
# Amenity filters: the amenity (one of a listing's `amenities`, exactly) and its label.
AMENITIES: tuple[tuple[str, str], ...] = (
    ("wifi", "Wifi"),
    ("workspace", "Workspace"),
    ("parking", "Parking"),
    ("kitchen", "Kitchen"),
    ("washer", "Washer"),
)
SORTS: tuple[tuple[str, str], ...] = (
    ("recommended", "Recommended"),
    ("price", "Price per night, lowest first"),
    ("total", "Total price, lowest first"),
    ("rating", "Rating, highest first"),
    ("distance", "Distance to the office, nearest first"),
)
CANCELLATION_LABELS = {"flexible": "Flexible", "moderate": "Moderate", "strict": "Strict"}
RATING_CHOICES = (("", "Any"), ("3.5", "3.5+"), ("4", "4.0+"), ("4.5", "4.5+"), ("4.8", "4.8+"))
TRIP_TABS: tuple[tuple[str, str], ...] = (
    ("upcoming", "Upcoming"),
    ("pending", "Pending approval"),
    ("past", "Past"),
    ("cancelled", "Cancelled"),
    ("rejected", "Rejected"),
)
APPROVAL_TABS: tuple[tuple[str, str], ...] = (
    ("pending", "Waiting for you"),
    ("decided", "Decided"),
)
STATUS_LABELS = {
    "confirmed": "Confirmed",
    "pending_approval": "Pending approval",
    "cancelled": "Cancelled",
    "rejected": "Rejected",
}


def money(cents: int | None) -> str:
    """Cents as people read a price: "$1,234.50" ("" for None)."""
    if cents is None:
        return ""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def plural(n: int | float, word: str, many: str | None = None) -> str:
    """ "1 night", "3 nights", "1.5 baths"."""
    shown = f"{n:g}" if isinstance(n, float) else str(n)
    return f"{shown} {word if n == 1 else (many or word + 's')}"


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """The great-circle distance between two points, in kilometres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_KM * math.asin(min(1.0, math.sqrt(a)))


# -- search parameters --------------------------------------------------------------------------


@dataclass(frozen=True)
class StaySearch:
    """What a stay search asks for; every field is a query parameter of the search page.

    Prices are whole dollars: `price_*` per night (the average nightly rate for the dates,
    else the listing's weekday rate), `total_*` for the whole stay (needs dates).
    """

    where: str = ""
    check_in: date | None = None
    check_out: date | None = None
    guests: int = 1
    price_min: int | None = None
    price_max: int | None = None
    total_min: int | None = None
    total_max: int | None = None
    types: tuple[str, ...] = ()
    bedrooms: int = 0
    beds: int = 0
    bathrooms: float = 0
    amenities: tuple[str, ...] = ()
    instant: bool = False
    rating: float | None = None
    office: int | None = None
    km: float | None = None
    cancellation: tuple[str, ...] = ()
    sort: str = "recommended"
    page: int = 1

    @property
    def dated(self) -> bool:
        return self.check_in is not None and self.check_out is not None

    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days if self.dated else 0

    def params(self, **changes: Any) -> list[tuple[str, str]]:
        """The search as query parameters (defaults left out), with `changes` applied."""
        s = replace(self, **changes) if changes else self
        out: list[tuple[str, str]] = []

        def put(name: str, value: Any) -> None:
            if value is None or value == "" or value is False:
                return
            out.append((name, _text(value)))

        put("where", s.where)
        put("check_in", s.check_in.isoformat() if s.check_in else None)
        put("check_out", s.check_out.isoformat() if s.check_out else None)
        put("guests", s.guests if s.guests != 1 else None)
        for name in ("price_min", "price_max", "total_min", "total_max"):
            put(name, getattr(s, name))
        for value in s.types:
            put("type", value)
        put("bedrooms", s.bedrooms or None)
        put("beds", s.beds or None)
        put("bathrooms", s.bathrooms or None)
        for value in s.amenities:
            put("amenity", value)
        put("instant", "1" if s.instant else None)
        put("rating", s.rating)
        put("office", s.office)
        put("km", s.km)
        for value in s.cancellation:
            put("cancellation", value)
        put("sort", s.sort if s.sort != "recommended" else None)
        put("page", s.page if s.page != 1 else None)
        return out


def _text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _whole(raw: str, errors: dict[str, str], name: str, label: str, top: int) -> int | None:
    text = raw.strip().replace(",", "").lstrip("$")
    if not text:
        return None
    number = parse_int(text)
    if number is None or number > top:
        errors[name] = f"{label} must be a whole number from 0 to {top:,}."
        return None
    return number


def _number(raw: str, errors: dict[str, str], name: str, label: str, top: float) -> float | None:
    text = raw.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0 <= value <= top) or math.isnan(value):
        errors[name] = f"{label} must be a number from 0 to {top:g}."
        return None
    return value


def parse_day(raw: str) -> date | None:
    """A date typed as YYYY-MM-DD (what a date input sends), else None."""
    text = (raw or "").strip()
    if len(text) != 10:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def parse_dates(
    check_in_raw: str, check_out_raw: str, today: date, errors: dict[str, str]
) -> tuple[date | None, date | None]:
    """Check-in and check-out from a form; a problem goes into `errors` (both None then)."""
    check_in = parse_day(check_in_raw)
    check_out = parse_day(check_out_raw)
    if check_in_raw.strip() and check_in is None:
        errors["check_in"] = "Enter the check-in date as a date (YYYY-MM-DD)."
    if check_out_raw.strip() and check_out is None:
        errors["check_out"] = "Enter the check-out date as a date (YYYY-MM-DD)."
    if errors.keys() & {"check_in", "check_out"}:
        return None, None
    if (check_in is None) != (check_out is None):
        missing = "check_out" if check_out is None else "check_in"
        errors[missing] = "Choose both a check-in and a check-out date."
        return None, None
    if check_in is None or check_out is None:
        return None, None
    if check_out <= check_in:
        errors["check_out"] = "Check-out must be after check-in."
    elif check_in < today:
        errors["check_in"] = "Check-in can't be in the past."
    elif (check_out - check_in).days > MAX_NIGHTS:
        errors["check_out"] = f"A stay can be at most {MAX_NIGHTS} nights."
    else:
        return check_in, check_out
    return None, None


def parse_guests(raw: str, errors: dict[str, str]) -> int:
    text = (raw or "").strip()
    if not text:
        return 1
    guests = parse_int(text)
    if guests is None or not 1 <= guests <= MAX_GUESTS:
        errors["guests"] = f"Guests must be a whole number from 1 to {MAX_GUESTS}."
        return 1
    return guests


def parse_search(args: Mapping[str, Any], today: date) -> tuple[StaySearch, dict[str, str]]:
    """A search from the page's query parameters, and a message per parameter it couldn't use
    (that filter is then left out)."""
    errors: dict[str, str] = {}

    def one(name: str) -> str:
        return str(args.get(name) or "")

    def many(name: str) -> list[str]:
        getter = getattr(args, "getlist", None)
        values = getter(name) if getter else ([args[name]] if name in args else [])
        return [str(v).strip() for v in values if str(v).strip()]

    check_in, check_out = parse_dates(one("check_in"), one("check_out"), today, errors)
    price_min = _whole(one("price_min"), errors, "price_min", "Minimum price", 100_000)
    price_max = _whole(one("price_max"), errors, "price_max", "Maximum price", 100_000)
    total_min = _whole(one("total_min"), errors, "total_min", "Minimum total", 10_000_000)
    total_max = _whole(one("total_max"), errors, "total_max", "Maximum total", 10_000_000)
    if (total_min is not None or total_max is not None) and check_in is None:
        if "check_in" not in errors and "check_out" not in errors:
            errors["total_min" if total_min is not None else "total_max"] = (
                "Choose dates to filter by the total price."
            )
        total_min = total_max = None
    rating = _number(one("rating"), errors, "rating", "Rating", 5)
    km = _number(one("km"), errors, "km", "Distance", 20_000)
    office_text = one("office").strip()
    office = parse_int(office_text)
    if office_text and office is None:
        errors["office"] = "Choose an office from the list."
    if km is not None and office is None and "office" not in errors:
        errors["km"] = "Choose an office to measure the distance from."
        km = None
    sort = one("sort") or "recommended"
    if sort not in dict(SORTS):
        errors["sort"] = "Choose a sort order from the list."
        sort = "recommended"
    if sort == "distance" and office is None:
        errors["sort"] = "Choose an office to sort by distance."
        sort = "recommended"
    page_text = one("page").strip()
    page = parse_int(page_text)
    page = page if page is not None and 0 < page < 10_000 else 1
    search = StaySearch(
        where=" ".join(one("where").split())[:120],
        check_in=check_in,
        check_out=check_out,
        guests=parse_guests(one("guests"), errors),
        price_min=price_min,
        price_max=price_max,
        total_min=total_min,
        total_max=total_max,
        types=tuple(sorted(set(many("type")))),
        bedrooms=int(_whole(one("bedrooms"), errors, "bedrooms", "Bedrooms", 50) or 0),
        beds=int(_whole(one("beds"), errors, "beds", "Beds", 50) or 0),
        bathrooms=_number(one("bathrooms"), errors, "bathrooms", "Bathrooms", 50) or 0,
        amenities=tuple(a for a, _label in AMENITIES if a in many("amenity")),
        instant=one("instant") in ("1", "on", "true", "yes"),
        rating=rating,
        office=office,
        km=km,
        cancellation=tuple(c for c in booking_rules.REFUND_RULES if c in many("cancellation")),
        sort=sort,
        page=page,
    )
    return search, errors


# -- destinations and offices -------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where a search can go: a city, or an area of one (`area` "" for the whole city)."""

    city: str
    area: str = ""

    @property
    def label(self) -> str:
        return f"{self.area}, {self.city}" if self.area else self.city


# What is read from the properties alone, per world engine: no app writes properties (they
# are made with the world), so a destination list or the offices hold for the engine's life.
_PROPERTY_READS: weakref.WeakKeyDictionary[Engine, dict[str, Any]] = weakref.WeakKeyDictionary()


def _from_properties(db: Session, key: str, read: Callable[[Session], Any]) -> Any:
    kept = _PROPERTY_READS.setdefault(db.get_bind(), {})
    if key not in kept:
        kept[key] = read(db)
    return kept[key]


def destinations(db: Session) -> list[Place]:
    """Every city with stays, then every area of them, each once, by name."""
    return _from_properties(db, "destinations", _read_destinations)


def _read_destinations(db: Session) -> list[Place]:
    rows = db.execute(
        select(Property.city, Property.area)
        .where(Property.kind != "office")
        .group_by(Property.city, Property.area)
    ).all()
    cities = sorted({city for city, _area in rows})
    areas = sorted({(city, area) for city, area in rows if area}, key=lambda p: (p[1], p[0]))
    return [Place(c) for c in cities] + [Place(c, a) for c, a in areas]


def resolve_place(places: Sequence[Place], where: str) -> list[Place]:
    """What `where` names: one area ("Wicker Park, Chicago"), one city, or every area of that
    name; ignoring case. Empty when nothing is called that."""
    text = where.strip().casefold()
    if not text:
        return []
    exact = [p for p in places if p.label.casefold() == text]
    if exact:
        return exact
    return [p for p in places if p.area and p.area.casefold() == text]


@dataclass(frozen=True)
class OfficeOption:
    id: int  # the office's booking_property id
    name: str
    city: str
    latitude: float | None
    longitude: float | None


def offices(db: Session) -> list[OfficeOption]:
    """The company's offices (booking properties of kind office), by name."""
    return _from_properties(db, "offices", _read_offices)


def _read_offices(db: Session) -> list[OfficeOption]:
    rows = db.execute(
        select(Property.id, Property.name, Property.city, Property.latitude, Property.longitude)
        .where(Property.kind == "office")
        .order_by(Property.name, Property.id)
    )
    return [OfficeOption(*row) for row in rows]


def property_types() -> tuple[str, ...]:
    """The property types stays can have (the type filter's choices)."""
    return PROPERTY_TYPES


# -- search -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StayCard:
    """One search result: a home, or one room type of a hotel."""

    resource_id: int
    property_id: int
    kind: str  # hotel_room | home
    name: str  # what the result's link says (unique on the page)
    property_name: str
    room_name: str
    property_type: str
    city: str
    area: str
    capacity: int
    bedrooms: int
    beds: int
    bathrooms: float
    rating: float | None
    reviews: int
    preferred: bool
    instant_book: bool
    cancellation_policy: str
    nightly_cents: int  # average for the dates, else the weekday rate
    total_cents: int | None  # the quote's total for the dates
    nights: int
    units_left: int | None
    distance_km: float | None

    @property
    def beds_summary(self) -> str:
        parts = []
        if self.kind == "home":
            parts.append(plural(self.bedrooms, "bedroom") if self.bedrooms else "Studio")
        if self.beds:
            parts.append(plural(self.beds, "bed"))
        if self.bathrooms:
            parts.append(plural(float(self.bathrooms), "bath"))
        parts.append(f"sleeps {self.capacity}")
        return " · ".join(parts)

    def facts(self, office: str = "") -> str:
        """ "★ 4.62 (21 reviews) · Preferred · Instant book · 3.2 km from Seattle HQ"."""
        parts = [
            f"★ {self.rating:.2f} ({plural(self.reviews, 'review')})"
            if self.rating is not None
            else "New"
        ]
        if self.preferred:
            parts.append("Preferred")
        if self.instant_book:
            parts.append("Instant book")
        if self.kind == "hotel_room" and self.units_left is not None and self.units_left <= 3:
            parts.append(f"{plural(self.units_left, 'room')} left")
        if self.distance_km is not None and office:
            parts.append(f"{self.distance_km:.1f} km from {office}")
        return " · ".join(parts)


@dataclass(frozen=True)
class SearchPage:
    search: StaySearch
    cards: list[StayCard]
    total: int
    pages: int
    places: list[Place] = field(default_factory=list)
    office: OfficeOption | None = None

    @property
    def first(self) -> int:
        return (self.search.page - 1) * PER_PAGE + 1 if self.cards else 0

    @property
    def last(self) -> int:
        return self.first + len(self.cards) - 1 if self.cards else 0

    @property
    def where_label(self) -> str:
        if len(self.places) == 1:
            return self.places[0].label
        return self.search.where


class _Candidate(NamedTuple):
    resource_id: int
    room_name: str
    kind: str
    capacity: int
    bedrooms: int
    beds: int
    bathrooms: float
    nightly_rate: int
    weekend_rate: int | None
    cleaning_fee: int
    min_nights: int
    weekly_discount_pct: int
    property_id: int
    property_name: str
    property_type: str
    city: str
    area: str
    latitude: float | None
    longitude: float | None
    rating: float | None
    instant_book: bool
    service_fee_pct: int
    preferred: bool
    cancellation_policy: str


_CANDIDATE_COLUMNS = (
    Resource.id,
    Resource.name,
    Resource.kind,
    Resource.capacity,
    Resource.bedrooms,
    Resource.beds,
    Resource.bathrooms,
    Resource.nightly_rate,
    Resource.weekend_rate,
    Resource.cleaning_fee,
    Resource.min_nights,
    Resource.weekly_discount_pct,
    Property.id,
    Property.name,
    Property.property_type,
    Property.city,
    Property.area,
    Property.latitude,
    Property.longitude,
    Property.guest_rating,
    Property.instant_book,
    Property.service_fee_pct,
    Property.is_preferred,
    Property.cancellation_policy,
)


def _amenity_clause(amenity: str):
    """The listing has `amenity` among its ", "-separated amenities (the whole item)."""
    listed = literal(", ") + func.lower(Property.amenities) + literal(",")
    return listed.like(f"%, {amenity},%")


def _candidates(db: Session, s: StaySearch, places: Sequence[Place]) -> list[_Candidate]:
    """Listings that pass every filter SQL can check by itself."""
    # With a place, the property's city index leads (the kind index would scan every stay).
    kind = Resource.kind + "" if places else Resource.kind
    q = (
        select(*_CANDIDATE_COLUMNS)
        .join(Property, Property.id == Resource.property_id)
        .where(kind.in_(STAY_KINDS), Resource.nightly_rate.is_not(None))
        .where(Resource.capacity >= s.guests)
    )
    if s.where:
        if places:
            q = q.where(
                or_(
                    *(
                        (Property.city == p.city) & (Property.area == p.area)
                        if p.area
                        else Property.city == p.city
                        for p in places
                    )
                )
            )
        else:
            like = f"%{escape_like(s.where.lower())}%"
            q = q.where(
                or_(
                    func.lower(Property.city).like(like, escape="\\"),
                    func.lower(Property.area).like(like, escape="\\"),
                    func.lower(Property.name).like(like, escape="\\"),
                )
            )
    if s.types:
        q = q.where(Property.property_type.in_(s.types))
    if s.bedrooms:
        q = q.where(Resource.bedrooms >= s.bedrooms)
    if s.beds:
        q = q.where(Resource.beds >= s.beds)
    if s.bathrooms:
        q = q.where(Resource.bathrooms >= s.bathrooms)
    for key in s.amenities:
        q = q.where(_amenity_clause(key))
    if s.instant:
        q = q.where(Property.instant_book.is_(True))
    if s.rating is not None:
        q = q.where(Property.guest_rating >= s.rating)
    if s.cancellation:
        q = q.where(Property.cancellation_policy.in_(s.cancellation))
    if s.dated:
        q = q.where(Resource.min_nights <= s.nights)
    else:
        if s.price_min is not None:
            q = q.where(Resource.nightly_rate >= s.price_min)
        if s.price_max is not None:
            q = q.where(Resource.nightly_rate <= s.price_max)
    return [_Candidate._make(row) for row in db.connection().execute(q).all()]


class _Pricer:
    """Prices the candidates of one dated search: their seasons and city taxes are read once
    (two queries), and each exact quote is made by the pricing rules only when asked for."""

    def __init__(
        self, db: Session, found: Sequence[_Candidate], check_in: date, check_out: date
    ) -> None:
        self.check_in, self.check_out = check_in, check_out
        self.seasons: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
        self.quotes: dict[int, Quote] = {}
        property_ids = sorted({c.property_id for c in found})
        if property_ids:
            rows = db.connection().execute(
                select(
                    Season.id,
                    Season.property_id,
                    Season.name,
                    Season.start_date,
                    Season.end_date,
                    Season.percent,
                ).where(  # fmt: skip
                    Season.property_id.in_(property_ids),
                    Season.start_date < check_out,
                    Season.end_date >= check_in,
                )
            )
            for row in rows:
                self.seasons[row.property_id].append(row._mapping)
        self.taxes = city_taxes(db) if property_ids else {}
        nights = range((check_out - check_in).days)
        self.weekend = any(
            (check_in + timedelta(days=i)).weekday() in booking_rules.WEEKEND_NIGHTS for i in nights
        )

    def quote(self, c: _Candidate) -> Quote:
        """The exact quote, with the terms `booking_rules.stay_terms` makes (as the service's)."""
        found = self.quotes.get(c.resource_id)
        if found is None:
            listing = {
                "nightly_rate": c.nightly_rate,
                "weekend_rate": c.weekend_rate,
                "cleaning_fee": c.cleaning_fee,
                "weekly_discount_pct": c.weekly_discount_pct,
            }
            terms, _names = booking_rules.stay_terms(
                listing,
                {"service_fee_pct": c.service_fee_pct},
                self.seasons.get(c.property_id, ()),
                self.taxes.get(c.city.casefold()),
            )
            found = booking_rules.quote(terms, self.check_in, self.check_out)
            self.quotes[c.resource_id] = found
        return found

    def nightly_bounds(self, c: _Candidate) -> tuple[int, int]:
        """Cents below and above which no night of the stay is priced (so neither is its
        average): the weekday or weekend rate moved by any season's percent, a dollar of
        rounding either way. A price filter needs the exact quote only between them."""
        rates = [c.nightly_rate]
        if self.weekend and c.weekend_rate is not None:
            rates.append(c.weekend_rate)
        percents = [0, *(int(x["percent"]) for x in self.seasons.get(c.property_id, ()))]
        low = min(rates) * (100 + min(percents)) / 100 - 1
        high = max(rates) * (100 + max(percents)) / 100 + 1
        return math.floor(low * 100), math.ceil(high * 100)


def city_taxes(db: Session) -> dict[str, Mapping[str, Any]]:
    """Every city's tax row (percent, cents per night), keyed by the city ignoring case."""
    rows = db.execute(
        select(CityTax.id, CityTax.city, CityTax.percent, CityTax.per_night_cents).order_by(
            CityTax.id.desc()
        )
    )
    return {row.city.casefold(): row._mapping for row in rows}


def _within_prices(pricer: _Pricer, found: list[_Candidate], s: StaySearch) -> list[_Candidate]:
    """The listings whose average nightly rate and total are within the search's ranges; a
    nightly range is settled by `nightly_bounds` where it can, by the exact quote elsewhere."""
    lo = s.price_min * 100 if s.price_min is not None else None
    hi = s.price_max * 100 if s.price_max is not None else None
    tlo = s.total_min * 100 if s.total_min is not None else None
    thi = s.total_max * 100 if s.total_max is not None else None
    if lo is None and hi is None and tlo is None and thi is None:
        return found
    kept = []
    for c in found:
        if lo is not None or hi is not None:
            low, high = pricer.nightly_bounds(c)
            if (lo is not None and high < lo) or (hi is not None and low > hi):
                continue
            if (lo is not None and low < lo) or (hi is not None and high > hi):
                average = pricer.quote(c).average_nightly
                if (lo is not None and average < lo) or (hi is not None and average > hi):
                    continue
        if tlo is not None or thi is not None:
            total = pricer.quote(c).total
            if (tlo is not None and total < tlo) or (thi is not None and total > thi):
                continue
        kept.append(c)
    return kept


def search_stays(db: Session, s: StaySearch, places: Sequence[Place] | None = None) -> SearchPage:
    """The page of stays the search asks for (see the module doc for how it is computed).

    `places` are the destinations `s.where` names (`resolve_place`); None resolves them here.
    With dates, only listings with a unit free on every night (and a minimum stay the dates
    meet) are shown, each with its exact total. Every candidate is priced only when the price
    filters or sorts them; otherwise just the shown page is.
    """
    if places is None:
        places = resolve_place(destinations(db), s.where) if s.where else []
    found = _candidates(db, s, places)
    left: dict[int, int] = {}
    pricer: _Pricer | None = None
    if s.dated and found:
        left = availability.units_left_many(
            db, [c.resource_id for c in found], s.check_in, s.check_out
        )
        found = [c for c in found if left.get(c.resource_id, 0) > 0]
        pricer = _Pricer(db, found, s.check_in, s.check_out)
        found = _within_prices(pricer, found, s)

    def nightly(c: _Candidate) -> int:
        return pricer.quote(c).average_nightly if pricer else c.nightly_rate * 100

    office = None
    distance: dict[int, float] = {}
    if s.office is not None:
        office = next((o for o in offices(db) if o.id == s.office), None)
        if office is not None and office.latitude is not None and office.longitude is not None:
            for c in found:
                if c.latitude is not None and c.longitude is not None:
                    distance[c.resource_id] = haversine_km(
                        office.latitude, office.longitude, c.latitude, c.longitude
                    )
        if s.km is not None:
            found = [c for c in found if distance.get(c.resource_id, math.inf) <= s.km]

    keys = {
        "recommended": lambda c: (not c.preferred, -(c.rating or 0), c.resource_id),
        "price": lambda c: (nightly(c), c.resource_id),
        "total": lambda c: (pricer.quote(c).total if pricer else nightly(c), c.resource_id),
        "rating": lambda c: (-(c.rating or 0), c.resource_id),
        "distance": lambda c: (distance.get(c.resource_id, math.inf), c.resource_id),
    }
    found.sort(key=keys[s.sort])
    total = len(found)
    pages = max(1, -(-total // PER_PAGE))
    page = min(s.page, pages)
    if page != s.page:
        s = replace(s, page=page)
    shown = found[(page - 1) * PER_PAGE : page * PER_PAGE]
    counts = review_counts(db, [c.property_id for c in shown])
    names = _link_names(shown)
    cards = [
        StayCard(
            resource_id=c.resource_id,
            property_id=c.property_id,
            kind=c.kind,
            name=names[i],
            property_name=c.property_name,
            room_name=c.room_name,
            property_type=c.property_type or ("Hotel" if c.kind == "hotel_room" else "Home"),
            city=c.city,
            area=c.area,
            capacity=c.capacity,
            bedrooms=c.bedrooms,
            beds=c.beds,
            bathrooms=c.bathrooms,
            rating=c.rating,
            reviews=counts.get(c.property_id, 0),
            preferred=bool(c.preferred),
            instant_book=bool(c.instant_book),
            cancellation_policy=c.cancellation_policy,
            nightly_cents=nightly(c),
            total_cents=pricer.quote(c).total if pricer else None,
            nights=s.nights,
            units_left=left.get(c.resource_id) if s.dated else None,
            distance_km=distance.get(c.resource_id),
        )
        for i, c in enumerate(shown)
    ]
    return SearchPage(s, cards, total, pages, list(places), office)


def stay_title(kind: str, property_name: str, room_name: str) -> str:
    """How a listing is called: a home by its name, a hotel room as "Hotel · Room type"."""
    if kind == "hotel_room" and room_name:
        return f"{property_name} · {room_name}"
    return property_name


def _link_names(shown: Sequence[_Candidate]) -> list[str]:
    """Each result's link text: its title, with the area (then the id) where two would read
    the same."""
    titles = [stay_title(c.kind, c.property_name, c.room_name) for c in shown]
    count: dict[str, int] = defaultdict(int)
    for t in titles:
        count[t] += 1
    named = [
        f"{t} ({c.area or c.city})" if count[t] > 1 else t
        for t, c in zip(titles, shown, strict=True)
    ]
    again: dict[str, int] = defaultdict(int)
    for n in named:
        again[n] += 1
    return [
        f"{n} #{c.resource_id}" if again[n] > 1 else n for n, c in zip(named, shown, strict=True)
    ]


def review_counts(db: Session, property_ids: Sequence[int]) -> dict[int, int]:
    if not property_ids:
        return {}
    rows = db.execute(
        select(Review.property_id, func.count())
        .where(Review.property_id.in_(sorted(set(property_ids))))
        .group_by(Review.property_id)
    )
    return dict(rows.all())


# -- a listing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HostView:
    name: str
    about: str
    joined_on: date
    is_superhost: bool
    response_rate: int


@dataclass(frozen=True)
class Listing:
    resource: Resource
    property: Property
    host: HostView | None
    amenities: list[str]
    rules: list[str]
    review_count: int
    reviews: list[Review]
    tax_name: str

    @property
    def title(self) -> str:
        return stay_title(self.resource.kind, self.property.name, self.resource.name)

    @property
    def refund_text(self) -> str:
        return booking_rules.REFUND_TEXT.get(self.property.cancellation_policy, "")

    @property
    def beds_summary(self) -> str:
        r = self.resource
        parts = []
        if r.kind == "home":
            parts.append(plural(r.bedrooms, "bedroom") if r.bedrooms else "Studio")
        if r.beds:
            parts.append(plural(r.beds, "bed"))
        if r.bathrooms:
            parts.append(plural(float(r.bathrooms), "bath"))
        return " · ".join(parts)


def stay_resource(db: Session, resource_id: int) -> tuple[Resource, Property]:
    """A stay listing (a home or a hotel room type) and its property; NotFound otherwise."""
    found = db.execute(
        select(Resource, Property)
        .join(Property, Property.id == Resource.property_id)
        .where(Resource.id == resource_id, Resource.kind.in_(STAY_KINDS))
    ).first()
    if found is None:
        raise NotFound("That stay doesn't exist.")
    return found[0], found[1]


def split_list(text: str) -> list[str]:
    """A ", "- or line-separated list as its items."""
    items = [p.strip() for line in (text or "").splitlines() for p in line.split(",")]
    return [p for p in items if p]


def listing(db: Session, resource_id: int) -> Listing:
    """A stay listing with its host, amenities, house rules and first reviews."""
    resource, prop = stay_resource(db, resource_id)
    host = db.get(Host, prop.host_id) if prop.host_id is not None else None
    reviews, count = property_reviews(db, prop.id, 1, REVIEWS_SHOWN)
    tax = tax_name(db, prop.city)
    rules = [r for r in re.split(r"(?<=[.!])\s+|\n+", prop.house_rules or "") if r.strip()]
    return Listing(
        resource=resource,
        property=prop,
        host=HostView(
            host.name, host.about, host.joined_on, bool(host.is_superhost), host.response_rate
        )
        if host is not None
        else None,
        amenities=split_list(prop.amenities),
        rules=rules,
        review_count=count,
        reviews=reviews,
        tax_name=tax,
    )


def tax_name(db: Session, city: str) -> str:
    """The name of the city's tax on stays ("" when it has none), matched as the service
    matches it (ignoring case, the first row)."""
    return (
        db.scalar(
            select(CityTax.name)
            .where(func.lower(CityTax.city) == city.lower())
            .order_by(CityTax.id)
            .limit(1)
        )
        or ""
    )


def property_reviews(
    db: Session, property_id: int, page: int, per_page: int = REVIEWS_PER_PAGE
) -> tuple[list[Review], int]:
    """One page of a property's reviews, newest first, and how many it has in all."""
    count = db.scalar(select(func.count()).where(Review.property_id == property_id)) or 0
    rows = db.scalars(
        select(Review)
        .where(Review.property_id == property_id)
        .order_by(Review.created_on.desc(), Review.id.desc())
        .offset((max(1, page) - 1) * per_page)
        .limit(per_page)
    )
    return list(rows), count


# -- the availability calendar ------------------------------------------------------------------


@dataclass(frozen=True)
class Day:
    day: date
    state: str  # available | unavailable | past
    chosen: bool = False

    @property
    def label(self) -> str:
        words = {"available": "available", "unavailable": "unavailable", "past": "past"}
        chosen = ", in your stay" if self.chosen else ""
        return f"{self.day:%a} {self.day.day} {self.day:%b}: {words[self.state]}{chosen}"


@dataclass(frozen=True)
class Month:
    title: str
    weeks: list[list[Day | None]]


def free_nights(db: Session, resource: Resource, first: date, last: date) -> dict[date, int]:
    """Units of the resource free on each night `first`..`last` (inclusive), counted the way
    `availability` counts them (holding reservations against units less closures)."""
    nights = (last - first).days + 1
    cap = [resource.units] * nights
    windows = db.execute(
        select(Availability.start_date, Availability.end_date, Availability.units).where(
            Availability.resource_id == resource.id,
            Availability.start_date <= last,
            Availability.end_date >= first,
        )
    )
    for start, end, units in windows:
        for i in range(max(0, (start - first).days), min(nights, (end - first).days + 1)):
            cap[i] = min(cap[i], units)
    held = db.execute(
        select(Reservation.start_at, Reservation.end_at).where(
            Reservation.resource_id == resource.id,
            Reservation.status.in_(availability.HOLDING),
            Reservation.start_at < availability.midnight(last + timedelta(days=1)),
            Reservation.end_at > availability.midnight(first),
        )
    )
    for start_at, end_at in held:
        last_night = (end_at - timedelta(microseconds=1)).date()
        for i in range(
            max(0, (start_at.date() - first).days), min(nights, (last_night - first).days + 1)
        ):
            cap[i] -= 1
    return {first + timedelta(days=i): max(0, cap[i]) for i in range(nights)}


def calendar(
    db: Session,
    resource: Resource,
    start: date,
    today: date,
    months: int = 2,
    chosen: tuple[date, date] | None = None,
) -> list[Month]:
    """`months` months from the one holding `start`, each night available or not."""
    first = start.replace(day=1)
    month_starts = [first]
    for _ in range(months - 1):
        m = month_starts[-1]
        month_starts.append((m.replace(day=28) + timedelta(days=4)).replace(day=1))
    end = (month_starts[-1].replace(day=28) + timedelta(days=4)).replace(day=1)
    free = free_nights(db, resource, first, end - timedelta(days=1))
    out = []
    for m in month_starts:
        nxt = (m.replace(day=28) + timedelta(days=4)).replace(day=1)
        weeks: list[list[Day | None]] = []
        week: list[Day | None] = [None] * m.weekday()
        d = m
        while d < nxt:
            state = "available" if free.get(d, 0) > 0 else "unavailable"
            if d < today:
                state = "past"
            inside = chosen is not None and chosen[0] <= d < chosen[1]
            week.append(Day(d, state, inside))
            if len(week) == 7:
                weeks.append(week)
                week = []
            d += timedelta(days=1)
        if week:
            weeks.append(week + [None] * (7 - len(week)))
        out.append(Month(f"{m:%B} {m.year}", weeks))
    return out


# -- prices as pages show them ------------------------------------------------------------------


@dataclass(frozen=True)
class PriceLine:
    label: str
    cents: int
    kind: str = ""  # night | subtotal | discount | fee | tax | total


@dataclass(frozen=True)
class Breakdown:
    """A stay's price, line by line: the nights (each, or grouped by rate on long stays), the
    nights' subtotal, the weekly discount, the fees, the taxes and the total."""

    nights: list[PriceLine]
    lines: list[PriceLine]
    total: int
    count: int
    average_nightly: int


LONG_STAY = 14


def breakdown(price: Quote | Mapping[str, Any] | None, tax_name: str = "") -> Breakdown | None:
    """The lines of a quote (or of a stored `price_json`)."""
    if price is None:
        return None
    data = price.to_json() if isinstance(price, Quote) else dict(price)
    if not data or "total" not in data:
        return None
    raw_nights = data.get("nights") or []
    nights = [(date.fromisoformat(n["night"]), int(n["cents"]), n["label"]) for n in raw_nights]
    if len(nights) <= LONG_STAY:
        night_lines = [
            PriceLine(f"{d:%a} {d.day} {d:%b}, {label}", cents, "night")
            for d, cents, label in nights
        ]
    else:
        groups: dict[tuple[int, str], int] = {}
        for _d, cents, label in nights:
            groups[cents, label] = groups.get((cents, label), 0) + 1
        night_lines = [
            PriceLine(f"{plural(n, 'night')} × {money(cents)}, {label}", cents * n, "night")
            for (cents, label), n in groups.items()
        ]
    count = len(nights)
    subtotal = int(data.get("subtotal", 0))
    lines = [PriceLine(f"{plural(count, 'night')} subtotal", subtotal, "subtotal")]
    if data.get("discount"):
        lines.append(PriceLine("Weekly stay discount", -int(data["discount"]), "discount"))
    if data.get("cleaning"):
        lines.append(PriceLine("Cleaning fee", int(data["cleaning"]), "fee"))
    if data.get("service"):
        lines.append(PriceLine("Service fee", int(data["service"]), "fee"))
    lines.append(PriceLine(tax_name or "Taxes", int(data.get("taxes", 0)), "tax"))
    average = round(subtotal / count) if count else 0
    return Breakdown(night_lines, lines, int(data["total"]), count, average)


def loads(text: str | None) -> Any:
    """A stored JSON column, or None when empty or unreadable."""
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def broken_rules(policy_json: str | None) -> list[str]:
    """The messages of the policy rules a reservation broke, from its `policy_json`."""
    data = loads(policy_json)
    if isinstance(data, dict):
        data = data.get("breaches") or data.get("rules") or []
    out = []
    for item in data or []:
        if isinstance(item, dict):
            out.append(str(item.get("message") or item.get("code") or ""))
        elif item:
            out.append(str(item))
    return [m for m in out if m]


# -- trips --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TripRow:
    id: int
    title: str
    city: str
    check_in: date
    check_out: date
    total_cents: int
    refund_cents: int | None
    status: str
    purpose: str
    guest_name: str  # "" when the reader is the guest

    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.status, self.status)


@dataclass(frozen=True)
class TripPage:
    tab: str
    rows: list[TripRow]
    counts: dict[str, int]
    page: int
    pages: int


def _trip_filter(tab: str, today: date):
    start = availability.midnight(today)
    return {
        "upcoming": (Reservation.status == "confirmed") & (Reservation.end_at > start),
        "past": (Reservation.status == "confirmed") & (Reservation.end_at <= start),
        "pending": Reservation.status == "pending_approval",
        "cancelled": Reservation.status == "cancelled",
        "rejected": Reservation.status == "rejected",
    }[tab]


def trips(db: Session, actor: Employee, tab: str, today: date, page: int = 1) -> TripPage:
    """The stays the actor takes or booked for someone, in one tab, and every tab's count.
    Upcoming and pending trips come soonest first; the others latest first."""
    mine = (Reservation.guest_id == actor.id) | (Reservation.booked_by_id == actor.id)
    base = (
        select(Reservation.id)
        .join(Resource, Resource.id == Reservation.resource_id)
        .where(mine, Resource.kind.in_(STAY_KINDS))
    )
    counts = {}
    for key, _label in TRIP_TABS:
        counts[key] = (
            db.scalar(
                select(func.count()).select_from(base.where(_trip_filter(key, today)).subquery())
            )
            or 0
        )
    pages = max(1, -(-counts[tab] // PER_PAGE))
    page = min(max(1, page), pages)
    guest = aliased(Employee)
    order = (
        (Reservation.start_at, Reservation.id)
        if tab in ("upcoming", "pending")
        else (Reservation.start_at.desc(), Reservation.id.desc())
    )
    rows = db.execute(
        select(
            Reservation.id,
            Resource.kind,
            Property.name,
            Resource.name,
            Property.city,
            Reservation.start_at,
            Reservation.end_at,
            Reservation.total_cents,
            Reservation.refund_cents,
            Reservation.status,
            Reservation.purpose,
            Reservation.guest_id,
            guest.display_name,
        )
        .join(Resource, Resource.id == Reservation.resource_id)
        .join(Property, Property.id == Resource.property_id)
        .join(guest, guest.id == Reservation.guest_id)
        .where(mine, Resource.kind.in_(STAY_KINDS), _trip_filter(tab, today))
        .order_by(*order)
        .offset((page - 1) * PER_PAGE)
        .limit(PER_PAGE)
    )
    out = [
        TripRow(
            id=rid,
            title=stay_title(kind, pname, rname),
            city=city,
            check_in=start.date(),
            check_out=end.date(),
            total_cents=total or 0,
            refund_cents=refund,
            status=status,
            purpose=purpose,
            guest_name="" if guest_id == actor.id else guest_name,
        )
        for (rid, kind, pname, rname, city, start, end, total, refund, status, purpose, guest_id,
             guest_name) in rows
    ]  # fmt: skip
    return TripPage(tab, out, counts, page, pages)


@dataclass(frozen=True)
class TripView:
    reservation: Reservation
    resource: Resource
    property: Property
    guest: Employee
    booked_by: Employee
    approval: Approval | None
    approver: Employee | None
    breakdown: Breakdown | None
    broken: list[str]
    account: str
    opportunity: str
    tax_name: str

    @property
    def title(self) -> str:
        return stay_title(self.resource.kind, self.property.name, self.resource.name)

    @property
    def check_in(self) -> date:
        return self.reservation.start_at.date()

    @property
    def check_out(self) -> date:
        return self.reservation.end_at.date()

    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.reservation.status, self.reservation.status)


def trip(db: Session, reservation: Reservation) -> TripView:
    """What a stay's page shows: the listing, the people, the price lines and the approval.
    NotFound for a meeting-room booking (those have their own pages)."""
    resource, prop = db.execute(
        select(Resource, Property)
        .join(Property, Property.id == Resource.property_id)
        .where(Resource.id == reservation.resource_id)
    ).one()
    if resource.kind not in STAY_KINDS:
        raise NotFound("That reservation doesn't exist or you don't have access to it.")
    approval = db.scalars(
        select(Approval)
        .where(Approval.reservation_id == reservation.id)
        .order_by(Approval.created_at.desc(), Approval.id.desc())
    ).first()
    tax = tax_name(db, prop.city)
    account = (
        db.scalar(select(Account.name).where(Account.id == reservation.account_id))
        if reservation.account_id
        else None
    )
    opportunity = (
        db.scalar(select(Opportunity.name).where(Opportunity.id == reservation.opportunity_id))
        if reservation.opportunity_id
        else None
    )
    return TripView(
        reservation=reservation,
        resource=resource,
        property=prop,
        guest=db.get(Employee, reservation.guest_id),
        booked_by=db.get(Employee, reservation.booked_by_id),
        approval=approval,
        approver=db.get(Employee, approval.approver_id) if approval is not None else None,
        breakdown=breakdown(loads(reservation.price_json), tax),
        broken=broken_rules(reservation.policy_json),
        account=account or "",
        opportunity=opportunity or "",
        tax_name=tax,
    )


# -- approvals ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ApprovalRow:
    id: int
    status: str
    comment: str
    created_at: datetime
    decided_at: datetime | None
    reservation_id: int
    reservation_status: str
    traveller: str
    title: str
    city: str
    check_in: date
    check_out: date
    total_cents: int
    broken: list[str]
    justification: str
    purpose: str

    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days


@dataclass(frozen=True)
class ApprovalPage:
    tab: str
    rows: list[ApprovalRow]
    counts: dict[str, int]
    page: int
    pages: int


def pending_approvals(db: Session, actor: Employee) -> int:
    """How many approval requests wait for the actor's decision."""
    return (
        db.scalar(
            select(func.count()).where(
                Approval.approver_id == actor.id, Approval.status == "pending"
            )
        )
        or 0
    )


def approvals(db: Session, actor: Employee, tab: str, page: int = 1) -> ApprovalPage:
    """The approval requests sent to the actor: those waiting (oldest first) or those decided
    (latest decision first)."""
    waiting = Approval.status == "pending"
    counts = {
        "pending": pending_approvals(db, actor),
        "decided": db.scalar(select(func.count()).where(Approval.approver_id == actor.id, ~waiting))
        or 0,
    }
    pages = max(1, -(-counts[tab] // PER_PAGE))
    page = min(max(1, page), pages)
    order = (
        (Approval.created_at, Approval.id)
        if tab == "pending"
        else (Approval.decided_at.desc(), Approval.id.desc())
    )
    traveller = aliased(Employee)
    rows = db.execute(
        select(
            Approval,
            Reservation,
            Resource.kind,
            Resource.name,
            Property.name,
            Property.city,
            traveller.display_name,
        )  # fmt: skip
        .join(Reservation, Reservation.id == Approval.reservation_id)
        .join(Resource, Resource.id == Reservation.resource_id)
        .join(Property, Property.id == Resource.property_id)
        .join(traveller, traveller.id == Reservation.guest_id)
        .where(Approval.approver_id == actor.id, waiting if tab == "pending" else ~waiting)
        .order_by(*order)
        .offset((page - 1) * PER_PAGE)
        .limit(PER_PAGE)
    )
    out = [
        ApprovalRow(
            id=a.id,
            status=a.status,
            comment=a.comment or "",
            created_at=a.created_at,
            decided_at=a.decided_at,
            reservation_id=r.id,
            reservation_status=r.status,
            traveller=name,
            title=stay_title(kind, pname, rname),
            city=city,
            check_in=r.start_at.date(),
            check_out=r.end_at.date(),
            total_cents=r.total_cents or 0,
            broken=broken_rules(r.policy_json),
            justification=r.justification or "",
            purpose=r.purpose,
        )
        for a, r, kind, rname, pname, city, name in rows
    ]
    return ApprovalPage(tab, out, counts, page, pages)


# -- people and customers a reservation form offers ---------------------------------------------


def deal_name(db: Session, opportunity_id: int) -> str | None:
    return db.scalar(select(Opportunity.name).where(Opportunity.id == opportunity_id))


def deals_named(db: Session, text: str, account_id: int | None = None) -> list[int]:
    """The ids of the deals called exactly `text` (ignoring case), of `account_id` if given."""
    q = select(Opportunity.id).where(func.lower(Opportunity.name) == text.strip().lower())
    if account_id is not None:
        q = q.where(Opportunity.account_id == account_id)
    return list(db.scalars(q.order_by(Opportunity.id).limit(10)))


def deal_choices(db: Session, q: str, account_id: int | None = None) -> list[dict[str, Any]]:
    """Deals whose name holds every typed word (those of `account_id` first), as lookup
    choices with their account and stage."""
    words = " ".join(str(q or "").split())[:100].lower().split()[:6]
    statement = select(Opportunity.id, Opportunity.name, Account.name, Opportunity.stage).join(
        Account, Account.id == Opportunity.account_id
    )
    for word in words:
        statement = statement.where(
            func.lower(Opportunity.name).like(f"%{escape_like(word)}%", escape="\\")
        )
    order: list[Any] = []
    if account_id is not None:
        order.append(Opportunity.account_id != account_id)
    statement = statement.order_by(*order, Opportunity.name, Opportunity.id).limit(8)
    return [
        {"id": deal_id, "label": name, "detail": f"{account} · {stage}"}
        for deal_id, name, account, stage in db.execute(statement)
    ]


def reports_of(db: Session, actor: Employee) -> list[Employee]:
    """The actor's active direct reports, by name."""
    return list(
        db.scalars(
            select(Employee)
            .where(Employee.manager_id == actor.id, Employee.is_active)
            .order_by(Employee.display_name, Employee.id)
        )
    )


__all__ = [
    "AMENITIES",
    "APPROVAL_TABS",
    "SORTS",
    "TRIP_TABS",
    "Breakdown",
    "Listing",
    "Place",
    "SearchPage",
    "StayCard",
    "StaySearch",
    "approvals",
    "breakdown",
    "calendar",
    "destinations",
    "free_nights",
    "haversine_km",
    "listing",
    "money",
    "offices",
    "parse_search",
    "pending_approvals",
    "property_reviews",
    "resolve_place",
    "search_stays",
    "trip",
    "trips",
]
