"""The pipeline board (reads only): opportunities as cards in one column per stage.

A column shows its biggest deals first (amount, highest first, then the soonest close date)
and at most `limit` cards: CARDS at first, CARDS more each time the reader asks that column for
more. Its count and amount are over every deal in the column, shown or not. The board takes
the opportunities list's `owner`, `q` and `close` filters; the closed columns show deals
closed this quarter unless a close date range is chosen.

Two queries make the whole board however many columns it has: one counts and sums each stage
(GROUP BY), one fetches each column's first cards (a row number over each stage).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.crm import Account, Opportunity

from .access import edit_scope
from .fields import LOST, OPEN_STAGES, WON
from .listing import conditions

CARDS = 10
MAX_CARDS = 200
STAGES = (*OPEN_STAGES, WON, LOST)
FILTERS = ("owner", "q", "close")


def slug(stage: str) -> str:
    """A stage as a URL parameter and element id part: "Needs Analysis" -> "needs_analysis"."""
    return re.sub(r"[^a-z0-9]+", "_", stage.lower()).strip("_")


def limit_param(stage: str) -> str:
    """The query parameter that says how many cards the column of `stage` shows."""
    return f"show_{slug(stage)}"


@dataclass(frozen=True)
class Card:
    id: int
    name: str
    account: str
    amount: int | None
    close_date: date
    owner: str
    editable: bool


@dataclass(frozen=True)
class Column:
    stage: str
    slug: str
    total: int
    amount: int
    limit: int
    cards: tuple[Card, ...]

    @property
    def hidden(self) -> int:
        """How many of the column's deals its cards leave out."""
        return self.total - len(self.cards)


@dataclass(frozen=True)
class Board:
    columns: tuple[Column, ...]
    params: Mapping[str, str]
    errors: Mapping[str, str]


def _limit(raw: Any) -> int:
    """A column's card count from its query parameter: CARDS to MAX_CARDS (CARDS if not a
    number)."""
    text = str(raw or "").strip()
    if not text.isdecimal():
        return CARDS
    return MAX_CARDS if len(text) > 4 else min(max(int(text), CARDS), MAX_CARDS)


def pipeline(db: Session, actor: Employee, args: Mapping[str, str]) -> Board:
    """The board for these query parameters (see the module docstring); bad filter values are
    reported in `errors` and left out."""
    params = {name: str(args.get(name, "")).strip() for name in FILTERS}
    closed_params = dict(params)
    if not params["close"]:
        closed_params["close"] = "this_quarter"
    open_where, errors = conditions(db, actor, "opportunities", params)
    closed_where, closed_errors = conditions(db, actor, "opportunities", closed_params)
    errors = {**closed_errors, **errors}
    model = Opportunity
    where = or_(
        and_(model.stage.in_(OPEN_STAGES), *open_where),
        and_(model.stage.in_((WON, LOST)), *closed_where),
    )
    limits = {stage: _limit(args.get(limit_param(stage))) for stage in STAGES}

    figures = {
        stage: (count, int(amount or 0))
        for stage, count, amount in db.execute(
            select(model.stage, func.count(model.id), func.sum(model.amount))
            .where(where)
            .group_by(model.stage)
        )
    }

    place = (
        func.row_number()
        .over(
            partition_by=model.stage,
            order_by=(model.amount.desc().nulls_last(), model.close_date, model.id),
        )
        .label("place")
    )
    ranked = select(model.id, model.stage, place).where(where).subquery()
    shown = or_(*(and_(ranked.c.stage == s, ranked.c.place <= n) for s, n in limits.items()))
    statement = (
        select(
            model.id,
            model.stage,
            model.name,
            Account.name,
            model.amount,
            model.close_date,
            Employee.display_name,
            model.owner_id,
        )
        .join(ranked, ranked.c.id == model.id)
        .join(Account, Account.id == model.account_id)
        .join(Employee, Employee.id == model.owner_id)
        .where(shown)
        .order_by(ranked.c.stage, ranked.c.place)
    )
    scope = edit_scope(db, actor)
    cards: dict[str, list[Card]] = {stage: [] for stage in STAGES}
    for opp_id, stage, name, account, amount, close, owner, owner_id in db.execute(statement):
        cards[stage].append(
            Card(opp_id, name, account, amount, close, owner, scope.allows(owner_id))
        )
    columns = tuple(
        Column(
            stage=stage,
            slug=slug(stage),
            total=figures.get(stage, (0, 0))[0],
            amount=figures.get(stage, (0, 0))[1],
            limit=limits[stage],
            cards=tuple(cards[stage]),
        )
        for stage in STAGES
    )
    return Board(columns, params, errors)


__all__ = [
    "CARDS",
    "MAX_CARDS",
    "STAGES",
    "Board",
    "Card",
    "Column",
    "limit_param",
    "pipeline",
    "slug",
]
