"""CRM: a Salesforce-like app of accounts, contacts, leads and opportunities, mounted at `/crm`."""

from officegym.apps.registry import AppEntry, Child

ICON = (
    '<svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" '
    'stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">'
    '<path d="M3 3v18h18"/><path d="M7 15l4-4 3 3 5-6"/><circle cx="19" cy="8" r="1.5"/></svg>'
)

APP = AppEntry(
    slug="crm",
    name="CRM",
    description="Accounts, contacts, leads and deals",
    icon_svg=ICON,
    endpoint="crm.index",
    blueprint="officegym.apps.crm.blueprint:bp",
    service="officegym.apps.crm.service",
    pages="officegym.apps.crm.pages:main_pages",
    stamps={
        "crm_account": frozenset({"updated_at"}),
        "crm_contact": frozenset({"updated_at"}),
        "crm_lead": frozenset({"updated_at"}),
        "crm_opportunity": frozenset({"updated_at"}),
    },
    # A record's history rows are written with each change of it.
    children={
        "crm_account_history": Child("account_id", "crm_account", "derived"),
        "crm_contact_history": Child("contact_id", "crm_contact", "derived"),
        "crm_lead_history": Child("lead_id", "crm_lead", "derived"),
        "crm_opportunity_history": Child("opportunity_id", "crm_opportunity", "derived"),
    },
    blanks={
        "crm_account": {
            "account_type": "Prospect",
            "industry": None,
            "website": None,
            "phone": None,
            "billing_street": None,
            "billing_city": None,
            "billing_country": None,
            "employee_count": None,
            "annual_revenue": None,
            "parent_account_id": None,
        },
        "crm_contact": {"title": None, "email": None, "phone": None, "mailing_city": None},
        "crm_opportunity": {
            "primary_contact_id": None,
            "lead_source": None,
            "next_step": None,
            "loss_reason": None,
        },
        "crm_lead": {"title": None, "email": None, "phone": None, "source": None, "status": "New"},
        "crm_activity": {
            "description": "",
            "priority": "Normal",
            "due_date": None,
            "contact_id": None,
            "opportunity_id": None,
        },
        "crm_note": {"contact_id": None, "opportunity_id": None},
    },
)

__all__ = ["APP"]
