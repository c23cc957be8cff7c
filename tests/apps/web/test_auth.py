"""Single sign-on: login form, credentials, CSRF, `next`, logout and world-bound sessions."""

from __future__ import annotations

import re
import sqlite3

import pytest

from officegym.apps.web import WORLD_HEADER
from officegym.apps.web.auth import MAX_SESSIONS_PER_EMPLOYEE, safe_next
from officegym.seed_data.passwords import DEMO_PASSWORD

from .conftest import WORLD_A, WORLD_B, csrf_token, deactivate, login


def test_login_page_shows_company_hint_and_example_accounts(client, facts_a):
    page = client.get("/login")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert facts_a.company in html
    assert "Demo: any employee email, password <code>officegym</code>" in html
    assert html.count("data-fill-email=") == 5
    assert f'data-fill-email="{facts_a.ceo.email}"' in html


def test_login_page_first_suggests_a_rep_with_open_deals_and_a_manager_with_approvals(
    client, web_store
):
    html = client.get("/login").get_data(as_text=True)
    suggested = re.findall(r'data-fill-email="([^"]+)"', html)
    whys = re.findall(r'class="account__title">([^<]+)<', html)
    conn = sqlite3.connect(f"file:{web_store.world_path(WORLD_A)}?mode=ro", uri=True)
    try:
        (rep_deals,) = conn.execute(
            "SELECT count(*) FROM crm_opportunity o JOIN people_employee e ON e.id = o.owner_id "
            "WHERE e.email = ? AND o.stage NOT IN ('Closed Won', 'Closed Lost')",
            (suggested[0],),
        ).fetchone()
        (waiting,) = conn.execute(
            "SELECT count(*) FROM booking_approval a JOIN people_employee e "
            "ON e.id = a.approver_id WHERE e.email = ? AND a.status = 'pending'",
            (suggested[1],),
        ).fetchone()
    finally:
        conn.close()
    assert rep_deals > 0
    assert whys[0] == f"Sales rep · {rep_deals} open deal{'' if rep_deals == 1 else 's'}"
    assert waiting > 0
    assert whys[1].startswith("Manager · ") and f"{waiting} approval" in whys[1]
    assert len(set(suggested)) == len(suggested)


def test_login_with_demo_password_opens_the_launcher(client, facts_a):
    response = login(client, facts_a.ceo.email)
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    launcher = client.get("/")
    html = launcher.get_data(as_text=True)
    assert launcher.status_code == 200
    assert facts_a.company in html
    assert facts_a.ceo.name in html
    assert facts_a.ceo.title in html


def test_login_email_is_case_insensitive(client, facts_a):
    response = login(client, "  " + facts_a.member.email.upper() + " ")
    assert response.status_code == 302
    assert facts_a.member.name in client.get("/").get_data(as_text=True)


def test_wrong_password_rerenders_form_with_401_keeping_email_not_password(client, facts_a):
    response = login(client, facts_a.ceo.email, "not-the-password")
    html = response.get_data(as_text=True)
    assert response.status_code == 401
    assert "don&#39;t match an account" in html
    assert f'value="{facts_a.ceo.email}"' in html
    assert "not-the-password" not in html
    assert client.get("/").status_code == 302


def test_unknown_email_is_refused_with_401(client, facts_a):
    response = login(client, "nobody@example.com")
    assert response.status_code == 401
    assert "don&#39;t match an account" in response.get_data(as_text=True)


@pytest.mark.parametrize("email, password", [("", ""), ("", "officegym"), ("a@b.c", "")])
def test_empty_fields_are_refused_with_400(client, email, password):
    response = login(client, email, password)
    assert response.status_code == 400
    assert "Enter your email address and password." in response.get_data(as_text=True)


def test_deactivated_employee_is_refused_with_403(client, web_store, scratch_world, facts_a):
    deactivate(web_store, scratch_world, facts_a.member.id)
    response = login(client, facts_a.member.email, world=scratch_world)
    html = response.get_data(as_text=True)
    assert response.status_code == 403
    assert "deactivated" in html
    assert f'value="{facts_a.member.email}"' in html


def test_session_ends_when_the_employee_is_deactivated(client, web_store, scratch_world, facts_a):
    headers = {WORLD_HEADER: scratch_world}
    assert login(client, facts_a.member.email, world=scratch_world).status_code == 302
    assert client.get("/", headers=headers).status_code == 200
    deactivate(web_store, scratch_world, facts_a.member.id)
    assert client.get("/", headers=headers).status_code == 302


def test_post_without_csrf_token_is_refused_with_400(client, facts_a):
    response = client.post("/login", data={"email": facts_a.ceo.email, "password": "officegym"})
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "missing its security token" in html
    assert client.get("/").status_code == 302


def test_post_with_a_forged_csrf_token_is_refused_with_400(client, facts_a):
    csrf_token(client)
    data = {"email": facts_a.ceo.email, "password": "officegym", "csrf_token": "forged"}
    assert client.post("/login", data=data).status_code == 400


def test_login_returns_to_a_local_next_page(client, facts_a):
    response = login(client, facts_a.ceo.email, next="/crm/deals?stage=open")
    assert response.headers["Location"] == "/crm/deals?stage=open"


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example/path",
        "/\\evil.example",
        "\\\\evil.example",
        "javascript:alert(1)",
        "http:evil.example",
        "/ok\r\nSet-Cookie: x=1",
        "",
    ],
)
def test_login_refuses_an_offsite_next_and_goes_home(client, facts_a, target):
    response = login(client, facts_a.ceo.email, next=target)
    assert response.status_code == 302
    assert response.headers["Location"] == "/"


