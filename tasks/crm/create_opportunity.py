"""crm.create_opportunity — open a new deal for one of your accounts, as a colleague specifies.

The goal gives the account (one the user owns), the deal's name (new in the world), amount,
close date (30 to 180 days ahead, written as people write dates) and stage; now and then also
a probability. The new opportunity must hold exactly those, be owned by the user, and take
the stage's default probability unless the goal named one. The wrong-record probe files the
same deal under another of the user's accounts.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from officegym.apps.crm.fields import STAGE_PROBABILITY
from officegym.tasks import expect
from officegym.tasks.match import ci
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._calendar import today
from ._duplicates import duplicated_accounts
from ._stages import OPEN
from .base import CrmTemplate
from .ui import fill_fields

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

PRODUCTS = (
    "API access tier", "Analytics add-on", "Data Connectors", "Enterprise plan",
    "Onboarding package", "Platform", "Premium Support", "Professional Services",
    "SSO & Audit add-on", "Team plan",
)  # fmt: skip
KINDS = ("new business", "expansion", "renewal")
_PHRASINGS = (
    "Please create a new opportunity for {account} called “{name}”: amount {amount}, close "
    "date {close}, stage {stage}{extra}.",
    "{account} wants to talk about more business. Add an opportunity “{name}” for them at "
    "{stage}, worth {amount}, expected to close on {close}{extra}.",
    "New deal to log under {account}: “{name}”, {amount}, closing {close}, currently in "
    "{stage}{extra}. Keep me as the owner.",
)


def _spoken(day: date, rng: random.Random) -> str:
    return rng.choice((day.isoformat(), f"{day:%B} {day.day}, {day.year}"))


@register
class CreateOpportunity(CrmTemplate):
    id = "crm.create_opportunity"
    difficulty = 3
    difficulty_reason = (
        "fill the new-opportunity form: name, account by name, stage, amount and a date "
        "given in words"
    )
    tags = ("navigation", "form")
    max_steps = 24

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        skip = duplicated_accounts(world)
        accounts = [
            a
            for a in world.execute(
                """
                SELECT a.id, a.name, e.id, e.email
                FROM crm_account a JOIN people_employee e ON e.id = a.owner_id
                WHERE e.is_active
                ORDER BY a.id
                """
            ).fetchall()
            if a[0] not in skip
        ]
        account_id, account, user_id, email = rng.choice(accounts)
        taken = {r[0] for r in world.execute("SELECT name FROM crm_opportunity ORDER BY id")}
        names = [
            f"{account} — {product} {kind}"
            for product in PRODUCTS
            for kind in KINDS
            if f"{account} — {product} {kind}" not in taken
        ]
        stage = rng.choice(OPEN)
        probability = STAGE_PROBABILITY[stage]
        named_probability = rng.random() < 0.25
        if named_probability:
            probability = rng.choice([p for p in range(5, 100, 5) if p != probability])
        close = date.fromisoformat(today(world)) + timedelta(days=rng.randint(30, 180))
        others = sorted(a[1] for a in accounts if a[2] == user_id and a[0] != account_id)
        return {
            "user": email,
            "user_id": user_id,
            "account_id": account_id,
            "account": account,
            "name": rng.choice(names),
            "amount": rng.randrange(10_000, 300_001, 500),
            "close_date": close.isoformat(),
            "stage": stage,
            "probability": probability,
            "named_probability": named_probability,
            # The near miss: the same deal filed under another of the user's accounts.
            "decoy": {"account": rng.choice(others)} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        extra = f", probability {params['probability']}%" if params["named_probability"] else ""
        return rng.choice(_PHRASINGS).format(
            account=params["account"],
            name=params["name"],
            amount=f"${params['amount']:,}",
            close=_spoken(date.fromisoformat(params["close_date"]), rng),
            stage=params["stage"],
            extra=extra,
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        actions.click(actions.find("link", "Opportunities", exact=True))
        actions.click(actions.find("link", "New opportunity", exact=True))
        values = {
            "Opportunity name": params["name"],
            "Account name": params["account"],
            "Stage": params["stage"],
            "Amount": str(params["amount"]),
            "Close date": params["close_date"],
        }
        if params["named_probability"]:
            values["Probability (%)"] = str(params["probability"])
        fill_fields(actions, values)
        actions.click(actions.find("button", "Save", exact=True))
        actions.send_msg_to_user(f"Created {params['name']}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.inserted(
                "crm_opportunity",
                name=f"{params['name']} created",
                columns={"name": ci(params["name"])},
                account_id=params["account_id"],
                owner_id=params["user_id"],
                stage=params["stage"],
                amount=params["amount"],
                close_date=params["close_date"],
                probability=params["probability"],
            ),
            expect.nothing_else(),
        )
