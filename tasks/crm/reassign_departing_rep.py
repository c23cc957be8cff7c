"""crm.reassign_departing_rep — a sales manager hands every open deal of a rep who leaves to
themselves or to a named teammate of the rep.

The user manages the named rep directly. The rep's open opportunities (2 to 15 of them, so one
page of the list view) must end up owned by the new owner the goal names: the user ("to me")
on about half of the instances, else another direct report of the user, named in full. The
rep's closed deals keep their owner, as the history of who won or lost them. The list view's
owner and stage filters with a bulk owner change (and its confirmation page) do it in one go;
one by one works as well, since only the state is graded. The wrong-record probe hands over
the rep's closed deals too.
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

from ._formats import possessive
from ._people import crm_people
from .base import CrmTemplate
from .ui import fill_fields, filter_list

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_MIN_DEALS, _MAX_DEALS = 2, 15
_PHRASINGS = (
    "{rep} is leaving the company on Friday. Please reassign all of {reps} open "
    "opportunities to me; the closed ones can stay as they are.",
    "I'm taking over the pipeline of {rep}, who is moving on. Make me the owner of every "
    "open opportunity {rep} owns (leave the won and lost deals alone).",
    "{rep} hands in the keys this week. Could you transfer each of {reps} deals that are "
    "still open over to me? Closed deals keep their owner.",
)
# The same request when a teammate of the rep takes the deals over.
_TO_TEAMMATE = (
    "{rep} is leaving the company on Friday. Please reassign all of {reps} open "
    "opportunities to {owner}; the closed ones can stay as they are.",
    "{owner} is taking over the pipeline of {rep}, who is moving on. Make {owner} the owner "
    "of every open opportunity {rep} owns (leave the won and lost deals alone).",
    "{rep} hands in the keys this week. Could you transfer each of {reps} deals that are "
    "still open over to {owner}? Closed deals keep their owner.",
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
        # People are picked in the owner menus by name: only unique names are drawn.
        people = crm_people(world)
        names = [p[1] for p in people]
        reps = [r for r in reps if names.count(r[1]) == 1]
        rep_id, rep, manager_id, manager, email, _, closed = rng.choice(reps)
        # Teammates: the user's other direct reports.
        reports = {
            r[0]
            for r in world.execute(
                "SELECT id FROM people_employee WHERE manager_id = ? ORDER BY id", (manager_id,)
            )
        }
        teammates = [
            (p[0], p[1])
            for p in people
            if p[0] in reports and p[0] != rep_id and names.count(p[1]) == 1
        ]
        to_me = not teammates or rng.random() < 0.5
        owner_id, owner = (manager_id, manager) if to_me else rng.choice(teammates)
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
            "to_me": to_me,
            "owner_id": owner_id,
            "owner": owner,
            "deal_ids": [d[0] for d in deals],
            "deals": [d[1] for d in deals],
            "stage_filter": "Any open stage",
            # The near miss: hand over the rep's closed deals along with the open ones.
            "decoy": {"stage_filter": "Any"} if closed else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        rep = params["rep"]
        phrasings = _PHRASINGS if params["to_me"] else _TO_TEAMMATE
        return rng.choice(phrasings).format(rep=rep, reps=possessive(rep), owner=params["owner"])

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        actions.click(actions.find("link", "Opportunities", exact=True))
        filter_list(actions, {"Owner": params["rep"], "Stage": params["stage_filter"]})
        actions.check(actions.find("checkbox", "Select all rows on this page", exact=True))
        fill_fields(actions, {"New owner": params["owner"]})
        actions.click(actions.find("button", "Change owner of selected…", exact=True))
        actions.click(actions.find("button", "Confirm change", exact=True))
        whose = "yours" if params["to_me"] else possessive(params["owner"])
        actions.send_msg_to_user(f"{possessive(params['rep'])} open opportunities are {whose} now.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        moved = [
            expect.updated(
                "crm_opportunity",
                deal_id,
                name=f"{deal} now owned by {params['owner']}",
                owner_id=params["owner_id"],
            )
            for deal_id, deal in zip(params["deal_ids"], params["deals"], strict=True)
        ]
        return expect.grade(ctx, *moved, expect.nothing_else())
