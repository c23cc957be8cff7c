"""crm.reassign_departing_rep — a sales manager takes over every open deal of a rep who leaves.

The user manages the named rep directly. The rep's open opportunities (2 to 15 of them, so one
page of the list view) must end up owned by the user; the rep's closed deals keep their owner,
as the history of who won or lost them. The list view's owner and stage filters with a bulk
owner change (and its confirmation page) do it in one go; one by one works as well, since only
the state is graded. The wrong-record probe hands over the rep's closed deals too.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._lists import choose_person, possessive
from .base import CrmTemplate, fill_fields

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

_MIN_DEALS, _MAX_DEALS = 2, 15
_PHRASINGS = (
    "{rep} is leaving the company on Friday. Please reassign all of {reps} open "
    "opportunities to me; the closed ones can stay as they are.",
    "I'm taking over the pipeline of {rep}, who is moving on. Make me the owner of every "
    "open opportunity {rep} owns (leave the won and lost deals alone).",
    "{rep} hands in the keys this week. Could you transfer each of {reps} deals that are "
    "still open over to me? Closed deals keep their owner.",
)


@register
class ReassignDepartingRep(CrmTemplate):
    id = "crm.reassign_departing_rep"
    difficulty = 4
    difficulty_reason = (
        "filter the opportunities list by another owner and open stages, select them all, "
        "bulk-change the owner to oneself and confirm; closed deals must be left out"
    )
    tags = ("navigation", "form", "multi-step")
    max_steps = 30

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        reps = world.execute(
            """
            SELECT e.id, e.display_name, m.id, m.display_name, m.email,
                   SUM(o.stage NOT IN ('Closed Won', 'Closed Lost')) AS open_deals,
                   SUM(o.stage IN ('Closed Won', 'Closed Lost')) AS closed_deals
            FROM people_employee e
            JOIN people_employee m ON m.id = e.manager_id
            JOIN crm_opportunity o ON o.owner_id = e.id
            WHERE e.is_active AND m.is_active AND m.role IN ('manager', 'admin')
            GROUP BY e.id
            HAVING open_deals BETWEEN ? AND ?
            ORDER BY e.id
            """,
            (_MIN_DEALS, _MAX_DEALS),
        ).fetchall()
        rep_id, rep, manager_id, manager, email, _, closed = rng.choice(reps)
        deals = world.execute(
            "SELECT id, name FROM crm_opportunity WHERE owner_id = ? "
            "AND stage NOT IN ('Closed Won', 'Closed Lost') ORDER BY id",
            (rep_id,),
        ).fetchall()
        return {
            "user": email,
            "user_id": manager_id,
            "manager": manager,
            "rep_id": rep_id,
            "rep": rep,
            "deal_ids": [d[0] for d in deals],
            "deals": [d[1] for d in deals],
            "stage_filter": "Any open stage",
            # The near miss: hand over the rep's closed deals along with the open ones.
            "decoy": {"stage_filter": "Any"} if closed else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        rep = params["rep"]
        return rng.choice(_PHRASINGS).format(rep=rep, reps=possessive(rep))

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        actions.click(actions.find("link", "Opportunities", exact=True))
        choose_person(actions, "Owner", params["rep"])
        fill_fields(actions, {"Stage": params["stage_filter"]})
        actions.click(actions.find("button", "Apply filters", exact=True))
        actions.check(actions.find("checkbox", "Select all rows on this page", exact=True))
        choose_person(actions, "New owner", params["manager"])
        actions.click(actions.find("button", "Change owner of selected…", exact=True))
        actions.click(actions.find("button", "Confirm change", exact=True))
        actions.send_msg_to_user(f"{params['rep']}'s open opportunities are yours now.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        moved = [
            expect.updated(
                "crm_opportunity",
                deal_id,
                name=f"{deal} now owned by {params['manager']}",
                owner_id=params["user_id"],
            )
            for deal_id, deal in zip(params["deal_ids"], params["deals"], strict=True)
        ]
        return expect.grade(ctx, *moved, expect.nothing_else())
