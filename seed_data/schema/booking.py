"""Booking: stays (hotels and homes), the company's offices with meeting rooms, travel policy
with approvals, and the reservations that tie them to people.

Money: rates and fees a listing sets are whole dollars (`nightly_rate`, `weekend_rate`,
`cleaning_fee`); what a reservation charges is computed to the cent by the pricing rules in
`officegym.seed_data.booking_rules` and stored in cents (`*_cents`).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base

RESERVATION_STATUSES = ("pending_approval", "confirmed", "cancelled", "rejected")
PROPERTY_KINDS = ("hotel", "home", "office")
RESOURCE_KINDS = ("hotel_room", "home", "meeting_room")
CANCELLATION_POLICIES = ("flexible", "moderate", "strict")
JOB_LEVELS = ("staff", "manager", "director", "executive")
HOME_TYPES = ("Apartment", "House", "Loft", "Serviced apartment", "Guest suite", "Townhouse")
PROPERTY_TYPES = ("Hotel", *HOME_TYPES)
# What hotels and homes list in `amenities` (lower case); search filters on the first five.
AMENITIES = ("wifi", "workspace", "parking", "kitchen", "washer", "air conditioning",
             "heating", "tv", "elevator", "gym", "pool", "breakfast", "self check-in",
             "pets allowed", "24h front desk", "restaurant", "bar", "airport shuttle", "spa",
             "dryer", "dishwasher", "coffee maker", "balcony", "city view", "iron",
             "hair dryer")  # fmt: skip
# What meeting rooms list in `features`; search filters on the first three.
ROOM_FEATURES = ("screen", "video conferencing", "whiteboard", "speakerphone",
                 "standing desks", "wheelchair accessible")  # fmt: skip


class Host(Base):
    """Who lets a home: a person or a small letting company (not an employee)."""

    __tablename__ = "booking_host"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    about: Mapped[str] = mapped_column(Text, default="")
    joined_on: Mapped[date] = mapped_column()
    is_superhost: Mapped[bool] = mapped_column(default=False)
    response_rate: Mapped[int] = mapped_column(default=100)  # percent


class Property(Base):
    """A hotel (`kind` hotel), a home let by a host (`kind` home) or one of the company's
    office buildings (`kind` office).

    `property_type` is what search filters on (`PROPERTY_TYPES`: "Hotel", "Apartment", "House",
    "Loft", "Serviced apartment", "Guest suite", "Townhouse"; "" for offices). `area` is the
    neighbourhood. `amenities` of hotels and homes are words of `AMENITIES`, sorted.
    `guest_rating` is the mean of the property's reviews (two decimals), NULL without any.
    `service_fee_pct` is the booking tool's fee on homes (hotels charge none).
    """

    __tablename__ = "booking_property"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), index=True)
    property_type: Mapped[str] = mapped_column(String(32), default="")
    name: Mapped[str] = mapped_column(String(160), index=True)
    city: Mapped[str] = mapped_column(String(80), index=True)
    area: Mapped[str] = mapped_column(String(80), default="")
    country: Mapped[str] = mapped_column(String(80))
    address: Mapped[str] = mapped_column(String(200))
    latitude: Mapped[float | None] = mapped_column()
    longitude: Mapped[float | None] = mapped_column()
    description: Mapped[str] = mapped_column(Text, default="")
    star_rating: Mapped[int | None] = mapped_column()
    guest_rating: Mapped[float | None] = mapped_column()
    amenities: Mapped[str] = mapped_column(Text, default="")  # ", "-separated, lower case
    house_rules: Mapped[str] = mapped_column(Text, default="")
    check_in_time: Mapped[str] = mapped_column(String(5), default="15:00")
    check_out_time: Mapped[str] = mapped_column(String(5), default="11:00")
    cancellation_policy: Mapped[str] = mapped_column(String(16), default="moderate")
    instant_book: Mapped[bool] = mapped_column(default=True)
    service_fee_pct: Mapped[int] = mapped_column(default=0)
    host_id: Mapped[int | None] = mapped_column(ForeignKey("booking_host.id"), index=True)
    office_id: Mapped[int | None] = mapped_column(ForeignKey("people_office.id"), index=True)
    is_preferred: Mapped[bool] = mapped_column(default=False)


class Resource(Base):
    """Something reservable: a hotel room type (`units` rooms of it), a whole home (one unit)
    or a meeting room.

    Stays (`hotel_room`, `home`) carry their listing terms: `capacity` guests, bedrooms,
    beds, bathrooms, the nightly rate and the Friday/Saturday rate, a cleaning fee, a minimum
    stay and a discount on stays of seven nights or more. Meeting rooms carry `capacity`
    seats and `features` (", "-separated: "screen", "video conferencing", "whiteboard", ...).
    """

    __tablename__ = "booking_resource"

    id: Mapped[int] = mapped_column(primary_key=True)
    property_id: Mapped[int] = mapped_column(ForeignKey("booking_property.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16), index=True)
    name: Mapped[str] = mapped_column(String(120))
    capacity: Mapped[int] = mapped_column()
    units: Mapped[int] = mapped_column(default=1)
    bedrooms: Mapped[int] = mapped_column(default=0)
    beds: Mapped[int] = mapped_column(default=0)
    bathrooms: Mapped[float] = mapped_column(default=0)
    nightly_rate: Mapped[int | None] = mapped_column()
    weekend_rate: Mapped[int | None] = mapped_column()
    cleaning_fee: Mapped[int] = mapped_column(default=0)
    min_nights: Mapped[int] = mapped_column(default=1)
    weekly_discount_pct: Mapped[int] = mapped_column(default=0)
    features: Mapped[str] = mapped_column(Text, default="")


class Season(Base):
    """A date range in which a property's nightly rates change by `percent` (+25 in a peak
    season, -15 off season). Seasons of one property never overlap; `end_date` is the last
    night it applies to."""

    __tablename__ = "booking_season"

    id: Mapped[int] = mapped_column(primary_key=True)
    property_id: Mapped[int] = mapped_column(ForeignKey("booking_property.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    start_date: Mapped[date] = mapped_column()
    end_date: Mapped[date] = mapped_column()
    percent: Mapped[int] = mapped_column()


class CityTax(Base):
    """Taxes on stays in one city: `percent` of the stay's price (nights less discount, plus
    cleaning and service fees) and a flat `per_night_cents` occupancy tax."""

    __tablename__ = "booking_city_tax"

    id: Mapped[int] = mapped_column(primary_key=True)
    city: Mapped[str] = mapped_column(String(80), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    percent: Mapped[float] = mapped_column()
    per_night_cents: Mapped[int] = mapped_column(default=0)


class Review(Base):
    """A guest's review of a property: 1-5 stars and words."""

    __tablename__ = "booking_review"

    id: Mapped[int] = mapped_column(primary_key=True)
    property_id: Mapped[int] = mapped_column(ForeignKey("booking_property.id"), index=True)
    author_name: Mapped[str] = mapped_column(String(120))
    rating: Mapped[int] = mapped_column()
    body: Mapped[str] = mapped_column(Text)
    created_on: Mapped[date] = mapped_column()


