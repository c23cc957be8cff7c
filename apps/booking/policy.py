"""Which travel policy applies to a traveller: the city's policy, else the default one, with
the nightly cap of the traveller's job level.

A world always has a default policy (`city` NULL); one without any policy at all has nothing
to break, so every stay there is in policy.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.seed_data import booking_rules
from officegym.seed_data.booking_rules import PolicyTerms
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import PolicyCap, TravelPolicy

NO_POLICY = PolicyTerms(
    name="No travel policy",
    nightly_cap=10**9,
    approval_over_total=10**12,
    min_advance_days=0,
    max_nights=10**6,
    preferred_only=False,
)


def for_city(db: Session, city: str | None) -> TravelPolicy | None:
    """The policy row for stays in `city` (the city's own, matched ignoring case, else the
    default), or None when the world has no policy."""
    if city:
        own = db.scalars(
            select(TravelPolicy)
            .where(func.lower(TravelPolicy.city) == city.strip().lower())
            .order_by(TravelPolicy.id)
        ).first()
        if own is not None:
            return own
    return db.scalars(
        select(TravelPolicy).where(TravelPolicy.city.is_(None)).order_by(TravelPolicy.id)
    ).first()


def for_traveller(db: Session, employee: Employee, city: str | None) -> PolicyTerms:
    """The policy terms for `employee` staying in `city`: the city's policy (else the default)
    with the cap set for the employee's job level, else the policy's own nightly cap."""
    policy = for_city(db, city)
    if policy is None:
        return NO_POLICY
    caps = db.execute(
        select(PolicyCap.__table__).where(
            PolicyCap.policy_id == policy.id, PolicyCap.job_level == employee.job_level
        )
    )
    row = {c.name: getattr(policy, c.key) for c in TravelPolicy.__table__.columns}
    return booking_rules.policy_terms(row, caps.mappings().all(), employee.job_level)


__all__ = ["NO_POLICY", "for_city", "for_traveller"]
