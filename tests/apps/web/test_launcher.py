"""The launcher and layout: greeting, user card, app registry, top bar, local assets only."""

from __future__ import annotations

import re

import pytest
from flask import Blueprint

from officegym.apps.web import AppEntry, create_app, register_app
from officegym.apps.web.auth import login_hint
from officegym.apps.web.branding import initials, mark_color
from officegym.apps.web.launcher import registered_apps

from .conftest import WORLD_A, csrf_token, login

ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="10"/></svg>'


def test_launcher_greets_the_user_with_company_and_card(client, facts_a):
    login(client, facts_a.member.email)
    html = client.get("/").get_data(as_text=True)
    assert re.search(r"Good (morning|afternoon|evening), " + facts_a.member.name.split()[0], html)
    assert facts_a.company in html
    assert facts_a.member.title in html
    assert facts_a.member.email in html


def test_launcher_without_apps_shows_an_empty_state(web_store, facts_a):
    client = create_app({"WORLD_STORE": web_store, "SECRET_KEY": "web-tests", "APPS": ()})
    client = client.test_client()
    login(client, facts_a.ceo.email)
    html = client.get("/").get_data(as_text=True)
    assert "No apps yet" in html
    assert "No apps are installed yet." in html


def test_top_bar_has_logo_app_switcher_and_sign_out(client, facts_a):
    login(client, facts_a.ceo.email)
    html = client.get("/").get_data(as_text=True)
    assert '<header class="topbar">' in html
    assert '<nav class="topbar__nav" aria-label="Apps">' in html
    assert 'class="logo-mark"' in html and f">{initials(facts_a.company)}</text>" in html
    assert re.search(r'<form method="post" action="/logout"[^>]*>\s*<input type="hidden"', html)
    assert '<button type="submit"' in html and "Sign out" in html


@pytest.fixture
def crm_entry():
    bp = Blueprint("fakecrm", __name__)

    @bp.get("/")
    def index():
        return "fake crm home"

    return AppEntry("fakecrm", "Fake CRM", "Accounts and deals", ICON, "fakecrm.index", bp)


def test_installed_apps_appear_in_grid_and_switcher_and_are_mounted(web_store, crm_entry, facts_a):
    app = create_app({"WORLD_STORE": web_store, "APPS": [crm_entry]})
    client = app.test_client()
    login(client, facts_a.ceo.email)
    html = client.get("/").get_data(as_text=True)
    assert html.count('href="/fakecrm/"') == 2
    assert "Accounts and deals" in html
    assert "No apps yet" not in html
    assert client.get("/fakecrm/").get_data(as_text=True) == "fake crm home"


def test_register_app_refuses_a_second_app_on_the_same_slug(crm_entry):
    register_app(crm_entry)
    try:
        register_app(crm_entry)  # the same entry again is harmless
        other = AppEntry("fakecrm", "Other", "", ICON, "other.index")
        with pytest.raises(ValueError, match="already registered"):
            register_app(other)
    finally:
        from officegym.apps.web import launcher

        launcher._registry.pop("fakecrm", None)
    assert crm_entry not in registered_apps()


@pytest.mark.parametrize("slug", ["", "CRM", "a/b", "../x", "crm app"])
def test_app_slugs_must_be_url_safe(slug):
    with pytest.raises(ValueError):
        AppEntry(slug, "X", "", ICON, "x.index")


def test_pages_load_only_local_assets_under_a_strict_policy(client, facts_a):
    pages = [client.get("/login")]
    login(client, facts_a.ceo.email)
    pages += [client.get("/"), client.get("/missing")]
    for page in pages:
        html = page.get_data(as_text=True)
        assert not re.search(r'(?:src|href|action)="(?![/#])', html), "non-local reference"
        assert "<style" not in html and " style=" not in html
        assert not re.search(r"<script(?![^>]*\ssrc=\"/)", html), "inline script"
        assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    for asset in ("/static/css/officegym.css", "/static/js/officegym.js", "/static/favicon.svg"):
        assert client.get(asset).status_code == 200


def test_login_form_is_labelled(client):
    html = client.get("/login").get_data(as_text=True)
    assert '<label for="email"' in html and 'id="email"' in html
    assert '<label for="password"' in html and 'id="password"' in html
    assert '<button type="submit"' in html
    assert '<main id="main"' in html


def test_login_hint_names_the_first_demo_account_and_the_password(client, web_store):
    hint = login_hint(web_store, WORLD_A)
    first = re.search(r'data-fill-email="([^"]+)"', client.get("/login").get_data(as_text=True))
    assert "'officegym'" in hint
    assert f"e.g. {first.group(1)} (Sales rep · " in hint


def test_marks_are_stable_initials_and_colours():
    assert initials("Ridgeline Analytics") == "RA"
    assert initials("Acme") == "AC"
    assert initials("Jean-Luc Picard") == "JL"
    assert mark_color("Quill Works") == mark_color("Quill Works")


def test_launcher_renders_for_every_example_account(client, facts_a):
    accounts = re.findall(r'data-fill-email="([^"]+)"', client.get("/login").get_data(as_text=True))
    for email in accounts:
        assert login(client, email).status_code == 302
        assert client.get("/").status_code == 200
        client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
