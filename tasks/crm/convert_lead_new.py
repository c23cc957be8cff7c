"""crm.convert_lead_new — convert a lead from a company the CRM has never seen: a new account
named after the company, a contact for the person, and an opportunity only when the request
names one.

The product copies the lead's phone onto the new account, its title, email and phone onto the
contact and its source onto the opportunity; the verifier names those columns, and every other
column a user could fill in must stay blank.

One instance in six names a lead that was already converted: its page says so and offers no
Convert button, so the right move is `report_infeasible`.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any

from officegym.apps.crm.duplicates import company_key
from officegym.tasks import expect
from officegym.tasks.match import ci
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._conversion import (
    PRODUCTS,
    ContactIndex,
    account_index,
    conversion,
    converted_leads,
    lead_params,
    unconverted_leads,
)
from ._people import owner_or_manager
from .base import CrmTemplate
from .ui import convert_form, open_record

_PHRASINGS = (
    "{lead} of {company} has agreed to a first call. Turn that lead into a brand-new account "
    "plus contact. {opp}",
    "Time to move {lead} ({company}) off our leads list: {company} gets its own account record, "
    "{lead} becomes its contact. {opp}",
    "We've never had {company} in the CRM before, and {lead} is now qualified. Run the lead "
    "conversion so that {company} turns into an account with {lead} on it. {opp}",
)
_WITH_DEAL = (
    'Include a deal titled "{opportunity}".',
    'The deal that comes out of it should be called "{opportunity}".',
)
_WITHOUT_DEAL = (
    "Skip the deal this time.",
    "Leave out any deal: account and contact only.",
)


@register
class ConvertLeadNew(CrmTemplate):
    id = "crm.convert_lead_new"
    split = "test"
    difficulty = 3
    impossible_instances = True
    difficulty_reason = (
        "find the lead, run the three-part convert form, and create or skip the opportunity "
        "as asked"
    )
    tags = ("navigation", "search", "form", "multi-step")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        accounts, contacts = account_index(world), ContactIndex.of(world)
        fresh = [
            lead
            for lead in unconverted_leads(world)
            if company_key(lead["company"]) not in accounts and not contacts.clash(lead, None)
        ]
        feasible = rng.random() >= 1 / 6
        lead = rng.choice(fresh if feasible else converted_leads(world))
        user = owner_or_manager(world, lead["owner_id"], feasible and rng.random() < 0.25)
        opportunity = None
        if rng.random() < 0.5:
            opportunity = f"{lead['company']}: {rng.choice(PRODUCTS)}"
        others = [
            o
            for o in fresh
            if o["owner_id"] == lead["owner_id"] and o["id"] != lead["id"] and feasible
        ]
        decoy = None
        if others:
            other = rng.choice(others)
            decoy = {
                "lead": f"{other['first_name']} {other['last_name']}",
                "company": other["company"],
            }
        return {
            **lead_params(lead),
            "opportunity": opportunity,
            "user": user,
            "feasible": feasible,
            # The near miss: another open lead of the same rep.
            "decoy": decoy,
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
        if not params["feasible"]:
            actions.report_infeasible(
                f"{params['lead']}'s lead was already converted; there is nothing left to convert."
            )
            return
        actions.click(actions.find("link", "Convert", exact=True))
        convert_form(actions, params["opportunity"])
        actions.send_msg_to_user(
            f"Converted {params['lead']}: new account {params['company']} with the contact"
            + (f" and the opportunity {params['opportunity']}." if params["opportunity"] else ".")
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        account = expect.inserted(
            "crm_account",
            name=f"account {params['company']} created",
            columns={"name": ci(params["company"])},
            # The product fills the new account's phone in from the lead.
            phone=params["phone"],
        )
        return expect.grade(ctx, account, *conversion(params, account.pk), expect.nothing_else())
