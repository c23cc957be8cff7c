"""The meeting-room pages as specifications: the day and week views in the office's own time,
the seat and equipment filters, booking through the form (once and weekly, with clashes),
a booking's page and who may cancel it, and my calendar.

Every test acts on a fresh tiny seed-0 world through the real app (Flask test client) and reads
the world file back. The room, the people and the free dates are chosen by rule from the golden
(`RoomFacts`); a refused act is checked to have written nothing.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from html import unescape
from zoneinfo import ZoneInfo

import pytest

from officegym.seed_data.clock import now_of
from officegym.seed_data.store import WorldStore
from tests.conftest import csrf_token

from .conftest import BookingFacts, dump, one, rows

ROOMS = "/booking/rooms"
BOOK = "/booking/rooms/book"


@dataclass(frozen=True)
class Seeded:
    """A confirmed upcoming booking of the golden: its room's office, title, organizer and
    local day and times."""

    id: int
    office_id: int
    title: str
    organizer: str
    day: date
    start: str
    end: str


@dataclass(frozen=True)
class RoomFacts:
    """A room of the traveller's office and weekdays on which it is free from 07:00 to 20:00
    for four weeks running, with the office's time zone."""

    office_id: int
    office: str
    timezone: str
    room: int
    room_name: str
    capacity: int
    features: tuple[str, ...]
    day: date  # a weekday at least a week ahead; the same weekday is free 3 more weeks
    seeded: Seeded
    local_today: date  # the world's today in the office
    last_reservation: int  # the golden's highest reservation id

    def utc(self, day: date, at: str) -> str:
        """`day` at `at` in the office as stored (naive UTC, SQLite's text)."""
        local = datetime.combine(day, time.fromisoformat(at), tzinfo=ZoneInfo(self.timezone))
        return local.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def _local(value: str, timezone: str) -> datetime:
    return datetime.fromisoformat(value).replace(tzinfo=UTC).astimezone(ZoneInfo(timezone))


def read_room_facts(store: WorldStore, facts: BookingFacts) -> RoomFacts:
    conn = sqlite3.connect(f"file:{store.golden(0, 'tiny')}?mode=ro", uri=True)
    try:
        office_id, office, timezone = conn.execute(
            "SELECT o.id, o.name, o.timezone FROM people_office o JOIN people_employee e "
            "ON e.office_id = o.id WHERE e.id = ?",
            (facts.traveller.id,),
        ).fetchone()
        room, name, capacity, features = conn.execute(
            "SELECT r.id, r.name, r.capacity, r.features FROM booking_resource r "
            "JOIN booking_property p ON p.id = r.property_id "
            "WHERE r.kind = 'meeting_room' AND p.office_id = ? "
            "ORDER BY r.capacity DESC, r.id LIMIT 1",
            (office_id,),
        ).fetchone()
        held = [
            _local(start, timezone).date()
            for (start,) in conn.execute(
                "SELECT start_at FROM booking_reservation WHERE resource_id = ? "
                "AND status = 'confirmed'",
                (room,),
            )
        ]
        closed = [
            (date.fromisoformat(a), date.fromisoformat(b))
            for a, b in conn.execute(
                "SELECT start_date, end_date FROM booking_availability "
                "WHERE resource_id = ? AND units < 1",
                (room,),
            )
        ]
        day = facts.today + timedelta(days=7)
        while day.weekday() >= 5 or any(
            d in held or any(a <= d <= b for a, b in closed)
            for d in (day + timedelta(weeks=w) for w in range(4))
        ):
            day += timedelta(days=1)
        seeded_row = conn.execute(
            "SELECT b.id, b.purpose, e.display_name, b.start_at, b.end_at "
            "FROM booking_reservation b JOIN booking_resource r ON r.id = b.resource_id "
            "JOIN booking_property p ON p.id = r.property_id "
            "JOIN people_employee e ON e.id = b.guest_id "
            "WHERE r.kind = 'meeting_room' AND p.office_id = ? AND b.status = 'confirmed' "
            "AND b.start_at > ? ORDER BY b.start_at, b.id LIMIT 1",
            (office_id, facts.today.isoformat()),
        ).fetchone()
        (last,) = conn.execute("SELECT max(id) FROM booking_reservation").fetchone()
    finally:
        conn.close()
    sid, title, organizer, start, end = seeded_row
    now = now_of(store.golden(0, "tiny")).replace(tzinfo=UTC).astimezone(ZoneInfo(timezone))
    local_start, local_end = _local(start, timezone), _local(end, timezone)
    return RoomFacts(
        office_id=office_id,
        office=office,
        timezone=timezone,
        room=room,
        room_name=name,
        capacity=capacity,
        features=tuple(f.strip() for f in features.split(",") if f.strip()),
        day=day,
        seeded=Seeded(
            sid,
            office_id,
            title,
            organizer,
            local_start.date(),
            f"{local_start:%H:%M}",
            f"{local_end:%H:%M}",
        ),
        local_today=now.date(),
        last_reservation=last,
    )


