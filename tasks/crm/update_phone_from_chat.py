"""crm.update_phone_from_chat — copy a contact's new number, posted in chat, into the CRM.

The world plants conflicts on purpose (`world_oddity` rows of kind 'phone_conflict'): a
colleague posted a customer contact's new number in a chat channel while the CRM contact
still holds the old one, and other people may have posted other numbers for the same contact.
Only conflicts whose post is the newest one giving the contact a number other than the CRM's
are drawn (an earlier "new number", since superseded, is not). The goal names who posted it;
the agent must find that post (search results cut long messages short), then edit the
contact's Phone to that number, in any formatting (`same_phone`: the digits, and any
extension, of the posted number and nothing else).

The user can both read the post (a member of its channel) and edit the contact (its owner or
one of the owner's managers); in this world every conflict has such a person, sometimes only
the poster themself ("you posted..."). The wrong-record probe follows another poster's
different number for the same contact, or else writes the right number on another contact of
the same account the user may edit.

The small default world plants 6 phone conflicts (each the newest number its poster gave for
the contact, one conflict per contact), all of which can be drawn, with 17 (conflict, user)
pairs in all: that, not the phrasing, bounds the distinct instances.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import Any, ClassVar

from officegym.tasks import expect
from officegym.tasks.chat._phone_conflicts import PHONE, conflict_case, conflict_oddities
from officegym.tasks.chat.ui import posted_number
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._matchers import same_phone
from ._people import editors
from .base import CrmTemplate
from .ui import edit_record, open_record

_PHRASINGS = (
    "{contact} at {account} gave {poster_obj} a new phone number, posted in chat since. "
    "Please put it on their CRM contact record.",
    "The CRM phone for {contact} ({account}) is out of date: {poster_subj} posted the new one "
    "in chat. Update the contact with that number.",
    "{poster_subj_cap} posted a new number for {contact} from {account} in chat, but the CRM "
    "still lists the old one. Can you fix the contact's phone?",
)

# Contacts whose edit form saves back unchanged: one contact of that name, an account found by
# its unique name, and tidy text fields.
_CONTACT = """
    SELECT c.owner_id, c.account_id, c.first_name, c.last_name, c.title, c.email,
           c.mailing_city,
           (SELECT count(*) FROM crm_contact d WHERE lower(d.first_name || ' ' || d.last_name)
            = lower(c.first_name || ' ' || c.last_name)),
           (SELECT count(*) FROM crm_account b JOIN crm_account a ON a.id = c.account_id
            WHERE lower(b.name) = lower(a.name))
    FROM crm_contact c WHERE c.id = ?
