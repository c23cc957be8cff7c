"""booking.customer_visit_stay — the user visits a customer: book a stay in the customer's
city, within the travel policy, and link the trip to the customer's CRM account.

The goal names the account, not its city: the CRM's account page shows its billing city (the
Account lookup of the booking form shows it too, once a stay is chosen). Some of the city's
free listings are outside the user's policy for those dates; any listing within it passes.
The verifier expects exactly one new stay in that city for the user, on those dates, for one
guest, named as asked, confirmed without any rule broken and charged a fresh quote, linked to
that account and to no deal, and nothing else. The wrong-record probe visits another account,
in another city.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from officegym.tasks import expect
from officegym.tasks.protocol import EpisodeContext
from officegym.tasks.registry import register
from officegym.tasks.verdict import Verdict

from . import _checks as checks
from . import _world
from ._formats import short_day
from ._trip_picks import (
    account_city,
    reserve_for_account,
    visit_accounts,
    visit_name,
)
from .base import BookingTemplate
from .ui import open_listing, result_cards, search_stays, within_policy

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

_PHRASINGS = (
    "I'm visiting {account} from {first} to {last}. Book me a stay near them, within the "
    "travel policy, call the trip “{trip}” and link it to their account.",
    "Next customer trip: {account}, {first}–{last}. Please find me a place in their city "
    "that's in policy, name the trip “{trip}”, and tie the booking to the {account} account.",
    "Book my stay for the {account} visit ({first} to {last}, just me): somewhere in the city "
    "their CRM record gives, no approval needed. Trip name “{trip}”; link the {account} "
    "account.",
)
# How many results the oracle opens before it gives up finding one in policy.
OPENS = 4


def _dates(world: sqlite3.Connection, rng: random.Random, user_id: int, city: str, today: date):
    """Dates in `city` for which some free listings are in the user's policy and some are
    not, the first in policy among the `OPENS` cheapest; None when they don't exist."""
    check_in, check_out = _world.stay_dates(rng, today)
    offers = _world.search(world, city, check_in, check_out)
    allowed = [_world.in_policy(world, user_id, o, today) for o in offers]
    if not any(allowed) or all(allowed) or allowed.index(True) >= OPENS:
        return None
    return check_in, check_out


@register
class CustomerVisitStay(BookingTemplate):
    id = "booking.customer_visit_stay"
    apps = ("crm", "booking")
    difficulty = 5
    difficulty_reason = (
        "two apps: read the customer's city off its CRM account, then search that city, "
        "check listings against the travel policy and reserve one linked to the account"
    )
    tags = ("search", "form", "multi-step", "cross-app")
    max_steps = 36

    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        today = _world.world_today(world)
        people = [p for p in _world.people(world).values() if p.active]
        accounts = visit_accounts(world)
        for _ in range(200):
            user = rng.choice(people)
            account = rng.choice(accounts)
            found = _dates(world, rng, user.id, account.city, today)
            if found is not None:
                break
        else:
            raise LookupError("no account whose city has stays both in and out of policy")
        check_in, check_out = found
        # Another account, in a city where the oracle finds a stay in policy for those dates.
        others = sorted({a.city for a in accounts} - {account.city})
        decoy_city = next(
            (
                city
                for city in rng.sample(others, len(others))
                if any(
                    _world.in_policy(world, user.id, o, today)
                    for o in _world.search(world, city, check_in, check_out)[:OPENS]
                )
            ),
            None,
        )
        decoys = [a for a in accounts if a.city == decoy_city]
        return {
            "user": user.email,
            "user_id": user.id,
            "account": account.name,
            "account_id": account.id,
            "city": account.city,
            "check_in": check_in.isoformat(),
            "check_out": check_out.isoformat(),
            "trip": visit_name(rng, account.name),
            "resources": [
                item.resource_id for item in _world.listings(world) if item.city == account.city
            ],
            "decoy": {"account": rng.choice(decoys).name} if decoys else None,
        }

    def start_url(self, params: Mapping[str, Any]) -> str:
        return "/booking/"

    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        first, last = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        return rng.choice(_PHRASINGS).format(
            account=params["account"],
            first=short_day(first),
            last=short_day(last),
            trip=params["trip"],
        )

    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        check_in, check_out = (_world.day_of(params[k]) for k in ("check_in", "check_out"))
        city = account_city(actions, params["account"])
        actions.goto("/booking/")
        for rank in range(OPENS):
            search_stays(actions, city, check_in, check_out)
            cards = result_cards(actions)
            if rank >= len(cards):
                break
            open_listing(actions, cards[rank].name)
            if within_policy(actions):
                reserve_for_account(actions, params["trip"], params["account"])
                actions.send_msg_to_user(
                    f"Booked {cards[rank].name} in {city} for “{params['trip']}”, linked to the "
                    f"{params['account']} account."
                )
                return
        raise LookupError(f"none of the first {OPENS} stays in {city} is within the policy")

    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        return expect.grade(
            ctx,
            checks.stay_booked(
                guest_id=params["user_id"],
                booked_by_id=params["user_id"],
                resources=params["resources"],
                check_in=_world.day_of(params["check_in"]),
                check_out=_world.day_of(params["check_out"]),
                guests=1,
                purpose=params["trip"],
                in_policy=True,
                account_id=params["account_id"],
                name=f"a stay in {params['city']} within the policy is booked for "
                f"{params['account']}",
            ),
            expect.nothing_else(),
        )


__all__ = ["CustomerVisitStay"]