@pytest.fixture(scope="session")
def room_facts(store: WorldStore, facts: BookingFacts) -> RoomFacts:
    return read_room_facts(store, facts)


@pytest.fixture
def traveller(login, facts: BookingFacts):
    return login(facts.traveller)


def text_of(response) -> str:
    """The page's text without tags and with collapsed spaces."""
    html = response.get_data(as_text=True)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def alert(response) -> str:
    """The text of the booking form's error alert (with its list of clashing weeks)."""
    html = response.get_data(as_text=True)
    found = re.search(r'role="alert"[^>]*>(.*?)<form class="form rooms-book"', html, re.S)
    assert found, "no alert on the page"
    return text_of_html(found.group(1))


def post(client, path: str, data: dict):
    """POST a form with the CSRF token of the client's session, read from the booking form
    (the token lives in the session, which a shared cookie may not hold yet)."""
    return client.post(path, data={**data, "csrf_token": csrf_token(client, BOOK)})


def book(client, rf: RoomFacts, **changes):
    """Post the booking form: by default the room, 10:00-11:00 on `rf.day`, no attendees."""
    data = {
        "room": str(rf.room),
        "date": rf.day.isoformat(),
        "start": "10:00",
        "end": "11:00",
        "title": "Quarterly planning",
        "weeks": "1",
    }
    data.update(changes)
    return post(client, BOOK, data)


def new_bookings(store, world, rf: RoomFacts) -> list[tuple]:
    """The bookings of the room made in this test (ids after the golden's), by start."""
    return rows(
        store,
        world,
        "SELECT id, start_at, end_at, purpose, status, series_id FROM booking_reservation "
        "WHERE resource_id = ? AND id > ? ORDER BY start_at, id",
        (rf.room, rf.last_reservation),
    )


# -- the day and week views ------------------------------------------------------------------


def test_the_rooms_page_opens_on_the_users_office_today(traveller, room_facts):
    response = traveller.get(ROOMS)
    today = room_facts.local_today
    html = response.get_data(as_text=True)
    assert f'<option value="{room_facts.office_id}" selected>' in html
    assert f'name="date" type="date" value="{today.isoformat()}"' in html
    page = text_of(response)
    assert f"{today:%A} {today.day} {today:%B %Y}" in page
    assert room_facts.room_name in page
    assert f"times in {room_facts.timezone}" in page


def test_the_day_view_shows_a_booking_at_its_office_local_time(traveller, room_facts):
    seeded = room_facts.seeded
    page = text_of(
        traveller.get(ROOMS, query_string={"office": seeded.office_id, "date": seeded.day})
    )
    assert f"{seeded.title} {seeded.organizer} {seeded.start}–{seeded.end}" in page


def test_the_week_view_puts_a_booking_under_its_local_day(traveller, room_facts):
    seeded = room_facts.seeded
    html = traveller.get(
        ROOMS, query_string={"office": seeded.office_id, "date": seeded.day, "view": "week"}
    ).get_data(as_text=True)
    header = re.findall(r'<th scope="col"[^>]*><a[^>]*>([^<]+)</a></th>', html)
    monday = seeded.day - timedelta(days=seeded.day.weekday())
    assert header == [f"{d:%a} {d.day} {d:%b}" for d in (monday + timedelta(n) for n in range(7))]
    link = f'/booking/rooms/bookings/{seeded.id}"'
    row = next(r for r in html.split("<tr>") if link in r)
    cells = row.split('<td class="rooms-week__day">')[1:]
    column = next(i for i, c in enumerate(cells) if link in c)
    assert column == seeded.day.weekday()
    assert f"{seeded.start}–{seeded.end}" in text_of_html(cells[column])


