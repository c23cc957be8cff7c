"""chat.invite_member — add a person, named in full, to a channel the user is in.

One instance in six names a person whose account is deactivated: the app leaves them out of
the "Add people" picker and refuses to add them, so the right move is `report_infeasible`.
Half the feasible instances name someone who shares a first name with another person outside
the channel; the wrong-record probe adds that namesake instead.
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

from .base import ChatTemplate
from .ui import open_details, pick_person

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "Please add {person} to #{channel}.",
    "Can you invite {person} to the #{channel} channel?",
    "{person} should be in #{channel} — could you add them?",
    "Invite {person} into #{channel} for me, please.",
)


@register
class InviteMember(ChatTemplate):
    id = "chat.invite_member"
    difficulty = 2
    impossible_instances = True
    difficulty_reason = (
        "open a named channel's details and pick one person out of the company directory"
    )
    tags = ("navigation", "form")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        # Channels anyone could be added to (#general already holds everyone), with a member
        # who can do the adding.
        seats = world.execute(
            """
            SELECT c.id, c.name, e.id, e.email, e.display_name
            FROM chat_membership m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee e ON e.id = m.employee_id
            WHERE c.kind = 'channel' AND c.archived_at IS NULL AND c.name != 'general'
              AND e.is_active
            ORDER BY c.id, e.id
            """
        ).fetchall()
        people = world.execute(
            "SELECT id, display_name, first_name, title, is_active FROM people_employee ORDER BY id"
        ).fetchall()
        members: dict[int, set[int]] = {}
        for channel_id, employee_id in world.execute(
            "SELECT channel_id, employee_id FROM chat_membership ORDER BY id"
        ):
            members.setdefault(channel_id, set()).add(employee_id)

        def outsiders(channel_id: int, active: bool) -> list[tuple]:
            return [p for p in people if bool(p[4]) is active and p[0] not in members[channel_id]]

        blocked = [s for s in seats if outsiders(s[0], active=False)]
        feasible = not blocked or rng.random() >= 1 / 6
        channel_id, channel, user_id, email, name = rng.choice(seats if feasible else blocked)
        pool = outsiders(channel_id, active=feasible)

        def namesakes(person: tuple) -> list[tuple]:
            return [p for p in pool if p[2] == person[2] and p[0] != person[0]]

        # Half the feasible instances pick someone who shares a first name with another
        # person outside the channel, so a careless pick by first name goes wrong.
        confusable = [p for p in pool if namesakes(p)]
        if feasible and confusable and rng.random() < 0.5:
            pool = confusable
        person = rng.choice(pool)
        decoy = None
        if feasible and namesakes(person):
            other = rng.choice(namesakes(person))
            decoy = {"person": other[1], "person_title": other[3]}
        return {
            "channel_id": channel_id,
            "channel": channel,
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "person_id": person[0],
            "person": person[1],
            "person_title": person[3],
            "feasible": feasible,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        person = params["person"]
        open_details(actions, params["channel"])
        if not pick_person(actions, "People to add", person, params["person_title"]):
            actions.report_infeasible(
                f"{person} isn't in the people picker: their account is deactivated, "
                f"so they can't be added to #{params['channel']}."
            )
            return
        actions.click(actions.find("button", "Add to channel", exact=True))
        actions.send_msg_to_user(f"Added {person} to #{params['channel']}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.inserted(
                "chat_membership",
                name=f"{params['person']} added to #{params['channel']}",
                channel_id=params["channel_id"],
                employee_id=params["person_id"],
            ),
            expect.nothing_else(),
        )
