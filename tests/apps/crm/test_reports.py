"""Reports agree with the rows: every figure equals the list view it links to."""

from __future__ import annotations

import pytest

from officegym.apps.crm import listing, reports, service
from officegym.seed_data.clock import now as world_now

from .conftest import employee


def _check(db, actor, figure: reports.Figure) -> None:
    page = listing.list_records(db, actor, "opportunities", figure.params, paginate=False)
    assert not page.errors
    amounts = [r["amount"] or 0 for r in page.rows]
    weighted = sum((r["amount"] or 0) * r["probability"] / 100 for r in page.rows)
    assert (page.total, sum(amounts), round(weighted)) == (
        figure.count,
        figure.amount,
        figure.weighted,
    ), figure.params


@pytest.fixture
def closed_this_quarter(db, facts):
    """Close three of the rep's deals inside the current quarter (two won, one lost)."""
    rep = employee(db, facts.rep)
    today = world_now(db).date()
    for opp_id, stage in zip(
        facts.rep_opportunities[:3], ("Closed Won", "Closed Won", "Closed Lost"), strict=True
    ):
        service.update(db, rep, "opportunities", opp_id, {"stage": stage, "close_date": today})
    return facts.rep_opportunities[:3]


@pytest.mark.parametrize("scope", ["", "team", "me"])
@pytest.mark.parametrize("close", ["", "this_quarter", "next_quarter"])
def test_every_figure_matches_its_rows(db, facts, closed_this_quarter, scope, close):
    actor = employee(db, facts.manager)
    data = reports.pipeline(db, actor, scope, close)
    figures = [data.total, data.won, data.lost, *(f for _, f in data.stages)]
    for line in data.owners:
        figures.append(line.total)
        figures += list(line.stages.values())
    for figure in figures:
        _check(db, actor, figure)
    assert data.total.count == sum(f.count for _, f in data.stages)
    assert data.total.amount == sum(line.total.amount for line in data.owners)


def test_won_and_lost_this_quarter_count_the_closed_deals(db, facts, closed_this_quarter):
    data = reports.pipeline(db, employee(db, facts.rep), "me")
    assert (data.won.count, data.lost.count) == (2, 1)
    assert data.win_rate == 67


def test_home_numbers_match_their_rows(db, facts, closed_this_quarter):
    actor = employee(db, facts.rep)
    for figure in reports.my_numbers(db, actor).values():
        page = listing.list_records(db, actor, "opportunities", figure.params, paginate=False)
        assert page.total == figure.count
        if figure.amount:
            assert sum(r["amount"] or 0 for r in page.rows) == figure.amount


def test_report_page_shows_the_totals_with_links(as_person, facts):
    client = as_person(facts.manager)
    html = client.get("/crm/reports?scope=team").get_data(as_text=True)
    assert "Open pipeline by stage" in html and "Open pipeline by owner and stage" in html
    assert "/crm/opportunities?owner=team&amp;stage=open" in html
    assert "/crm/opportunities?close=this_quarter&amp;owner=team&amp;stage=won" in html
