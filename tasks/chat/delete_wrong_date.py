"""chat.delete_wrong_date — delete the user's own message that gives a wrong date.

The goal names the channel and the date as the message gives it (e.g. "Thu Aug 28"); the
user has exactly one message in that channel with that date. The chat app deletes a message
outright, except a thread parent with replies, which stays as a tombstone (body emptied,
`deleted_at` stamped) so the thread survives: the verifier expects whichever the app does for
that message, plus the reactions, pins and saves the app removes with it, and nothing else.
The wrong-record probe deletes another of the user's dated messages instead.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import is_set
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._channels import other_own_message, own_message_params, own_messages, texts_by_author
from .base import ChatTemplate
from .ui import find_message, message_menu, open_message

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_DATE = re.compile(
    r"\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) )?"
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}\b(?![:.]\d)"
)

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_PHRASINGS = (
    "My message in #{channel} that mentions {date} has the wrong date. "
    "Please delete it; I'll post a corrected one myself.",
    "I got the date wrong in my post in #{channel} — the one saying {date}. Can you delete it?",
    "Please remove my #{channel} message with {date} in it; that date is wrong.",
    "The date in my message in #{channel} ({date}) is wrong. Delete that message for me, please.",
)


def _dates(text: str) -> set[str]:
    """Every date `text` mentions, with and without its weekday ("Thu Aug 28", "Aug 28")."""
    found = set()
    for date in _DATE.findall(text):
        found |= {date, date.split(" ", 1)[1] if date[:3] in _WEEKDAYS else date}
    return found


@per_golden
def _dated_messages(world: sqlite3.Connection) -> list[dict[str, Any]]:
    """The user's top-level messages with a date that none of their other messages in the
    same channel mentions, with whether the message has replies."""
    replies = dict(
        world.execute(
            "SELECT thread_parent_id, COUNT(*) FROM chat_message"
            " WHERE thread_parent_id IS NOT NULL GROUP BY thread_parent_id ORDER BY 1"
        ).fetchall()
    )
    mentions: Counter[tuple[int, int, str]] = Counter()
    for (author, channel_id), texts in texts_by_author(world).items():
        for text in texts:
            mentions.update((author, channel_id, date) for date in _dates(text))
    found = []
    for mine in own_messages(world):
        message_id, channel_id, _, user_id, _, _, body = mine
        match = _DATE.search(body)
        if match is None:
            continue
        date = match.group()
        if mentions[(user_id, channel_id, date)] != 1:
            continue
        found.append(
            {
                **own_message_params(mine),
                "date": date,
                "has_replies": replies.get(message_id, 0) > 0,
            }
        )
    return found


@register
class DeleteWrongDate(ChatTemplate):
    id = "chat.delete_wrong_date"
    difficulty = 3
    difficulty_reason = (
        "find one's own message by a date in a named channel among many, then delete it "
        "through the message menu and its confirmation page"
    )
    tags = ("search", "form")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        candidates = _dated_messages(world)
        # Thread parents are a minority; draw them one time in four so the tombstone case
        # is exercised.
        threaded = [c for c in candidates if c["has_replies"]]
        plain = [c for c in candidates if not c["has_replies"]]
        pool = threaded if threaded and (not plain or rng.random() < 0.25) else plain
        target = rng.choice(pool)
        other = other_own_message(candidates, target, rng)
        decoy = None
        if other is not None:
            decoy = {"message_id": other["message_id"], "channel": other["channel"]}
            decoy["date"] = other["date"]
        return {**target, "decoy": decoy}

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        author, date = params["user_name"], params["date"]
        open_message(actions, params["channel"], date, author)
        message_menu(actions, lambda: find_message(actions, date, author), "Delete message")
        actions.click(actions.find("button", "Delete", exact=True))
        actions.send_msg_to_user(f"Deleted your message in #{params['channel']} about {date}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        name = f"message with {params['date']} in #{params['channel']} deleted"
        if params["has_replies"]:
            # A thread parent stays as a tombstone so its replies survive.
            gone = expect.updated(
                "chat_message", params["message_id"], name=name, body="", deleted_at=is_set()
            )
        else:
            gone = expect.deleted("chat_message", params["message_id"], name=name)
        return expect.grade(ctx, gone, expect.nothing_else())
