"""booking.approve_request — as a manager, approve one report's pending stay request, named
by the traveller and the city, with a short comment when one is asked for.

The approving twin of `booking.reject_request`. The user is the approver of a request still
waiting whose traveller and city name it among everything waiting for them, and of at least
one more the app could approve too; the app can approve it (the stay has not begun and its
place is still free). The verifier expects that
request approved (with the comment word for word when one was asked for, else with none), its
stay confirmed with it, and nothing else. The wrong-record probe approves another request
waiting for the same manager.
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

from . import _checks as checks
from . import _world
from ._formats import possessive
from ._trip_picks import approvable, approval_note, named_by_city
from .base import BookingTemplate
from .ui import decide, open_approvals, waiting_requests

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Approve {whose} request for the {city} trip.",
    "{traveller} is waiting on me for their stay in {city}. Please approve it.",
    "Go ahead and sign off on {whose} {city} stay request.",
)
_WITH_COMMENT = (
    "Approve {whose} request for the {city} trip, with the comment “{comment}”",
    "{traveller} is waiting on me for their stay in {city}. Approve it and add the comment "
    "“{comment}”",
    "Sign off on {whose} {city} stay request. Comment: “{comment}”",
)


@register
class ApproveRequest(BookingTemplate):
    id = "booking.approve_request"
    difficulty = 2
    difficulty_reason = (
        "find one request on the Approvals page by its traveller and city, and approve it "
        "(with a comment when asked)"
    )
    tags = ("navigation", "form")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = _world.people(world)
        ok = approvable(world)
        waiting = _world.pending_requests(world)

        def others(request: _world.Request) -> list[_world.Request]:
            return [
                r
                for r in waiting
                if r.approver_id == request.approver_id and r.id != request.id and r.id in ok
            ]

        request = rng.choice([r for r in named_by_city(world) if others(r)])
        trip = request.trip
        decoy = rng.choice(others(request)).trip
        return {
            "user": people[request.approver_id].email,
            "approval_id": request.id,
            "reservation_id": trip.id,
            "traveller": people[trip.guest_id].name,
            "city": trip.city,
            "comment": approval_note(rng) if rng.random() < 0.5 else None,
            "decoy": {"traveller": people[decoy.guest_id].name, "city": decoy.city},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_WITH_COMMENT if params["comment"] else _PHRASINGS).format(
            whose=possessive(params["traveller"]),
            traveller=params["traveller"],
            city=params["city"],
            comment=params["comment"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_approvals(actions)
        card = next(
            c
            for c in waiting_requests(actions)
            if c.traveller == params["traveller"]
            and c.facts.get("Stay", "").endswith(f", {params['city']}")
        )
        decide(actions, card.who, approve=True, comment=params["comment"] or "")
        actions.send_msg_to_user(f"Approved {possessive(params['traveller'])} request.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            *checks.decided(
                params["approval_id"], params["reservation_id"], True, params["comment"]
            ),
            expect.nothing_else(),
        )


__all__ = ["ApproveRequest"]
