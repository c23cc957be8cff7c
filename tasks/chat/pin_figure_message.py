"""chat.pin_figure_message — pin the message in a channel that holds a named figure.

The message is named only by a dollar figure it quotes ("the message with the $48,000
figure"), which no other message in the channel holds. The near miss is another message in
the same channel with a different figure. One instance in six names a figure that no message
in the channel holds: the right move is to look, find nothing, and say so with
`report_infeasible`.
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
from .base import ChatTemplate
from .ui import find_message, hits, message_menu, search

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# A dollar figure as chat writes it ("$48,000"), and any such number with or without "$".
_AMOUNT = re.compile(r"\$\d{1,3}(?:,\d{3})+(?![\d,])")
_NUMBER = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)")
_PHRASINGS = (
    "Pin the message in #{channel} with the {figure} figure.",
    "Someone in #{channel} posted a {figure} number. Pin that message to the channel.",
    "Could you pin the #{channel} message that mentions {figure}? I keep losing it.",
)


def _digits(figure: str) -> re.Pattern[str]:
    """The figure's digits as they appear in text, with or without the currency sign."""
    return re.compile(r"(?<![\d,.])" + re.escape(figure.lstrip("$")) + r"(?![\d,]|\.\d)")


def figure_messages(world: sqlite3.Connection) -> dict[int, list[tuple[int, str]]]:
    """Channel id → (message id, figure) for top-level messages quoting a dollar figure that
    no other live message of the channel holds (with or without the dollar sign)."""
    holders: dict[int, Counter[str]] = defaultdict(Counter)
    quoted: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for message_id, channel_id, _, _, _, body, parent in channel_messages(world):
        holders[channel_id].update(set(_NUMBER.findall(body)))
        if parent is None:
            quoted[channel_id] += [(message_id, f) for f in sorted(set(_AMOUNT.findall(body)))]
    return {
        channel_id: [(m, f) for m, f in found if holders[channel_id][f[1:]] == 1]
        for channel_id, found in sorted(quoted.items())
    }


def absent_figures(world: sqlite3.Connection) -> list[str]:
    """Deal amounts, written as chat writes them, that no chat message quotes."""
    bodies = [body for (body,) in world.execute("SELECT body FROM chat_message ORDER BY id")]
    said = {f for body in bodies for f in _AMOUNT.findall(body)}
    amounts = world.execute(
        "SELECT DISTINCT CAST(amount AS INTEGER) FROM crm_opportunity WHERE amount >= 1000"
        " ORDER BY 1"
    ).fetchall()
    return [f"${a:,}" for (a,) in amounts if f"${a:,}" not in said]


@register
class PinFigureMessage(ChatTemplate):
    id = "chat.pin_figure_message"
    difficulty = 3
    impossible_instances = True
    difficulty_reason = (
        "the message is named only by a number in its text: search or scan the channel for "
        "it, tell it from messages with other figures, and pin it from the message menu; "
        "sometimes no message holds the figure"
    )
    tags = ("navigation", "search")
    max_steps = 15

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        members = active_members(world)
        pinned = {m for (m,) in world.execute("SELECT message_id FROM chat_pin ORDER BY id")}
        figures = {
            channel_id: [(m, f) for m, f in found if m not in pinned]
            for channel_id, found in figure_messages(world).items()
        }
        names = dict(world.execute("SELECT id, name FROM chat_channel ORDER BY id").fetchall())
        channels = [c for c in sorted(figures) if len(figures[c]) >= 2 and members[c]]
        channel_id = rng.choice(channels)
        user_id, email, name = rng.choice(members[channel_id])
        feasible = rng.random() >= 1 / 6
        if feasible:
            message_id, figure = rng.choice(figures[channel_id])
            others = [f for m, f in figures[channel_id] if m != message_id]
            decoy: dict[str, Any] | None = {"figure": rng.choice(others)}
        else:
            # Not even as part of a longer number ("$5,500" in "$15,500"), to leave no doubt.
            bodies = [m[5] for m in channel_messages(world) if m[1] == channel_id]
            unheard = [f for f in absent_figures(world) if not any(f[1:] in b for b in bodies)]
            message_id, figure, decoy = None, rng.choice(unheard), None
        return {
            "channel_id": channel_id,
            "channel": names[channel_id],
            "figure": figure,
            "message_id": message_id,
            "feasible": feasible,
            "user_id": user_id,
            "user": email,
            "user_name": name,
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        channel, figure = params["channel"], params["figure"]
        search(actions, f'"{figure.lstrip("$")}" in:#{channel}')
        found = [
            h.bid
            for h in hits(actions)
            if figure.casefold() in h.name.casefold() and _digits(figure).search(h.name)
        ]
        if not found:
            actions.report_infeasible(f"No message in #{channel} mentions {figure}.")
            return
        if len(found) > 1:
            raise LookupError(f"{len(found)} messages in #{channel} mention {figure}")
        actions.click(found[0])
        message_menu(actions, lambda: find_message(actions, figure), "Pin to channel")
        actions.send_msg_to_user(f"Pinned the {figure} message in #{channel}.")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        if not params["feasible"]:
            return expect.grade(ctx, expect.infeasible(), expect.nothing_else())
        return expect.grade(
            ctx,
            expect.inserted(
                "chat_pin",
                name=f"the {params['figure']} message pinned in #{params['channel']}",
                message_id=params["message_id"],
                channel_id=params["channel_id"],
                pinned_by_id=params["user_id"],
            ),
            expect.nothing_else(),
        )
