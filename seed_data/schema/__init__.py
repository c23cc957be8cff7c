"""The world's tables: SQLAlchemy 2.0 typed models on one `Base`, one module per domain."""

from .base import SCHEMA_VERSION, Base
from .booking import Approval, Availability, Property, Reservation, Resource, TravelPolicy
from .chat import Attachment, Channel, Membership, Mention, Message, Pin, Reaction, SavedItem
from .crm import (
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
from .meta import WorldMeta, WorldOddity, WorldTextRef
from .people import Employee, Office, Team
from .sheets import Cell, Chart, ColumnWidth, Comment, Edit, Pivot, Share, Sheet, Workbook

__all__ = [
    "SCHEMA_VERSION",
    "Base",
    "Account",
    "AccountHistory",
    "Activity",
    "Approval",
    "Attachment",
    "Availability",
    "Cell",
    "Channel",
    "Chart",
    "ColumnWidth",
    "Comment",
    "Contact",
    "ContactHistory",
    "Edit",
    "Employee",
    "Lead",
    "LeadHistory",
    "Membership",
    "Mention",
    "Message",
    "Note",
    "Office",
    "Opportunity",
    "OpportunityHistory",
    "Pin",
    "Pivot",
    "Property",
    "Reaction",
    "Reservation",
    "Resource",
    "SavedItem",
    "Share",
    "Sheet",
    "Team",
    "TravelPolicy",
    "Workbook",
    "WorldMeta",
    "WorldOddity",
    "WorldTextRef",
]
