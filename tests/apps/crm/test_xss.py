"""Markup typed into any CRM field renders as text on every page that shows it."""

from __future__ import annotations

import io

import pytest

from .conftest import API, API_HEADERS, token

XSS = "<script>alert(1)</script><img src=x onerror=alert(2)>"
ATTR = XSS + "\"'><svg onload=alert(3)>"  # also breaks out of a quoted attribute


def _assert_inert(html: str) -> None:
    assert "<script>alert(1)" not in html
    assert "<img src=x" not in html
    assert "<svg onload" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.fixture
def planted(as_person, facts):
    """Records whose text fields hold markup, made through the API as the rep."""
    rep = as_person(facts.rep)

    def post(path, body):
        response = rep.post(f"{API}/{path}", json=body, headers=API_HEADERS)
        assert response.status_code in (200, 201), response.get_json()
        return response.get_json()

    account = post("accounts", {"name": f"Acme {XSS}", "billing_city": XSS})
    contact = post(
        "contacts",
        {"first_name": XSS, "last_name": "Doe", "title": XSS, "account_id": account["id"]},
    )
    twin = post(
        "contacts",
        {
            "first_name": XSS,
            "last_name": "Doe",
            "account_id": account["id"],
            "allow_duplicate": True,
        },
    )
    opp = post(
        "opportunities",
        {
            "name": f"Deal {XSS}",
            "account_id": account["id"],
            "next_step": ATTR,
            "close_date": "2030-01-01",
        },
    )
    lead = post("leads", {"first_name": XSS, "last_name": "Lead", "company": f"Co {XSS}"})
    post("notes", {"title": XSS, "body": ATTR, "opportunity_id": opp["id"]})
    post("activities", {"subject": XSS, "description": XSS, "opportunity_id": opp["id"]})
    rep.patch(
        f"{API}/opportunities/{opp['id']}", json={"next_step": f"{ATTR}!"}, headers=API_HEADERS
    )
    return {
        "client": rep,
        "account": account["id"],
        "contact": contact["id"],
        "twin": twin["id"],
        "opp": opp["id"],
        "lead": lead["id"],
    }


def test_markup_renders_inert_on_every_page(planted):
    client = planted["client"]
    pages = [
        "/crm/",
        "/crm/accounts?q=Acme",
        "/crm/contacts?q=Doe",
        "/crm/leads?q=Lead",
        "/crm/opportunities?q=Deal",
        "/crm/activities?q=script",
        f"/crm/accounts/{planted['account']}",
        f"/crm/contacts/{planted['contact']}",
        f"/crm/opportunities/{planted['opp']}",
        f"/crm/opportunities/{planted['opp']}?edit=next_step",
        f"/crm/opportunities/{planted['opp']}/edit",
        f"/crm/leads/{planted['lead']}",
        f"/crm/leads/{planted['lead']}/convert",
        f"/crm/contacts/merge?ids={planted['contact']}&ids={planted['twin']}",
        "/crm/duplicates?object=contacts",
        "/crm/pipeline?q=Deal",
        "/crm/search?q=Doe",
        f"/crm/search?q={XSS}",
        f"/crm/opportunities?q={XSS}",
    ]
    for path in pages:
        response = client.get(path)
        assert response.status_code in (200, 422), path
        _assert_inert(response.get_data(as_text=True))


def test_markup_in_an_imported_file_renders_inert(planted):
    client = planted["client"]
    data = f'First Name,Last Name,"{XSS.replace(chr(34), chr(34) * 2)}"\n"{XSS.replace(chr(34), chr(34) * 2)}",Doe,x\n'
    response = client.post(
        "/crm/import/preview",
        data={
            "file": (io.BytesIO(data.encode()), "x.csv", "text/csv"),
            "encoding": "utf-8",
            "csrf_token": token(client, "/crm/import"),
        },
        content_type="multipart/form-data",
    )
    _assert_inert(response.get_data(as_text=True))


def test_markup_in_a_bad_value_renders_inert_in_the_error(planted):
    client = planted["client"]
    response = client.post(
        f"/crm/opportunities/{planted['opp']}/field",
        data={"field": "amount", "value": XSS, "csrf_token": token(client)},
    )
    assert response.status_code == 422
    _assert_inert(response.get_data(as_text=True))


def test_links_only_open_web_addresses(planted, facts):
    client = planted["client"]
    client.patch(
        f"{API}/accounts/{planted['account']}",
        json={"website": "javascript:alert(1)"},
        headers=API_HEADERS,
    )
    html = client.get(f"/crm/accounts/{planted['account']}").get_data(as_text=True)
    assert 'href="javascript:' not in html
