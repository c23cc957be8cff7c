"""chat.summarise_thread_decision — close the loop on a thread with a one-line summary.

Many of the world's threads end with a reply that settles what happens next, in one of three
ways: a discussion in the sync ("Let's discuss the Acme pricing in the sync."), a look this
afternoon ("I'll take a look at the flaky test this afternoon.") or an update ("Updated the
enrollment FAQ, thanks for flagging."). The agent is
asked to post, in the thread, how it was left: the next step and who owns it. Neither is in
the goal; both are only in the thread. The verifier wants a reply in that thread, by the
user, that states the person who had the last word and the outcome in the reply's own words
(sync or discuss, afternoon or take a look, updated), read like an answer (`match.states`):
naming another participant of the thread as well, or the words of another outcome, offers a
second candidate and fails, and so does a summary padded past the free-text bound. The owner
may be @mentioned. The reply itself is a step on the way: a reply that summarises nothing
earns nothing.

Earlier replies can hold other people and other words, and the thread's starter is another
person again, so the summary has to come from the end of the thread. The near miss is another
thread in the same channel.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import fact, states
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._channels import active_members
from ._subjects import by_author_and_subject
from .base import ChatTemplate
from .ui import messages, open_message, open_thread, reply

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# The ways a last reply settles a thread (each named by its plainest wording), and the words
# (any one will do) a summary of each cannot leave out.
OUTCOMES = {
    "Let's discuss in the sync.": ("sync", "discuss", "discussed", "discussion"),
    "I'll take a look this afternoon.": ("afternoon", "take a look", "taking a look"),
    "Updated, thanks for flagging.": ("updated", "update", "updates", "updating"),
}
# The words that mark each outcome as itself: a summary of another outcome that holds one
# names a second candidate ("update" is left out: a look this afternoon may end in one).
MARKS = {
    "Let's discuss in the sync.": ("sync", "discuss", "discussed", "discussion"),
    "I'll take a look this afternoon.": ("afternoon", "take a look", "taking a look"),
    "Updated, thanks for flagging.": ("updated",),
}
# How each outcome is said in a thread's last reply.
_SAID = {
    "Let's discuss in the sync.": re.compile(r"\bLet's discuss\b.*\bsync\b"),
    "I'll take a look this afternoon.": re.compile(r"\bI'll take a look\b.*\bthis afternoon\b"),
    "Updated, thanks for flagging.": re.compile(r"\bUpdated\b.*\bthanks for flagging\b"),
}


def outcome_of(reply: str) -> str | None:
    """The outcome a thread's last reply settles on (a key of `OUTCOMES`), or None when it
    settles nothing or reads as more than one."""
    said = [outcome for outcome, pattern in _SAID.items() if pattern.search(reply)]
    if len(said) != 1:
        return None
    others = [w for outcome, words in MARKS.items() if outcome != said[0] for w in words]
    return None if any(word in reply.casefold() for word in others) else said[0]


_PHRASINGS = (
    "Close the loop on {author}'s thread about {subject} in #{channel}: reply in that thread "
    "with a one-line summary of how it was left (the next step and who owns it).",
    "I missed the conversation under {author}'s {subject} message in #{channel}. Post a short "
    "wrap-up as a reply in that thread: what was decided, and who is on it.",
    "For the record, can you add a reply to the #{channel} thread {author} started about "
    "{subject} that sums up the outcome: what happens next and who's doing it?",
)
_TIME = re.compile(r"^\d{1,2}:\d{2} [AP]M\s*")


def thread_replies(world: sqlite3.Connection) -> dict[int, list[tuple[int, str, str]]]:
    """Thread parent id → its live replies as (author id, author name, body), in order."""
    found: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
    for parent, author_id, author, body in world.execute(
        """
        SELECT m.thread_parent_id, e.id, e.display_name, m.body
        FROM chat_message m JOIN people_employee e ON e.id = m.author_id
        WHERE m.thread_parent_id IS NOT NULL AND m.deleted_at IS NULL
        ORDER BY m.created_at, m.id
        """
    ):
        found[parent].append((author_id, author, body))
    return found


def owner_spellings(owner: str, term: str) -> list[str]:
    """How a summary may name the owner: full name in the usual orders, the first name when
    that is unambiguous (`owner_term`), each also as an @mention."""
    first, last = owner.split()[0], owner.split()[-1]
    names = list(dict.fromkeys([owner, f"{last}, {first}", f"{last} {first}", term]))
    return names + [f"@{owner}"] + ([f"@{term}"] if term != owner else [])


def owner_term(owner: str, others: list[str], subject: str) -> str:
    """How a summary must name the owner: the first name, or the full name when another
    participant shares the first name or the subject holds it."""
    first = owner.split()[0]
    clash = any(o != owner and o.split()[0] == first for o in others)
    return owner if clash or first.casefold() in subject.casefold() else first


@register
class SummariseThreadDecision(ChatTemplate):
    id = "chat.summarise_thread_decision"
    difficulty = 4
    difficulty_reason = (
        "find a thread by its starter and subject, read it to the end, work out the next "
        "step and its owner from the last reply (not from the goal), and post a summary "
        "in the thread rather than the channel"
    )
    tags = ("navigation", "search", "form")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        replies = thread_replies(world)
        members = active_members(world)
        threads = [t for t in by_author_and_subject(world) if replies.get(t[0])]
        settled = []
        bodies = {m: b.casefold() for m, b in world.execute("SELECT id, body FROM chat_message")}
        for thread in threads:
            message_id, channel_id, _, author_id, _, subject = thread
            owner_id, _, last = replies[message_id][-1]
            outcome = outcome_of(last)
            # The starter having the last word, or the parent already holding the outcome's
            # word, would let a summary pass without reading the replies; a subject holding
            # an outcome's word would fail a summary that names the thread by it.
            if (
                outcome is None
                or owner_id == author_id
                or any(word in bodies[message_id] for word in OUTCOMES[outcome])
                or any(word in subject.casefold() for words in MARKS.values() for word in words)
            ):
                continue
            taken = {author_id} | {r[0] for r in replies[message_id]}
            readers = [m for m in members[channel_id] if m[0] not in taken]
            if readers:
                settled.append((thread, readers))
        thread, readers = rng.choice(settled)
        message_id, channel_id, channel, _, author, subject = thread
        _, owner, last = replies[message_id][-1]
        outcome = outcome_of(last)
        assert outcome is not None
        others = [author] + [r[1] for r in replies[message_id]]
        term = owner_term(owner, others, subject)
        # Other people who spoke in the thread: naming one as well leaves the owner open. The
        # starter is not among them (the goal names them), nor a subject of the thread.
        speakers = sorted(
            name
            for name in {r[1] for r in replies[message_id]} - {owner, author}
            if name.casefold() not in subject.casefold()
        )
        user_id, email, name = rng.choice(readers)
        misses = [t for t in threads if t[1] == channel_id and t[0] != message_id]
        miss = rng.choice(misses) if misses else None
        return {
            "message_id": message_id,
            "channel_id": channel_id,
            "channel": channel,
            "author": author,
            "subject": subject,
            "owner": owner,
            "owner_term": term,
            "owner_spellings": owner_spellings(owner, term),
            "speakers": speakers,
            "last_reply": last,
            "outcome": list(OUTCOMES[outcome]),
            "outcome_distractors": sorted(
                {word for said, words in MARKS.items() if said != outcome for word in words}
            ),
            # Every owner and every outcome the summary could claim, stated at once.
            "candidates": [owner, *speakers, last, *(o for o in OUTCOMES if o != outcome)],
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "decoy": {"author": miss[4], "subject": miss[5]} if miss else None,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        article = open_message(actions, params["channel"], params["subject"], params["author"])
        thread = open_thread(actions, article)
        replies = actions.find(None, "Replies", exact=True, within=thread)
        answers = set(actions.find_all("article", within=replies))
        last = [m for m in messages(actions) if m.bid in answers][-1]
        owner = last.author
        said = _TIME.sub("", last.text.removeprefix(owner).strip())
        summary = f'{owner} had the last word: "{said}" That is the next step, and {owner} owns it.'
        reply(actions, thread, summary)
        actions.send_msg_to_user("Posted a summary in the thread.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        where = {
            "channel_id": params["channel_id"],
            "thread_parent_id": params["message_id"],
            "author_id": params["user_id"],
        }
        thread = f"{params['author']}'s {params['subject']} thread"
        return expect.grade(
            ctx,
            # A step on the way: a reply that summarises nothing ("ok") earns nothing.
            expect.inserted("chat_message", name=f"a reply in {thread}", core=False, **where),
            expect.inserted(
                "chat_message",
                name=(
                    f"the summary states who owns the next step ({params['owner']}) and the "
                    f"outcome ({params['last_reply']!r}), no other"
                ),
                body=states(
                    fact(params["owner_spellings"], distractors=params["speakers"]),
                    fact(params["outcome"], distractors=params["outcome_distractors"]),
                    today=ctx.world_today(),
                ),
                **where,
            ),
            expect.nothing_else(),
        )
