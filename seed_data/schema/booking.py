"""Booking: properties (hotels, office buildings) with bookable resources, policy and approvals."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base

RESERVATION_STATUSES = ("pending_approval", "confirmed", "cancelled", "rejected")


class Property(Base):
    """A hotel (`kind` hotel) or one of the company's office buildings (`kind` office)."""

    __tablename__ = "booking_property"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(160), index=True)
    city: Mapped[str] = mapped_column(String(80), index=True)
    country: Mapped[str] = mapped_column(String(80))
    address: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    star_rating: Mapped[int | None] = mapped_column()
    guest_rating: Mapped[float | None] = mapped_column()
    amenities: Mapped[str] = mapped_column(Text, default="")
    office_id: Mapped[int | None] = mapped_column(ForeignKey("people_office.id"), index=True)
    is_preferred: Mapped[bool] = mapped_column(default=False)


class Resource(Base):
    """Something reservable: a hotel room type (`units` rooms of it) or a meeting room."""

    __tablename__ = "booking_resource"

    id: Mapped[int] = mapped_column(primary_key=True)
    property_id: Mapped[int] = mapped_column(ForeignKey("booking_property.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(120))
    capacity: Mapped[int] = mapped_column()
    units: Mapped[int] = mapped_column(default=1)
    nightly_rate: Mapped[int | None] = mapped_column()
    features: Mapped[str] = mapped_column(Text, default="")


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
    """Nightly rate caps per city (`city` NULL is the default rule) and the approval threshold."""

    __tablename__ = "booking_policy"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    city: Mapped[str | None] = mapped_column(String(80), unique=True)
    max_nightly_rate: Mapped[int] = mapped_column()
    approval_over_total: Mapped[int] = mapped_column()
    min_advance_days: Mapped[int] = mapped_column(default=0)
    notes: Mapped[str] = mapped_column(Text, default="")


class Reservation(Base):
    """A booking of a resource by `booked_by` for `guest`, from `start_at` to `end_at`.

    Hotel stays run check-in to check-out dates (times at midnight); meeting rooms by the hour.
    Trips for a customer carry the account and opportunity they serve.
    """

    __tablename__ = "booking_reservation"

    id: Mapped[int] = mapped_column(primary_key=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("booking_resource.id"), index=True)
    guest_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    booked_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    start_at: Mapped[datetime] = mapped_column()
    end_at: Mapped[datetime] = mapped_column()
    status: Mapped[str] = mapped_column(String(20))
    purpose: Mapped[str] = mapped_column(String(200))
    total_cost: Mapped[int] = mapped_column(default=0)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"), index=True)
    opportunity_id: Mapped[int | None] = mapped_column(ForeignKey("crm_opportunity.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    cancelled_at: Mapped[datetime | None] = mapped_column()


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
