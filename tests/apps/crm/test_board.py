"""The pipeline board: a bounded column of the biggest deals per stage, "Show more" per column,
and column figures over every deal, shown or not."""

from __future__ import annotations

import re

import pytest

from .conftest import API, API_HEADERS, rows

STAGE = "Qualification"
ADDED = 12


@pytest.fixture
def rep(as_person, facts):
    return as_person(facts.rep)


@pytest.fixture
def crowded(rep, store, world):
    """The Qualification column holding more deals than a column shows (made through the API)."""
    account = rows(store, world, "SELECT id FROM crm_account ORDER BY id LIMIT 1")[0][0]
    for n in range(ADDED):
        created = rep.post(
            f"{API}/opportunities",
            json={
                "name": f"Board filler {n:02d}",
                "account_id": account,
                "stage": STAGE,
                "amount": 1000 * (n + 1),
                "close_date": "2099-01-15",
            },
            headers=API_HEADERS,
        )
        assert created.status_code == 201, created.get_json()
    return rows(
        store,
        world,
        "SELECT id, amount, close_date FROM crm_opportunity WHERE stage = ?",
        (STAGE,),
    )


def _column(html: str, stage: str) -> str:
    start = html.index(f'data-stage="{stage}"')
    end = html.find('<section class="board__column', start)
    return html[start : end if end > 0 else len(html)]


def _cards(column: str) -> list[int]:
    return [int(i) for i in re.findall(r'<li class="deal-card" id="deal-(\d+)"', column)]


def test_a_column_shows_its_ten_biggest_deals_first(rep, crowded):
    column = _column(rep.get("/crm/pipeline").get_data(as_text=True), STAGE)
    by_size = sorted(crowded, key=lambda r: (-(r[1] or -1), r[2], r[0]))
    assert _cards(column) == [r[0] for r in by_size[:10]]


def test_show_more_names_its_stage_and_shows_ten_more(rep, crowded):
    column = _column(rep.get("/crm/pipeline").get_data(as_text=True), STAGE)
    link = re.search(r'<a class="board__more" href="([^"]+)">(.*?)</a>', column)
    name = re.sub(r"<[^>]+>", "", link.group(2))
    assert name == f"Show more {STAGE} deals ({len(crowded) - 10} left)"
    more = rep.get(link.group(1).replace("&amp;", "&"))
    shown = _cards(_column(more.get_data(as_text=True), STAGE))
    assert len(shown) == min(20, len(crowded))


def test_column_figures_count_every_deal_not_only_the_cards(rep, crowded):
    column = _column(rep.get("/crm/pipeline").get_data(as_text=True), STAGE)
    total = sum(r[1] or 0 for r in crowded)
    assert f"{len(crowded)} deals · ${total:,}" in column
    assert len(_cards(column)) == 10


def test_closed_columns_count_only_this_quarters_deals(rep, store, world):
    html = rep.get("/crm/pipeline").get_data(as_text=True)
    (today,) = rows(store, world, "SELECT now FROM world_meta")[0]
    year, month = int(today[:4]), int(today[5:7])
    first = f"{year}-{(month - 1) // 3 * 3 + 1:02d}-01"
    last_month = (month - 1) // 3 * 3 + 3
    last = f"{year}-{last_month:02d}-31"
    (count,) = rows(
        store,
        world,
        "SELECT count(*) FROM crm_opportunity WHERE stage = 'Closed Won' "
        "AND close_date BETWEEN ? AND ?",
        (first, last),
    )[0]
    column = _column(html, "Closed Won")
    assert re.search(rf">{count} deals? · ", column)


def test_the_board_limits_a_column_to_two_hundred_cards(rep, crowded):
    html = rep.get("/crm/pipeline?show_qualification=99999").get_data(as_text=True)
    assert len(_cards(_column(html, STAGE))) == len(crowded)


def test_a_bad_show_more_count_falls_back_to_ten(rep, crowded):
    response = rep.get("/crm/pipeline?show_qualification=lots")
    assert response.status_code == 200
    assert len(_cards(_column(response.get_data(as_text=True), STAGE))) == 10


def test_each_card_moves_from_its_own_menu_one_menu_open_at_a_time(rep, facts):
    html = rep.get("/crm/pipeline?owner=me").get_data(as_text=True)
    menus = re.findall(
        r'<details class="deal-card__move" name="move">\s*<summary[^>]*>(.*?)</summary>', html
    )
    names = [re.sub(r"<[^>]+>", "", m) for m in menus]
    assert names and len(names) == len(set(names))
    assert all(n.startswith("Move ") for n in names)
    assert f'formaction="/crm/opportunities/{facts.rep_opportunity}/stage"' in html
