"""chat.find_who_said — name the person who posted a quoted message in a channel.

The quote is a message whose text occurs once in the whole world, so the answer is one
person. About one instance in six quotes something nobody ever posted: the right move is
`report_infeasible`. The wrong-record probe asks about a near-identical message (same
sentence template, another author) in the same channel.
"""

from __future__ import annotations

import difflib
import random
import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._quotes import UNQUOTABLE, pick_others, said_times
from .base import ChatTemplate
from .ui import hits, phrase, search

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_MADE_UP = (
    "Does anyone still have the signed NDA for {account}? Legal is asking again.",
    "Can we push the {account} quarterly review to the week after next?",
    "The {account} renewal call got moved, I'll share the new invite shortly.",
    "Dropping the {account} slides into the team folder tonight, comments welcome.",
)
_PHRASINGS = (
    'Who said "{quote}" in #{channel}? I need their full name.',
    'Somebody posted "{quote}" in #{channel}. Who was it?',
    'Can you find out who wrote "{quote}" over in #{channel}? Just tell me the name.',
)


@register
class FindWhoSaid(ChatTemplate):
    id = "chat.find_who_said"
    difficulty = 2
    impossible_instances = True
    difficulty_reason = "one search for a quoted sentence, then read the author off the result"
    tags = ("search", "answer")
    max_steps = 12

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT m.id, m.body, c.id, c.name, a.display_name
            FROM chat_message m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee a ON a.id = m.author_id
            WHERE c.kind = 'channel' AND NOT c.is_private AND c.archived_at IS NULL
              AND m.deleted_at IS NULL AND m.thread_parent_id IS NULL
              AND length(m.body) BETWEEN 30 AND 140
            ORDER BY m.id
            """
        ).fetchall()
        quotable = [r for r in rows if not UNQUOTABLE.search(r[1])]
        order = rng.sample(quotable, len(quotable))
        message_id, quote, channel_id, channel, author = next(
            r for r in order if said_times(world, r[1]) == 1
        )
        feasible = rng.random() >= 1 / 6
        posters = [
            name
            for (name,) in world.execute(
                """
                SELECT DISTINCT a.display_name FROM chat_message m
                JOIN people_employee a ON a.id = m.author_id
                WHERE m.channel_id = ? AND m.deleted_at IS NULL AND m.thread_parent_id IS NULL
                ORDER BY a.display_name
                """,
                (channel_id,),
            )
        ]
        others = pick_others(rng, posters, [author], 4)
        decoy = None
        if feasible:
            near = self._near_miss(
                world, quote, [r for r in quotable if r[2] == channel_id], author
            )
            if near is not None:
                decoy = {"quote": near[0]}
                if near[1] not in others:
                    others[-1:] = [near[1]]
        else:
            quote = self._made_up(world, rng)
        user_id, user = rng.choice(
            world.execute(
                """
                SELECT e.id, e.email FROM chat_membership ms
                JOIN people_employee e ON e.id = ms.employee_id
                WHERE ms.channel_id = ? AND e.is_active AND e.display_name != ?
                ORDER BY e.id
                """,
                (channel_id, author),
            ).fetchall()
        )
        return {
            "user": user,
            "user_id": user_id,
            "channel": channel,
            "channel_id": channel_id,
            "quote": quote,
            "message_id": message_id if feasible else None,
            "author": author if feasible else None,
            "feasible": feasible,
            "candidates": ([author] if feasible else []) + others,
            "decoy": decoy,
        }

    @staticmethod
    def _near_miss(
        world: sqlite3.Connection, quote: str, rows: Sequence[tuple], author: str
    ) -> tuple[str, str] | None:
        """(text, author) of the channel's message most like `quote` by someone else, if close."""
        scored = sorted(
            (-difflib.SequenceMatcher(None, quote, r[1]).ratio(), r[1], r[4])
            for r in rows
            if r[4] != author
        )
        for score, body, name in scored:
            if -score < 0.7:
                return None
            if said_times(world, body) == 1:
                return body, name
        return None

    @staticmethod
    def _made_up(world: sqlite3.Connection, rng: random.Random) -> str:
        """A plausible sentence about a real account that no message says."""
        accounts = [name for (name,) in world.execute("SELECT name FROM crm_account ORDER BY id")]
        while True:
            quote = rng.choice(_MADE_UP).format(account=rng.choice(accounts))
            if said_times(world, quote) == 0:
                return quote

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        search(actions, f"{phrase(params['quote'])} in:#{params['channel']}")
        found = [h for h in hits(actions) if h.where == params["channel"]]
        if not found:
            actions.report_infeasible(f"Nobody posted that in #{params['channel']}.")
            return
        actions.send_msg_to_user(f"That was {found[0].author}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        others = [c for c in params["candidates"] if c != params["author"]]
        return expect.grade(
            ctx,
            expect.answer(params["author"], kind="name", distractors=others),
            expect.nothing_else(),
        )


__all__ = ["FindWhoSaid"]
