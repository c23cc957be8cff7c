"""What the trip and approval templates share beyond `_world`, `_checks` and `ui`: which
waiting requests a manager can approve, which trips can be shortened, the CRM accounts a
customer visit can name, the words colleagues use for them, and the oracle moves that read an
account's city in the CRM and book a stay for it.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from officegym.tasks.crm.ui import choose, field, open_record, record_field
from officegym.tasks.pools import per_golden

from . import _world

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

APPROVAL_NOTES = (
    "Approved; enjoy the trip.",
    "Fine by me, thanks for explaining.",
    "Approved. Please keep receipts for the expense report.",
    "OK for this trip.",
    "Approved, the customer visit is worth it.",
)
_VISIT_NAMES = (
    "{account} customer visit",
    "Visit to {account}",
    "{account} onsite",
    "Meeting {account}",
    "{account} account review",
)


def approval_note(rng: random.Random) -> str:
    """A manager's short comment on a request they approve."""
    return rng.choice(APPROVAL_NOTES)


def visit_name(rng: random.Random, account: str) -> str:
    """A trip name for a visit to the customer `account` (it does not name the city)."""
    return rng.choice(_VISIT_NAMES).format(account=account)


# ---- requests a manager can approve --------------------------------------------------------


@per_golden
def approvable(world: sqlite3.Connection) -> frozenset[int]:
    """Ids of the waiting requests their approver can approve today: the stay has not begun
    and its place is still free on every night (the app refuses the others)."""
    today = _world.world_today(world)
    found = set()
    for request in _world.pending_requests(world):
        trip = request.trip
        if trip.check_in < today:
            continue
        span = (trip.check_in, trip.check_out)
        if _world.free_spans(world, trip.resource_id, [span], trip.id)[span]:
            found.add(request.id)
    return frozenset(found)


def named_by_city(world: sqlite3.Connection) -> list[_world.Request]:
    """The approvable requests of active managers that "<traveller>'s <city> trip" names
    among everything waiting for their manager (the traveller's name is unique, too)."""
    people = _world.people(world)
    named = _world.unique_names(world)
    waiting = _world.pending_requests(world)
    seen = Counter((r.approver_id, people[r.trip.guest_id].name, r.trip.city) for r in waiting)
    ok = approvable(world)
    return [
        r
        for r in waiting
        if r.id in ok
        and people[r.approver_id].active
        and people[r.trip.guest_id].name in named
        and seen[r.approver_id, people[r.trip.guest_id].name, r.trip.city] == 1
    ]


# ---- trips that can be shortened -------------------------------------------------------------


def shortened(world: sqlite3.Connection, trip: _world.Trip, days: int, today: date) -> date | None:
    """The check-out of the trip left `days` earlier, when the app takes that change and keeps
    the stay confirmed: it has not begun, still meets the listing's minimum stay and breaks no
    policy rule on the new dates; else None."""
    new_out = trip.check_out - timedelta(days=days)
    if trip.check_in < today or (new_out - trip.check_in).days < max(
        1, _world.listing(world, trip.resource_id).min_nights
    ):
        return None
    if _world.breaches(world, trip.guest_id, trip.resource_id, trip.check_in, new_out, today):
        return None
    return new_out


# ---- CRM accounts --------------------------------------------------------------------------


@dataclass(frozen=True)
class Account(_world.Kept):
    id: int
    name: str
    city: str


@per_golden
def visit_accounts(world: sqlite3.Connection) -> tuple[Account, ...]:
    """CRM accounts a request can name (no other account has the name) whose billing city has
    stay listings, by id."""
    cities = set(_world.stay_cities(world))
    rows = world.execute(
        "SELECT id, name, billing_city FROM crm_account WHERE name IN "
        "(SELECT name FROM crm_account GROUP BY lower(name) HAVING count(*) = 1) ORDER BY id"
    )
    return tuple(Account(*r) for r in rows if r[2] in cities)


def account_city(actions: PageActions, account: str) -> str:
    """Open the account in the CRM (from anywhere) and read its billing city."""
    actions.goto("/crm/")
    open_record(actions, "Accounts", account)
    return record_field(actions, "Billing city")


def reserve_for_account(actions: PageActions, trip: str, account: str) -> None:
    """On a listing page with dates chosen and within the policy: Reserve, name the trip, pick
    the customer's account in the Account lookup, and book."""
    actions.click(actions.find("button", "Reserve", exact=True))
    box, _role = field(actions, "Trip name")
    actions.fill(box, trip)
    choose(actions, actions.find("combobox", "Account", exact=True), "Account", account)
    actions.click(actions.find("button", "Confirm and book", exact=True))


__all__ = [
    "APPROVAL_NOTES",
    "Account",
    "account_city",
    "approval_note",
    "approvable",
    "named_by_city",
    "reserve_for_account",
    "shortened",
    "visit_accounts",
    "visit_name",
]
