"""crm.convert_lead_existing_account — convert a lead whose company the CRM already has as an
account: attach the new contact (and the opportunity, when asked for one) to that account
instead of creating a second one.

The convert page offers the existing account ("1 existing account looks like ..."); an agent
that keeps the default "Create a new account" is stopped by the duplicate check and may force
a duplicate through, which the verifier rejects (no new account may appear).

The world holds few such leads: unconverted leads are generated for new companies, and only
the ones whose company name reads like an existing account's (Cole LLC / Cole Ltd) qualify.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.crm.duplicates import company_key
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._conversion import (
    PRODUCTS,
    ContactIndex,
    account_index,
    conversion,
    lead_params,
    unconverted_leads,
)
from ._people import owner_or_manager
from .base import CrmTemplate
from .ui import convert_form, open_record

_PHRASINGS = (
    "Convert the lead {lead} ({company}). {company} is really {account}, which we already have "
    "as an account, so attach the contact to {account} instead of creating a new account. {opp}",
    "{lead} from {company} is ready to convert. We already have them in the CRM as {account}: "
    "use that existing account, don't make a duplicate. {opp}",
    "Please convert {lead}'s lead into a contact under our existing account {account} (the lead "
    "lists the company as {company}); no new account. {opp}",
)
_WITH_DEAL = (
    'Create an opportunity named "{opportunity}" with it.',
    'Open an opportunity called "{opportunity}" as part of the conversion.',
)
_WITHOUT_DEAL = (
    "Don't create an opportunity yet.",
    "No opportunity for now, just the contact.",
)


@register
class ConvertLeadExistingAccount(CrmTemplate):
    id = "crm.convert_lead_existing_account"
    difficulty = 4
    difficulty_reason = (
        "the convert form defaults to a new account: the agent must pick the existing one the "
        "duplicate check offers, and set or clear the opportunity"
    )
    tags = ("navigation", "search", "form", "multi-step")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        accounts, contacts = account_index(world), ContactIndex.of(world)
        candidates = []
        for lead in unconverted_leads(world):
            matches = accounts.get(company_key(lead["company"]), [])
            if len(matches) == 1 and not contacts.clash(lead, matches[0][0]):
                candidates.append((lead, *matches[0]))
        if not candidates:
            raise LookupError("no open lead's company matches exactly one existing account")
        lead, account_id, account = rng.choice(candidates)
        user = owner_or_manager(world, lead["owner_id"], rng.random() < 0.25)
        opportunity = None
        if rng.random() < 2 / 3:
            opportunity = f"{account}: {rng.choice(PRODUCTS)}"
        return {
            **lead_params(lead),
            "account_id": account_id,
            "account": account,
            "opportunity": opportunity,
            "attach": True,
            "user": user,
            # The near miss: convert into a new account, forcing the duplicate through.
            "decoy": {"attach": False},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        phrasing = rng.choice(_PHRASINGS)
        if params["opportunity"]:
            opp = rng.choice(_WITH_DEAL).format(opportunity=params["opportunity"])
        else:
            opp = rng.choice(_WITHOUT_DEAL)
        return phrasing.format(**{**params, "opp": opp})

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Leads", params["lead"])
        actions.click(actions.find("link", "Convert", exact=True))
        if params["attach"]:
            actions.click(actions.find("radio", f"Use existing account {params['account']} —"))
        convert_form(actions, params["opportunity"])
        if not params["attach"]:
            # The duplicate warning shows the form again: confirm and convert as before.
            actions.check(actions.find("checkbox", "Create new records anyway"))
            convert_form(actions, params["opportunity"])
        actions.send_msg_to_user(
            f"Converted {params['lead']} into a contact of {params['account']}"
            + (f" with the opportunity {params['opportunity']}." if params["opportunity"] else ".")
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            *conversion(params, params["account_id"]),
            expect.unchanged("crm_account", name="no second account"),
            expect.nothing_else(),
        )
