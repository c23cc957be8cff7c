"""Meeting rooms through real Chromium against the real server: a person opens a free hour of
the day view, books it with a colleague chosen from the type-ahead picker, meets the clash
message when the slot is taken, and books a weekly meeting whose clashing week is reported and
skipped. The world file is read back to prove what was written.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from .conftest import BookingFacts, Live
from .test_rooms_views import RoomFacts, read_room_facts

pytestmark = pytest.mark.browser


@pytest.fixture(scope="session")
def room_facts(store, facts: BookingFacts) -> RoomFacts:
    return read_room_facts(store, facts)


def open_free_hour(page: Page, rf: RoomFacts, day, hour: str) -> None:
    """From the day view, click the free hour of the room: the booking form opens filled in."""
    page.goto(f"/booking/rooms?date={day.isoformat()}")
    page.get_by_role("link", name=f"Book {rf.room_name} at {hour}").click()
    expect(page.get_by_role("heading", name="Book a room")).to_be_visible()


def fill_and_book(page: Page, title: str, end: str = "11:00", weeks: str = "1") -> None:
    page.get_by_label("Title", exact=True).fill(title)
    page.get_by_label("End time", exact=True).select_option(end)
    page.get_by_label("Repeat weekly for (weeks)").fill(weeks)
    page.get_by_role("button", name="Book", exact=True).click()


def choose_attendee(page: Page, person) -> None:
    box = page.get_by_role("combobox", name="Attendees")
    box.press_sequentially(person.name.split()[0][:4], delay=30)
    page.get_by_role("option", name=re.compile(rf"^{re.escape(person.name)}\b")).click()
    expect(page.get_by_role("button", name=f"Remove {person.name}")).to_be_visible()


def test_booking_a_room_with_a_type_ahead_attendee(
    browser_login, live: Live, facts: BookingFacts, room_facts: RoomFacts
):
    page = browser_login(facts.traveller)
    open_free_hour(page, room_facts, room_facts.day, "10:00")
    expect(page.get_by_label("Room", exact=True)).to_have_value(str(room_facts.room))
    expect(page.get_by_label("Start time", exact=True)).to_have_value("10:00")
    choose_attendee(page, facts.manager)
    fill_and_book(page, "Roadmap walkthrough")
    expect(page).to_have_url(re.compile(r"/booking/rooms/bookings/\d+$"))
    expect(page.get_by_role("heading", name="Roadmap walkthrough")).to_be_visible()
    expect(page.get_by_role("list", name="Attendees")).to_contain_text(facts.manager.name)
    rid = int(page.url.rsplit("/", 1)[1])
    assert live.rows(
        "SELECT employee_id FROM booking_attendee WHERE reservation_id = ?", (rid,)
    ) == [(facts.manager.id,)]
    assert live.one("SELECT start_at FROM booking_reservation WHERE id = ?", (rid,)) == (
        room_facts.utc(room_facts.day, "10:00")
    )
    page.goto(f"/booking/rooms?date={room_facts.day.isoformat()}")
    expect(page.get_by_role("link", name="Roadmap walkthrough")).to_be_visible()


def test_a_taken_slot_shows_the_clash_message(
    browser_login, live: Live, facts: BookingFacts, room_facts: RoomFacts
):
    page = browser_login(facts.traveller)
    open_free_hour(page, room_facts, room_facts.day, "10:00")
    fill_and_book(page, "Pricing review")
    expect(page).to_have_url(re.compile(r"/booking/rooms/bookings/\d+$"))
    page.goto(
        f"/booking/rooms/book?room={room_facts.room}&date={room_facts.day.isoformat()}"
        "&start=10:30&end=11:30"
    )
    fill_and_book(page, "Hiring sync", end="11:30")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(
        f"{room_facts.room_name} is booked 10:00–11:00 for “Pricing review” by "
        f"{facts.traveller.name}"
    )
    expect(page.get_by_label("Title", exact=True)).to_have_value("Hiring sync")
    assert live.rows("SELECT id FROM booking_reservation WHERE purpose = 'Hiring sync'") == []


def test_a_weekly_booking_reports_the_clashing_week_and_books_the_free_ones(
    browser_login, live: Live, facts: BookingFacts, room_facts: RoomFacts
):
    page = browser_login(facts.traveller)
    taken = room_facts.day + timedelta(weeks=1)
    open_free_hour(page, room_facts, taken, "10:00")
    fill_and_book(page, "Offsite prep")
    expect(page).to_have_url(re.compile(r"/booking/rooms/bookings/\d+$"))

    open_free_hour(page, room_facts, room_facts.day, "10:00")
    choose_attendee(page, facts.manager)
    fill_and_book(page, "Weekly roadmap", weeks="4")
    clashes = page.get_by_role("list", name="Clashing dates")
    expect(page.get_by_role("alert")).to_contain_text("1 of the 4 weeks clash")
    expect(clashes).to_contain_text(f"{taken:%A} {taken.day} {taken:%B %Y}")
    expect(clashes).to_contain_text("“Offsite prep”")
    assert live.rows("SELECT id FROM booking_reservation WHERE purpose = 'Weekly roadmap'") == []

    page.get_by_role("button", name="Book the 3 free weeks").click()
    expect(page).to_have_url(re.compile(r"/booking/rooms/bookings/\d+$"))
    expect(page.get_by_role("status").first).to_contain_text("3 of 4 weeks")
    booked = live.rows(
        "SELECT start_at FROM booking_reservation WHERE purpose = 'Weekly roadmap' "
        "ORDER BY start_at"
    )
    assert [s for (s,) in booked] == [
        room_facts.utc(room_facts.day + timedelta(weeks=w), "10:00") for w in (0, 2, 3)
    ]
    attendees = live.rows(
        "SELECT count(*) FROM booking_attendee a JOIN booking_reservation r "
        "ON r.id = a.reservation_id WHERE r.purpose = 'Weekly roadmap' AND a.employee_id = ?",
        (facts.manager.id,),
    )
    assert attendees == [(3,)]


def test_moving_the_start_past_the_end_moves_the_end(browser_login, facts, room_facts):
    page = browser_login(facts.traveller)
    open_free_hour(page, room_facts, room_facts.day, "10:00")
    expect(page.get_by_label("End time", exact=True)).to_have_value("10:30")
    page.get_by_label("Start time", exact=True).select_option("13:15")
    expect(page.get_by_label("End time", exact=True)).to_have_value("13:45")
    page.get_by_label("Start time", exact=True).select_option("12:00")
    expect(page.get_by_label("End time", exact=True)).to_have_value("13:45")
