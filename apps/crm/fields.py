"""What each CRM object is made of: fields, labels, picklists, and how typed input is read.

`OBJECTS` describes accounts, contacts, leads, opportunities, activities and notes for every
layer (forms, inline edit, list columns, import, export, merge, the API). `parse` turns what a
person typed (or a JSON value) into the value stored, or raises `FieldError` with a message
that names the field; references (owners, accounts, contacts) come back as an id or a name for
the service to look up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from officegym.seed_data.schema.crm import (
    ACTIVITY_KINDS,
    LEAD_STATUSES,
    LOSS_REASONS,
    STAGES,
    Account,
    AccountHistory,
    Activity,
    Contact,
    ContactHistory,
    Lead,
    LeadHistory,
    Note,
    Opportunity,
    OpportunityHistory,
)

STAGE_NAMES: tuple[str, ...] = tuple(name for name, _ in STAGES)
STAGE_PROBABILITY: dict[str, int] = dict(STAGES)
OPEN_STAGES: tuple[str, ...] = tuple(s for s in STAGE_NAMES if not s.startswith("Closed"))
WON, LOST = "Closed Won", "Closed Lost"
ACCOUNT_TYPES = ("Prospect", "Customer", "Partner", "Former Customer")
INDUSTRIES = (
    "Biotechnology", "Construction", "Education", "Energy", "Financial Services",
    "Food & Beverage", "Healthcare", "Hospitality", "Logistics", "Manufacturing", "Media",
    "Professional Services", "Real Estate", "Retail", "Software", "Telecommunications", "Other",
)  # fmt: skip
LEAD_SOURCES = (
    "Web", "Webinar", "Trade Show", "Referral", "Outbound", "Partner", "Content Download", "Other",
)  # fmt: skip
# Statuses a person may set; "Converted" is only ever set by converting the lead.
EDITABLE_LEAD_STATUSES = tuple(s for s in LEAD_STATUSES if s != "Converted")
ACTIVITY_STATUSES = ("Open", "Completed")
PRIORITIES = ("High", "Normal", "Low")
KIND_LABELS = {"task": "Task", "call": "Call", "meeting": "Meeting", "email": "Email"}

MAX_TEXT = 200
MAX_LONG_TEXT = 20_000
MAX_AMOUNT = 10**12

# The HTML standard's "valid email address".
_EMAIL = re.compile(
    r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+"
)
_PHONE = re.compile(r"\+?[0-9(][0-9 ().\-/]*(?:\s*(?:x|ext\.?)\s*[0-9]{1,6})?", re.IGNORECASE)
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)+(?::[0-9]+)?")
_US_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class FieldError(ValueError):
    """A typed value that can't be stored in its field; the message is for people."""


@dataclass(frozen=True)
class Field:
    """One field of an object.

    `kind` is one of: text, textarea, email, phone, url, int, money, percent, date, choice,
    employee, account, contact, opportunity. `form` says whether edit forms show it (links set
    by context, like an activity's account, are not).
    """

    name: str
    label: str
    kind: str = "text"
    required: bool = False
    choices: tuple[str, ...] = ()
    max_length: int = MAX_TEXT
    help: str = ""
    form: bool = True

    @property
    def is_reference(self) -> bool:
        return self.kind in ("employee", "account", "contact", "opportunity")

    def choice_label(self, value: str) -> str:
        return KIND_LABELS.get(value, value) if self.name == "kind" else value


@dataclass(frozen=True)
class ObjectType:
    """A CRM object: its URL segment (`key`), names, table, fields and history table."""

    key: str
    singular: str
    plural: str
    model: type
    fields: tuple[Field, ...]
    owner_field: str = "owner_id"
    history: type | None = None
    history_key: str | None = None
    searchable: tuple[str, ...] = ()
    _by_name: dict[str, Field] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_name.update({f.name: f for f in self.fields})

    @property
    def table(self) -> str:
        return self.model.__tablename__

    @property
    def noun(self) -> str:
        return self.singular.lower()

    def field(self, name: str) -> Field:
        """The field called `name`; KeyError if the object has none."""
        return self._by_name[name]

    def has(self, name: str) -> bool:
        return name in self._by_name

    @property
    def form_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.form)


def _owner(label: str) -> Field:
    return Field("owner_id", label, "employee", required=True)


ACCOUNTS = ObjectType(
    "accounts",
    "Account",
    "Accounts",
    Account,
    (
        Field("name", "Account name", required=True, max_length=160),
        Field("account_type", "Type", "choice", required=True, choices=ACCOUNT_TYPES),
        Field("industry", "Industry", "choice", choices=INDUSTRIES),
        Field("website", "Website", "url"),
        Field("phone", "Phone", "phone", max_length=40),
        Field("billing_street", "Billing street"),
        Field("billing_city", "Billing city", max_length=80),
        Field("billing_country", "Billing country", max_length=80),
        Field("employee_count", "Employees", "int"),
        Field("annual_revenue", "Annual revenue", "money"),
        Field("parent_account_id", "Parent account", "account"),
        _owner("Account owner"),
    ),
    history=AccountHistory,
    history_key="account_id",
    searchable=("name", "website", "phone", "billing_city"),
)