def text_of_html(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_a_booking_early_in_the_office_day_is_stored_in_utc_and_shown_at_office_time(
    traveller, room_facts, store, world
):
    response = book(traveller, room_facts, start="07:00", end="07:45", title="Design sync")
    assert response.status_code == 302
    (_id, start, end, *_rest) = new_bookings(store, world, room_facts)[0]
    assert (start, end) == (
        room_facts.utc(room_facts.day, "07:00"),
        room_facts.utc(room_facts.day, "07:45"),
    )
    page = text_of(traveller.get(ROOMS, query_string={"date": room_facts.day}))
    assert "Design sync" in page and "07:00–07:45" in page


def test_the_seats_filter_hides_rooms_with_fewer_seats(traveller, room_facts, store, world):
    smaller = rows(
        store,
        world,
        "SELECT r.name FROM booking_resource r JOIN booking_property p ON p.id = r.property_id "
        "WHERE r.kind = 'meeting_room' AND p.office_id = ? AND r.capacity < ?",
        (room_facts.office_id, room_facts.capacity),
    )
    assert smaller, "the office needs a smaller room for this test"
    html = traveller.get(
        ROOMS, query_string={"date": room_facts.day, "capacity": room_facts.capacity}
    ).get_data(as_text=True)
    names = re.findall(r'class="rooms-room__name">([^<]+)<', html)
    assert room_facts.room_name in names
    assert not {name for (name,) in smaller} & set(names)


@pytest.mark.parametrize("equipment", ["screen", "video conferencing", "whiteboard"])
def test_the_equipment_filter_shows_only_rooms_that_have_it(
    traveller, room_facts, store, world, equipment
):
    every = rows(
        store,
        world,
        "SELECT r.name, r.features FROM booking_resource r "
        "JOIN booking_property p ON p.id = r.property_id "
        "WHERE r.kind = 'meeting_room' AND p.office_id = ?",
        (room_facts.office_id,),
    )
    html = traveller.get(
        ROOMS, query_string={"date": room_facts.day, "equipment": equipment}
    ).get_data(as_text=True)
    names = set(re.findall(r'class="rooms-room__name">([^<]+)<', html))
    assert names == {n for n, f in every if equipment in [x.strip() for x in f.split(",")]}


def test_a_free_hour_links_to_the_form_filled_in(traveller, room_facts):
    html = traveller.get(ROOMS, query_string={"date": room_facts.day}).get_data(as_text=True)
    label = f'aria-label="Book {room_facts.room_name} at 14:00"'
    assert label in html
    link = re.search(r'href="([^"]+)" ' + re.escape(label), html).group(1)
    form = traveller.get(unescape(link)).get_data(as_text=True)
    assert f'<option value="{room_facts.room}" selected>' in form
    assert f'value="{room_facts.day.isoformat()}"' in form
    assert "<option selected>14:00</option>" in form
    assert "<option selected>14:30</option>" in form


def test_time_already_past_today_offers_no_booking_link(traveller, room_facts, facts):
    html = traveller.get(ROOMS, query_string={"date": facts.today - timedelta(days=1)}).get_data(
        as_text=True
    )
    assert 'class="rooms-free__link"' not in html


# -- booking through the form ----------------------------------------------------------------


def test_booking_through_the_form_writes_the_booking_with_its_attendees(
    traveller, room_facts, facts, store, world
):
    response = book(traveller, room_facts, attendees=[str(facts.manager.id)])
    assert response.status_code == 302
    ((rid, start, _end, title, status, series),) = new_bookings(store, world, room_facts)
    assert response.headers["Location"].endswith(f"/booking/rooms/bookings/{rid}")
    assert (start, title, status, series) == (
        room_facts.utc(room_facts.day, "10:00"),
        "Quarterly planning",
        "confirmed",
        None,
    )
    assert one(
        store, world, "SELECT employee_id FROM booking_attendee WHERE reservation_id = ?", (rid,)
    ) == (facts.manager.id)
    page = text_of(traveller.get(response.headers["Location"]))
    assert f"Booked {room_facts.room_name} on" in page
    assert facts.manager.name in page


def test_an_attendee_typed_without_choosing_is_found_by_name(
    traveller, room_facts, facts, store, world
):
    response = book(traveller, room_facts, attendees_text=facts.manager.name.upper())
    assert response.status_code == 302
    ((rid, *_rest),) = new_bookings(store, world, room_facts)
    assert rows(
        store, world, "SELECT employee_id FROM booking_attendee WHERE reservation_id = ?", (rid,)
    ) == [(facts.manager.id,)]


def test_the_attendee_picker_offers_matching_colleagues_but_not_oneself(traveller, facts):
    found = traveller.get(
        "/booking/rooms/people", query_string={"q": facts.manager.name.split()[0]}
    ).get_json()
    assert facts.manager.id in [c["id"] for c in found]
    mine = traveller.get(
        "/booking/rooms/people", query_string={"q": facts.traveller.name}
    ).get_json()
    assert facts.traveller.id not in [c["id"] for c in mine]


def test_a_clash_is_refused_naming_what_holds_the_room(traveller, room_facts, facts, store, world):
    assert book(traveller, room_facts).status_code == 302
    before = dump(store, world)
    response = book(traveller, room_facts, start="10:30", end="11:30", title="Design sync")
    assert response.status_code == 409
    message = alert(response)
    assert room_facts.room_name in message
    assert "10:00–11:00" in message
    assert "“Quarterly planning”" in message
    assert facts.traveller.name in message
    assert dump(store, world) == before


def test_a_weekly_booking_with_a_clash_lists_the_clashing_date_and_writes_nothing(
    traveller, room_facts, store, world
):
    taken = room_facts.day + timedelta(weeks=2)
    assert book(traveller, room_facts, date=taken.isoformat()).status_code == 302
    before = dump(store, world)
    response = book(traveller, room_facts, title="Weekly sync", weeks="4")
    assert response.status_code == 409
    message = alert(response)
    assert "1 of the 4 weeks clash" in message
    assert f"{taken:%A} {taken.day} {taken:%B %Y}" in message
    assert "“Quarterly planning”" in message
    assert "Book the 3 free weeks" in text_of(response)
    assert dump(store, world) == before


def test_booking_the_free_weeks_skips_the_clashing_one(traveller, room_facts, store, world):
    taken = room_facts.day + timedelta(weeks=2)
    book(traveller, room_facts, date=taken.isoformat())
    response = book(traveller, room_facts, title="Weekly sync", weeks="4", skip_clashes="1")
    assert response.status_code == 302
    weekly = [r for r in new_bookings(store, world, room_facts) if r[3] == "Weekly sync"]
    assert [r[1] for r in weekly] == [
        room_facts.utc(room_facts.day + timedelta(weeks=w), "10:00") for w in (0, 1, 3)
    ]
    assert len({r[5] for r in weekly}) == 1 and weekly[0][5] is not None
    assert one(store, world, "SELECT weeks FROM booking_series WHERE id = ?", (weekly[0][5],)) == 4
    page = text_of(traveller.get(response.headers["Location"]))
    assert "3 of 4 weeks; skipped 1 that clashed" in page


def test_a_weekly_booking_without_clashes_books_every_week(traveller, room_facts, store, world):
    response = book(traveller, room_facts, title="Weekly sync", weeks="3")
    assert response.status_code == 302
    assert len(new_bookings(store, world, room_facts)) == 3


BAD = [
    ({"end": "09:00"}, 422, "end after it starts"),
    ({"start": "06:00", "end": "07:00"}, 422, "between 07:00 and 20:00"),
    ({"start": "19:30", "end": "20:30"}, 422, "between 07:00 and 20:00"),
    ({"start": "10:10"}, 422, "quarter hour"),
    ({"start": "ten"}, 422, "HH:MM"),
    ({"date": "2025-02-30"}, 422, "YYYY-MM-DD"),
    ({"title": "   "}, 422, "title"),
    ({"room": "999999"}, 422, "Choose a room"),
    ({"weeks": "30"}, 422, "2 to 26 weeks"),
    ({"weeks": "two"}, 422, "whole number"),
    ({"attendees_text": "Nobody Atall"}, 422, "No colleague is called"),
]


@pytest.mark.parametrize(("changes", "status", "message"), BAD, ids=[m for _c, _s, m in BAD])
def test_bad_input_is_refused_with_a_message_and_writes_nothing(
    traveller, room_facts, store, world, changes, status, message
):
    before = dump(store, world)
    response = book(traveller, room_facts, **changes)
    assert response.status_code == status
    assert message in alert(response)
    assert dump(store, world) == before


def test_a_booking_in_the_past_is_refused(traveller, room_facts, facts, store, world):
    before = dump(store, world)
    response = book(traveller, room_facts, date=(facts.today - timedelta(days=1)).isoformat())
    assert response.status_code == 422
    assert "already passed" in alert(response)
    assert dump(store, world) == before


def test_more_attendees_than_seats_is_refused(traveller, room_facts, facts, store, world):
    people = [
        str(i)
        for (i,) in rows(
            store,
            world,
            "SELECT id FROM people_employee WHERE is_active AND id != ? ORDER BY id LIMIT ?",
            (facts.traveller.id, room_facts.capacity),
        )
    ]
    before = dump(store, world)
    response = book(traveller, room_facts, attendees=people)
    assert response.status_code == 422
    assert f"seats {room_facts.capacity}" in alert(response)
    assert dump(store, world) == before


def test_a_refused_form_keeps_what_was_typed_and_chosen(traveller, room_facts, facts):
    response = book(traveller, room_facts, end="09:00", attendees=[str(facts.manager.id)])
    html = response.get_data(as_text=True)
    assert 'value="Quarterly planning"' in html
    assert f'<input type="hidden" name="attendees" value="{facts.manager.id}">' in html
    assert 'aria-invalid="true"' in html


def test_the_form_needs_its_csrf_token(traveller, room_facts, store, world):
    before = dump(store, world)
    response = traveller.post(BOOK, data={"room": room_facts.room, "date": room_facts.day})
    assert response.status_code == 400
    assert dump(store, world) == before


# -- a booking's page and cancelling ---------------------------------------------------------


def _booked(traveller, rf, facts, store, world) -> int:
    response = book(traveller, rf, attendees=[str(facts.manager.id)])
    assert response.status_code == 302
    return new_bookings(store, world, rf)[0][0]


def test_the_booking_page_shows_details_and_attendees(traveller, login, room_facts, facts, store, world):  # fmt: skip
    rid = _booked(traveller, room_facts, facts, store, world)
    page = text_of(login(facts.manager).get(f"/booking/rooms/bookings/{rid}"))
    assert "Quarterly planning" in page
    assert f"{room_facts.room_name}, {room_facts.office}" in page
    assert "10:00–11:00" in page
    assert f"Organizer {facts.traveller.name}" in page
    assert facts.manager.name in page.split("Attendees", 1)[1]
    assert "Cancel this booking" not in page


def test_someone_not_on_the_booking_sees_its_title_but_not_the_attendees(
    traveller, login, room_facts, facts, store, world
):
    rid = _booked(traveller, room_facts, facts, store, world)
    page = text_of(login(facts.stranger).get(f"/booking/rooms/bookings/{rid}"))
    assert "Quarterly planning" in page and facts.traveller.name in page
    assert facts.manager.name not in page.split("Attendees", 1)[1]
    assert "1 invited" in page


def test_the_organizer_cancels_the_booking(traveller, room_facts, facts, store, world):
    rid = _booked(traveller, room_facts, facts, store, world)
    assert "Cancel this booking" in text_of(traveller.get(f"/booking/rooms/bookings/{rid}"))
    response = post(traveller, f"/booking/rooms/bookings/{rid}/cancel", {})
    assert response.status_code == 302
    assert one(store, world, "SELECT status FROM booking_reservation WHERE id = ?", (rid,)) == (
        "cancelled"
    )
    html = traveller.get(ROOMS, query_string={"date": room_facts.day}).get_data(as_text=True)
    assert f"/booking/rooms/bookings/{rid}" not in html


@pytest.mark.parametrize(("who", "status"), [("manager", 403), ("stranger", 404)])
def test_someone_else_cannot_cancel_the_booking(
    traveller, login, room_facts, facts, store, world, who, status
):
    rid = _booked(traveller, room_facts, facts, store, world)
    before = dump(store, world)
    other = login(getattr(facts, who))
    response = post(other, f"/booking/rooms/bookings/{rid}/cancel", {})
    assert response.status_code == status
    assert dump(store, world) == before


def test_a_stay_has_no_room_booking_page(traveller, store, world):
    (stay,) = rows(
        store,
        world,
        "SELECT b.id FROM booking_reservation b JOIN booking_resource r "
        "ON r.id = b.resource_id WHERE r.kind != 'meeting_room' ORDER BY b.id LIMIT 1",
    )[0]
    assert traveller.get(f"/booking/rooms/bookings/{stay}").status_code == 404


# -- my calendar -----------------------------------------------------------------------------


def _week(day: date) -> str:
    return (day - timedelta(days=day.weekday())).isoformat()


def test_an_attendee_sees_the_booking_on_their_calendar(
    traveller, login, room_facts, facts, store, world
):
    _booked(traveller, room_facts, facts, store, world)
    page = text_of(
        login(facts.manager).get("/booking/calendar", query_string={"week": _week(room_facts.day)})
    )
    day = room_facts.day
    assert f"{day:%A} {day.day} {day:%B %Y}" in page
    assert "Quarterly planning" in page
    assert f"organized by {facts.traveller.name}" in page


def test_the_organizer_sees_the_booking_on_their_calendar(
    traveller, room_facts, facts, store, world
):
    _booked(traveller, room_facts, facts, store, world)
    page = text_of(traveller.get("/booking/calendar", query_string={"week": room_facts.day}))
    assert f"10:00–11:00 Quarterly planning {room_facts.room_name}, {room_facts.office}" in page
    assert "you organize" in page


def test_a_stay_is_an_all_day_item_on_the_travellers_calendar(traveller, facts):
    stay = facts.in_policy
    made = traveller.post(
        "/booking/api/reservations",
        json={
            "resource_id": stay.resource_id,
            "check_in": stay.check_in.isoformat(),
            "check_out": stay.check_out.isoformat(),
            "guests": stay.guests,
            "purpose": "Customer visit",
        },
        headers={"X-Requested-With": "officegym"},
    )
    assert made.status_code == 201, made.get_json()
    page = text_of(traveller.get("/booking/calendar", query_string={"week": stay.check_in}))
    assert f"All day {stay.title.split(' · ')[0]} Check-in" in page


def test_the_calendar_moves_a_week_at_a_time(traveller, facts):
    monday = facts.today - timedelta(days=facts.today.weekday())
    html = traveller.get("/booking/calendar").get_data(as_text=True)
    assert f"/booking/calendar?week={monday - timedelta(weeks=1)}" in html
    assert f"/booking/calendar?week={monday + timedelta(weeks=1)}" in html
    page = text_of(traveller.get("/booking/calendar", query_string={"week": monday}))
    assert f"Week of {monday:%A} {monday.day} {monday:%B %Y}" in page


def test_the_rooms_pages_need_sign_in(client):
    for path in (ROOMS, BOOK, "/booking/calendar", "/booking/rooms/people?q=a"):
        response = client.get(path)
        assert response.status_code in (302, 401), path


# -- closures and the main pages -------------------------------------------------------------


def close_room(store, world, rf: RoomFacts, day: date, reason: str) -> None:
    """Close the room for a day (a window with no units), as the generator could."""
    conn = sqlite3.connect(store.world_path(world))
    try:
        conn.execute(
            "INSERT INTO booking_availability (resource_id, start_date, end_date, units, reason) "
            "VALUES (?, ?, ?, 0, ?)",
            (rf.room, day.isoformat(), day.isoformat(), reason),
        )
        conn.commit()
    finally:
        conn.close()


def test_a_closed_room_shows_why_and_offers_no_slot(traveller, room_facts, store, world):
    close_room(store, world, room_facts, room_facts.day, "Carpet cleaning")
    response = traveller.get(ROOMS, query_string={"date": room_facts.day})
    assert "Closed all day: Carpet cleaning" in text_of(response)
    assert f"Book {room_facts.room_name} at" not in response.get_data(as_text=True)
    week = traveller.get(ROOMS, query_string={"date": room_facts.day, "view": "week"})
    assert "Closed: Carpet cleaning" in text_of(week)
    before = dump(store, world)
    refused = book(traveller, room_facts)
    assert refused.status_code == 409
    assert "Carpet cleaning" in alert(refused)
    assert dump(store, world) == before


def test_the_meeting_room_main_pages_open_for_their_user(login, store, world):
    from officegym.apps.booking.rooms import rooms_pages

    pages = rooms_pages(store.world_path(world))
    assert {p.name for p in pages} == {
        "meeting rooms, day",
        "meeting rooms, week",
        "book a room",
        "room booking",
        "my calendar",
    }
    for page in pages:
        assert login(page.user).get(page.path).status_code == 200, page.path
