"""Pipeline reports (reads only), computed from the opportunity rows as they are now.

Every figure has a list view holding exactly the rows it counts (`Figure.params`, query
parameters of the opportunities list), so a number can always be checked against its rows.
Amounts are summed as stored (a deal without an amount counts as 0); weighted amounts are
amount × probability / 100, rounded to whole units.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.crm import Opportunity

from .access import reports_of
from .fields import LOST, OPEN_STAGES, WON
from .listing import DATE_PRESETS, date_range, quarter_of

SCOPES = (("", "Everyone"), ("team", "My team"), ("me", "Just me"))


@dataclass(frozen=True)
class Figure:
    """A count and amount of opportunities, and the list-view parameters that show them."""

    count: int
    amount: int
    weighted: int
    params: Mapping[str, str]


@dataclass(frozen=True)
class OwnerLine:
    owner_id: int
    owner: str
    total: Figure
    stages: Mapping[str, Figure]


@dataclass(frozen=True)
class Pipeline:
    scope: str
    close: str
    stages: tuple[tuple[str, Figure], ...]
    owners: tuple[OwnerLine, ...]
    total: Figure
    quarter: tuple[date, date]
    won: Figure
    lost: Figure

    @property
    def win_rate(self) -> int | None:
        """Won as a percentage of deals closed this quarter (None if none closed)."""
        closed = self.won.count + self.lost.count
        return round(100 * self.won.count / closed) if closed else None


def _owner_ids(db: Session, actor: Employee, scope: str) -> list[int] | None:
    if scope == "me":
        return [actor.id]
    if scope == "team":
        return sorted({actor.id} | reports_of(db, actor.id))
    return None


def _sums(db: Session, conditions: list, group_by: tuple = ()) -> list[tuple]:
    weighted = func.sum(func.coalesce(Opportunity.amount, 0) * Opportunity.probability / 100.0)
    statement = select(
        *group_by,
        func.count(Opportunity.id),
        func.coalesce(func.sum(Opportunity.amount), 0),
        func.coalesce(weighted, 0),
    ).where(*conditions)
    if group_by:
        statement = statement.group_by(*group_by)
    return list(db.execute(statement).all())


def pipeline(db: Session, actor: Employee, scope: str = "", close: str = "") -> Pipeline:
    """Open pipeline by stage and by owner × stage, and won/lost in the current quarter.

    `scope` limits owners ("", "team" or "me"); `close` limits the open pipeline to a close
    date preset of the list views ("this_quarter", ...). Won/lost always cover this quarter.
    """
    if scope not in dict(SCOPES):
        scope = ""
    if close not in dict(DATE_PRESETS):
        close = ""
    today = world_now(db).date()
    owners = _owner_ids(db, actor, scope)
    base: list = []
    if owners is not None:
        base.append(Opportunity.owner_id.in_(owners))
    open_conditions = [*base, Opportunity.stage.in_(OPEN_STAGES)]
    if close:
        low, high = date_range(close, today)
        if low:
            open_conditions.append(Opportunity.close_date >= low)
        if high:
            open_conditions.append(Opportunity.close_date <= high)
    common = {"owner": scope} if scope else {}
    if close:
        common = {**common, "close": close}

    def figure(count, amount, weighted, **params: str) -> Figure:
        return Figure(int(count), int(amount), round(weighted), {**common, **params})

    by_stage = {stage: (0, 0, 0.0) for stage in OPEN_STAGES}
    for stage, count, amount, weighted in _sums(db, open_conditions, (Opportunity.stage,)):
        by_stage[stage] = (count, amount, weighted)
    stages = tuple((s, figure(*by_stage[s], stage=s)) for s in OPEN_STAGES)
    total = figure(*_sums(db, open_conditions)[0], stage="open")

    rows = _sums(db, open_conditions, (Opportunity.owner_id, Opportunity.stage))
    names = dict(db.execute(select(Employee.id, Employee.display_name)).all())
    per_owner: dict[int, dict[str, tuple]] = {}
    for owner_id, stage, count, amount, weighted in rows:
        per_owner.setdefault(owner_id, {})[stage] = (count, amount, weighted)
    lines = []
    for owner_id, cells in per_owner.items():
        owner_params = {"owner": str(owner_id)}
        owner_total = figure(
            sum(c[0] for c in cells.values()),
            sum(c[1] for c in cells.values()),
            sum(c[2] for c in cells.values()),
            stage="open",
            **owner_params,
        )
        line_stages = {
            stage: figure(*cells.get(stage, (0, 0, 0.0)), stage=stage, **owner_params)
            for stage in OPEN_STAGES
        }
        lines.append(OwnerLine(owner_id, names[owner_id], owner_total, line_stages))
    lines.sort(key=lambda line: (-line.total.amount, line.owner, line.owner_id))

    start, end = quarter_of(today)
    in_quarter = [*base, Opportunity.close_date >= start, Opportunity.close_date <= end]
    closed_common = {"owner": scope} if scope else {}
    won_lost = {WON: (0, 0, 0.0), LOST: (0, 0, 0.0)}
    for stage, count, amount, weighted in _sums(
        db, [*in_quarter, Opportunity.stage.in_((WON, LOST))], (Opportunity.stage,)
    ):
        won_lost[stage] = (count, amount, weighted)
    won = Figure(
        won_lost[WON][0],
        won_lost[WON][1],
        round(won_lost[WON][2]),
        {**closed_common, "stage": "won", "close": "this_quarter"},
    )
    lost = Figure(
        won_lost[LOST][0],
        won_lost[LOST][1],
        round(won_lost[LOST][2]),
        {**closed_common, "stage": "lost", "close": "this_quarter"},
    )
    return Pipeline(scope, close, stages, tuple(lines), total, (start, end), won, lost)


def my_numbers(db: Session, actor: Employee) -> dict[str, Figure]:
    """The signed-in person's headline figures for the CRM home page."""
    today = world_now(db).date()
    start, end = quarter_of(today)
    mine = Opportunity.owner_id == actor.id
    open_deals = _sums(db, [mine, Opportunity.stage.in_(OPEN_STAGES)])[0]
    closing = _sums(
        db,
        [
            mine,
            Opportunity.stage.in_(OPEN_STAGES),
            Opportunity.close_date >= start,
            Opportunity.close_date <= end,
        ],
    )[0]
    won = _sums(
        db,
        [
            mine,
            Opportunity.stage == WON,
            Opportunity.close_date >= start,
            Opportunity.close_date <= end,
        ],
    )[0]
    overdue = db.scalar(
        select(func.count(Opportunity.id)).where(
            mine, Opportunity.stage.in_(OPEN_STAGES), Opportunity.close_date < today
        )
    )

    def fig(row, **params: str) -> Figure:
        return Figure(int(row[0]), int(row[1]), round(row[2]), params)

    return {
        "open": fig(open_deals, owner="me", stage="open"),
        "closing": fig(closing, owner="me", stage="open", close="this_quarter"),
        "won": fig(won, owner="me", stage="won", close="this_quarter"),
        "overdue": Figure(
            int(overdue or 0), 0, 0, {"owner": "me", "stage": "open", "close": "past"}
        ),
    }


def stage_counts(db: Session) -> dict[str, int]:
    """How many opportunities are in each stage (every stage listed)."""
    counts = dict(
        db.execute(select(Opportunity.stage, func.count()).group_by(Opportunity.stage)).all()
    )
    return {stage: counts.get(stage, 0) for stage in (*OPEN_STAGES, WON, LOST)}


__all__ = ["SCOPES", "Figure", "OwnerLine", "Pipeline", "my_numbers", "pipeline", "stage_counts"]
