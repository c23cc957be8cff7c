"""chat.react_to_announcement — react with a named emoji to the message announcing something.

The message is named by what it announces, never by id or author: a won deal ("the
announcement that the Baker Manufacturing deal was won") or a new joiner ("the post welcoming
Amber Reid"). Only one announcement of that kind in the channel names that account or
person; the near miss is another announcement of the same kind in the same channel.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._channels import active_members, channel_messages
from ._subjects import account_mentions
from .base import ChatTemplate
from .ui import find_message, holding, message_menu, open_hit, search

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_WON = re.compile(r"^(?:Closed Won: \*|:tada: \*.*\* is signed|We got it! \*)")
_WELCOME = re.compile(r"^(?:Please welcome (?P<a>.+?) to the |Say hi to (?P<b>.+?), who joins )")
# Words that mark each kind of announcement in its text (what the oracle looks for).
_MARKS = {"won": ("closed won", "is signed", "we got it"), "welcome": ("welcome", "say hi to")}
_EMOJI = {
    "won": ("tada", "rocket", "clap", "raised_hands", "fire", "100", "moneybag", "muscle"),
    "welcome": ("wave", "tada", "heart", "raised_hands", "sparkles", "clap"),
}
_WHAT = {
    "won": "announcing that the {subject} deal was won",
    "welcome": "welcoming {subject}",
}
_PHRASINGS = (
    "React with :{emoji}: to the message in #{channel} {what}.",
    "In #{channel}, find the post {what} and add a :{emoji}: reaction to it.",
    "Could you put a :{emoji}: on the #{channel} message {what}?",
)


def _marked(kind: str, text: str) -> bool:
    folded = text.casefold()
    return any(mark in folded for mark in _MARKS[kind])


def announcements(world: sqlite3.Connection) -> list[tuple[int, int, str, int, str, str]]:
    """Announcements that are the only one of their kind in their channel to name their
    subject, in channels with at least two of them: (message id, channel id, channel,
    author id, kind, subject)."""
    mentions = account_mentions(world)
    people = {name for (name,) in world.execute("SELECT display_name FROM people_employee")}
    found: list[tuple[int, int, str, int, str, str]] = []
    bodies: dict[tuple[int, str], list[str]] = defaultdict(list)
    for message_id, channel_id, channel, author_id, _, body, parent in channel_messages(world):
        if parent is not None:
            continue
        if _WON.match(body):
            bodies[channel_id, "won"].append(body.casefold())
            found += [
                (message_id, channel_id, channel, author_id, "won", account)
                for account in sorted(mentions.get(message_id, ()))
                if account in body
            ]
        elif welcome := _WELCOME.match(body):
            bodies[channel_id, "welcome"].append(body.casefold())
            name = welcome.group("a") or welcome.group("b")
            if name in people:
                found.append((message_id, channel_id, channel, author_id, "welcome", name))
    unique = [a for a in found if sum(a[5].casefold() in b for b in bodies[a[1], a[4]]) == 1]
    # Keep channels where another such announcement makes a near miss.
    count = Counter((a[1], a[4]) for a in unique)
    return [a for a in unique if count[a[1], a[4]] > 1]


@register
class ReactToAnnouncement(ChatTemplate):
    id = "chat.react_to_announcement"
    difficulty = 2
    difficulty_reason = (
        "identify a message by what it announces (not by author or id) among similar "
        "announcements, then pick the named emoji from the reaction picker"
    )
    tags = ("navigation", "search")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        pool = announcements(world)
        members = active_members(world)
        reacted: dict[tuple[int, int], set[str]] = defaultdict(set)
        for message_id, emp_id, emoji in world.execute(
            "SELECT message_id, employee_id, emoji FROM chat_reaction ORDER BY id"
        ):
            reacted[message_id, emp_id].add(emoji)
        kinds = {a[4] for a in pool}
        # Joiners are rarer than won deals; they get a third of the instances.
        welcome = rng.random() < 1 / 3 or "won" not in kinds
        kind = "welcome" if welcome and "welcome" in kinds else "won"
        target = rng.choice([a for a in pool if a[4] == kind])
        message_id, channel_id, channel, author_id, kind, subject = target
        user_id, email, name = rng.choice([m for m in members[channel_id] if m[0] != author_id])
        emoji = rng.choice([e for e in _EMOJI[kind] if e not in reacted[message_id, user_id]])
        others = [a for a in pool if a[1] == channel_id and a[4] == kind and a[0] != message_id]
        return {
            "message_id": message_id,
            "channel_id": channel_id,
            "channel": channel,
            "kind": kind,
            "subject": subject,
            "emoji": emoji,
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "decoy": {"subject": rng.choice(others)[5]},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        what = _WHAT[params["kind"]].format(subject=params["subject"])
        return rng.choice(_PHRASINGS).format(what=what, **params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        kind, subject = params["kind"], params["subject"]
        search(actions, f'"{subject}" in:#{params["channel"]}')
        open_hit(actions, lambda hit: holding(subject)(hit) and _marked(kind, hit.name), only=True)
        message_menu(
            actions,
            lambda: find_message(actions, subject, accept=lambda text: _marked(kind, text)),
            "Add reaction…",
        )
        picker = actions.find("form", "Reactions", exact=True)
        label = params["emoji"].replace("_", " ")
        actions.click(actions.find("button", label, exact=True, within=picker))
        actions.send_msg_to_user(f"Reacted with :{params['emoji']}:.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.inserted(
                "chat_reaction",
                name=f":{params['emoji']}: on the message {_WHAT[params['kind']]}".format(
                    subject=params["subject"]
                ),
                message_id=params["message_id"],
                employee_id=params["user_id"],
                emoji=params["emoji"],
            ),
            expect.nothing_else(),
        )
