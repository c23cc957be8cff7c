"""chat.list_thread_posters — list everyone who replied in a given thread.

The thread is named by its first message (quoted, with its author and channel). Replies are
read in the thread panel; the channel only shows avatars of the first few repliers, without
names. The wrong-record probe lists the repliers of another thread in the same channel.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from officegym.tasks import expect
from officegym.tasks.match import squash
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._quotes import UNQUOTABLE, pick_others, said_times
from .base import ChatTemplate
from .ui import find_messages, hits, messages, phrase, search

_THREAD_LINK = re.compile(r"^\d+ repl(?:y|ies)\b")
_PHRASINGS = (
    'Who replied in the thread on {author}\'s post "{parent}" in #{channel}? List them all.',
    'List everyone who replied to {author}\'s message "{parent}" in #{channel}.',
    'I need the names of all the people who answered in the thread under "{parent}" '
    "({author}, #{channel}).",
)


@register
class ListThreadPosters(ChatTemplate):
    id = "chat.list_thread_posters"
    difficulty = 4
    difficulty_reason = (
        "find the thread's first message, open the thread and collect every distinct "
        "replier (some reply several times); a partial or padded list fails"
    )
    tags = ("search", "answer", "multi-step")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        rows = world.execute(
            """
            SELECT p.id, p.body, c.id, c.name, pa.display_name, r.deleted_at IS NULL,
                   ra.display_name
            FROM chat_message p
            JOIN chat_channel c ON c.id = p.channel_id
            JOIN people_employee pa ON pa.id = p.author_id
            JOIN chat_message r ON r.thread_parent_id = p.id
            JOIN people_employee ra ON ra.id = r.author_id
            WHERE c.kind = 'channel' AND c.archived_at IS NULL
              AND p.deleted_at IS NULL AND p.thread_parent_id IS NULL
              AND length(p.body) BETWEEN 25 AND 140
            ORDER BY p.id, r.id
            """
        ).fetchall()
        threads: dict[tuple, list[str]] = defaultdict(list)
        intact: dict[tuple, bool] = defaultdict(lambda: True)
        for parent_id, body, channel_id, channel, author, alive, replier in rows:
            key = (parent_id, body, channel_id, channel, author)
            intact[key] = intact[key] and bool(alive)
            if replier not in threads[key]:
                threads[key].append(replier)
        usable = sorted(
            key
            for key, repliers in threads.items()
            if intact[key] and len(repliers) >= 2 and not UNQUOTABLE.search(key[1])
        )
        for key in rng.sample(usable, len(usable)):
            picked = self._people(world, rng, key, threads[key])
            if picked is not None and said_times(world, key[1]) == 1:
                break
        else:
            raise LookupError("no thread with two repliers and a quotable first message")
        parent_id, parent, channel_id, channel, author = key
        repliers = threads[key]
        user_id, user, bystanders = picked
        others = [
            k
            for k in usable
            if k[2] == channel_id and k != key and set(threads[k]) != set(repliers)
        ]
        others = [k for k in others if said_times(world, k[1]) == 1]
        decoy = rng.choice(others) if others else None
        return {
            "user": user,
            "user_id": user_id,
            "channel": channel,
            "channel_id": channel_id,
            "parent": parent,
            "parent_id": parent_id,
            "author": author,
            "repliers": repliers,
            "candidates": repliers + bystanders,
            "decoy": {"parent": decoy[1], "author": decoy[4]} if decoy else None,
        }

    @staticmethod
    def _people(
        world: sqlite3.Connection, rng: random.Random, key: tuple, repliers: list[str]
    ) -> tuple[int, str, list[str]] | None:
        """(user id, email, people who did not reply) for a thread, or None when the channel
        has no member to ask as or nobody else to name wrongly."""
        _, _, channel_id, _, author = key
        members = world.execute(
            """
            SELECT e.id, e.email, e.display_name, e.is_active FROM chat_membership ms
            JOIN people_employee e ON e.id = ms.employee_id
            WHERE ms.channel_id = ? ORDER BY e.id
            """,
            (channel_id,),
        ).fetchall()
        askers = [m for m in members if m[3] and m[2] != author and m[2] not in repliers]
        if not askers:
            return None
        user_id, user, _, _ = rng.choice(askers)
        bystanders = [author] if author not in repliers else []
        bystanders += pick_others(
            rng, [m[2] for m in members if m[0] != user_id], [*repliers, author], 3
        )
        return (user_id, user, bystanders) if bystanders else None

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions, params: Mapping[str, Any]) -> None:
        search(actions, f"{phrase(params['parent'])} in:#{params['channel']}")
        actions.click(hits(actions)[0].bid)
        article = find_messages(actions, params["parent"])[0]
        # The "N replies" link under the message (the action bar only shows on hover).
        thread = next(
            bid
            for bid in actions.find_all("link", within=article)
            if _THREAD_LINK.match(next(squash(n.name) for n in actions.nodes if n.bid == bid))
        )
        actions.click(thread)
        replies = actions.find(None, "Replies", exact=True)
        answers = set(actions.find_all("article", within=replies))
        names = list(dict.fromkeys(m.author for m in messages(actions) if m.bid in answers))
        actions.send_msg_to_user(", ".join(names))

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        others = [c for c in params["candidates"] if c not in params["repliers"]]
        return expect.grade(
            ctx,
            expect.answer(params["repliers"], kind="list", distractors=others),
            expect.nothing_else(),
        )


__all__ = ["ListThreadPosters"]
