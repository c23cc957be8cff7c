"""chat.forward_to_manager — DM the user's manager a link to a message about a deal or sheet.

The goal names neither the manager nor the message's address: the manager is on the user's
own profile (People → their card → Manager), the message is found by its author, channel and
what it is about, the one deal or sheet it puts in bold (search takes `from:@` and `in:#`), and its link is what "Link to
message" or a search hit opens. One instance in six is played by the one person without a
manager, who should say so with `report_infeasible`. The DM must link that one message and
no other; opening the DM is a step on the way (see `dm_expectations`).
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import one_of_ids, squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._conversations import dm_expectations, existing_conversation
from ._links import LinksTo
from .base import ChatTemplate
from .ui import find_person, message_link, open_hit, post, search, sidebar_link

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_SUBJECT = re.compile(r"\*([^*]+)\*")
# How many links to other messages of the channel an instance names as wrong candidates.
_CANDIDATES = 5
_PHRASINGS = (
    "Send my manager a DM with a link to {author}'s message about {subject} in #{channel}.",
    "Could you forward {author}'s post in #{channel} about {subject} to my manager? "
    "Just DM them the message link.",
    "My manager should see what {author} wrote in #{channel} about {subject}: send them a "
    "direct message with a link to it.",
)


@register
class ForwardToManager(ChatTemplate):
    id = "chat.forward_to_manager"
    difficulty = 4
    impossible_instances = True
    difficulty_reason = (
        "two lookups before one message: find the message by author, channel and subject and "
        "take its link; find the manager on one's own profile; then DM them the link"
    )
    tags = ("search", "navigation", "form", "multi-step")
    max_steps = 25

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        people = {
            row[0]: row
            for row in world.execute(
                "SELECT id, email, display_name, manager_id, is_active FROM people_employee "
                "ORDER BY id"
            )
        }
        rows = world.execute(
            """
            SELECT m.id, m.body, m.author_id, m.thread_parent_id, c.id, c.name
            FROM chat_message m JOIN chat_channel c ON c.id = m.channel_id
            WHERE c.kind = 'channel' AND NOT c.is_private AND c.archived_at IS NULL
              AND m.deleted_at IS NULL
            ORDER BY m.id
            """
        ).fetchall()
        # A message is named by (author, channel, subject): no other message there matches.
        # Its subject is the one thing in bold: a deal or a sheet.
        said: dict[tuple[int, int], list[str]] = {}
        for row in rows:
            said.setdefault((row[4], row[2]), []).append(row[1])
        messages = []
        for message_id, body, author, parent, channel_id, channel in rows:
            bold = _SUBJECT.findall(body)
            if parent is not None or len(bold) != 1 or not people[author][4]:
                continue
            deal = squash(bold[0])
            if sum(deal in squash(text) for text in said[(channel_id, author)]) == 1:
                messages.append((message_id, author, channel_id, channel, deal))
        bosses = [p for p in people.values() if p[4] and p[3] is not None and people[p[3]][4]]
        chiefs = [p for p in people.values() if p[4] and p[3] is None]
        feasible = not chiefs or rng.random() >= 1 / 6
        # Now and then the user already has a DM with their manager, to post into.
        talking = [p for p in bosses if existing_conversation(world, [p[0], p[3]]) is not None]
        if not feasible:
            user = rng.choice(chiefs)
        elif talking and rng.random() < 1 / 4:
            user = rng.choice(talking)
        else:
            user = rng.choice(bosses)
        manager = people[user[3]] if feasible else None
        skip = {user[0], manager[0] if manager else None}
        message_id, author, channel_id, channel, deal = rng.choice(
            [m for m in messages if m[1] not in skip]
        )
        # The wrong-record probe links another message about something else in that channel.
        near = [m for m in messages if m[2] == channel_id and m[4] != deal and m[1] not in skip]
        decoy = rng.choice(near) if near and feasible else None
        # Links to other messages of the channel: a DM linking them all besides the right one
        # forwards nothing in particular (the gate appends them to the oracle's DM).
        elsewhere = [r[0] for r in rows if r[4] == channel_id and r[0] != message_id]
        linked = rng.sample(elsewhere, min(_CANDIDATES, len(elsewhere)))
        if decoy is not None and decoy[0] not in linked:
            linked[-1:] = [decoy[0]]
        return {
            "user_id": user[0],
            "user": user[1],
            "user_name": user[2],
            "manager_id": manager[0] if manager else None,
            "manager_name": manager[2] if manager else None,
            "dm_channel_id": (
                existing_conversation(world, [user[0], manager[0]]) if manager else None
            ),
            "message_id": message_id,
            "author": people[author][2],
            "channel": channel,
            "subject": deal,
            "feasible": feasible,
            "candidates": [f"/chat/m/{pk}" for pk in sorted(linked)] if feasible else [],
            "decoy": {"author": people[decoy[1]][2], "subject": decoy[4]} if decoy else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        me = params["user_name"]
        # Who my manager is: my own profile says.
        actions.click(find_person(actions, me, lambda card: card.startswith(f"{me} ")))
        manager = _manager_link(actions)
        if manager is None:
            actions.report_infeasible("My profile lists no manager, so there is no one to DM.")
            return
        boss = squash(next(n.name for n in actions.nodes if n.bid == manager))
        actions.click(manager)
        actions.click(actions.find("button", "Message", exact=True))
        # The message: its subject, in its channel, from its author; the hit opens its link.
        channel, author = params["channel"], params["author"]
        search(actions, f'"{params["subject"]}" in:#{channel} from:@{author}')
        open_hit(
            actions, lambda hit: hit.where == channel and hit.author == author and not hit.in_thread
        )
        link = message_link(actions)
        actions.click(sidebar_link(actions, boss))
        post(actions, f"FYI, {author}'s message about {params['subject']}: {link}")
        actions.send_msg_to_user("Sent my manager the link.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            *dm_expectations(
                params["dm_channel_id"],
                params["user_id"],
                [params["manager_id"]],
                LinksTo(one_of_ids([params["message_id"]])),
                f"DM to {params['manager_name']} linking message #{params['message_id']}",
            ),
            expect.nothing_else(),
        )


def _manager_link(actions: PageActions) -> str | None:
    """On a profile: the bid of the link under "Manager", or None when it says None."""
    nodes = list(actions.nodes)
    for index, node in enumerate(nodes):
        if node.role == "term" and squash(node.name) == "Manager":
            for after in nodes[index + 1 :]:
                if after.role == "term" or after.role == "heading":
                    return None
                if after.role == "link" and after.bid:
                    return after.bid
    return None