class Availability(Base):
    """A window in which a resource has fewer units than usual (`units` 0 means closed)."""

    __tablename__ = "booking_availability"

    id: Mapped[int] = mapped_column(primary_key=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("booking_resource.id"), index=True)
    start_date: Mapped[date] = mapped_column()
    end_date: Mapped[date] = mapped_column()
    units: Mapped[int] = mapped_column()
    reason: Mapped[str] = mapped_column(String(200))


class TravelPolicy(Base):
    """The travel policy for one city (`city` NULL is the default rule).

    A stay is in policy when its average nightly rate before taxes is at most the cap for
    the traveller's job level (`booking_policy_cap`, else `max_nightly_rate`), its total is
    at most `approval_over_total` dollars, it is booked at least `min_advance_days` before
    check-in, it lasts at most `max_nights`, and, where `preferred_only`, the property is a
    preferred one. Anything else needs a justification and the manager's approval.
    """

    __tablename__ = "booking_policy"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    city: Mapped[str | None] = mapped_column(String(80), unique=True)
    max_nightly_rate: Mapped[int] = mapped_column()
    approval_over_total: Mapped[int] = mapped_column()
    min_advance_days: Mapped[int] = mapped_column(default=0)
    max_nights: Mapped[int] = mapped_column(default=14)
    preferred_only: Mapped[bool] = mapped_column(default=False)
    notes: Mapped[str] = mapped_column(Text, default="")


