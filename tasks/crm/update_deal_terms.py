"""crm.update_deal_terms — set a named open deal's amount and close date in its edit form.

The user owns the deal. One instance in six asks for a close date before the day the deal was
created: the app refuses that with a message on the Close date field and saves nothing, so the
right move, after trying, is `report_infeasible`. Only deals whose edit form saves back
unchanged are drawn (account and primary contact found by their names, text fields already
tidy), so the form's other fields cannot change by themselves.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._calendar import world_today
from ._formats import money, spoken_date
from .base import CrmTemplate
from .ui import edit_record, open_record, page_says

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

REFUSAL = "Close date can't be before the opportunity was created"
_PHRASINGS = (
    "Update the {deal} opportunity: the amount is now {amount_text} and it should close on "
    "{close_text}.",
    "Please change {deal} in the CRM so the amount reads {amount_text} and the close date "
    "is {close_text}.",
    "The customer revised the numbers on {deal}. Set the amount to {amount_text} and move "
    "the close date to {close_text}, please.",
    "Can you edit {deal}? New terms: {amount_text}, expected to close {close_text}.",
)


def _day(value: str) -> date:
    return datetime.fromisoformat(str(value)).date()


@register
class UpdateDealTerms(CrmTemplate):
    id = "crm.update_deal_terms"
    difficulty = 2
    impossible_instances = True
    difficulty_reason = (
        "find one deal by name and change two fields in its edit form, a money amount and a "
        "date written out in words; sometimes the app refuses the date"
    )
    tags = ("search", "form")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT o.id, o.name, o.amount, o.close_date, o.created_at, o.owner_id,
                   o.account_id, e.email, o.next_step
            FROM crm_opportunity o
            JOIN people_employee e ON e.id = o.owner_id
            JOIN crm_account a ON a.id = o.account_id
            LEFT JOIN crm_contact c ON c.id = o.primary_contact_id
            WHERE o.stage NOT IN ('Closed Won', 'Closed Lost') AND e.is_active
              AND o.name IN (SELECT name FROM crm_opportunity GROUP BY name
                             HAVING count(*) = 1)
              AND lower(a.name) IN (SELECT lower(name) AS n FROM crm_account GROUP BY n
                                    HAVING count(*) = 1)
              AND (c.id IS NULL OR lower(c.first_name || ' ' || c.last_name) IN (
                  SELECT lower(first_name || ' ' || last_name) AS full FROM crm_contact
                  GROUP BY full HAVING count(*) = 1))
            ORDER BY o.id
            """
        ).fetchall()
        # The edit form sends every field back: only draw deals whose text survives that.
        rows = [r for r in rows if squash(r[1]) == r[1] and squash(r[8] or "") == (r[8] or "")]
        today = world_today(world)
        feasible = rng.random() >= 1 / 6
        deal_id, deal, amount, close, created, owner_id, account_id, email, _ = rng.choice(rows)
        created_day = _day(created)
        if feasible:
            while True:
                new_close = today + timedelta(days=rng.randint(7, 200))
                if new_close.isoformat() != str(close):
                    break
        else:
            # Comfortably before the creation day in any time zone.
            new_close = created_day - timedelta(days=rng.randint(5, 45))
        while True:
            new_amount = max(5_000, round(amount * rng.uniform(0.6, 1.5) / 500) * 500)
            if new_amount != amount:
                break
        decoy = None
        if feasible:
            same_owner = [r for r in rows if r[5] == owner_id and r[0] != deal_id]
            same_account = [r for r in same_owner if r[6] == account_id]
            pool = same_account or same_owner
            if pool:
                decoy = {"deal": rng.choice(pool)[1]}
        return {
            "deal_id": deal_id,
            "deal": deal,
            "user": email,
            "amount": new_amount,
            "amount_text": money(new_amount),
            "close_date": new_close.isoformat(),
            "close_text": spoken_date(new_close),
            "created": created_day.isoformat(),
            "feasible": feasible,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Opportunities", params["deal"])
        edit_record(actions, {"Amount": str(params["amount"]), "Close date": params["close_date"]})
        if not params["feasible"]:
            if not page_says(actions, REFUSAL):
                raise LookupError("the edit form did not refuse the close date")
            actions.report_infeasible(
                f"The CRM won't take {params['close_text']} as the close date of "
                f"{params['deal']}: it is before the deal was created, so nothing was changed."
            )
            return
        actions.send_msg_to_user(
            f"{params['deal']} now shows {params['amount_text']}, closing {params['close_text']}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.updated(
                "crm_opportunity",
                params["deal_id"],
                name=f"{params['deal']} has the new amount and close date",
                amount=params["amount"],
                close_date=params["close_date"],
            ),
            expect.nothing_else(),
        )
