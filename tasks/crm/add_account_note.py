"""crm.add_account_note — add a note with a given title and body to a named account.

Anyone may add notes to any record; the user here is the account's owner. The note is made
with the account page's "New note" composer. The wrong-record probe puts it on a look-alike
account: the planted duplicate of the account when it has one, else another account whose name
starts with the same word. The goal quotes the title and the body, so both must be exactly
those (case and spacing aside): a body with more said than asked is not the note. (The gate's
collateral edit is also a note on an account, but on another one, so it stays an unclaimed
insert.)
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import verbatim
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import CrmTemplate
from .ui import log_on_record, open_record

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

NOTES = (
    ("Procurement call", "Procurement at {account} wants a three-year term with annual billing."),
    ("Renewal risk", "{account} is evaluating a competitor; loop in customer success."),
    ("Budget update", "{account} confirmed next year's budget is approved."),
    ("Org change", "{account} has a new VP of Operations starting next month."),
    ("Expansion interest", "{account} asked about adding the analytics add-on."),
    ("Billing contact", "Invoices for {account} now go to their finance shared inbox."),
)
_PHRASINGS = (
    "Add a note to the {account} account titled “{title}” that says: “{body}”",
    "Please put a note on {account} in the CRM. Title: “{title}”. Body: “{body}”",
    "Can you record this on the {account} account as a note called “{title}”? “{body}”",
)


@register
class AddAccountNote(CrmTemplate):
    id = "crm.add_account_note"
    difficulty = 1
    difficulty_reason = "one account named in full, the note composer on its page"
    tags = ("search", "form")
    max_steps = 22

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT a.id, a.name, e.id, e.email
            FROM crm_account a
            JOIN people_employee e ON e.id = a.owner_id
            WHERE e.is_active
              AND (SELECT count(*) FROM crm_account b WHERE lower(b.name) = lower(a.name)) = 1
              AND a.id NOT IN (SELECT row_id FROM world_oddity
                               WHERE kind = 'duplicate_account' AND row_table = 'crm_account')
            ORDER BY a.id
            """
        ).fetchall()
        account_id, account, user_id, email = rng.choice(rows)
        title, body = rng.choice(NOTES)
        body = body.format(account=account)
        duplicate = world.execute(
            """
            SELECT a.name FROM world_oddity w JOIN crm_account a ON a.id = w.row_id
            WHERE w.kind = 'duplicate_account' AND w.row_table = 'crm_account'
              AND w.other_id = ? ORDER BY w.id
            """,
            (account_id,),
        ).fetchone()
        first = account.split()[0].casefold()
        alike = sorted(
            r[1] for r in rows if r[0] != account_id and r[1].split()[0].casefold() == first
        )
        decoy = duplicate[0] if duplicate else (rng.choice(alike) if alike else None)
        return {
            "account_id": account_id,
            "account": account,
            "title": title,
            "body": body,
            "user_id": user_id,
            "user": email,
            "decoy": {"account": decoy} if decoy else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Accounts", params["account"])
        log_on_record(
            actions, "New note", {"Title": params["title"], "Body": params["body"]}, "Save note"
        )
        actions.send_msg_to_user(f"Added the note “{params['title']}” to {params['account']}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.inserted(
                "crm_note",
                name=f"a note “{params['title']}” on {params['account']}",
                account_id=params["account_id"],
                title=verbatim(params["title"]),
                body=verbatim(params["body"]),
                author_id=params["user_id"],
            ),
            expect.nothing_else(),
        )
