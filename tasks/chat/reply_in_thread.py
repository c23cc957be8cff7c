"""chat.reply_in_thread — answer a colleague's message about an account in its thread.

The message is named the way a colleague would name it: who posted it, in which channel,
about which account. The reply is quoted in the goal, so the verifier wants exactly that text
(case and spacing aside), posted in the thread only: "also send to channel" is a change the
goal did not ask for. Exactly one message of that person in that channel mentions the
account, so the target is unambiguous; the near miss is another message in the same channel
about the same account (by someone else) or by the same person (about another account).
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import verbatim
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._channels import active_members, channel_messages
from ._subjects import account_mentions
from .base import ChatTemplate
from .ui import open_message, open_thread, reply

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_REPLIES = (
    "I can join the next call with {account} if that helps.",
    "Sent {account} the updated order form this morning.",
    "Legal has the {account} terms, expect comments by Friday.",
    "Happy to take the {account} follow-up this week.",
    "I spoke to {account} yesterday, they want a demo for their ops team.",
)
_PHRASINGS = (
    'In #{channel}, reply in the thread of {author}\'s message about {account}: "{text}"',
    '{author} posted about {account} in #{channel}. Answer in that message\'s thread with "{text}"',
    "Can you respond to {author}'s {account} message in #{channel}? Reply in its thread, "
    'not in the channel: "{text}"',
)


def by_author_and_account(
    world: sqlite3.Connection,
) -> list[tuple[int, int, str, int, str, str]]:
    """Top-level messages that are the only message of their author in their channel to
    mention an account: (message id, channel id, channel, author id, author, account)."""
    messages = channel_messages(world)
    mentions = account_mentions(world)
    bodies: dict[tuple[int, int], list[str]] = defaultdict(list)
    for _, channel_id, _, author_id, _, body, _ in messages:
        bodies[channel_id, author_id].append(body.casefold())
    found = []
    for message_id, channel_id, channel, author_id, author, body, parent in messages:
        if parent is not None:
            continue
        for account in sorted(mentions.get(message_id, ())):
            if account not in body:
                continue
            same = sum(account.casefold() in b for b in bodies[channel_id, author_id])
            if same == 1:
                found.append((message_id, channel_id, channel, author_id, author, account))
    return found


def near_miss(
    target: tuple[int, int, str, int, str, str],
    pool: Sequence[tuple[int, int, str, int, str, str]],
    rng: random.Random,
) -> tuple[int, int, str, int, str, str] | None:
    """Another message of `pool` in the target's channel: about the same account by someone
    else if there is one, else by the same author about another account, else any."""
    message_id, channel_id, _, author_id, _, account = target
    others = [p for p in pool if p[1] == channel_id and p[0] != message_id]
    same_account = [p for p in others if p[5] == account and p[3] != author_id]
    same_author = [p for p in others if p[3] == author_id and p[5] != account]
    choices = same_account or same_author or others
    return rng.choice(choices) if choices else None


@register
class ReplyInThread(ChatTemplate):
    id = "chat.reply_in_thread"
    difficulty = 2
    difficulty_reason = (
        "find one message by author, channel and account (search or scroll), open its "
        "thread and reply there rather than in the channel"
    )
    tags = ("navigation", "form")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        pool = by_author_and_account(world)
        members = active_members(world)
        usable = [p for p in pool if any(m[0] != p[3] for m in members[p[1]])]
        target = rng.choice(usable)
        message_id, channel_id, channel, author_id, author, account = target
        user_id, email, name = rng.choice([m for m in members[channel_id] if m[0] != author_id])
        miss = near_miss(target, pool, rng)
        return {
            "message_id": message_id,
            "channel_id": channel_id,
            "channel": channel,
            "author": author,
            "account": account,
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "text": rng.choice(_REPLIES).format(account=account),
            "decoy": {"author": miss[4], "account": miss[5]} if miss else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        article = open_message(actions, params["channel"], params["account"], params["author"])
        reply(actions, open_thread(actions, article), params["text"])
        actions.send_msg_to_user("Replied in the thread.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.inserted(
                "chat_message",
                name=f"reply in the thread of {params['author']}'s {params['account']} message",
                channel_id=params["channel_id"],
                thread_parent_id=params["message_id"],
                author_id=params["user_id"],
                # The reply is quoted in the goal: the whole body is that text, nothing added.
                body=verbatim(params["text"]),
            ),
            expect.nothing_else(),
        )
