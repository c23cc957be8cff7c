"""Final worlds for the Booking verifiers, made the way the product makes them: each act runs
through `officegym.apps.booking.service` as some employee, in its own committed transaction,
on a fresh copy of the golden world; then the template's verifier grades that world with the
final message or infeasibility report given."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.seed_data.schema import Employee
from officegym.tasks.verdict import Verdict
from tests.tasks.episodes import played

# An act: what someone does through the service, given the session and a way to find people.
Act = Callable[[Session, Callable[[str], Employee]], None]


def person(db: Session) -> Callable[[str], Employee]:
    """Employees by email, in the act's session."""

    def find(email: str) -> Employee:
        found = db.scalar(select(Employee).where(Employee.email == email))
        assert found is not None, email
        return found

    return find


def play(
    store,
    golden: Path,
    tid: str,
    params: Mapping[str, Any],
    *acts: Act,
    answer: str | None = None,
    infeasible: str | None = None,
    forge: tuple[str, tuple] | None = None,
) -> Verdict:
    """The verdict of `tid` on a fresh world where `acts` ran (each committed), then `forge`
    (a raw SQL edit no product act would make)."""
    steps = [lambda db, act=act: act(db, person(db)) for act in acts]
    return played(
        store, golden, tid, params, steps,
        answer=answer, infeasible=infeasible, forge=forge, prefix="booking",
    )  # fmt: skip


def pick(instances, tid: str, when=lambda p: True, feasible: bool = True) -> dict[str, Any]:
    """The first instance's params of `tid` that is (in)feasible and meets `when`."""
    found = [
        t.params
        for t in instances[tid]
        if t.params.get("feasible", True) is feasible and when(t.params)
    ]
    assert found, f"no {'feasible' if feasible else 'impossible'} instance of {tid} fits"
    return dict(found[0])


def passes(verdict: Verdict) -> bool:
    return verdict.success and verdict.score == 1.0


def fails(verdict: Verdict) -> bool:
    return not verdict.success and verdict.score < 1.0
