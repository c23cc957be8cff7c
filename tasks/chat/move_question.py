"""chat.move_question — repost a question from the wrong channel and link to it.

The user asked a question in a channel it does not belong in (a travel-approval question in
#general, a pricing question outside #deals...). The agent posts it again in the channel the
goal names and replies in the original's thread with a link to the new post, which the
message's "Link to message" action (or its timestamp) gives.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import contains, squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._links import LinksTo
from .base import ChatTemplate
from .ui import (
    find_messages,
    message_link,
    message_menu,
    open_channel,
    open_hit,
    open_thread,
    post,
    reply,
    search,
)

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# Which channel a kind of question belongs in: (pattern on the body, channel name).
_HOMES = (
    (re.compile(r"who approves travel for", re.IGNORECASE), "travel"),
    (re.compile(r"^Anyone know if the airport train", re.IGNORECASE), "travel"),
    (re.compile(r"^Pricing question on \*", re.IGNORECASE), "deals"),
    (re.compile(r"^Anybody have a spare HDMI adapter", re.IGNORECASE), "it-helpdesk"),
    (re.compile(r"double-check the totals in \*Travel Expenses", re.IGNORECASE), "finance"),
    (re.compile(r"^Can someone review the migration for", re.IGNORECASE), "eng"),
    (re.compile(r"^Who has a good case study for", re.IGNORECASE), "marketing"),
)
_PHRASINGS = (
    'I posted "{question}" in #{wrong}, but it should have gone to #{right}. Please post it '
    "in #{right} and reply in the original thread with a link to the new message.",
    'My question in #{wrong} ("{question}") belongs in #{right}. Ask it again in #{right}, '
    "then reply under the original message with the link to the new post.",
    'Move my question "{question}" from #{wrong} to #{right}: post it there and answer the '
    "original in its thread with a link to where it lives now.",
)


def plain(body: str) -> str:
    """A message body as the page shows it: markdown emphasis marks dropped."""
    return squash(body.replace("*", ""))


def _parts(body: str, names: list[str]) -> list[str]:
    """What a repost of `body` must hold: its text between emphasis marks, less a leading
    @mention (an agent may well leave the person out)."""
    parts = [squash(p) for p in body.split("*") if squash(p)]
    mention = next((n for n in names if parts[0].startswith(f"@{n} ")), None)
    if mention:
        parts[0] = parts[0][len(mention) + 2 :]
    return parts


@register
class MoveQuestion(ChatTemplate):
    id = "chat.move_question"
    difficulty = 4
    difficulty_reason = (
        "four moves across two channels: repost the question, copy the new message's link, "
        "find the original and reply in its thread with that link"
    )
    tags = ("navigation", "form", "multi-step")
    max_steps = 25

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        channels = {
            name: cid
            for cid, name in world.execute(
                "SELECT id, name FROM chat_channel "
                "WHERE kind = 'channel' AND archived_at IS NULL ORDER BY id"
            )
        }
        member = set(world.execute("SELECT channel_id, employee_id FROM chat_membership"))
        rows = world.execute(
            """
            SELECT m.id, m.body, c.id, c.name, e.id, e.email, e.display_name, m.thread_parent_id
            FROM chat_message m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee e ON e.id = m.author_id
            WHERE c.kind = 'channel' AND c.archived_at IS NULL AND e.is_active
              AND m.deleted_at IS NULL
            ORDER BY m.id
            """
        ).fetchall()
        said: dict[tuple[int, int], list[str]] = {}
        for row in rows:
            said.setdefault((row[2], row[4]), []).append(plain(row[1]))
        names = [
            n for (n,) in world.execute("SELECT display_name FROM people_employee ORDER BY id")
        ]
        found: dict[str, list[tuple]] = {}
        for row in rows:
            home = next((h for pattern, h in _HOMES if pattern.search(row[1])), None)
            if row[7] is not None or home is None or home == row[3] or home not in channels:
                continue
            if (channels[home], row[4]) not in member or (row[2], row[4]) not in member:
                continue
            # The user must be able to tell the question apart from anything else they said
            # there: no other message of theirs in the channel holds its words.
            parts = _parts(row[1], names)
            if sum(all(p in text for p in parts) for text in said[(row[2], row[4])]) != 1:
                continue
            found.setdefault(home, []).append((*row[:7], parts))
        # Kinds of question weigh by the square root of how many there are: travel ones,
        # the most common, do not crowd out the rest.
        homes = sorted(found)
        home = rng.choices(homes, weights=[len(found[h]) ** 0.5 for h in homes])[0]
        message_id, body, channel_id, channel, user_id, email, name, parts = rng.choice(found[home])
        others = sorted(
            n
            for n, cid in channels.items()
            if (cid, user_id) in member and n not in (home, channel)
        )
        # Links a reply could wrongly carry: the original itself and the latest posts of the
        # channel the question moves to (the gate appends them all to the oracle's messages).
        latest = [r[0] for r in rows if r[2] == channels[home] and r[7] is None][-4:]
        return {
            "message_id": message_id,
            "question": plain(body),
            "question_parts": parts,
            "wrong": channel,
            "wrong_id": channel_id,
            "right": home,
            "right_id": channels[home],
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "candidates": [f"/chat/m/{pk}" for pk in [message_id, *latest]],
            # The wrong-record probe reposts in another channel the user is in.
            "decoy": {"right": rng.choice(others)} if others else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        snippet = max(params["question_parts"], key=len)
        me = params["user_name"]
        open_channel(actions, params["right"])
        post(actions, params["question"], f"Message #{params['right']}")
        message_menu(actions, lambda: find_messages(actions, snippet, me)[-1], "Link to message")
        link = message_link(actions)
        # The original, through search: the phrase, in the wrong channel, from me.
        search(actions, f'"{snippet}" in:#{params["wrong"]} from:@{me}')
        open_hit(
            actions,
            lambda hit: hit.where == params["wrong"] and hit.author == me and not hit.in_thread,
        )
        original = find_messages(actions, snippet, me)[0]
        reply(actions, open_thread(actions, original), f"Moved to #{params['right']}: {link}")
        actions.send_msg_to_user(f"Reposted in #{params['right']} and linked it from the original.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        repost = expect.inserted(
            "chat_message",
            name=f"question reposted in #{params['right']}",
            channel_id=params["right_id"],
            author_id=params["user_id"],
            thread_parent_id=None,
            body=contains(*params["question_parts"]),
        )
        return expect.grade(
            ctx,
            repost,
            expect.inserted(
                "chat_message",
                name="thread reply on the original linking to the repost",
                channel_id=params["wrong_id"],
                author_id=params["user_id"],
                thread_parent_id=params["message_id"],
                body=LinksTo(repost.pk),
            ),
            expect.nothing_else(),
        )
