"""booking.reject_request — as a manager, reject one report's pending stay request with a
comment.

The user is the approver of a request still waiting; the request is named by its traveller,
place and dates. The verifier expects that request rejected with the comment word for word,
its stay rejected with it, and nothing else (no other request decided). The wrong-record probe
rejects another request waiting for the same manager.
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
from ._form_texts import rejection
from ._formats import possessive, short_day
from .base import BookingTemplate
from .ui import decide, open_approvals, request_who

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Reject {whose} request for {title} ({first}–{last}) with the comment “{comment}”",
    "Please turn down the stay {traveller} asked me to approve at {title}, {first} to {last}. "
    "Comment: “{comment}”",
    "I'm not approving {whose} stay at {title} from {first} to {last}. Reject it and tell "
    "them: “{comment}”",
)


@register
class RejectRequest(BookingTemplate):
    id = "booking.reject_request"
    difficulty = 2
    difficulty_reason = "find one request on the Approvals page and reject it with a comment"
    tags = ("navigation", "form")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = _world.people(world)
        named = _world.unique_names(world)
        requests = [
            r
            for r in _world.pending_requests(world)
            if people[r.approver_id].active and people[r.trip.guest_id].name in named
        ]
        request = rng.choice(requests)
        trip = request.trip
        others = [
            r for r in requests if r.approver_id == request.approver_id and r.id != request.id
        ]
        decoy = rng.choice(others).trip if others else None
        return {
            "user": people[request.approver_id].email,
            "approval_id": request.id,
            "reservation_id": trip.id,
            "traveller": people[trip.guest_id].name,
            "title": trip.title,
            "check_in": trip.check_in.isoformat(),
            "check_out": trip.check_out.isoformat(),
            "comment": rejection(rng),
            "decoy": {
                "traveller": people[decoy.guest_id].name,
                "title": decoy.title,
                "check_in": decoy.check_in.isoformat(),
                "check_out": decoy.check_out.isoformat(),
            }
            if decoy
            else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            whose=possessive(params["traveller"]),
            traveller=params["traveller"],
            title=params["title"],
            first=short_day(first),
            last=short_day(last),
            comment=params["comment"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        open_approvals(actions)
        who = request_who(params["traveller"], params["title"], first, last)
        decide(actions, who, approve=False, comment=params["comment"])
        actions.send_msg_to_user(f"Rejected {possessive(params['traveller'])} request.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            *checks.decided(
                params["approval_id"], params["reservation_id"], False, params["comment"]
            ),
            expect.nothing_else(),
        )


__all__ = ["RejectRequest"]
