"""chat.edit_number — correct a wrong figure in one of the user's own messages.

The user posted a message with a figure in it (a deal amount, a phone number, a team metric)
and names the channel, the figure as posted and the right one. The fix is an edit of that
message that swaps the one figure and keeps the rest: the verifier expects exactly the posted
text with the figure replaced (case and spacing aside), so the old figure is gone and nothing
else moved. The wrong-record probe edits another of the user's messages with a figure.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.match import squash, verbatim
from officegym.tasks.pools import per_golden
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from ._channels import other_own_message, own_message_params, own_messages, texts_by_author
from .base import ChatTemplate
from .ui import find_message, message_menu, open_message

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions


@dataclass(frozen=True)
class _Figure:
    """A kind of figure people post: where it sits in a message and how to name it."""

    kind: str
    pattern: re.Pattern[str]
    what: str


_PHONE = r"(?P<figure>\+\d[\d -]*\d)"
_FIGURES = (
    _Figure(
        "money",
        re.compile(r"\*(?P<deal>[^*]+)\*[^$]*?(?P<figure>\$\d{1,3}(?:,\d{3})+)(?![\d,])"),
        "the amount for {deal}",
    ),
    _Figure(
        "phone",
        re.compile(r"(?P<who>[A-Z][a-z][\w.'-]*(?: [A-Z][a-z][\w.'-]*)+)'s mobile is " + _PHONE),
        "{who}'s mobile number",
    ),
    _Figure(
        "phone",
        re.compile(r"(?P<who>[A-Z]\w+ [A-Z]\w+) at [^:]+ gave me a new direct line: " + _PHONE),
        "{who}'s direct line",
    ),
    _Figure(
        "phone",
        re.compile(
            r"needs to reach (?P<who>[A-Z]\w+ [A-Z]\w+) \([^)]*\), their number is " + _PHONE
        ),
        "{who}'s phone number",
    ),
    _Figure("metric", re.compile(r"CSAT for last week: (?P<figure>\d+%)"), "last week's CSAT"),
    _Figure(
        "metric",
        re.compile(r"new search is at (?P<figure>\d+%) rollout"),
        "the rollout share of the new search",
    ),
    _Figure("metric", re.compile(r"[Bb]acklog is down to (?P<figure>\d+)\b"), "the ticket backlog"),
    _Figure(
        "metric",
        re.compile(r"[Ww]ebinar registrations are at (?P<figure>\d+)\b"),
        "the webinar registration count",
    ),
    _Figure(
        "metric",
        re.compile(r"security training .*takes about (?P<figure>\d+ minutes)"),
        "the time the security training takes",
    ),
    _Figure(
        "metric",
        re.compile(r"over (?P<figure>\d+%) discount needs deal desk"),
        "the discount level that needs deal desk sign-off",
    ),
)

_PHRASINGS = (
    "I posted the wrong number in #{channel}: {what} is {correct}, not {figure}. "
    "Please fix my message.",
    "Typo in my message in #{channel} — {what} should read {correct}, not {figure}. "
    "Can you edit it?",
    "Can you correct my post in #{channel}? I wrote {figure}, but {what} is actually {correct}.",
    "My message in #{channel} has {what} as {figure}; it's really {correct}. "
    "Please update that message.",
)


def _new_figure(figure: str, kind: str, rng: random.Random) -> str:
    """A plausible corrected value for `figure`, formatted the same way and different."""
    while True:
        if kind == "phone":
            digits = [ch for ch in figure if ch.isdigit()]
            tail = [str(rng.randrange(10)) for _ in range(4)]
            new_digits = iter(digits[:-4] + tail)
            fixed = "".join(next(new_digits) if ch.isdigit() else ch for ch in figure)
        elif figure.startswith("$"):
            value = int(figure[1:].replace(",", ""))
            factor = rng.choice((0.8, 0.85, 0.9, 1.1, 1.15, 1.2, 1.25))
            fixed = f"${max(500, round(value * factor / 500) * 500):,}"
        else:
            number = int(re.match(r"\d+", figure).group())
            step = rng.randint(2, max(4, number // 4)) * rng.choice((-1, 1))
            if figure.endswith("%"):
                value = min(99, max(1, number + step))
            else:
                value = max(1, number + step)
            fixed = re.sub(r"\d+", str(value), figure, count=1)
        if fixed != figure:
            return fixed


@per_golden
def figure_candidates(world: sqlite3.Connection) -> list[dict[str, Any]]:
    """Messages with exactly one recognisable figure that no other message of the same
    author in the same channel repeats (so "my message with X in #c" is one message)."""
    rows = own_messages(world)
    own = texts_by_author(world)
    found = []
    for mine in rows:
        _, channel_id, _, user_id, _, _, body = mine
        for fig in _FIGURES:
            hits = list(fig.pattern.finditer(body))
            if len(hits) != 1:
                continue
            hit = hits[0]
            figure = hit.group("figure")
            if body.count(figure) != 1:
                continue
            if sum(figure in text for text in own[(user_id, channel_id)]) != 1:
                continue
            found.append(
                {
                    **own_message_params(mine),
                    "body": body,
                    "kind": fig.kind,
                    "figure": figure,
                    "span": [hit.start("figure"), hit.end("figure")],
                    "what": fig.what.format(**{k: squash(v) for k, v in hit.groupdict().items()}),
                }
            )
            break
    return found


def _fixed(candidate: Mapping[str, Any], correct: str) -> str:
    start, end = candidate["span"]
    return candidate["body"][:start] + correct + candidate["body"][end:]


@register
class EditNumber(ChatTemplate):
    id = "chat.edit_number"
    difficulty = 3
    difficulty_reason = (
        "find one's own message by a figure in a named channel (search or scroll), then edit "
        "it so only that figure changes"
    )
    tags = ("search", "form")
    max_steps = 20

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        candidates = figure_candidates(world)
        kinds = sorted({c["kind"] for c in candidates})
        kind = rng.choice(kinds)
        target = rng.choice([c for c in candidates if c["kind"] == kind])
        correct = _new_figure(target["figure"], target["kind"], rng)
        # The wrong-record probe fixes another message of the same author (same channel
        # when there is one): a near miss an agent reading carelessly could make.
        other = other_own_message(candidates, target, rng)
        decoy = None
        if other is not None:
            decoy = {
                "message_id": other["message_id"],
                "channel": other["channel"],
                "figure": other["figure"],
                "fixed_body": _fixed(other, _new_figure(other["figure"], other["kind"], rng)),
            }
        return {
            "message_id": target["message_id"],
            "channel_id": target["channel_id"],
            "channel": target["channel"],
            "user_id": target["user_id"],
            "user": target["user"],
            "user_name": target["user_name"],
            "kind": target["kind"],
            "what": target["what"],
            "figure": target["figure"],
            "correct": correct,
            "fixed_body": _fixed(target, correct),
            "decoy": decoy,
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(**params)

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        author, phrase = params["user_name"], params["figure"]
        open_message(actions, params["channel"], phrase, author)
        message_menu(actions, lambda: find_message(actions, phrase, author), "Edit message")
        actions.fill(actions.find("textbox", "Message", exact=True), params["fixed_body"])
        actions.click(actions.find("button", "Save changes", exact=True))
        actions.send_msg_to_user(
            f"Fixed: your message in #{params['channel']} now says {params['correct']}."
        )

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.updated(
                "chat_message",
                params["message_id"],
                name=f"message in #{params['channel']} says {params['correct']}",
                body=verbatim(params["fixed_body"]),
            ),
            expect.nothing_else(),
        )
