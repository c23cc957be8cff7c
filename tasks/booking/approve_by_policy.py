"""booking.approve_by_policy — as a manager, decide every stay request waiting for you by a
spending limit: approve those under it, reject the others with a comment (test split).

The user approves two or more requests still waiting, none past its check-in, with different
totals; the limit falls between two of them so that some are approved and some rejected. The
verifier expects each request decided the way the rule says (approvals without a comment,
rejections with the comment word for word), each stay confirmed or rejected with it, and
nothing else. The seed-0 small world has 11 such splits over 7 managers; the comments vary
them further. The wrong-record probe approves every request.
"""

from __future__ import annotations

import math
import random
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from . import _world
from ._form_texts import rejection
from .base import BookingTemplate
from .ui import decide, open_approvals, waiting_requests

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# Test split: phrased unlike any training goal.
_PHRASINGS = (
    "Work through every stay request sitting in my approvals queue. My sign-off limit is "
    "${limit}: okay each one whose total is below that, and decline each one at or above it "
    "with this note: “{comment}”",
    "Clear my approvals queue by our spending rule — anything costing less than ${limit} in "
    "total gets approved; everything else is declined, noting “{comment}”",
    "Handle the travel requests awaiting me. Approve those with a total under ${limit}; the "
    "rest should be declined with the remark “{comment}”",
)


def _limit(low: int, high: int) -> int:
    """A round dollar limit `L` with low < L*100 <= high (cents), as a manager would set it."""
    for step in (500, 100, 50, 10, 5, 1):
        limit = (low // 100 // step + 1) * step
        if low < limit * 100 <= high:
            return limit
    return math.ceil((low + 1) / 100)


@register
class ApproveByPolicy(BookingTemplate):
    id = "booking.approve_by_policy"
    difficulty = 4
    difficulty_reason = (
        "read every waiting request's total on the Approvals page and approve or reject each "
        "by a spending limit, writing the comment on every rejection"
    )
    split = "test"
    tags = ("navigation", "form", "multi-step")
    max_steps = 30

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = _world.people(world)
        queues: dict[int, list[_world.Request]] = defaultdict(list)
        for request in _world.pending_requests(world):
            queues[request.approver_id].append(request)
        splits = []
        for approver, queue in sorted(queues.items()):
            totals = sorted(r.trip.total_cents for r in queue)
            if (
                len(queue) < 2
                or not people[approver].active
                or len(set(totals)) != len(totals)
                or any(r.trip.check_in < today for r in queue)
            ):
                continue
            splits += [(approver, totals[k], totals[k + 1]) for k in range(len(totals) - 1)]
        approver, low, high = rng.choice(splits)
        limit = _limit(low, high)
        queue = sorted(queues[approver], key=lambda r: r.id)
        return {
            "user": people[approver].email,
            "limit": limit,
            "comment": rejection(rng),
            "requests": [
                {
                    "approval_id": r.id,
                    "reservation_id": r.trip.id,
                    "total_cents": r.trip.total_cents,
                    "approve": r.trip.total_cents < limit * 100,
                }
                for r in queue
            ],
            "decoy": {"limit": max(r.trip.total_cents for r in queue) // 100 + 1},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(
            limit=f"{params['limit']:,}", comment=params["comment"]
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        open_approvals(actions)
        for _ in range(len(params["requests"]) + 1):
            waiting = waiting_requests(actions)
            if not waiting:
                break
            card = waiting[0]
            if card.total_cents < params["limit"] * 100:
                decide(actions, card.who, approve=True)
            else:
                decide(actions, card.who, approve=False, comment=params["comment"])
        actions.send_msg_to_user("Every waiting request is decided by the limit.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        decisions = [
            check
            for r in params["requests"]
            for check in checks.decided(
                r["approval_id"],
                r["reservation_id"],
                r["approve"],
                None if r["approve"] else params["comment"],
            )
        ]
        return expect.grade(
            ctx,
            checks.every(decisions, "every waiting request decided by the limit"),
            expect.nothing_else(),
        )


__all__ = ["ApproveByPolicy"]