CONTACTS = ObjectType(
    "contacts",
    "Contact",
    "Contacts",
    Contact,
    (
        Field("first_name", "First name", required=True, max_length=60),
        Field("last_name", "Last name", required=True, max_length=60),
        Field("account_id", "Account name", "account"),
        Field("title", "Title", max_length=120),
        Field("email", "Email", "email"),
        Field("phone", "Phone", "phone", max_length=40),
        Field("mailing_city", "Mailing city", max_length=80),
        _owner("Contact owner"),
    ),
    history=ContactHistory,
    history_key="contact_id",
    searchable=("first_name", "last_name", "email", "phone", "title"),
)

LEADS = ObjectType(
    "leads",
    "Lead",
    "Leads",
    Lead,
    (
        Field("first_name", "First name", required=True, max_length=60),
        Field("last_name", "Last name", required=True, max_length=60),
        Field("company", "Company", required=True, max_length=160),
        Field("title", "Title", max_length=120),
        Field("email", "Email", "email"),
        Field("phone", "Phone", "phone", max_length=40),
        Field("status", "Lead status", "choice", required=True, choices=EDITABLE_LEAD_STATUSES),
        Field("source", "Lead source", "choice", choices=LEAD_SOURCES),
        _owner("Lead owner"),
    ),
    history=LeadHistory,
    history_key="lead_id",
    searchable=("first_name", "last_name", "company", "email", "phone"),
)

OPPORTUNITIES = ObjectType(
    "opportunities",
    "Opportunity",
    "Opportunities",
    Opportunity,
    (
        Field("name", "Opportunity name", required=True),
        Field("account_id", "Account name", "account", required=True),
        Field("primary_contact_id", "Primary contact", "contact"),
        Field("stage", "Stage", "choice", required=True, choices=STAGE_NAMES),
        Field(
            "loss_reason",
            "Loss reason",
            "choice",
            choices=LOSS_REASONS,
            help="Only for Closed Lost opportunities.",
        ),
        Field("amount", "Amount", "money"),
        Field(
            "probability",
            "Probability (%)",
            "percent",
            help="Set from the stage when the stage changes, unless you change it too.",
        ),
        Field("close_date", "Close date", "date", required=True),
        Field("lead_source", "Lead source", "choice", choices=LEAD_SOURCES),
        Field("next_step", "Next step"),
        _owner("Opportunity owner"),
    ),
    history=OpportunityHistory,
    history_key="opportunity_id",
    searchable=("name",),
)

ACTIVITIES = ObjectType(
    "activities",
    "Activity",
    "Activities",
    Activity,
    (
        Field("kind", "Type", "choice", required=True, choices=ACTIVITY_KINDS),
        Field("subject", "Subject", required=True),
        Field("description", "Comments", "textarea", max_length=MAX_LONG_TEXT),
        Field("status", "Status", "choice", required=True, choices=ACTIVITY_STATUSES),
        Field("priority", "Priority", "choice", required=True, choices=PRIORITIES),
        Field("due_date", "Due date", "date"),
        _owner("Assigned to"),
        Field("account_id", "Account", "account", form=False),
        Field("contact_id", "Contact", "contact", form=False),
        Field("opportunity_id", "Opportunity", "opportunity", form=False),
    ),
    searchable=("subject",),
)

NOTES = ObjectType(
    "notes",
    "Note",
    "Notes",
    Note,
    (
        Field("title", "Title", required=True),
        Field("body", "Body", "textarea", required=True, max_length=MAX_LONG_TEXT),
        Field("account_id", "Account", "account", form=False),
        Field("contact_id", "Contact", "contact", form=False),
        Field("opportunity_id", "Opportunity", "opportunity", form=False),
    ),
    owner_field="author_id",
    searchable=("title", "body"),
)

OBJECTS: dict[str, ObjectType] = {
    o.key: o for o in (ACCOUNTS, CONTACTS, LEADS, OPPORTUNITIES, ACTIVITIES, NOTES)
}
BY_TABLE: dict[str, ObjectType] = {o.table: o for o in OBJECTS.values()}


# -- reading typed input ----------------------------------------------------------------------


def _text(raw: Any, label: str) -> str | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise FieldError(f"{label} must be text.")
    text = str(raw).strip()
    return text or None


