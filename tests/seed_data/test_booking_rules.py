"""The booking rules: what a stay costs, what cancelling gives back, which policy rules a
stay breaks. Every expected amount below is worked out by hand in the comment beside it."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import date, timedelta

import pytest

from officegym.seed_data.booking_rules import (
    PolicyTerms,
    Terms,
    percent_of,
    policy_breaches,
    policy_terms,
    quote,
    refund_cents,
    refund_percent,
    stay_terms,
)

# Wednesday 17 December 2025; the Holidays season runs from the night of Saturday the 20th.
WED = date(2025, 12, 17)
HOLIDAYS = (date(2025, 12, 20), date(2026, 1, 2), 20)
LISTING = Terms(
    nightly_rate=100,
    weekend_rate=150,
    cleaning_fee=50,
    weekly_discount_pct=10,
    service_fee_pct=12,
    tax_percent=14.75,
    tax_per_night_cents=350,
    seasons=(HOLIDAYS,),
)


# Pricing ------------------------------------------------------------------------------------


def test_six_nights_with_weekend_and_season_cost_the_hand_computed_total() -> None:
    price = quote(LISTING, WED, WED + timedelta(days=6), ("Holidays",))
    # Wed 100, Thu 100, Fri 150 (weekend), Sat 150 +20% = 180, Sun 100 +20% = 120, Mon 120.
    assert [n.cents for n in price.nights] == [10000, 10000, 15000, 18000, 12000, 12000]
    assert [n.label for n in price.nights] == [
        "weekday", "weekday", "weekend", "weekend · Holidays", "weekday · Holidays",
        "weekday · Holidays",
    ]  # fmt: skip
    assert price.subtotal == 77000
    assert price.discount == 0  # six nights: no weekly discount
    assert price.cleaning == 5000
    assert price.service == 9840  # 12% of 770 + 50 = 820 -> 98.40
    # Taxable 770 + 50 + 98.40 = 918.40; 14.75% = 135.464 -> 135.46; plus 6 x 3.50 = 21.00.
    assert price.taxes == 15646
    assert price.total == 107486
    assert price.season_names == ("Holidays",)


def test_seven_nights_take_the_weekly_discount_before_fees_and_taxes() -> None:
    price = quote(LISTING, WED, WED + timedelta(days=7), ("Holidays",))
    # The six nights above (770) and Tuesday at 120: 890; 10% off: 89.00.
    assert price.subtotal == 89000
    assert price.discount == 8900
    assert price.service == 10212  # 12% of 890 - 89 + 50 = 851 -> 102.12
    # Taxable 851 + 102.12 = 953.12; 14.75% = 140.5852 -> 140.59; plus 7 x 3.50 = 24.50.
    assert price.taxes == 16509
    assert price.total == 111821


def test_the_weekly_discount_starts_at_seven_nights_not_six() -> None:
    terms = Terms(nightly_rate=200, weekly_discount_pct=15)
    six = quote(terms, date(2026, 3, 2), date(2026, 3, 8))
    seven = quote(terms, date(2026, 3, 2), date(2026, 3, 9))
    # Six nights: 1,200 and no discount. Seven: 1,400 less 15% (210) = 1,190.
    assert (six.subtotal, six.discount, six.total) == (120000, 0, 120000)
    assert (seven.subtotal, seven.discount, seven.total) == (140000, 21000, 119000)


def test_friday_and_saturday_take_the_weekend_rate_and_sunday_does_not() -> None:
    terms = Terms(nightly_rate=180, weekend_rate=140)
    price = quote(terms, date(2026, 1, 8), date(2026, 1, 12))  # Thu, Fri, Sat, Sun nights
    assert [n.cents for n in price.nights] == [18000, 14000, 14000, 18000]
    assert price.total == 64000


def test_without_a_weekend_rate_friday_costs_the_nightly_rate() -> None:
    price = quote(Terms(nightly_rate=180), date(2026, 1, 9), date(2026, 1, 10))
    assert (price.nights[0].label, price.nights[0].cents) == ("weekend", 18000)


def test_a_season_rounds_the_night_to_the_whole_dollar_half_up() -> None:
    night = date(2026, 2, 3)
    up = Terms(nightly_rate=125, seasons=((night, night, 10),))  # 137.50 -> 138
    down = Terms(nightly_rate=130, seasons=((night, night, -15),))  # 110.50 -> 111
    assert quote(up, night, night + timedelta(days=1)).total == 13800
    assert quote(down, night, night + timedelta(days=1)).total == 11100


def test_a_season_applies_only_to_its_own_nights() -> None:
    terms = Terms(nightly_rate=100, seasons=((date(2026, 2, 4), date(2026, 2, 4), 50),))
    price = quote(terms, date(2026, 2, 3), date(2026, 2, 6), ("Fair",))
    assert [n.cents for n in price.nights] == [10000, 15000, 10000]
    assert price.season_names == ("Fair",)


def test_taxes_round_half_up_to_the_cent() -> None:
    # 12.5% of 101.00 is 12.625 -> 12.63 (half-even would give 12.62).
    price = quote(Terms(nightly_rate=101, tax_percent=12.5), WED, WED + timedelta(days=1))
    assert (price.taxes, price.total) == (1263, 11363)


def test_percent_of_rounds_half_up() -> None:
    assert [percent_of(c, 50) for c in (1, 3, 5)] == [1, 2, 3]


def test_a_home_charges_cleaning_and_the_service_fee_on_cleaning_too() -> None:
    terms = Terms(nightly_rate=90, cleaning_fee=35, service_fee_pct=12, tax_percent=5)
    price = quote(terms, date(2026, 3, 3), date(2026, 3, 5))  # Tue, Wed
    # 180 + 35 = 215; service 12% = 25.80; taxable 240.80; 5% = 12.04; total 252.84.
    assert (price.subtotal, price.cleaning, price.service) == (18000, 3500, 2580)
    assert (price.taxes, price.total) == (1204, 25284)


def test_average_nightly_rate_is_the_subtotal_per_night_to_the_cent() -> None:
    price = quote(Terms(nightly_rate=100, weekend_rate=101), date(2026, 1, 8), date(2026, 1, 11))
    assert price.average_nightly == 10067  # (100 + 101 + 101) / 3 = 100.666...


def test_check_out_must_be_after_check_in() -> None:
    with pytest.raises(ValueError):
        quote(LISTING, WED, WED)


def test_the_quote_serialises_its_nights_as_iso_dates() -> None:
    data = quote(LISTING, WED, WED + timedelta(days=1)).to_json()
    assert data["nights"] == [{"night": "2025-12-17", "cents": 10000, "label": "weekday"}]
    assert data["total"] == data["subtotal"] + data["cleaning"] + data["service"] + data["taxes"]


# Terms from world rows ----------------------------------------------------------------------


def test_stay_terms_read_generator_rows_with_seasons_by_start_date() -> None:
    resource = {"nightly_rate": 100, "weekend_rate": 150, "cleaning_fee": 50,
                "weekly_discount_pct": 10}  # fmt: skip
    prop = {"id": 3, "service_fee_pct": 12, "city": "New York"}
    seasons = [
        {"id": 9, "property_id": 3, "name": "Summer peak", "start_date": date(2026, 6, 15),
         "end_date": date(2026, 8, 31), "percent": 20},
        {"id": 4, "property_id": 3, "name": "Holidays", "start_date": date(2025, 12, 20),
         "end_date": date(2026, 1, 2), "percent": 20},
    ]  # fmt: skip
    tax = {"city": "New York", "percent": 14.75, "per_night_cents": 350}
    terms, names = stay_terms(resource, prop, seasons, tax)
    assert names == ("Holidays", "Summer peak")
    assert terms == replace(LISTING, seasons=(HOLIDAYS, (date(2026, 6, 15), date(2026, 8, 31), 20)))
    assert quote(terms, WED, WED + timedelta(days=6), names).total == 107486


def test_stay_terms_read_sqlite_rows_with_iso_dates_and_no_tax() -> None:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    resource = db.execute(
        "SELECT 120 AS nightly_rate, NULL AS weekend_rate, 0 AS cleaning_fee, "
        "0 AS weekly_discount_pct"
    ).fetchone()
    prop = db.execute("SELECT 1 AS id, 0 AS service_fee_pct").fetchone()
    season = db.execute(
        "SELECT 2 AS id, 'Winter low' AS name, '2026-01-07' AS start_date, "
        "'2026-02-28' AS end_date, -15 AS percent"
    ).fetchone()
    terms, names = stay_terms(resource, prop, [season], None)
    assert terms == Terms(nightly_rate=120, seasons=((date(2026, 1, 7), date(2026, 2, 28), -15),))
    assert names == ("Winter low",)


# Refunds ------------------------------------------------------------------------------------

CHECK_IN = date(2026, 3, 10)


@pytest.mark.parametrize(
    ("policy", "days_before", "percent"),
    [
        ("flexible", 1, 100), ("flexible", 0, 0),
        ("moderate", 5, 100), ("moderate", 4, 50), ("moderate", 0, 50), ("moderate", -1, 0),
        ("strict", 14, 100), ("strict", 13, 50), ("strict", 7, 50), ("strict", 6, 0),
    ],
)  # fmt: skip
def test_refund_percent_at_each_policys_boundary_days(
    policy: str, days_before: int, percent: int
) -> None:
    assert refund_percent(policy, CHECK_IN - timedelta(days=days_before), CHECK_IN) == percent


def test_a_half_refund_rounds_half_up_to_the_cent() -> None:
    # 50% of 1,074.87 is 537.435 -> 537.44.
    assert refund_cents("strict", CHECK_IN - timedelta(days=7), CHECK_IN, 107487) == 53744
    assert refund_cents("flexible", CHECK_IN - timedelta(days=3), CHECK_IN, 107487) == 107487


# Policy rules -------------------------------------------------------------------------------

LENIENT = PolicyTerms(
    name="Test policy",
    nightly_cap=10_000,
    approval_over_total=100_000,
    min_advance_days=0,
    max_nights=90,
    preferred_only=False,
)
TUE = date(2026, 3, 3)


def _codes(policy: PolicyTerms, terms: Terms, nights: int, *, ahead: int = 30,
           preferred: bool = True, check_in: date = TUE) -> list[str]:  # fmt: skip
    price = quote(terms, check_in, check_in + timedelta(days=nights))
    rules = policy_breaches(
        policy, price, today=check_in - timedelta(days=ahead), check_in=check_in,
        preferred=preferred,
    )  # fmt: skip
    return [r.code for r in rules]


def test_an_average_rate_at_the_cap_is_in_policy_and_a_cent_over_is_not() -> None:
    policy = replace(LENIENT, nightly_cap=200)
    assert _codes(policy, Terms(nightly_rate=200), 2) == []
    # Thursday 200 and Friday 201 average 200.50.
    over = Terms(nightly_rate=200, weekend_rate=201)
    assert _codes(policy, over, 2, check_in=date(2026, 1, 8)) == ["nightly_cap"]


def test_the_cap_is_on_the_rate_before_fees_and_taxes() -> None:
    policy = replace(LENIENT, nightly_cap=200)
    terms = Terms(nightly_rate=200, cleaning_fee=180, service_fee_pct=12, tax_percent=16.5)
    assert _codes(policy, terms, 1) == []


def test_a_total_at_the_limit_is_in_policy_and_a_cent_over_is_not() -> None:
    policy = replace(LENIENT, approval_over_total=1000)
    assert _codes(policy, Terms(nightly_rate=1000), 1) == []
    assert _codes(policy, Terms(nightly_rate=1000, tax_per_night_cents=1), 1) == ["total"]


def test_booking_exactly_the_minimum_days_ahead_is_in_policy_and_a_day_less_is_not() -> None:
    policy = replace(LENIENT, min_advance_days=7)
    assert _codes(policy, Terms(nightly_rate=100), 1, ahead=7) == []
    price = quote(Terms(nightly_rate=100), TUE, TUE + timedelta(days=1))
    rules = policy_breaches(
        policy, price, today=TUE - timedelta(days=6), check_in=TUE, preferred=True
    )
    assert [(r.code, r.message) for r in rules] == [
        ("advance", "Booked 6 days ahead; the policy asks for 7.")
    ]


def test_the_maximum_nights_are_in_policy_and_one_more_is_not() -> None:
    policy = replace(LENIENT, max_nights=14)
    assert _codes(policy, Terms(nightly_rate=100), 14) == []
    assert _codes(policy, Terms(nightly_rate=100), 15) == ["length"]


def test_preferred_only_policies_flag_other_properties() -> None:
    strict = replace(LENIENT, preferred_only=True)
    assert _codes(strict, Terms(nightly_rate=100), 1, preferred=True) == []
    assert _codes(strict, Terms(nightly_rate=100), 1, preferred=False) == ["preferred"]
    assert _codes(LENIENT, Terms(nightly_rate=100), 1, preferred=False) == []


def test_every_broken_rule_is_listed_in_a_fixed_order() -> None:
    policy = PolicyTerms("Tight", 100, 500, 14, 3, True)
    codes = _codes(policy, Terms(nightly_rate=150), 4, ahead=2, preferred=False)
    assert codes == ["nightly_cap", "total", "advance", "length", "preferred"]


POLICY_ROW = {"id": 2, "name": "London travel policy", "max_nightly_rate": 325,
              "approval_over_total": 2500, "min_advance_days": 14, "max_nights": 10,
              "preferred_only": 1}  # fmt: skip
CAPS = [
    {"policy_id": 2, "job_level": "staff", "max_nightly_rate": 325},
    {"policy_id": 2, "job_level": "manager", "max_nightly_rate": 400},
    {"policy_id": 1, "job_level": "director", "max_nightly_rate": 900},
]


def test_policy_terms_take_the_cap_of_the_travellers_level() -> None:
    manager = policy_terms(POLICY_ROW, CAPS, "manager")
    assert manager == PolicyTerms("London travel policy", 400, 2500, 14, 10, True)
    assert policy_terms(POLICY_ROW, CAPS, "staff").nightly_cap == 325


def test_a_level_without_a_cap_of_this_policy_falls_back_to_the_policys_rate() -> None:
    assert policy_terms(POLICY_ROW, CAPS, "director").nightly_cap == 325


@pytest.mark.parametrize(("level", "rate", "codes"), [
    ("staff", 325, []), ("staff", 330, ["nightly_cap"]),
    ("manager", 400, []), ("manager", 405, ["nightly_cap"]),
])  # fmt: skip
def test_the_level_cap_decides_the_nightly_rule(level: str, rate: int, codes: list[str]) -> None:
    policy = replace(policy_terms(POLICY_ROW, CAPS, level), approval_over_total=100_000)
    assert _codes(policy, Terms(nightly_rate=rate), 2) == codes
