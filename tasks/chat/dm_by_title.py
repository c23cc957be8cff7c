"""chat.dm_by_title — direct-message the person who holds a job title.

The goal names a title, not a person: the agent finds who holds it (People search covers
titles) and sends them a DM, opening the conversation if it does not exist yet. Only titles
that exactly one active person holds, and that are not part of another active person's
title, are asked for. One instance in six asks for a title nobody holds: the right move is
to say so with `report_infeasible`.

The text is asked for word for word, so the message must be that text and nothing more
(quotation marks around it aside).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import squash, verbatim
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._conversations import dm_expectations, existing_conversation
from .base import ChatTemplate
from .ui import find_person, post

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_TEXTS = (
    "Do you have 15 minutes this week to go over the vendor renewals?",
    "Could you send me the latest version of the team budget when you get a chance?",
    "Quick heads-up: I added you to the Q4 planning doc, comments welcome.",
    "Are you the right person to approve a new tool purchase for my team?",
    "Thanks for the help with the onboarding session last week, it made a big difference.",
    "Can we move our Thursday check-in to Friday morning?",
)
# Plausible titles this company might have but, where a world holds none of them, nobody does.
_MISSING_TITLES = (
    "Head of Procurement",
    "Chief Legal Officer",
    "General Counsel",
    "Head of Facilities",
    "Chief Information Security Officer",
    "Director of Communications",
    "Head of Partnerships",
    "Office Manager",
)
_PHRASINGS = (
    'DM our {title} and tell them: "{text}"',
    'Send a direct message to the {title} saying "{text}"',
    'Whoever our {title} is, message them privately: "{text}"',
)


@register
class DmByTitle(ChatTemplate):
    id = "chat.dm_by_title"
    difficulty = 3
    impossible_instances = True
    difficulty_reason = (
        "the recipient is named only by job title: search People by title, open their "
        "profile, start the DM and send the text; a missing title must be reported"
    )
    tags = ("search", "form")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = world.execute(
            "SELECT id, email, display_name, title, is_active FROM people_employee ORDER BY id"
        ).fetchall()
        active = [p for p in people if p[4]]
        titles = [squash(p[3]).casefold() for p in active]

        def sole_holder(title: str) -> bool:
            folded = squash(title).casefold()
            return sum(folded in other for other in titles) == 1

        targets = [p for p in active if sole_holder(p[3])]
        held = [squash(p[3]).casefold() for p in people]
        missing = [
            t
            for t in _MISSING_TITLES
            if not any(t.casefold() in h or h in t.casefold() for h in held)
        ]
        # Now and then the user already has a DM with the title's holder, to post into.
        pairs = world.execute(
            """
            SELECT a.employee_id, b.employee_id
            FROM chat_channel c
            JOIN chat_membership a ON a.channel_id = c.id
            JOIN chat_membership b ON b.channel_id = c.id AND b.employee_id != a.employee_id
            WHERE c.kind = 'dm' AND c.archived_at IS NULL
            ORDER BY c.id, a.employee_id
            """
        ).fetchall()
        by_id = {p[0]: p for p in active}
        target_ids = {p[0] for p in targets}
        known = [(u, t) for u, t in pairs if u in by_id and t in target_ids]
        chosen = None
        if known and rng.random() < 1 / 4:
            user_id, chosen = rng.choice(known)
            user_id, email, name, _, _ = by_id[user_id]
        else:
            user_id, email, name, _, _ = rng.choice(active)
        text = rng.choice(_TEXTS)
        feasible = not missing or rng.random() >= 1 / 6
        base = {"user_id": user_id, "user": email, "user_name": name, "text": text}
        if not feasible:
            return {
                **base,
                "title": rng.choice(missing),
                "target_id": None,
                "target_name": None,
                "dm_channel_id": None,
                "feasible": False,
                "decoy": None,
            }
        others = [p for p in targets if p[0] != user_id]
        target = by_id[chosen] if chosen is not None else rng.choice(others)
        # The wrong-record probe messages the holder of another one-person title.
        rest = [p for p in others if p[0] != target[0]]
        decoy = rng.choice(rest) if rest else None
        return {
            **base,
            "title": target[3],
            "target_id": target[0],
            "target_name": target[2],
            "dm_channel_id": existing_conversation(world, [user_id, target[0]]),
            "feasible": True,
            "decoy": {"title": decoy[3]} if decoy else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        title = squash(params["title"])
        # Result cards read "<name> <title>".
        card = find_person(actions, title, lambda name: name.endswith(f" {title}"))
        if card is None:
            actions.report_infeasible(f"Nobody in the directory has the title {title}.")
            return
        actions.click(card)
        actions.click(actions.find("button", "Message", exact=True))
        post(actions, params["text"])
        actions.send_msg_to_user("Sent.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            *dm_expectations(
                params["dm_channel_id"],
                params["user_id"],
                [params["target_id"]],
                verbatim(params["text"]),
                f"DM to {params['target_name']} ({params['title']})",
            ),
            expect.nothing_else(),
        )
