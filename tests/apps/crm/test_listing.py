"""List views: saved views, search, filters, sorting and pages, checked against the rows."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import func, select

from officegym.apps.crm import listing
from officegym.apps.crm.fields import OPEN_STAGES
from officegym.apps.web.errors import ValidationError
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import Contact, Opportunity

from .conftest import employee


def _ids(page) -> list[int]:
    return [r["id"] for r in page.rows]


def test_my_open_opportunities_are_exactly_mine_and_open(db, facts):
    rep = employee(db, facts.rep)
    page = listing.list_records(db, rep, "opportunities", {"view": "my_open", "per_page": "200"})
    expected = db.scalars(
        select(Opportunity.id).where(
            Opportunity.owner_id == rep.id, Opportunity.stage.in_(OPEN_STAGES)
        )
    ).all()
    assert sorted(_ids(page)) == sorted(expected)
    assert page.view.label == "My open opportunities"


def test_closing_this_quarter_uses_the_world_calendar_quarter(db, facts):
    today = world_now(db).date()
    start, end = listing.quarter_of(today)
    page = listing.list_records(
        db, employee(db, facts.rep), "opportunities", {"view": "closing_this_quarter"}
    )
    expected = db.scalars(
        select(Opportunity.id).where(
            Opportunity.stage.in_(OPEN_STAGES),
            Opportunity.close_date >= start,
            Opportunity.close_date <= end,
        )
    ).all()
    assert sorted(_ids(page)) == sorted(expected)
    assert start <= today <= end and start.day == 1


def test_explicit_parameters_override_the_saved_view(db, facts):
    page = listing.list_records(
        db, employee(db, facts.rep), "opportunities", {"view": "my_open", "owner": ""}
    )
    owners = {r["owner_id"] for r in page.rows}
    assert len(owners) > 1


def test_search_matches_every_word_in_name_or_account(db, facts):
    opp = db.get(Opportunity, facts.rep_opportunity)
    account_word = opp.name.split(" — ")[0].split()[0]
    product_word = opp.name.split(" — ")[1].split()[0]
    page = listing.list_records(
        db, employee(db, facts.rep), "opportunities", {"q": f"{account_word} {product_word}"}
    )
    assert opp.id in _ids(page)
    for row in page.rows:
        haystack = f"{row['name']} {row['account']}".lower()
        assert account_word.lower() in haystack and product_word.lower() in haystack


def test_search_treats_like_wildcards_literally(db, facts):
    page = listing.list_records(db, employee(db, facts.rep), "contacts", {"q": "%_%"})
    assert page.total == 0


def test_amount_and_close_date_ranges(db, facts):
    page = listing.list_records(
        db,
        employee(db, facts.rep),
        "opportunities",
        {
            "amount_min": "20000",
            "amount_max": "100,000".replace(",", ""),
            "close_from": "2025-01-01",
            "close_to": "2026-12-31",
            "per_page": "200",
        },
    )
    assert page.rows
    for row in page.rows:
        assert 20000 <= row["amount"] <= 100000
        assert date(2025, 1, 1) <= row["close_date"] <= date(2026, 12, 31)


def test_sorting_by_amount_descending_puts_empty_amounts_last(db, facts):
    page = listing.list_records(
        db,
        employee(db, facts.rep),
        "opportunities",
        {"sort": "amount", "dir": "desc", "per_page": "200"},
    )
    amounts = [r["amount"] for r in page.rows if r["amount"] is not None]
    assert amounts == sorted(amounts, reverse=True)
    assert (page.sort, page.direction) == ("amount", "desc")


def test_pages_cover_every_row_once(db, facts):
    actor = employee(db, facts.rep)
    seen: list[int] = []
    first = listing.list_records(db, actor, "contacts", {"per_page": "25"})
    for number in range(1, first.pages + 1):
        page = listing.list_records(db, actor, "contacts", {"per_page": "25", "page": str(number)})
        seen += _ids(page)
    assert sorted(seen) == sorted(db.scalars(select(Contact.id)).all())
    assert first.total == db.scalar(select(func.count(Contact.id)))


def test_a_page_past_the_end_shows_the_last_page(db, facts):
    page = listing.list_records(db, employee(db, facts.rep), "contacts", {"page": "999"})
    assert page.page == page.pages


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"amount_min": "lots"}, "amount_min"),
        ({"close_from": "yesterday-ish"}, "close_from"),
        ({"close_from": "2026-01-01", "close_to": "2025-01-01"}, "close_to"),
        ({"stage": "Won-ish"}, "stage"),
        ({"owner": "nobody"}, "owner"),
        ({"sort": "password"}, "sort"),
        ({"per_page": "7"}, "per_page"),
    ],
)
def test_bad_filters_are_reported_by_name(db, facts, params, name):
    page = listing.list_records(db, employee(db, facts.rep), "opportunities", params)
    assert name in page.errors
    with pytest.raises(ValidationError) as caught:
        listing.check(page)
    assert name in caught.value.errors


def test_team_filter_covers_the_managers_reports(db, facts):
    page = listing.list_records(
        db, employee(db, facts.manager), "opportunities", {"owner": "team", "per_page": "200"}
    )
    assert facts.rep.id in {r["owner_id"] for r in page.rows}


def test_rows_say_whether_the_viewer_can_edit_them(db, facts):
    page = listing.list_records(db, employee(db, facts.rep), "opportunities", {"per_page": "200"})
    assert {r["editable"] for r in page.rows if r["owner_id"] == facts.rep.id} == {True}
    assert {r["editable"] for r in page.rows if r["owner_id"] != facts.rep.id} == {False}


def test_contacts_missing_an_email(db, facts):
    page = listing.list_records(db, employee(db, facts.rep), "contacts", {"email": "missing"})
    assert all(not r["email"] for r in page.rows)


def test_export_table_has_every_matching_row_not_just_a_page(db, facts):
    page = listing.list_records(
        db, employee(db, facts.rep), "contacts", {"per_page": "25"}, paginate=False
    )
    headers, rows = listing.export_table(page)
    assert headers[0] == "ID" and "Email" in headers
    assert len(rows) == db.scalar(select(func.count(Contact.id)))


def test_date_presets():
    today = date(2025, 9, 17)
    assert listing.date_range("this_quarter", today) == (date(2025, 7, 1), date(2025, 9, 30))
    assert listing.date_range("next_quarter", today) == (date(2025, 10, 1), date(2025, 12, 31))
    assert listing.date_range("last_quarter", today) == (date(2025, 4, 1), date(2025, 6, 30))
    assert listing.date_range("this_month", today) == (date(2025, 9, 1), date(2025, 9, 30))
    assert listing.date_range("past", today) == (None, date(2025, 9, 16))
    assert listing.quarter_of(date(2025, 12, 5), 1) == (date(2026, 1, 1), date(2026, 3, 31))


def test_quarter_of_a_day_is_its_calendar_quarter():
    assert listing.quarter_of(date(2025, 9, 17)) == (date(2025, 7, 1), date(2025, 9, 30))
    assert listing.quarter_of(date(2025, 12, 31)) == (date(2025, 10, 1), date(2025, 12, 31))


def test_search_counts_and_pages_like_an_unsearched_list(db, facts):
    actor = employee(db, facts.rep)
    word = db.scalar(select(Contact.last_name).order_by(Contact.id))[:3]
    everything = listing.list_records(db, actor, "contacts", {"q": word}, paginate=False)
    first = listing.list_records(db, actor, "contacts", {"q": word, "per_page": "25"})
    beyond = listing.list_records(
        db, actor, "contacts", {"q": word, "per_page": "25", "page": "999"}
    )
    assert first.total == beyond.total == len(everything.rows) > 0
    assert beyond.page == beyond.pages and beyond.rows
    assert "_total" not in first.rows[0]
