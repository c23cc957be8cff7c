"""crm.close_stale_deals — close as lost every one of your open deals whose close date passed.

The user owns 2 to 6 open opportunities with a close date before today (Sep 17, 2025); each
must become Closed Lost with the loss reason the goal names. Closing as lost also sets the
probability to 0, so that change is expected too; nothing else may change — in particular not
the user's deals that are still due, nor anyone else's overdue deals (the "Open and past close
date" list view shows everyone's unless filtered to the user). The wrong-record probe also
closes the user's next deal that is not yet due.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.apps.crm.fields import LOST
from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._calendar import today
from ._stages import stage_changes
from .base import CrmTemplate
from .ui import fill_fields, open_record

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_MIN_DEALS, _MAX_DEALS = 2, 6
# Timing is the usual reason for a deal that slipped; the others are named now and then.
_REASONS = ("Timing", "Timing", "Timing", "No decision", "No budget")
_PHRASINGS = (
    "Time to clean up my pipeline: every open opportunity of mine whose close date has "
    "already passed should be marked Closed Lost, with loss reason {reason}.",
    "Several of my deals are past their close date and are not going to happen. Close each "
    "of my overdue open opportunities as lost (loss reason: {reason}).",
    "Please go through my open opportunities and set any whose close date is in the past to "
    "Closed Lost, giving {reason} as the loss reason. Leave the ones still due alone.",
)


@register
class CloseStaleDeals(CrmTemplate):
    id = "crm.close_stale_deals"
    difficulty = 5
    difficulty_reason = (
        "find one's own open deals past their close date (filters or the past-due view "
        "narrowed to oneself), then close each as lost with a loss reason in its edit form"
    )
    tags = ("navigation", "search", "form", "multi-step")
    max_steps = 64

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT e.id, e.email, o.id, o.name, o.probability, o.close_date < ? AS overdue
            FROM crm_opportunity o JOIN people_employee e ON e.id = o.owner_id
            WHERE e.is_active AND o.stage NOT IN ('Closed Won', 'Closed Lost')
            ORDER BY e.id, o.close_date, o.id
            """,
            (today(world),),
        ).fetchall()
        deals: dict[tuple[int, str], list[tuple]] = {}
        for user_id, email, *deal in rows:
            deals.setdefault((user_id, email), []).append(tuple(deal))
        users = sorted(
            u for u, d in deals.items() if _MIN_DEALS <= sum(x[3] for x in d) <= _MAX_DEALS
        )
        user_id, email = rng.choice(users)
        overdue = [d for d in deals[(user_id, email)] if d[3]]
        due = [d for d in deals[(user_id, email)] if not d[3]]
        names = [d[1] for d in overdue]
        return {
            "user": email,
            "user_id": user_id,
            "reason": rng.choice(_REASONS),
            "deal_ids": [d[0] for d in overdue],
            "deals": names,
            "old_probabilities": [d[2] for d in overdue],
            # The near miss: also close the user's next deal, which is not due yet.
            "decoy": {"deals": [*names, due[0][1]]} if due else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        for deal in params["deals"]:
            open_record(actions, "Opportunities", deal)
            actions.click(actions.find("link", "Edit", exact=True))
            fill_fields(actions, {"Stage": LOST, "Loss reason": params["reason"]})
            actions.click(actions.find("button", "Save", exact=True))
        actions.send_msg_to_user(
            f"Closed {len(params['deals'])} overdue opportunities as lost ({params['reason']})."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        closed = [
            expect.updated(
                "crm_opportunity",
                deal_id,
                name=f"{deal} closed lost",
                stage=LOST,
                loss_reason=params["reason"],
                **stage_changes(LOST, probability),
            )
            for deal_id, deal, probability in zip(
                params["deal_ids"], params["deals"], params["old_probabilities"], strict=True
            )
        ]
        return expect.grade(ctx, *closed, expect.nothing_else())
