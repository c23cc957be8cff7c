"""chat.reply_in_thread — answer a colleague's message about an account in its thread.

The message is named the way a colleague would name it: who posted it, in which channel,
about which account. The reply is quoted in the goal, so the verifier wants exactly that text
(case and spacing aside), posted in the thread only: "also send to channel" is a change the
goal did not ask for. Exactly one message of that person in that channel mentions the
account, so the target is unambiguous; the near miss is another message in the same channel
about the same account (by someone else) or by the same person (about another account).

The module also holds the oracle moves the chat templates of this group share: search for a
message, open a hit, find a message on the page by author and text, and use its menu.
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import squash, verbatim
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

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


def _fold(text: str) -> str:
    return squash(text).casefold()


# ---- oracle moves shared by this group's templates ---------------------------------------


def search_messages(actions: PageActions, query: str) -> None:
    """Run `query` in the sidebar's message search (filters such as `in:#deals` allowed)."""
    box = actions.find("searchbox", "Search messages", exact=True)
    actions.fill(box, query)
    actions.press(box, "Enter")


def hit_links(actions: PageActions, snippet: str) -> list[tuple[str, str]]:
    """(bid, name) of the search result links whose text holds `snippet`."""
    wanted = _fold(snippet)
    return [
        (node.bid, squash(node.name))
        for node in actions.nodes
        if node.bid and node.role == "link" and wanted in _fold(node.name)
    ]


def open_hit(
    actions: PageActions, snippet: str, accept: Callable[[str], bool] = lambda name: True
) -> None:
    """Click the one search result holding `snippet` that `accept` takes (by its text)."""
    found = [bid for bid, name in hit_links(actions, snippet) if accept(name)]
    if len(found) != 1:
        raise LookupError(f"expected one search result with {snippet!r}, found {len(found)}")
    actions.click(found[0])


def message_text(nodes: Sequence[Any], index: int) -> str:
    """The visible text of the article at `nodes[index]`: author, time and body, up to its
    reactions and actions (so a reactor's name is not read as the message's)."""
    article = nodes[index]
    parts = []
    skip_below: int | None = None
    for inner in nodes[index + 1 :]:
        if inner.depth <= article.depth:
            break
        if skip_below is not None and inner.depth > skip_below:
            continue
        skip_below = None
        if inner.role == "form":
            skip_below = inner.depth
            continue
        if inner.name:
            parts.append(inner.name)
    return squash(" ".join(parts))


def find_article(
    actions: PageActions,
    snippet: str,
    author: str | None = None,
    accept: Callable[[str], bool] = lambda text: True,
) -> str:
    """The bid of the one message on the page by `author` whose text holds `snippet` and
    that `accept` takes (by its text); messages are articles named by their author."""
    nodes = list(actions.nodes)
    wanted = _fold(snippet)
    found = [
        node.bid
        for i, node in enumerate(nodes)
        if node.role == "article"
        and node.bid
        and (author is None or squash(node.name) == author)
        and wanted in _fold(message_text(nodes, i))
        and accept(message_text(nodes, i))
    ]
    if len(found) != 1:
        who = f" by {author}" if author else ""
        raise LookupError(f"expected one message{who} with {snippet!r}, found {len(found)}")
    return str(found[0])


def use_menu(actions: PageActions, locate: Callable[[], str], item: str) -> None:
    """Open the "More actions" menu of the message `locate()` finds and choose `item`.

    With the keyboard: the open menu can sit under the (transparent) hover toolbars of the
    messages below it, where a pointer click would land on their buttons instead."""
    actions.press(actions.find(None, "More actions", exact=True, within=locate()), "Enter")
    actions.press(actions.find(None, item, within=locate()), "Enter")


def open_thread(actions: PageActions, article: str) -> str:
    """Open the thread of the message `article` (its "Reply in thread" action, from the
    keyboard: the action bar only takes pointer clicks while the message is hovered) and
    return the thread panel's bid."""
    actions.press(actions.find("link", "Reply in thread", exact=True, within=article), "Enter")
    return actions.find("complementary", "Thread", exact=True)


def open_message(actions: PageActions, channel: str, snippet: str, author: str) -> str:
    """Search for `author`'s message holding `snippet` in #`channel`, open it in its channel
    and return its article's bid."""
    search_messages(actions, f'"{snippet}" from:@{author} in:#{channel}')
    open_hit(actions, snippet, lambda name: author in name)
    return find_article(actions, snippet, author)


