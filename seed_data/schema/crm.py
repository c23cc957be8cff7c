"""CRM: accounts, contacts, leads, opportunities, activities and notes, each with an owner."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base

# Sales stages in pipeline order, with the default win probability of each.
STAGES: tuple[tuple[str, int], ...] = (
    ("Prospecting", 10),
    ("Qualification", 20),
    ("Needs Analysis", 30),
    ("Proposal", 50),
    ("Negotiation", 75),
    ("Closed Won", 100),
    ("Closed Lost", 0),
)
CLOSED_STAGES = ("Closed Won", "Closed Lost")
LOSS_REASONS = ("Price", "Lost to competitor", "No budget", "No decision", "Timing", "Other")
LEAD_STATUSES = ("New", "Working", "Qualified", "Unqualified", "Converted")
ACTIVITY_KINDS = ("task", "call", "meeting", "email")


class Account(Base):
    __tablename__ = "crm_account"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(160), index=True)
    account_type: Mapped[str] = mapped_column(String(32), default="Prospect")
    industry: Mapped[str | None] = mapped_column(String(80))
    website: Mapped[str | None] = mapped_column(String(200))
    phone: Mapped[str | None] = mapped_column(String(40))
    billing_street: Mapped[str | None] = mapped_column(String(200))
    billing_city: Mapped[str | None] = mapped_column(String(80))
    billing_country: Mapped[str | None] = mapped_column(String(80))
    employee_count: Mapped[int | None] = mapped_column()
    annual_revenue: Mapped[int | None] = mapped_column()
    parent_account_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"), index=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    updated_at: Mapped[datetime] = mapped_column()


class Contact(Base):
    __tablename__ = "crm_contact"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"), index=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60), index=True)
    title: Mapped[str | None] = mapped_column(String(120))
    email: Mapped[str | None] = mapped_column(String(200))
    phone: Mapped[str | None] = mapped_column(String(40))
    mailing_city: Mapped[str | None] = mapped_column(String(80))
    owner_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    updated_at: Mapped[datetime] = mapped_column()


class Opportunity(Base):
    """A deal. `amount` is whole units of the world currency; `stage` is one of STAGES."""

    __tablename__ = "crm_opportunity"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("crm_account.id"), index=True)
    primary_contact_id: Mapped[int | None] = mapped_column(ForeignKey("crm_contact.id"), index=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    stage: Mapped[str] = mapped_column(String(32))
    amount: Mapped[int | None] = mapped_column(index=True)
    probability: Mapped[int] = mapped_column()
    close_date: Mapped[date] = mapped_column(index=True)
    lead_source: Mapped[str | None] = mapped_column(String(40))
    next_step: Mapped[str | None] = mapped_column(String(200))
    # One of LOSS_REASONS on Closed Lost deals, else None.
    loss_reason: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column()
    updated_at: Mapped[datetime] = mapped_column()


class Lead(Base):
    __tablename__ = "crm_lead"

    id: Mapped[int] = mapped_column(primary_key=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    company: Mapped[str] = mapped_column(String(160))
    title: Mapped[str | None] = mapped_column(String(120))
    email: Mapped[str | None] = mapped_column(String(200))
    phone: Mapped[str | None] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(20))
    source: Mapped[str | None] = mapped_column(String(40))
    owner_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    converted_account_id: Mapped[int | None] = mapped_column(
        ForeignKey("crm_account.id"), index=True
    )
    converted_contact_id: Mapped[int | None] = mapped_column(
        ForeignKey("crm_contact.id"), index=True
    )
    converted_opportunity_id: Mapped[int | None] = mapped_column(
        ForeignKey("crm_opportunity.id"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(index=True)
    updated_at: Mapped[datetime] = mapped_column()


class Activity(Base):
    """A task, call, meeting or email logged against CRM records. `status` is Open or Completed."""

    __tablename__ = "crm_activity"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    subject: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(16))
    priority: Mapped[str] = mapped_column(String(16), default="Normal")
    due_date: Mapped[date | None] = mapped_column(index=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"), index=True)
    contact_id: Mapped[int | None] = mapped_column(ForeignKey("crm_contact.id"), index=True)
    opportunity_id: Mapped[int | None] = mapped_column(ForeignKey("crm_opportunity.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    completed_at: Mapped[datetime | None] = mapped_column()


class Note(Base):
    __tablename__ = "crm_note"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    author_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("crm_account.id"), index=True)
    contact_id: Mapped[int | None] = mapped_column(ForeignKey("crm_contact.id"), index=True)
    opportunity_id: Mapped[int | None] = mapped_column(ForeignKey("crm_opportunity.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()


# Field history, one table per object (like Salesforce's AccountHistory, OpportunityFieldHistory):
# one row per changed field per save. `field` is the column name, or one of HISTORY_EVENTS for a
# row that records an event rather than a field; values are stored as text (ISO dates, ids).
HISTORY_EVENTS = ("created", "converted", "merged", "imported")


class AccountHistory(Base):
    __tablename__ = "crm_account_history"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("crm_account.id"), index=True)
    field: Mapped[str] = mapped_column(String(40))
    old_value: Mapped[str | None] = mapped_column(Text)
    new_value: Mapped[str | None] = mapped_column(Text)
    changed_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    changed_at: Mapped[datetime] = mapped_column()


class ContactHistory(Base):
    __tablename__ = "crm_contact_history"

    id: Mapped[int] = mapped_column(primary_key=True)
    contact_id: Mapped[int] = mapped_column(ForeignKey("crm_contact.id"), index=True)
    field: Mapped[str] = mapped_column(String(40))
    old_value: Mapped[str | None] = mapped_column(Text)
    new_value: Mapped[str | None] = mapped_column(Text)
    changed_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    changed_at: Mapped[datetime] = mapped_column()


class LeadHistory(Base):
    __tablename__ = "crm_lead_history"

    id: Mapped[int] = mapped_column(primary_key=True)
    lead_id: Mapped[int] = mapped_column(ForeignKey("crm_lead.id"), index=True)
    field: Mapped[str] = mapped_column(String(40))
    old_value: Mapped[str | None] = mapped_column(Text)
    new_value: Mapped[str | None] = mapped_column(Text)
    changed_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    changed_at: Mapped[datetime] = mapped_column()


class OpportunityHistory(Base):
    __tablename__ = "crm_opportunity_history"

    id: Mapped[int] = mapped_column(primary_key=True)
    opportunity_id: Mapped[int] = mapped_column(ForeignKey("crm_opportunity.id"), index=True)
    field: Mapped[str] = mapped_column(String(40))
    old_value: Mapped[str | None] = mapped_column(Text)
    new_value: Mapped[str | None] = mapped_column(Text)
    changed_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    changed_at: Mapped[datetime] = mapped_column()
