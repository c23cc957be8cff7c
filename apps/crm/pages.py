"""The CRM's main pages in a world, as the rep with the most open deals sees them: home, every
list view, a record of each kind and its edit form, the pipeline, lead conversion (as the
lead's owner, where reps work no leads of their own), duplicates and their merge, import and
reports."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from officegym.apps.registry import MainPage
from officegym.seed_data.connect import connect, make_engine

_SINGULAR = {
    "opportunities": "opportunity",
    "accounts": "account",
    "contacts": "contact",
    "leads": "lead",
    "activities": "activity",
}
_CONVERTIBLE = "('New', 'Working', 'Qualified')"
_OPEN = "stage NOT IN ('Closed Won', 'Closed Lost')"


def main_pages(world: Path) -> list[MainPage]:
    conn = connect(world, read_only=True)
    try:
        (owner, email) = conn.execute(
            f"SELECT o.owner_id, e.email FROM crm_opportunity o JOIN people_employee e "
            f"ON e.id = o.owner_id WHERE o.{_OPEN} AND e.is_active GROUP BY o.owner_id "
            f"ORDER BY NOT EXISTS (SELECT 1 FROM crm_lead l WHERE l.owner_id = o.owner_id "
            f"AND l.status IN {_CONVERTIBLE}), count(*) DESC, o.owner_id LIMIT 1"
        ).fetchone()
        (deal, account, contact) = conn.execute(
            f"SELECT id, account_id, primary_contact_id FROM crm_opportunity WHERE owner_id = ? "
            f"AND {_OPEN} ORDER BY amount DESC, id LIMIT 1",
            (owner,),
        ).fetchone()
        if contact is None:
            (contact,) = conn.execute(
                "SELECT id FROM crm_contact WHERE account_id = ? ORDER BY id LIMIT 1", (account,)
            ).fetchone()
        # The rep's own lead, or else (where reps work no leads) one its owner converts.
        (lead, lead_user) = conn.execute(
            f"SELECT l.id, e.email FROM crm_lead l JOIN people_employee e ON e.id = l.owner_id "
            f"WHERE l.status IN {_CONVERTIBLE} AND e.is_active ORDER BY l.owner_id != ?, l.id "
            "LIMIT 1",
            (owner,),
        ).fetchone()
        (activity,) = conn.execute(
            "SELECT id FROM crm_activity WHERE owner_id = ? ORDER BY id LIMIT 1", (owner,)
        ).fetchone()
        (account_name,) = conn.execute(
            "SELECT name FROM crm_account WHERE id = ?", (account,)
        ).fetchone()
    finally:
        conn.close()
    paths = {"home": "/crm/"}
    for key in ("accounts", "contacts", "leads", "opportunities", "activities"):
        paths[f"{key} list"] = f"/crm/{key}"
    records = {
        "opportunities": deal,
        "accounts": account,
        "contacts": contact,
        "leads": lead,
        "activities": activity,
    }
    for key, record in records.items():
        paths[f"{_SINGULAR[key]} record"] = f"/crm/{key}/{record}"
    paths["opportunity edit"] = f"/crm/opportunities/{deal}/edit"
    paths["new opportunity"] = "/crm/opportunities/new"
    paths["pipeline"] = "/crm/pipeline"
    paths["convert lead"] = f"/crm/leads/{lead}/convert"
    paths["search"] = "/crm/search?" + urlencode({"q": account_name.split()[0]})
    paths["duplicates"] = "/crm/duplicates"
    group = _duplicate_group(world)
    if group:
        paths["merge"] = "/crm/contacts/merge?" + urlencode([("ids", i) for i in group])
    paths["import"] = "/crm/import"
    paths["reports"] = "/crm/reports"
    users = {"convert lead": lead_user}
    return [MainPage("crm", name, path, users.get(name, email)) for name, path in paths.items()]


def _duplicate_group(world: Path) -> list[int]:
    """The ids of the first group on the duplicates page of contacts."""
    from officegym.apps.crm.duplicates import duplicate_groups

    engine = make_engine(world, create=False)
    try:
        with Session(engine) as db:
            groups = duplicate_groups(db, "contacts")
            return list(groups[0].ids) if groups else []
    finally:
        engine.dispose()
