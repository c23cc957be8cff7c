"""Stays through real Chromium against the real server: searching with dates typed, filled or
picked on the calendar by keyboard, filters, a listing, booking it, finding it in My trips,
cancelling it for the refund the policy gives, and a manager approving a request.

Every test starts from the tiny seed-0 world (reset for it) and reads the world file back to
prove what was written.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from officegym.apps.booking import reads
from officegym.seed_data.booking_rules import refund_cents

pytestmark = pytest.mark.browser


def search_for(page: Page, where: str) -> None:
    page.goto("/booking/")
    page.get_by_label("Where").fill(where)


def result_links(page: Page) -> list[int]:
    hrefs = page.locator(".stay-card__name a").evaluate_all("links => links.map(a => a.href)")
    return [int(re.search(r"/stays/(\d+)", h).group(1)) for h in hrefs]


def test_search_with_filled_dates_and_filters(page: Page, live, facts):
    s = facts.in_policy
    search_for(page, s.city)
    page.get_by_label("Check-in").fill(s.check_in.isoformat())
    page.get_by_label("Check-out").fill(s.check_out.isoformat())
    page.locator("summary", has_text="Filters").click()
    page.get_by_label("Wifi").check()
    page.get_by_label("Guest rating").select_option("4")
    page.get_by_role("button", name="Apply filters").click()
    expect(page).to_have_url(re.compile(rf"check_in={s.check_in}&check_out={s.check_out}"))
    heading = page.get_by_role("heading", level=2).first
    expect(heading).to_contain_text(f"stays in {s.city}")
    expected = {
        r
        for (r,) in live.rows(
            "SELECT r.id FROM booking_resource r JOIN booking_property p "
            "ON p.id = r.property_id WHERE r.kind IN ('home', 'hotel_room') AND p.city = ? "
            "AND (', ' || p.amenities || ',') LIKE '%, wifi,%' AND p.guest_rating >= 4 "
            "AND r.min_nights <= ?",
            (s.city, (s.check_out - s.check_in).days),
        )
    }
    assert set(result_links(page)) <= expected
    assert s.resource_id in result_links(page) or s.resource_id not in expected


def test_dates_typed_into_the_date_fields(page: Page, facts):
    s = facts.in_policy
    search_for(page, s.city)
    page.get_by_label("Check-in").focus()
    page.keyboard.type(s.check_in.strftime("%m%d%Y"))
    page.get_by_label("Check-out").focus()
    page.keyboard.type(s.check_out.strftime("%m%d%Y"))
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(rf"check_in={s.check_in}&check_out={s.check_out}"))
    expect(page.get_by_label("Check-out")).to_have_value(s.check_out.isoformat())


def test_check_out_cannot_come_before_check_in(page: Page, facts):
    search_for(page, facts.in_policy.city)
    check_in = facts.today + timedelta(days=9)
    page.get_by_label("Check-in").fill(check_in.isoformat())
    expect(page.get_by_label("Check-out")).to_have_attribute(
        "min", (check_in + timedelta(days=1)).isoformat()
    )
    page.get_by_label("Check-out").fill((check_in - timedelta(days=2)).isoformat())
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_text("Check-out must be after check-in.")).to_be_visible()


def test_dates_picked_on_the_calendar_by_keyboard(page: Page, facts):
    search_for(page, facts.in_policy.city)
    page.get_by_role("button", name="Choose dates on a calendar").click()
    dialog = page.get_by_role("dialog", name="Stay calendar")
    expect(dialog).to_be_visible()
    today = facts.today
    expect(dialog.locator("button:focus")).to_have_attribute("data-day", today.isoformat())
    for _ in range(7):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    check_in = today + timedelta(days=14)
    expect(page.get_by_label("Check-in")).to_have_value(check_in.isoformat())
    expect(dialog.get_by_text("Now pick check-out")).to_be_visible()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page.get_by_label("Check-out")).to_have_value((check_in + timedelta(3)).isoformat())
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(rf"check_in={check_in}"))


def test_escape_closes_the_calendar_and_keeps_the_dates(page: Page, facts):
    search_for(page, facts.in_policy.city)
    page.get_by_label("Check-in").fill(facts.in_policy.check_in.isoformat())
    toggle = page.get_by_role("button", name="Choose dates on a calendar")
    toggle.click()
    page.keyboard.press("PageDown")
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()
    expect(toggle).to_be_focused()
    expect(page.get_by_label("Check-in")).to_have_value(facts.in_policy.check_in.isoformat())


def test_book_a_stay_and_find_it_in_my_trips(page: Page, live, facts):
    s = facts.in_policy
    page.goto(f"/booking/?where={s.city}&{s.query()}")
    page.get_by_role("link", name=s.title, exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(s.title)
    expect(page.get_by_role("table", name=re.compile("^Price for"))).to_contain_text(
        reads.money(s.total_cents)
    )
    page.get_by_role("button", name="Reserve").click()
    expect(page.get_by_role("heading", name="Review and book")).to_be_visible()
    expect(page.get_by_text("In policy")).to_be_visible()
    page.get_by_label("Trip name").fill("Browser kickoff")
    page.get_by_role("button", name="Confirm and book").click()
    expect(page.get_by_text("Booked: the stay is confirmed.")).to_be_visible()
    (rid, status, total) = live.one(
        "SELECT id, status, total_cents FROM booking_reservation WHERE purpose = ?",
        ("Browser kickoff",),
    )
    assert (status, total) == ("confirmed", s.total_cents)
    assert page.url.endswith(f"/booking/trips/{rid}")
    page.get_by_role("link", name="My trips").first.click()
    expect(page.get_by_role("link", name=re.compile("^Browser kickoff"))).to_be_visible()


def test_cancel_a_trip_and_see_the_refund(page: Page, live, facts):
    s = facts.in_policy
    page.goto(f"/booking/stays/{s.resource_id}/reserve?{s.query()}")
    page.get_by_label("Trip name").fill("Trip to cancel")
    page.get_by_role("button", name="Confirm and book").click()
    expect(page.get_by_text("Booked: the stay is confirmed.")).to_be_visible()
    policy = live.one(
        "SELECT p.cancellation_policy FROM booking_resource r JOIN booking_property p "
        "ON p.id = r.property_id WHERE r.id = ?",
        (s.resource_id,),
    )
    refund = reads.money(refund_cents(policy, facts.today, s.check_in, s.total_cents))
    page.get_by_role("link", name="Cancel reservation").click()
    expect(page.get_by_text(f"Cancelling today refunds {refund}")).to_be_visible()
    page.get_by_role("button", name="Cancel reservation").click()
    expect(page.get_by_text(f"Reservation cancelled. Refund: {refund}.")).to_be_visible()
    expect(page.locator(".facts")).to_contain_text(refund)
    (status, stored) = live.one(
        "SELECT status, refund_cents FROM booking_reservation WHERE purpose = 'Trip to cancel'"
    )
    assert status == "cancelled"
    assert reads.money(stored) == refund


def test_out_of_policy_stay_goes_to_the_manager_who_approves_it(
    page: Page, browser_login, live, facts
):
    s = facts.over_policy
    page.goto(f"/booking/stays/{s.resource_id}/reserve?{s.query()}")
    expect(page.get_by_text(f"It goes to {facts.manager.name} for approval")).to_be_visible()
    page.get_by_label("Trip name").fill("Two weeks on site")
    page.get_by_role("button", name="Request approval").click()
    expect(page.get_by_text("Add a justification")).to_have_count(2)
    expect(page.get_by_label("Trip name")).to_have_value("Two weeks on site")
    page.get_by_label("Justification").fill("The customer needs us on site for the rollout.")
    page.get_by_role("button", name="Request approval").click()
    expect(page.get_by_text(f"held until {facts.manager.name} decides")).to_be_visible()
    (rid, status) = live.one(
        "SELECT id, status FROM booking_reservation WHERE purpose = 'Two weeks on site'"
    )
    assert status == "pending_approval"

    manager = browser_login(facts.manager)
    manager.goto("/booking/approvals")
    item = manager.locator("li.request", has=manager.locator(f'a[href="/booking/trips/{rid}"]'))
    item.get_by_label(re.compile("^Comment")).fill("Fine for the rollout.")
    item.get_by_role("button", name=re.compile(f"^Approve {facts.traveller.name}")).click()
    expect(manager.get_by_text("Approved: the stay is confirmed.")).to_be_visible()
    assert live.one("SELECT status FROM booking_reservation WHERE id = ?", (rid,)) == "confirmed"
    assert live.one(
        "SELECT status, comment FROM booking_approval WHERE reservation_id = ?", (rid,)
    ) == ("approved", "Fine for the rollout.")


def test_a_listing_taken_for_the_dates_says_so(page: Page, live, facts):
    home = live.one(
        "SELECT id FROM booking_resource WHERE kind = 'home' AND units = 1 AND min_nights <= 2 "
        "ORDER BY id LIMIT 1"
    )
    first = facts.today + timedelta(days=40)
    dates = f"check_in={first}&check_out={first + timedelta(days=2)}"
    page.goto(f"/booking/stays/{home}/reserve?{dates}")
    page.get_by_label("Trip name").fill("Taking the home")
    justification = page.get_by_label("Justification")
    if justification.count():
        justification.fill("Needed close to the customer's site.")
    page.get_by_role("button", name=re.compile("^(Confirm and book|Request approval)$")).click()
    expect(page.get_by_role("heading", name="Taking the home")).to_be_visible()

    page.goto(f"/booking/stays/{home}?{dates}")
    expect(page.get_by_role("alert")).to_contain_text("Not available for those dates.")
    expect(page.get_by_role("button", name="Reserve")).to_have_count(0)
    cell = page.get_by_role(
        "cell", name=re.compile(f"^{first:%a} {first.day} {first:%b}: unavailable")
    )
    expect(cell).to_have_count(1)


def test_a_manager_books_for_a_report_picked_by_type_ahead(browser_login, live, facts):
    s = facts.in_policy
    manager = browser_login(facts.manager)
    manager.goto(f"/booking/stays/{s.resource_id}/reserve?{s.query()}")
    box = manager.get_by_role("combobox", name="Traveller")
    expect(box).to_have_value(facts.manager.name)
    box.fill("")
    box.press_sequentially(facts.traveller.name.split()[0][:4], delay=30)
    manager.get_by_role("option", name=re.compile(rf"^{re.escape(facts.traveller.name)}\b")).click()
    manager.get_by_role("button", name="Check policy for this traveller").click()
    expect(manager.get_by_text(f"for {facts.traveller.name}.")).to_be_visible()
    manager.get_by_label("Trip name").fill("Visit for my report")
    manager.get_by_role("button", name="Confirm and book").click()
    expect(manager.get_by_text("Booked: the stay is confirmed.")).to_be_visible()
    assert live.one(
        "SELECT guest_id, booked_by_id FROM booking_reservation WHERE purpose = ?",
        ("Visit for my report",),
    ) == (facts.traveller.id, facts.manager.id)