"""


def _editable(world: sqlite3.Connection, contact_id: int) -> tuple[int, int] | None:
    """(owner id, account id) of a contact the edit form saves back unchanged, else None."""
    row = world.execute(_CONTACT, (contact_id,)).fetchone()
    if row is None:
        return None
    owner_id, account_id, *texts, same_name, same_account = row
    tidy = all(t is None or squash(t) == t for t in texts)
    return (owner_id, account_id) if tidy and same_name == 1 and same_account == 1 else None


def _newest(world: sqlite3.Connection, case: Mapping[str, Any]) -> int | None:
    """The newest visible channel post giving the contact a number other than the CRM's (so
    "the new number" is the one the goal points at, not one later superseded)."""
    rows = world.execute(
        """
        SELECT m.id, m.body FROM chat_message m JOIN chat_channel c ON c.id = m.channel_id
        WHERE instr(m.body, ?) > 0 AND m.deleted_at IS NULL
          AND c.kind = 'channel' AND NOT c.is_private
        ORDER BY m.created_at DESC, m.id DESC
        """,
        (case["contact"],),
    ).fetchall()
    for message_id, body in rows:
        numbers = [m.group() for m in PHONE.finditer(body)]
        if numbers and any(n != case["crm_phone"] for n in numbers):
            return message_id
    return None


@register
class UpdatePhoneFromChat(CrmTemplate):
    id = "crm.update_phone_from_chat"
    apps = ("chat", "crm")
    difficulty = 5
    difficulty_reason = (
        "two apps: find the named colleague's post among several numbers for the contact "
        "in chat (opening it, as results are cut short), then edit the CRM contact's phone"
    )
    tags = ("search", "form", "multi-step", "cross-app")
    max_steps = 24
    cardinality: ClassVar[tuple[int, str]] = (
        17,
        "the small world plants 6 phone conflicts, all drawable, with 17 (conflict, user) pairs",
    )

    def start_url(self, params: Mapping[str, Any]) -> str:
        return "/chat/"

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        # One conflict first (each as likely), then one of the people who may act on it.
        cases: dict[int, list[tuple]] = {}
        for message_id, contact_id, detail in conflict_oddities(world):
            case = conflict_case(world, message_id, contact_id, detail)
            found = _editable(world, contact_id)
            if case is None or found is None or _newest(world, case) != message_id:
                continue
            members = {
                m
                for (m,) in world.execute(
                    "SELECT employee_id FROM chat_membership WHERE channel_id = ? ORDER BY id",
                    (case["channel_id"],),
                )
            }
            users = [e for e in editors(world, found[0]) if e[0] in members]
            if users:
                cases[message_id] = [(contact_id, case, found, users)]
        message_id = rng.choice(sorted(cases))
        [(contact_id, case, found, users)] = cases[message_id]
        user_id, user, user_name = rng.choice(users)
        return {
            "user": user,
            "user_id": user_id,
            "contact_id": contact_id,
            "contact": case["contact"],
            "record": case["contact"],
            "account": case["account"],
            "poster": case["poster"],
            "poster_is_user": case["poster"] == user_name,
            "channel": case["channel"],
            "message_id": message_id,
            "phone": case["phone"],
            "crm_phone": case["crm_phone"],
            "decoy": self._decoy(world, rng, case, contact_id, found[1], user_id),
        }

    @staticmethod
    def _decoy(
        world: sqlite3.Connection,
        rng: random.Random,
        case: Mapping[str, Any],
        contact_id: int,
        account_id: int,
        user_id: int,
    ) -> dict[str, str] | None:
        """Another poster's different number for the contact, or else another contact of the
        account that the user may edit (not one of a planted duplicate pair)."""
        posters = sorted(
            p
            for p, number in case["latest"].items()
            if number not in (case["phone"], case["crm_phone"])
        )
        if posters:
            return {"poster": rng.choice(posters)}
        rows = world.execute(
            """
            SELECT c.id, c.first_name || ' ' || c.last_name, c.owner_id FROM crm_contact c
            WHERE c.account_id = ? AND c.id != ?
              AND NOT EXISTS (SELECT 1 FROM world_oddity o WHERE o.kind = 'duplicate_contact'
                              AND (o.row_id = c.id OR o.other_id = c.id))
            ORDER BY c.id
            """,
            (account_id, contact_id),
        ).fetchall()
        near = [
            name
            for other_id, name, owner_id in rows
            if _editable(world, other_id) and user_id in {e[0] for e in editors(world, owner_id)}
        ]
        return {"record": rng.choice(near)} if near else None

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        mine = params["poster_is_user"]
        return rng.choice(_PHRASINGS).format(
            contact=params["contact"],
            account=params["account"],
            poster_obj="you" if mine else params["poster"],
            poster_subj="you" if mine else params["poster"],
            poster_subj_cap="You" if mine else params["poster"],
        )

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        contact, poster = params["contact"], params["poster"]
        number = posted_number(actions, contact, poster)
        actions.goto("/crm/")
        open_record(actions, "Contacts", params["record"])
        edit_record(actions, {"Phone": number})
        actions.send_msg_to_user(f"Updated {params['record']}'s phone to {number}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.updated(
                "crm_contact",
                params["contact_id"],
                name=f"{params['contact']}'s phone set to the number from chat",
                phone=same_phone(params["phone"]),
            ),
            expect.nothing_else(),
        )


__all__ = ["UpdatePhoneFromChat"]
