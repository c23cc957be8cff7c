"""booking.team_nights_answer — how many nights the user spent in confirmed stays that checked
in during a past period (last quarter, last month or a named month) (test split).

The Booking app shows each person only their own trips (and those they booked for others):
no page lists a team's stays, so the question is asked of the user's own travel, the part of a
team's total each member can report. The answer is the sum of the nights of the confirmed
stays the user took (as the traveller) whose check-in falls in the period, by the world clock.
Plausible wrong answers: the number of stays, the nights counted with trips the user booked
for colleagues or with cancelled ones, and the nights of stays that checked out in the
period. Nothing may change. The wrong-record probe answers for another period.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _world
from ._formats import parse_stay_range
from .base import BookingTemplate
from .ui import open_trips, trip_rows

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# Test split: phrased unlike any training goal.
_PHRASINGS = (
    "For my travel report: adding up the confirmed stays where I was the guest and the "
    "check-in fell {period}, how many nights is that?",
    "Tally the nights I was booked into (confirmed, me as the traveller) for stays starting "
    "{period}. Just the number, please.",
    "What's my night count {period}? Only confirmed stays I travelled on myself, by check-in date.",
)


def periods(today: date) -> list[tuple[str, date, date]]:
    """(how the goal says it, first day, last day) of the periods a question may ask about:
    the previous calendar quarter, the previous month, and the month before that."""
    quarter_start = date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)
    last_q_end = quarter_start - timedelta(days=1)
    last_q_start = date(last_q_end.year, 3 * ((last_q_end.month - 1) // 3) + 1, 1)
    month_start = today.replace(day=1)
    last_m_end = month_start - timedelta(days=1)
    last_m_start = last_m_end.replace(day=1)
    before_end = last_m_start - timedelta(days=1)
    before_start = before_end.replace(day=1)
    return [
        (
            f"last quarter ({last_q_start:%B} to {last_q_end:%B})",
            last_q_start,
            last_q_end,
        ),
        (f"last month ({last_m_start:%B})", last_m_start, last_m_end),
        (f"in {before_start:%B} {before_start.year}", before_start, before_end),
    ]


@register
class TeamNightsAnswer(BookingTemplate):
    id = "booking.team_nights_answer"
    difficulty = 3
    difficulty_reason = (
        "go through the past trips, keep the confirmed stays the user took that checked in "
        "within the period (not those booked for others) and add up their nights"
    )
    split = "test"
    tags = ("navigation", "answer")
    max_steps = 16

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = _world.people(world)
        options: dict[tuple[int, int], int] = {}
        for index, (_label, first, last) in enumerate(periods(today)):
            for t in _world.trips(world):
                if (
                    t.status == "confirmed"
                    and first <= t.check_in <= last
                    and (people[t.guest_id].active)
                ):
                    key = (index, t.guest_id)
                    options[key] = options.get(key, 0) + 1
        # Two questions in three are about someone with several stays in the period, so that the
        # answers spread beyond the one-trip lengths.
        several = sorted(k for k, n in options.items() if n > 1)
        index, person = rng.choice(several if rng.random() < 0.65 else sorted(options))
        label, first, last = periods(today)[index]
        mine = _world.trips_of(world, person)

        def nights(keep) -> int:
            return sum(t.nights for t in mine if keep(t))

        def started(t: _world.Trip) -> bool:
            return first <= t.check_in <= last

        answer = nights(lambda t: t.guest_id == person and t.status == "confirmed" and started(t))
        near = [
            sum(1 for t in mine if t.guest_id == person and t.status == "confirmed" and started(t)),
            nights(lambda t: t.status == "confirmed" and started(t)),
            nights(
                lambda t: (
                    t.guest_id == person and t.status in ("confirmed", "cancelled") and started(t)
                )
            ),  # fmt: skip
            nights(
                lambda t: (
                    t.guest_id == person
                    and t.status == "confirmed"
                    and first <= t.check_out <= last
                )
            ),  # fmt: skip
        ]
        other = (index + 1) % len(periods(today))
        return {
            "user": people[person].email,
            "period": label,
            "first": first.isoformat(),
            "last": last.isoformat(),
            "nights": answer,
            "candidates": [str(answer), *(str(n) for n in dict.fromkeys(near) if n != answer)],
            "decoy": {
                "first": periods(today)[other][1].isoformat(),
                "last": periods(today)[other][2].isoformat(),
            },
        }

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        return rng.choice(_PHRASINGS).format(period=params["period"])

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        first, last = _world.day_of(params["first"]), _world.day_of(params["last"])
        total = 0
        for tab in ("Past", "Upcoming"):
            open_trips(actions, tab)
            for row in trip_rows(actions):
                check_in, check_out = parse_stay_range(row.columns["Dates"])
                if " · for " in row.columns.get("Stay", ""):
                    continue
                if first <= check_in <= last:
                    total += (check_out - check_in).days
        actions.send_msg_to_user(f"{total} nights")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            expect.answer(
                params["nights"],
                kind="number",
                unit="night",
                distractors=params["candidates"][1:],
                name="the nights",
            ),
            expect.nothing_else(),
        )


__all__ = ["TeamNightsAnswer", "periods"]