class PolicyCap(Base):
    """A nightly cap for one job level under one policy (overrides `max_nightly_rate`)."""

    __tablename__ = "booking_policy_cap"
    __table_args__ = (UniqueConstraint("policy_id", "job_level"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    policy_id: Mapped[int] = mapped_column(ForeignKey("booking_policy.id"), index=True)
    job_level: Mapped[str] = mapped_column(String(16))
    max_nightly_rate: Mapped[int] = mapped_column()


class Series(Base):
    """A recurring meeting-room booking: weekly for `weeks` weeks from its first date."""

    __tablename__ = "booking_series"

    id: Mapped[int] = mapped_column(primary_key=True)
    organizer_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("booking_resource.id"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    weeks: Mapped[int] = mapped_column()
    created_at: Mapped[datetime] = mapped_column()


class Reservation(Base):
    """A booking of a resource by `booked_by` for `guest`, from `start_at` to `end_at`.

    Stays run check-in to check-out dates (times at midnight) for `guests` people, priced by
    `price_json` (the quote: nights with their rates, subtotal, discount, fees, taxes, total,
    all in cents) with `total_cents` its total; `policy_json` lists the policy rules broken
    when booked, `justification` the traveller's reason. Meeting rooms run by the hour (UTC)
    with `purpose` as the title, `booking_attendee` rows and an optional `series_id`.
    Trips for a customer carry the account and opportunity they serve.
    """

    __tablename__ = "booking_reservation"

    id: Mapped[int] = mapped_column(primary_key=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("booking_resource.id"), index=True)
    guest_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    booked_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    start_at: Mapped[datetime] = mapped_column(index=True)
    end_at: Mapped[datetime] = mapped_column()
    status: Mapped[str] = mapped_column(String(20))
    purpose: Mapped[str] = mapped_column(String(200))
    guests: Mapped[int] = mapped_column(default=1)
    total_cents: Mapped[int] = mapped_column(default=0)
    price_json: Mapped[str] = mapped_column(Text, default="")
    refund_cents: Mapped[int | None] = mapped_column()
    justification: Mapped[str] = mapped_column(Text, default="")
    policy_json: Mapped[str] = mapped_column(Text, default="")
    series_id: Mapped[int | None] = mapped_column(ForeignKey("booking_series.id"), index=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"), index=True)
    opportunity_id: Mapped[int | None] = mapped_column(ForeignKey("crm_opportunity.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    updated_at: Mapped[datetime | None] = mapped_column()
    cancelled_at: Mapped[datetime | None] = mapped_column()


class Attendee(Base):
    """An invited colleague on a meeting-room booking (the organizer is the guest)."""

    __tablename__ = "booking_attendee"
    __table_args__ = (UniqueConstraint("reservation_id", "employee_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    reservation_id: Mapped[int] = mapped_column(ForeignKey("booking_reservation.id"), index=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)


class Approval(Base):
    """A manager's decision on a reservation that breaks policy: pending, approved or rejected."""

    __tablename__ = "booking_approval"

    id: Mapped[int] = mapped_column(primary_key=True)
    reservation_id: Mapped[int] = mapped_column(ForeignKey("booking_reservation.id"), index=True)
    approver_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    status: Mapped[str] = mapped_column(String(16))
    comment: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column()
    decided_at: Mapped[datetime | None] = mapped_column()