def test_safe_next_keeps_paths_and_queries():
    assert safe_next("/a/b?c=d#e") == "/a/b?c=d#e"
    assert safe_next("/") == "/"
    assert safe_next("/" + "x" * 3000) is None


def test_login_page_carries_a_safe_next_into_the_form(client):
    html = client.get("/login?next=/sheets/1").get_data(as_text=True)
    assert 'name="next" value="/sheets/1"' in html
    html = client.get("/login?next=https://evil.example").get_data(as_text=True)
    assert 'name="next"' not in html


def test_signed_in_visitor_of_login_page_is_sent_home(client, facts_a):
    login(client, facts_a.ceo.email)
    response = client.get("/login")
    assert response.status_code == 302
    assert response.headers["Location"] == "/"


def test_launcher_requires_login(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response.headers["Location"] == "/login"


def test_login_required_remembers_the_page_asked_for(app, client, facts_a):
    from officegym.apps.web import login_required

    @app.get("/reports/weekly")
    @login_required
    def weekly():
        return "weekly report"

    response = client.get("/reports/weekly?week=38")
    assert response.headers["Location"] == "/login?next=/reports/weekly?week%3D38"
    signed_in = login(client, facts_a.ceo.email, next="/reports/weekly?week=38")
    assert signed_in.headers["Location"] == "/reports/weekly?week=38"
    assert client.get("/reports/weekly?week=38").get_data(as_text=True) == "weekly report"


def test_logout_signs_out_and_says_so(client, facts_a):
    login(client, facts_a.ceo.email)
    token = csrf_token(client, "/")
    response = client.post("/logout", data={"csrf_token": token})
    assert response.status_code == 302
    assert response.headers["Location"] == "/login"
    assert "You have signed out." in client.get("/login").get_data(as_text=True)
    assert client.get("/").status_code == 302


def test_logout_needs_post(client, facts_a):
    login(client, facts_a.ceo.email)
    response = client.get("/logout")
    assert response.status_code == 405
    assert client.get("/").status_code == 200


def test_logout_without_csrf_token_is_refused(client, facts_a):
    login(client, facts_a.ceo.email)
    assert client.post("/logout").status_code == 400
    assert client.get("/").status_code == 200


def test_session_from_one_world_is_logged_out_in_another(client, facts_a):
    assert login(client, facts_a.ceo.email, world=WORLD_A).status_code == 302
    other = client.get("/", headers={WORLD_HEADER: WORLD_B})
    assert other.status_code == 302
    assert other.headers["Location"] == "/login"
    assert client.get("/", headers={WORLD_HEADER: WORLD_A}).status_code == 200


def test_employee_of_world_a_cannot_sign_in_to_world_b(client, facts_a, facts_b):
    assert facts_a.ceo.email != facts_b.ceo.email
    assert login(client, facts_a.ceo.email, world=WORLD_B).status_code == 401


def test_signing_in_to_world_b_replaces_the_world_a_session(client, facts_a, facts_b):
    login(client, facts_a.ceo.email, world=WORLD_A)
    login(client, facts_b.ceo.email, world=WORLD_B)
    html = client.get("/", headers={WORLD_HEADER: WORLD_B}).get_data(as_text=True)
    assert facts_b.ceo.name in html
    assert client.get("/", headers={WORLD_HEADER: WORLD_A}).status_code == 302


def _copy_of_the_session_cookie(app, client):
    name = app.config["SESSION_COOKIE_NAME"]
    copy = app.test_client()
    copy.set_cookie(name, client.get_cookie(name).value)
    return copy


def test_a_session_cookie_copied_before_logout_is_signed_out_after_it(app, client, facts_a):
    login(client, facts_a.ceo.email)
    copy = _copy_of_the_session_cookie(app, client)
    assert copy.get("/").status_code == 200
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    assert copy.get("/").status_code == 302


def test_a_session_dies_with_its_world_even_when_a_world_of_that_name_comes_back(
    app, client, web_store, scratch_world, facts_a
):
    headers = {WORLD_HEADER: scratch_world}
    login(client, facts_a.ceo.email, world=scratch_world)
    assert client.get("/", headers=headers).status_code == 200
    web_store.drop(scratch_world)
    web_store.create(scratch_world, 1, "tiny")
    assert client.get("/", headers=headers).status_code == 302
    web_store.drop(scratch_world)
    web_store.create(scratch_world, 0, "tiny")
    assert client.get("/", headers=headers).status_code == 302


def test_a_session_outlives_a_reset_of_its_world(client, web_store, scratch_world, facts_a):
    headers = {WORLD_HEADER: scratch_world}
    login(client, facts_a.ceo.email, world=scratch_world)
    web_store.reset(scratch_world)
    assert client.get("/", headers=headers).status_code == 200


@pytest.mark.parametrize("suffix", ["\0", "\0\0\0", "\0x"])
def test_the_demo_password_with_nul_bytes_is_refused(client, facts_a, suffix):
    assert login(client, facts_a.ceo.email, DEMO_PASSWORD + suffix).status_code == 401


def test_signing_in_keeps_a_bounded_number_of_sessions_per_person(
    app, web_store, scratch_world, facts_a
):
    for _ in range(MAX_SESSIONS_PER_EMPLOYEE + 3):
        login(app.test_client(), facts_a.ceo.email, world=scratch_world)
    conn = sqlite3.connect(web_store.world_path(scratch_world))
    try:
        (kept,) = conn.execute("SELECT count(*) FROM _session").fetchone()
    finally:
        conn.close()
    assert kept == MAX_SESSIONS_PER_EMPLOYEE
