"""crm.post_deal_summary — post a one-line summary of a deal, read from the CRM, in a named
chat channel (test split).

The user owns the deal or manages its owner and is a member of the channel: #sales, #deals,
their team's channel, or the account's or deal's own room when they are in it. The
posted line (one line, as asked) must state the deal's stage, amount and close date the way an answer states a
value (`match.states`): each once, in any common format ($41,500, 41,500, $41.5k; ISO,
"Sep 30, 2025", 9/30/2025...), with no hedge and no second candidate (another stage, amount
or date). The all-candidates probe appends every stage and the amounts and close dates of
the deal and of its near misses. The wrong-record probe summarises another open deal of the
same account, or of the same owner, with another amount.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date
from typing import Any

from officegym.apps.crm.fields import OPEN_STAGES, STAGE_NAMES
from officegym.tasks import expect
from officegym.tasks.chat.ui import open_channel, post
from officegym.tasks.match import fact, states
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._formats import crm_day, money
from ._matchers import one_line
from ._people import editors
from .base import CrmTemplate
from .ui import open_record, record_field

# Deal names are quoted: they are content, not phrasing.
_PHRASINGS = (
    'Give #{channel} a one-line status on "{deal}" pulled from the CRM: the stage it sits in, '
    "its dollar value and the expected close date.",
    'Could you drop a single-sentence recap of "{deal}" into #{channel}? Mention its stage, '
    "amount and close date as the CRM records them.",
    'Folks in #{channel} keep asking where "{deal}" stands. Post one line there with its '
    "current stage, deal size and target close date per the CRM.",
)
_SHARED = ("sales", "deals")


def _channels(world: sqlite3.Connection, user_id: int, account: str, deal: str) -> list[str]:
    """The channels fit for the summary that `user_id` is a member of: #sales, #deals, their
    team's channel, and rooms whose topic names the deal's account or the deal."""
    rows = world.execute(
        """
        SELECT c.name, c.topic FROM chat_channel c
        JOIN chat_membership m ON m.channel_id = c.id AND m.employee_id = ?
        WHERE c.kind = 'channel' AND c.archived_at IS NULL
        ORDER BY c.name
        """,
        (user_id,),
    ).fetchall()
    fit = []
    for name, topic in rows:
        room = name.startswith(("acct-", "deal-")) and (account in topic or deal in topic)
        team = name.startswith("team-")
        if name in _SHARED or team or room:
            fit.append(name)
    return fit


@register
class PostDealSummary(CrmTemplate):
    id = "crm.post_deal_summary"
    apps = ("chat", "crm")
    difficulty = 4
    difficulty_reason = (
        "two apps: read three fields off the deal's record in the CRM, then write them into "
        "one message in the right chat channel"
    )
    split = "test"
    tags = ("search", "multi-step", "cross-app")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        marks = ", ".join("?" for _ in OPEN_STAGES)
        rows = world.execute(
            f"""
            SELECT o.id, o.name, o.stage, o.amount, o.close_date, o.owner_id, o.account_id,
                   a.name
            FROM crm_opportunity o
            JOIN crm_account a ON a.id = o.account_id
            JOIN people_employee e ON e.id = o.owner_id
            WHERE o.stage IN ({marks}) AND o.amount IS NOT NULL AND e.is_active
              AND (SELECT count(*) FROM crm_opportunity p WHERE p.name = o.name) = 1
            ORDER BY o.id
            """,
            OPEN_STAGES,
        ).fetchall()
        deal_id, deal, stage, amount, close, owner_id, account_id, account = rng.choice(rows)
        people = [
            (pid, email, fit)
            for pid, email, _ in editors(world, owner_id)[:2]
            if (fit := _channels(world, pid, account, deal))
        ]
        user_id, user, fit = rng.choice(people)
        rooms = [c for c in fit if c.startswith(("acct-", "deal-"))]
        channel = rng.choice(rooms if rooms and rng.random() < 0.5 else fit)
        (channel_id,) = world.execute(
            "SELECT id FROM chat_channel WHERE name = ?", (channel,)
        ).fetchone()
        near = [r for r in rows if r[6] == account_id and r[3] != amount] or [
            r for r in rows if r[5] == owner_id and r[3] != amount
        ]
        # What a summary listing every option would state: each stage, and the amount and
        # close date of this deal and of up to two near misses.
        shown = [(amount, close), *((r[3], r[4]) for r in rng.sample(near, min(2, len(near))))]
        candidates = [
            *STAGE_NAMES,
            *dict.fromkeys(money(a) for a, _ in shown),
            *dict.fromkeys(crm_day(date.fromisoformat(str(c)[:10])) for _, c in shown),
        ]
        return {
            "user": user,
            "user_id": user_id,
            "deal_id": deal_id,
            "deal": deal,
            "stage": stage,
            "amount": amount,
            "close_date": str(close)[:10],
            "channel": channel,
            "channel_id": channel_id,
            "candidates": candidates,
            "decoy": {"deal": rng.choice(near)[1]} if near else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        open_record(actions, "Opportunities", params["deal"])
        stage = record_field(actions, "Stage")
        amount = record_field(actions, "Amount")
        close = record_field(actions, "Close date")
        actions.goto("/chat/")
        open_channel(actions, params["channel"])
        channel = params["channel"]
        post(
            actions, f"{params['deal']}: {stage}, {amount}, closing {close}.", f"Message #{channel}"
        )
        actions.send_msg_to_user(f"Posted the {params['deal']} summary in #{channel}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        stage = params["stage"]
        body = one_line(
            states(
                fact(stage, "text", distractors=[s for s in STAGE_NAMES if s != stage]),
                fact(params["amount"], "money"),
                fact(date.fromisoformat(params["close_date"]), "date"),
                today=ctx.world_today(),
            )
        )
        return expect.grade(
            ctx,
            expect.inserted(
                "chat_message",
                name=f"summary of {params['deal']} posted in #{params['channel']}",
                channel_id=params["channel_id"],
                author_id=params["user_id"],
                thread_parent_id=None,
                body=body,
            ),
            expect.nothing_else(),
        )


__all__ = ["PostDealSummary"]
