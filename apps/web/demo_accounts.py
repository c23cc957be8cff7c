"""Who to sign in as first: people whose home pages have something to do on them.

The login page suggests a sales rep with open deals, a manager with reports and approvals
waiting, a busy chat member and the head of the company, each with the reason in a few words,
then fills in with the first person of other teams. Read from the world, so the suggestions
hold in every seed and scale."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from officegym.seed_data.schema import Approval, Employee, Membership, Opportunity

_CLOSED = ("Closed Won", "Closed Lost")


@dataclass(frozen=True)
class DemoAccount:
    person: Employee
    why: str


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _rep(db: Session) -> tuple[int, str] | None:
    deals = func.count(Opportunity.id)
    row = db.execute(
        select(Opportunity.owner_id, deals)
        .join(Employee, Employee.id == Opportunity.owner_id)
        .where(Employee.is_active, Employee.role == "member", Opportunity.stage.not_in(_CLOSED))
        .group_by(Opportunity.owner_id)
        .order_by(deals.desc(), Opportunity.owner_id)
        .limit(1)
    ).first()
    return (row[0], f"Sales rep · {_plural(row[1], 'open deal')}") if row else None


def _manager(db: Session) -> tuple[int, str] | None:
    report = aliased(Employee)
    reports = (
        select(func.count(report.id))
        .where(report.manager_id == Approval.approver_id, report.is_active)
        .correlate_except(report)
        .scalar_subquery()
    )
    waiting = func.count(Approval.id)
    row = db.execute(
        select(Approval.approver_id, waiting, reports)
        .join(Employee, Employee.id == Approval.approver_id)
        .where(Approval.status == "pending", Employee.is_active, Employee.role == "manager")
        .group_by(Approval.approver_id)
        .order_by(waiting.desc(), Approval.approver_id)
        .limit(1)
    ).first()
    if not row:
        return None
    approver, pending, team = row
    why = f"Manager · {_plural(team, 'report')} · {_plural(pending, 'approval')} waiting"
    return approver, why


def _chatter(db: Session) -> tuple[int, str] | None:
    channels = func.count(Membership.id)
    row = db.execute(
        select(Membership.employee_id, channels)
        .join(Employee, Employee.id == Membership.employee_id)
        .where(Employee.is_active, Employee.role == "member")
        .group_by(Membership.employee_id)
        .order_by(channels.desc(), Membership.employee_id)
        .limit(1)
    ).first()
    return (row[0], f"In {_plural(row[1], 'conversation')}") if row else None


def _head(db: Session) -> tuple[int, str] | None:
    row = db.execute(
        select(Employee.id)
        .where(Employee.is_active, Employee.manager_id.is_(None))
        .order_by(Employee.id)
        .limit(1)
    ).first()
    return (row[0], "Runs the company") if row else None


def demo_accounts(db: Session, limit: int = 5) -> list[DemoAccount]:
    """Up to `limit` active people to try, each with why: rep, manager, chat member, head of
    the company, then the first person of each other team."""
    picks: dict[int, str] = {}
    for find in (_rep, _manager, _chatter, _head):
        found = find(db)
        if found and found[0] not in picks:
            picks[found[0]] = found[1]
    first_per_team = (
        select(func.min(Employee.id)).where(Employee.is_active).group_by(Employee.team_id)
    )
    for (person_id,) in db.execute(
        select(Employee.id).where(Employee.id.in_(first_per_team)).order_by(Employee.id)
    ):
        picks.setdefault(person_id, "")
    chosen = list(picks.items())[:limit]
    people = {p.id: p for p in db.scalars(select(Employee).where(Employee.id.in_(picks)))}
    return [DemoAccount(people[i], why or people[i].title) for i, why in chosen]


__all__ = ["DemoAccount", "demo_accounts"]