# ---- sampling ----------------------------------------------------------------------------


def account_mentions(world: sqlite3.Connection) -> dict[int, set[str]]:
    """Message id → names of the accounts its text mentions (directly or through a deal)."""
    rows = world.execute(
        """
        SELECT t.source_id, a.name
        FROM world_textref t
        JOIN crm_account a ON t.target_table = 'crm_account' AND a.id = t.target_id
        WHERE t.source_table = 'chat_message' AND t.source_column = 'body'
        UNION
        SELECT t.source_id, a.name
        FROM world_textref t
        JOIN crm_opportunity o ON t.target_table = 'crm_opportunity' AND o.id = t.target_id
        JOIN crm_account a ON a.id = o.account_id
        WHERE t.source_table = 'chat_message' AND t.source_column = 'body'
        ORDER BY 1, 2
        """
    ).fetchall()
    found: dict[int, set[str]] = defaultdict(set)
    for message_id, name in rows:
        found[message_id].add(name)
    return found


def channel_messages(world: sqlite3.Connection) -> list[tuple]:
    """Every live message in an open (not archived) channel: (id, channel id, channel name,
    author id, author name, body, thread parent id), by id."""
    return world.execute(
        """
        SELECT m.id, c.id, c.name, a.id, a.display_name, m.body, m.thread_parent_id
        FROM chat_message m
        JOIN chat_channel c ON c.id = m.channel_id
        JOIN people_employee a ON a.id = m.author_id
        WHERE c.kind = 'channel' AND c.archived_at IS NULL AND m.deleted_at IS NULL
        ORDER BY m.id
        """
    ).fetchall()


def active_members(world: sqlite3.Connection) -> dict[int, list[tuple[int, str, str]]]:
    """Channel id → its active members as (id, email, display name), by id."""
    rows = world.execute(
        """
        SELECT m.channel_id, e.id, e.email, e.display_name
        FROM chat_membership m JOIN people_employee e ON e.id = m.employee_id
        WHERE e.is_active
        ORDER BY m.channel_id, e.id
        """
    ).fetchall()
    found: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
    for channel_id, emp_id, email, name in rows:
        found[channel_id].append((emp_id, email, name))
    return found


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


# What a message can be "about", most natural first. A deal stands for its account (its name
# starts with the account's) unless only the full deal name is distinctive.
SUBJECT_KINDS = (
    "crm_account",
    "crm_contact",
    "sheets_workbook",
    "booking_property",
    "booking_resource",
    "people_employee",
    "crm_opportunity",
)


def by_author_and_subject(
    world: sqlite3.Connection,
) -> list[tuple[int, int, str, int, str, str]]:
    """Top-level messages with something they are about (an account, contact, workbook,
    hotel, room, person or deal they name) that no other message of their author in their
    channel names: (message id, channel id, channel, author id, author, subject)."""
    refs: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for source_id, table, surface in world.execute(
        """
        SELECT source_id, target_table, surface FROM world_textref
        WHERE source_table = 'chat_message' AND source_column = 'body'
        ORDER BY source_id, id
        """
    ):
        refs[source_id][table].append(surface)
    messages = channel_messages(world)
    bodies: dict[tuple[int, int], list[str]] = defaultdict(list)
    for _, channel_id, _, author_id, _, body, _ in messages:
        bodies[channel_id, author_id].append(body.casefold())
    found = []
    for message_id, channel_id, channel, author_id, author, body, parent in messages:
        if parent is not None or message_id not in refs:
            continue
        named = [
            name
            for kind in SUBJECT_KINDS
            for surface in refs[message_id].get(kind, ())
            for name in (
                (surface.split(" — ")[0], surface) if kind == "crm_opportunity" else (surface,)
            )
        ]
        subjects = [
            name
            for name in named
            if name in body
            and sum(name.casefold() in b for b in bodies[channel_id, author_id]) == 1
        ]
        if subjects:
            found.append((message_id, channel_id, channel, author_id, author, subjects[0]))
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
        thread = open_thread(actions, article)
        actions.fill(actions.find("textbox", "Reply…", exact=True, within=thread), params["text"])
        actions.click(actions.find("button", "Send", exact=True, within=thread))
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
