"""chat.create_team_channel — create a private channel for a whole team, with a topic.

The goal names the channel, the team and the topic; the agent has to find out who is on the
team (a profile shows a person's team, and a team head's profile lists their direct reports),
then create the channel as private with exactly those people and the topic. Deactivated
teammates cannot be added, so "everyone on the team" means its active members; the creator
is always a member too. The membership is the task's point: a channel without the team (or
with anyone else) earns nothing, whatever its name and topic. The wrong-record probe fills the
channel with another team of the same department.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import ci, one_of_ids
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate
from .ui import pick_person

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_SUFFIXES = ("offsite", "planning", "crew", "huddle", "q4-goals")
_TOPICS = (
    "Offsite logistics and agenda",
    "Weekly priorities and blockers",
    "Planning for next quarter",
    "Wins, shout-outs and team rituals",
    "Hiring plan and onboarding buddies",
)
_PHRASINGS = (
    "Create a private channel called #{name} for everyone on the {team} team, and set its "
    'topic to "{topic}".',
    "Please set up #{name} as a private channel with the whole {team} team in it. "
    'Topic: "{topic}".',
    "I need a private #{name} channel for the {team} team (all of them). "
    'Give it the topic "{topic}".',
)
_MIN_TEAM, _MAX_TEAM = 4, 8


def _slug(team: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", team.casefold()).strip("-")


@register
class CreateTeamChannel(ChatTemplate):
    id = "chat.create_team_channel"
    difficulty = 4
    difficulty_reason = (
        "work out a team's members from profiles, then create a private channel with all of "
        "them and a topic in one form"
    )
    tags = ("navigation", "form", "multi-step")
    max_steps = 40

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = world.execute(
            "SELECT id, email, display_name, title, team_id FROM people_employee"
            " WHERE is_active ORDER BY id"
        ).fetchall()
        teams = world.execute("SELECT id, name, department FROM people_team ORDER BY id").fetchall()
        roster = {t[0]: [p for p in people if p[4] == t[0]] for t in teams}
        eligible = [t for t in teams if _MIN_TEAM <= len(roster[t[0]]) <= _MAX_TEAM]
        team_id, team, department = rng.choice(eligible)
        insiders = roster[team_id]
        outsiders = [p for p in people if p[4] != team_id]
        user = rng.choice(insiders if rng.random() < 0.5 else outsiders)
        taken = {name for (name,) in world.execute("SELECT name FROM chat_channel ORDER BY id")}
        name = next(
            n
            for n in (f"{_slug(team)}-{s}" for s in rng.sample(_SUFFIXES, len(_SUFFIXES)))
            if n not in taken
        )

        def picks(members: list[tuple]) -> list[list[str]]:
            """[name, title] of everyone to tick in the picker (the creator is not listed)."""
            return [[p[2], p[3]] for p in members if p[0] != user[0]]

        # The near miss: another team of the same department (else any other team).
        others = [t for t in eligible if t[0] != team_id]
        same = [t for t in others if t[2] == department] or others
        decoy = None
        if same:
            other = rng.choice(same)
            decoy = {"team": other[1], "members": picks(roster[other[0]])}
        return {
            "user_id": user[0],
            "user": user[1],
            "user_name": user[2],
            "team_id": team_id,
            "team": team,
            "name": name,
            "topic": rng.choice(_TOPICS),
            "member_ids": sorted({p[0] for p in insiders} | {user[0]}),
            "members": picks(insiders),
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        actions.click(actions.find("link", "Create a channel", exact=True))
        actions.fill(actions.find("textbox", "Name", exact=True), params["name"])
        actions.fill(actions.find("textbox", "Topic (optional)", exact=True), params["topic"])
        actions.check(actions.find("checkbox", "Make private"))
        for name, title in params["members"]:
            if not pick_person(actions, "Add people (optional)", name, title):
                raise LookupError(f"the people picker doesn't offer {name} ({title})")
        actions.click(actions.find("button", "Create channel", exact=True))
        actions.send_msg_to_user(
            f"Created the private channel #{params['name']} for the {params['team']} team."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        # The channel is the way to the task's point, its members: an empty channel, however
        # well named, earns nothing.
        channel = expect.inserted(
            "chat_channel",
            core=False,
            name=f"#{params['name']}: a private channel with the topic, made by the user",
            kind="channel",
            is_private=True,
            topic=ci(params["topic"]),
            created_by_id=params["user_id"],
            archived_at=None,
            columns={"name": params["name"]},
        )
        return expect.grade(
            ctx,
            channel,
            expect.inserted(
                "chat_membership",
                count=len(params["member_ids"]),
                name=f"members: the {params['team']} team and the creator",
                channel_id=channel.pk,
                employee_id=one_of_ids(params["member_ids"]),
            ),
            expect.nothing_else(),
        )
