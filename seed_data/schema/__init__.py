"""The world's tables: SQLAlchemy 2.0 typed models on one `Base`, one module per domain."""

from .base import SCHEMA_VERSION, Base
from .booking import Approval, Availability, Property, Reservation, Resource, TravelPolicy
from .chat import Attachment, Channel, Membership, Mention, Message, Pin, Reaction, SavedItem
from .crm import Account, Activity, Contact, Lead, Note, Opportunity
from .meta import WorldMeta, WorldOddity, WorldTextRef
from .people import Employee, Office, Team
from .sheets import Cell, Share, Sheet, Workbook

__all__ = [
    "SCHEMA_VERSION",
    "Base",
    "Account",
    "Activity",
    "Approval",
    "Attachment",
    "Availability",
    "Cell",
    "Channel",
    "Contact",
    "Employee",
    "Lead",
    "Membership",
    "Mention",
    "Message",
    "Note",
    "Office",
    "Opportunity",
    "Pin",
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
