"""Through real Chromium: two worlds side by side, world-bound cookies, the 404 for bad worlds,
and the login page's demo accounts and user menu."""

from __future__ import annotations

import re

import pytest

from officegym.apps.web import WORLD_HEADER

from .conftest import WORLD_A, WORLD_B

pytestmark = pytest.mark.browser
TIMEOUT_MS = 10_000


@pytest.fixture
def new_context(browser):
    """Make browser contexts bound to a world (as the harness does); all closed afterwards."""
    made = []

    def make(world: str | None, **options):
        headers = {WORLD_HEADER: world} if world is not None else {}
        context = browser.new_context(extra_http_headers=headers, **options)
        context.set_default_timeout(TIMEOUT_MS)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


def sign_in(page, base_url: str, email: str) -> None:
    page.goto(base_url + "/login")
    page.get_by_label("Work email").fill(email)
    page.get_by_label("Password").fill("officegym")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(base_url + "/")


def test_two_worlds_side_by_side_each_see_their_own_company(
    live_server, new_context, facts_a, facts_b
):
    page_a = new_context(WORLD_A).new_page()
    page_b = new_context(WORLD_B).new_page()
    sign_in(page_a, live_server.url, facts_a.ceo.email)
    sign_in(page_b, live_server.url, facts_b.member.email)

    heading_a = page_a.get_by_role("heading", level=1).inner_text()
    heading_b = page_b.get_by_role("heading", level=1).inner_text()
    assert heading_a.endswith(facts_a.ceo.name.split()[0])
    assert heading_b.endswith(facts_b.member.name.split()[0])
    assert facts_a.company in page_a.locator("header").inner_text()
    assert facts_b.company in page_b.locator("header").inner_text()
    assert facts_b.company not in page_a.content()
    assert facts_a.company not in page_b.content()


def test_cookie_from_world_a_is_rejected_in_world_b(live_server, new_context, facts_a, facts_b):
    context_a = new_context(WORLD_A)
    page_a = context_a.new_page()
    sign_in(page_a, live_server.url, facts_a.ceo.email)

    context_b = new_context(WORLD_B)
    context_b.add_cookies(context_a.cookies())
    page_b = context_b.new_page()
    page_b.goto(live_server.url + "/")
    assert page_b.url == live_server.url + "/login"
    assert page_b.get_by_role("heading", name=f"Sign in to {facts_b.company}").is_visible()
    assert facts_a.ceo.name not in page_b.content()

    page_a.reload()
    assert page_a.url == live_server.url + "/"


def test_malformed_world_header_shows_the_no_such_world_page(live_server, new_context):
    page = new_context("../x").new_page()
    response = page.goto(live_server.url + "/")
    assert response.status == 404
    assert page.get_by_role("heading", name="No such world").is_visible()
    assert page.title() == "No such world"


def test_unknown_world_shows_the_no_such_world_page(live_server, new_context):
    page = new_context("nosuchworld").new_page()
    response = page.goto(live_server.url + "/login")
    assert response.status == 404
    assert page.get_by_role("heading", name="No such world").is_visible()


def test_clicking_a_demo_account_fills_the_email(live_server, new_context, facts_a):
    page = new_context(WORLD_A).new_page()
    page.goto(live_server.url + "/login")
    page.get_by_role("button", name=re.compile(re.escape(facts_a.ceo.name))).click()
    assert page.get_by_label("Work email").input_value() == facts_a.ceo.email
    assert page.evaluate("document.activeElement.id") == "password"


def test_wrong_password_in_the_browser_shows_the_message(live_server, new_context, facts_a):
    page = new_context(WORLD_A).new_page()
    page.goto(live_server.url + "/login")
    page.get_by_label("Work email").fill(facts_a.ceo.email)
    page.get_by_label("Password").fill("guess")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.get_by_role("button", name="Sign in").click()
    assert posted.value.status == 401
    assert "don't match an account" in page.get_by_role("alert").inner_text()
    assert page.get_by_label("Work email").input_value() == facts_a.ceo.email
    assert page.get_by_label("Password").input_value() == ""


def test_sign_out_from_the_user_menu(live_server, new_context, facts_a):
    page = new_context(WORLD_A).new_page()
    sign_in(page, live_server.url, facts_a.member.email)
    menu_button = page.get_by_role("button", name=f"Account menu for {facts_a.member.name}")
    menu_button.click()
    assert menu_button.get_attribute("aria-expanded") == "true"
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(live_server.url + "/login")
    assert page.get_by_text("You have signed out.").is_visible()
    page.goto(live_server.url + "/")
    assert page.url.startswith(live_server.url + "/login")


def test_app_switcher_opens_and_closes_with_escape(live_server, new_context, facts_a):
    page = new_context(WORLD_A).new_page()
    sign_in(page, live_server.url, facts_a.ceo.email)
    switcher = page.get_by_role("navigation", name="Apps").get_by_role("button", name="Apps")
    switcher.click()
    assert page.get_by_role("link", name="Home").is_visible()
    page.keyboard.press("Escape")
    assert switcher.get_attribute("aria-expanded") == "false"
    assert not page.get_by_role("link", name="Home").is_visible()


def test_pages_make_no_request_outside_the_server(live_server, new_context, facts_a):
    context = new_context(WORLD_A)
    seen: list[str] = []
    context.on("request", lambda request: seen.append(request.url))
    page = context.new_page()
    sign_in(page, live_server.url, facts_a.ceo.email)
    page.goto(live_server.url + "/missing")
    assert seen
    assert all(url.startswith(live_server.url) for url in seen), seen
