"""The booking world's rules as pure functions: what a stay costs, what a cancellation gives
back, and which travel-policy rules a stay breaks.

The world generator prices its reservations with them and the booking app charges with them,
so a seeded reservation's total is exactly what the listing page quotes. Amounts in cents
(int); a listing's rates and fees are whole dollars. Rounding is half up, to the cent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

WEEKLY_NIGHTS = 7
# Nights of Friday and Saturday are weekend nights.
WEEKEND_NIGHTS = (4, 5)
# Cancellation: (days before check-in at least, percent of the total refunded), first match.
REFUND_RULES: dict[str, tuple[tuple[int, int], ...]] = {
    "flexible": ((1, 100), (0, 0)),
    "moderate": ((5, 100), (0, 50)),
    "strict": ((14, 100), (7, 50), (0, 0)),
}
REFUND_TEXT = {
    "flexible": "Full refund up to 1 day before check-in; no refund after that.",
    "moderate": "Full refund up to 5 days before check-in; 50% refund after that.",
    "strict": "Full refund up to 14 days before check-in, 50% up to 7 days before; "
    "no refund after that.",
}
MAX_NIGHTS = 90
MAX_GUESTS = 16


def _cents(amount: Decimal) -> int:
    return int(amount.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def percent_of(cents: int, percent: float | int) -> int:
    """`percent`% of `cents`, to the cent, half up."""
    return _cents(Decimal(cents) * Decimal(str(percent)) / 100)


def average_nightly_cents(subtotal: int, nights: int) -> int:
    """The average nightly rate of `nights` nights costing `subtotal` cents, to the cent."""
    return _cents(Decimal(subtotal) / max(1, nights))


@dataclass(frozen=True)
class Terms:
    """What a stay listing charges: rates and fees in whole dollars, percents as numbers."""

    nightly_rate: int
    weekend_rate: int | None = None
    cleaning_fee: int = 0
    weekly_discount_pct: int = 0
    service_fee_pct: int = 0
    tax_percent: float = 0.0
    tax_per_night_cents: int = 0
    # (first night, last night, percent) of the property's seasons.
    seasons: Sequence[tuple[date, date, int]] = ()


@dataclass(frozen=True)
class Night:
    night: date
    cents: int
    label: str  # "weekday", "weekend", or the season's "weekend · Summer peak"


@dataclass(frozen=True)
class Quote:
    """The price of one stay, line by line, in cents."""

    nights: tuple[Night, ...]
    subtotal: int
    discount: int
    cleaning: int
    service: int
    taxes: int
    total: int
    season_names: tuple[str, ...] = field(default=())

    @property
    def count(self) -> int:
        return len(self.nights)

    @property
    def average_nightly(self) -> int:
        """The average nightly rate before fees, discounts and taxes, in cents."""
        return average_nightly_cents(self.subtotal, len(self.nights))

    def to_json(self) -> dict[str, Any]:
        """The quote as JSON-ready data: every field, nights as ISO dates. Built field by field
        (`dataclasses.asdict` deep-copies and is too slow for a world's thousands of stays)."""
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        data["nights"] = [
            {"night": n.night.isoformat(), "cents": n.cents, "label": n.label} for n in self.nights
        ]
        data["season_names"] = list(self.season_names)
        return data


def _day(value: date | str) -> date:
    """A date from a row: a `date` (or datetime), or the ISO text SQLite hands back."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


def _row_id(row: Mapping[str, Any]) -> int:
    try:
        return int(row["id"])
    except (KeyError, IndexError):  # a mapping without ids; sqlite3.Row raises IndexError
        return 0


def stay_terms(
    resource: Mapping[str, Any],
    prop: Mapping[str, Any],
    seasons: Iterable[Mapping[str, Any]] = (),
    city_tax: Mapping[str, Any] | None = None,
) -> tuple[Terms, tuple[str, ...]]:
    """The pricing terms of a stay listing from its world rows, with its seasons' names.

    `resource` is the `booking_resource` row, `prop` its `booking_property`, `seasons` the
    property's `booking_season` rows (any order; they are taken by start date, then id) and
    `city_tax` the `booking_city_tax` row of the property's city, if any. Rows are plain
    mappings (generator dicts, `sqlite3.Row`, or an ORM row's `_mapping`); dates may be
    `date`s or ISO text. Returns `(terms, season_names)`, ready for `quote(terms, check_in,
    check_out, season_names)`.
    """
    ordered = sorted(seasons, key=lambda s: (_day(s["start_date"]), _row_id(s)))
    terms = Terms(
        nightly_rate=resource["nightly_rate"] or 0,
        weekend_rate=resource["weekend_rate"],
        cleaning_fee=resource["cleaning_fee"] or 0,
        weekly_discount_pct=resource["weekly_discount_pct"] or 0,
        service_fee_pct=prop["service_fee_pct"] or 0,
        tax_percent=float(city_tax["percent"]) if city_tax is not None else 0.0,
        tax_per_night_cents=(city_tax["per_night_cents"] or 0) if city_tax is not None else 0,
        seasons=tuple(
            (_day(s["start_date"]), _day(s["end_date"]), int(s["percent"])) for s in ordered
        ),
    )
    return terms, tuple(s["name"] for s in ordered)


def nightly_cents(terms: Terms, night: date, season_names: dict[int, str] | None = None) -> Night:
    """The rate of one night: the weekend rate on Friday and Saturday nights, then the
    season's percent on top (to the whole dollar, half up)."""
    weekend = night.weekday() in WEEKEND_NIGHTS and terms.weekend_rate is not None
    dollars = Decimal(terms.weekend_rate if weekend else terms.nightly_rate)
    label = "weekend" if night.weekday() in WEEKEND_NIGHTS else "weekday"
    for i, (first, last, percent) in enumerate(terms.seasons):
        if first <= night <= last:
            dollars = (dollars * (100 + percent) / 100).quantize(Decimal(1), ROUND_HALF_UP)
            if season_names and i in season_names:
                label = f"{label} · {season_names[i]}"
            break
    return Night(night, int(dollars) * 100, label)


def quote(terms: Terms, check_in: date, check_out: date, season_names: Sequence[str] = ()) -> Quote:
    """The price of staying from `check_in` to `check_out` (check-out day not a night)."""
    if check_out <= check_in:
        raise ValueError("check-out must be after check-in")
    names = dict(enumerate(season_names))
    nights = tuple(
        nightly_cents(terms, check_in + timedelta(days=i), names)
        for i in range((check_out - check_in).days)
    )
    subtotal = sum(n.cents for n in nights)
    discount = (
        percent_of(subtotal, terms.weekly_discount_pct) if len(nights) >= WEEKLY_NIGHTS else 0
    )
    cleaning = terms.cleaning_fee * 100
    service = percent_of(subtotal - discount + cleaning, terms.service_fee_pct)
    taxable = subtotal - discount + cleaning + service
    taxes = percent_of(taxable, terms.tax_percent) + terms.tax_per_night_cents * len(nights)
    used = tuple(
        dict.fromkeys(
            season_names[i]
            for n in nights
            for i, (first, last, _p) in enumerate(terms.seasons)
            if first <= n.night <= last and i < len(season_names)
        )
    )
    return Quote(
        nights=nights,
        subtotal=subtotal,
        discount=discount,
        cleaning=cleaning,
        service=service,
        taxes=taxes,
        total=taxable + taxes,
        season_names=used,
    )


def refund_percent(policy: str, today: date, check_in: date) -> int:
    """The percent of a stay's total that cancelling on `today` gives back."""
    days = (check_in - today).days
    for at_least, percent in REFUND_RULES[policy]:
        if days >= at_least:
            return percent
    return 0


def refund_cents(policy: str, today: date, check_in: date, total_cents: int) -> int:
    return percent_of(total_cents, refund_percent(policy, today, check_in))


@dataclass(frozen=True)
class Rule:
    """One travel-policy rule a stay breaks: a code and what people read."""

    code: str
    message: str


@dataclass(frozen=True)
class PolicyTerms:
    """The policy that applies to one traveller in one city."""

    name: str
    nightly_cap: int  # dollars, for the traveller's job level
    approval_over_total: int  # dollars
    min_advance_days: int
    max_nights: int
    preferred_only: bool


def policy_terms(
    policy: Mapping[str, Any], caps: Iterable[Mapping[str, Any]], job_level: str
) -> PolicyTerms:
    """The terms of a `booking_policy` row for a traveller of `job_level`: the nightly cap of
    that level among `caps` (the policy's `booking_policy_cap` rows), else the policy's own
    `max_nightly_rate`."""
    cap = next(
        (
            c["max_nightly_rate"]
            for c in caps
            if c["job_level"] == job_level and c["policy_id"] == policy["id"]
        ),
        policy["max_nightly_rate"],
    )
    return PolicyTerms(
        name=policy["name"],
        nightly_cap=cap,
        approval_over_total=policy["approval_over_total"],
        min_advance_days=policy["min_advance_days"],
        max_nights=policy["max_nights"],
        preferred_only=bool(policy["preferred_only"]),
    )


def policy_breaches(
    policy: PolicyTerms,
    price: Quote,
    *,
    today: date,
    check_in: date,
    preferred: bool,
) -> list[Rule]:
    """The rules a stay breaks, in a fixed order; empty when it is in policy."""
    broken: list[Rule] = []
    if price.average_nightly > policy.nightly_cap * 100:
        broken.append(
            Rule(
                "nightly_cap",
                f"The average nightly rate ${price.average_nightly / 100:,.2f} is over the "
                f"${policy.nightly_cap:,} cap.",
            )
        )
    if price.total > policy.approval_over_total * 100:
        broken.append(
            Rule(
                "total",
                f"The total ${price.total / 100:,.2f} is over ${policy.approval_over_total:,}.",
            )
        )
    ahead = (check_in - today).days
    if ahead < policy.min_advance_days:
        broken.append(
            Rule(
                "advance",
                f"Booked {ahead} day{'s' if ahead != 1 else ''} ahead; the policy asks for "
                f"{policy.min_advance_days}.",
            )
        )
    if price.count > policy.max_nights:
        broken.append(
            Rule(
                "length",
                f"{price.count} nights is longer than the {policy.max_nights}-night maximum.",
            )
        )
    if policy.preferred_only and not preferred:
        broken.append(Rule("preferred", "Only preferred properties are in policy here."))
    return broken


__all__ = [
    "MAX_GUESTS",
    "MAX_NIGHTS",
    "REFUND_RULES",
    "REFUND_TEXT",
    "Night",
    "PolicyTerms",
    "Quote",
    "Rule",
    "Terms",
    "average_nightly_cents",
    "nightly_cents",
    "percent_of",
    "policy_breaches",
    "policy_terms",
    "quote",
    "refund_cents",
    "refund_percent",
    "stay_terms",
]