def _whole_number(text: str, label: str, *, money: bool = False) -> int:
    cleaned = text.replace(",", "").replace(" ", "")
    if money:
        cleaned = cleaned.removeprefix("$").removeprefix("USD")
    match = re.fullmatch(r"([+-]?)(\d+)(?:\.(\d+))?", cleaned)
    if not match:
        raise FieldError(f"{label} must be a number, like 12500.")
    if match.group(3) and int(match.group(3)) != 0:
        raise FieldError(f"{label} must be a whole number.")
    if len(match.group(2)) > 15:
        raise FieldError(f"{label} is too large.")
    value = int(match.group(2))
    return -value if match.group(1) == "-" else value


def parse_date(text: str, label: str) -> date:
    """An ISO date (2025-09-30), or a US one (9/30/2025)."""
    us = _US_DATE.fullmatch(text)
    try:
        if us:
            return date(int(us.group(3)), int(us.group(1)), int(us.group(2)))
        return date.fromisoformat(text)
    except ValueError:
        raise FieldError(f"{label} must be a date like 2025-09-30.") from None


def parse(spec: Field, raw: Any) -> Any:
    """The value to store for `raw` typed into `spec` (None for empty), or FieldError."""
    label = spec.label
    if isinstance(raw, (date, datetime)) and spec.kind == "date":
        text: str | None = raw.isoformat()[:10]
    elif spec.kind in ("int", "money", "percent") and isinstance(raw, int):
        text = str(raw)
    elif spec.is_reference and isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    else:
        text = _text(raw, label)
    if text is None:
        if spec.required:
            raise FieldError(f"{label} is required.")
        return None
    if _CONTROL.search(text):
        raise FieldError(f"{label} contains characters that can't be stored.")
    if spec.kind not in ("textarea",):
        text = " ".join(text.split())
    if len(text) > spec.max_length:
        raise FieldError(f"{label} can be at most {spec.max_length:,} characters.")

    kind = spec.kind
    if kind in ("text", "textarea"):
        return text
    if kind == "email":
        if not _EMAIL.fullmatch(text):
            raise FieldError(f"{label} must be an email address, like name@example.com.")
        return text
    if kind == "phone":
        number = re.split(r"x|ext", text, maxsplit=1, flags=re.IGNORECASE)[0]
        digits = sum(ch.isdigit() for ch in number)
        if not _PHONE.fullmatch(text) or not 7 <= digits <= 15:
            raise FieldError(f"{label} must be a phone number, like +1 415-555-0134.")
        return text
    if kind == "url":
        host = re.sub(r"^https?://", "", text, flags=re.IGNORECASE).split("/", 1)[0]
        if " " in text or not _HOST.fullmatch(host):
            raise FieldError(f"{label} must be a web address, like https://www.example.com.")
        return text if re.match(r"https?://", text, re.IGNORECASE) else f"https://{text}"
    if kind in ("int", "money", "percent"):
        value = _whole_number(text, label, money=kind == "money")
        if value < 0:
            raise FieldError(f"{label} can't be negative.")
        if kind == "percent" and value > 100:
            raise FieldError(f"{label} must be between 0 and 100.")
        if value > MAX_AMOUNT:
            raise FieldError(f"{label} is too large.")
        return value
    if kind == "date":
        return parse_date(text, label)
    if kind == "choice":
        for choice in spec.choices:
            if text.lower() in (choice.lower(), spec.choice_label(choice).lower()):
                return choice
        options = ", ".join(spec.choice_label(c) for c in spec.choices)
        raise FieldError(f"{label} must be one of: {options}.")
    if spec.is_reference:
        if text.isdecimal() and len(text) < 12 and spec.kind != "account":
            return int(text)
        return text
    raise TypeError(f"unknown field kind {kind!r}")


def stored_text(value: Any) -> str | None:
    """A value as the history tables store it (ISO dates, numbers as digits)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (date, datetime)):
        return value.isoformat()[:10] if not isinstance(value, datetime) else value.isoformat()
    return str(value)


__all__ = [
    "ACCOUNTS",
    "ACCOUNT_TYPES",
    "ACTIVITIES",
    "ACTIVITY_STATUSES",
    "BY_TABLE",
    "CONTACTS",
    "EDITABLE_LEAD_STATUSES",
    "INDUSTRIES",
    "KIND_LABELS",
    "LEADS",
    "LEAD_SOURCES",
    "LOSS_REASONS",
    "LOST",
    "NOTES",
    "OBJECTS",
    "OPEN_STAGES",
    "OPPORTUNITIES",
    "PRIORITIES",
    "STAGE_NAMES",
    "STAGE_PROBABILITY",
    "WON",
    "Field",
    "FieldError",
    "ObjectType",
    "parse",
    "parse_date",
    "stored_text",
]
