"""chat.set_status — set the user's own status: an emoji and a short text.

The status form lives behind the status line at the foot of the sidebar (/chat/status): an
emoji picker (options read "<emoji> <name>") and a text field. The goal shows the emoji
itself or names it; only emoji that no other choice draws the same are used.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.apps.chat.markdown import emoji_char
from officegym.tasks import expect
from officegym.tasks.match import verbatim
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from .base import ChatTemplate

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_STATUSES = (
    ("palm_tree", "On vacation until Monday"),
    ("airplane", "Flying to Singapore, back online Thursday"),
    ("thermometer", "Out sick today, back tomorrow"),
    ("house", "Working from home this week"),
    ("headphones", "Deep work until 3pm, ping only if urgent"),
    ("spiral_calendar", "Workshops all afternoon"),
    ("car", "Driving to the client site"),
    ("books", "At a training course until Wednesday"),
    ("hospital", "Doctor's appointment, back at 2"),
    ("coffee", "Grabbing coffee, back in 15"),
    ("train", "On the train, patchy signal"),
    ("baby", "On parental leave until November"),
)
_PHRASINGS = (
    "Change what my chat profile shows as my status to {glyph} “{text}”.",
    "I'm updating my availability: emoji {glyph}, wording “{text}”. Set that as my status.",
    "My status ought to read “{text}” with the {label} emoji next to it. Make it so.",
)


def label(emoji: str) -> str:
    """How the status form names an emoji: "palm tree"."""
    return emoji.replace("_", " ")


@register
class SetStatus(ChatTemplate):
    id = "chat.set_status"
    split = "test"
    difficulty = 1
    difficulty_reason = "one form behind the sidebar's status line: pick the emoji, type the text"
    tags = ("navigation", "form")
    max_steps = 10

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        emoji, text = rng.choice(_STATUSES)
        # Only people the change is a change for: a different emoji and text today.
        people = world.execute(
            """
            SELECT id, email, display_name FROM people_employee
            WHERE is_active AND status_emoji != ? AND lower(status_text) != lower(?)
            ORDER BY id
            """,
            (emoji, text),
        ).fetchall()
        user_id, email, name = rng.choice(people)
        others = sorted({e for e, _ in _STATUSES} - {emoji})
        return {
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "emoji": emoji,
            "glyph": emoji_char(emoji),
            "label": label(emoji),
            "text": text,
            # The wrong-record probe picks another emoji with the same text.
            "decoy": {"emoji": rng.choice(others)},
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        # The status line ("Set a status", or the current one) ends the sidebar.
        sidebar = actions.find("navigation", "Channels and direct messages", exact=True)
        actions.click(actions.find_all("link", within=sidebar)[-1])
        emoji = params["emoji"]
        actions.select_option(
            actions.find("combobox", "Emoji", exact=True), f"{emoji_char(emoji)} {label(emoji)}"
        )
        actions.fill(actions.find("textbox", "What's your status?", exact=True), params["text"])
        actions.click(actions.find("button", "Save status", exact=True))
        actions.send_msg_to_user("Status set.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.updated(
                "people_employee",
                params["user_id"],
                name="status set",
                status_emoji=params["emoji"],
                status_text=verbatim(params["text"]),
            ),
            expect.nothing_else(),
        )
