"""The booking JSON API's contract: every route over the same service functions as the pages,
the error envelope (a refusal is a 4xx naming the field, never a 500, and writes nothing), the
CSRF header on writes, and an OpenAPI document that lists every route.

Each test acts on a fresh tiny seed-0 world through the real app and reads the world file back.
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from .conftest import BookingFacts, dump, one, rows
from .test_rooms_views import RoomFacts, read_room_facts

API = "/booking/api"
HEADERS = {"X-Requested-With": "officegym"}


@pytest.fixture(scope="session")
def room_facts(store, facts: BookingFacts) -> RoomFacts:
    return read_room_facts(store, facts)


@pytest.fixture
def traveller(login, facts):
    return login(facts.traveller)


def call(client, method: str, path: str, body=None, **kwargs):
    """An API request with the CSRF header (and a JSON body, when given)."""
    headers = {**HEADERS, **kwargs.pop("headers", {})}
    if body is not None:
        kwargs["json"] = body
    return client.open(f"{API}{path}", method=method, headers=headers, **kwargs)


def error_of(response, status: int) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    error = response.get_json()["error"]
    assert error["status"] == status and error["message"]
    return error


def api_rules(app) -> set[tuple[str, str]]:
    """Every API route as (path under the prefix with {params}, method)."""
    found = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(API + "/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule[len(API) :])
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            found.add((path, method.lower()))
    return found


def stay_body(stay, **changes) -> dict:
    body = {
        "resource_id": stay.resource_id,
        "check_in": stay.check_in.isoformat(),
        "check_out": stay.check_out.isoformat(),
        "guests": stay.guests,
        "purpose": "Customer visit",
    }
    body.update(changes)
    return body


def at(rf: RoomFacts, day, clock: str) -> str:
    """`day` at `clock` in the room's office, ISO 8601 with the office's offset."""
    return datetime.combine(day, time.fromisoformat(clock), ZoneInfo(rf.timezone)).isoformat()


def room_body(rf: RoomFacts, day=None, hours=("10:00", "11:00"), **changes) -> dict:
    """A room booking's body: `hours` on `day` (default `rf.day`) in the office, and `changes`."""
    day = day or rf.day
    body = {"start": at(rf, day, hours[0]), "end": at(rf, day, hours[1]), "title": "API sync"}
    body.update(changes)
    return body


# -- the document and the guards -------------------------------------------------------------


def test_the_openapi_document_lists_every_route(app, client):
    response = client.get(f"{API}/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    assert document["openapi"].startswith("3.1")
    documented = {(p, m) for p, ops in document["paths"].items() for m in ops}
    assert documented == api_rules(app)


def test_the_openapi_references_resolve(client):
    document = client.get(f"{API}/openapi.json").get_json()
    refs = set(re.findall(r"#/components/schemas/(\w+)", str(document)))
    assert refs and refs <= set(document["components"]["schemas"])


def test_every_operation_declares_its_path_parameters_and_answers(client):
    document = client.get(f"{API}/openapi.json").get_json()
    assert document["servers"] == [{"url": API}]
    for path, ops in document["paths"].items():
        wanted = set(re.findall(r"\{(\w+)\}", path))
        for method, op in ops.items():
            declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert declared == wanted, (method, path)
            assert all(p["required"] for p in op.get("parameters", []) if p["in"] == "path")
            assert op["summary"] and op["responses"], (method, path)
            ok = [code for code in op["responses"] if code.startswith("2")]
            assert len(ok) == 1, (method, path)


def test_every_documented_write_needs_the_csrf_header_and_may_conflict(client):
    document = client.get(f"{API}/openapi.json").get_json()
    for path, ops in document["paths"].items():
        for method, op in ops.items():
            if method in ("post", "put", "patch", "delete"):
                assert {"403", "409"} <= set(op["responses"]), (method, path)
                names = [p["name"] for p in op["parameters"]]
                assert "X-Requested-With" in names, (method, path)


def test_every_route_needs_sign_in(app, client):
    for path, method in sorted(api_rules(app)):
        if path == "/openapi.json":
            continue
        concrete = re.sub(r"\{\w+\}", "1", path)
        error_of(call(client, method.upper(), concrete, {}), 401)


def test_a_write_without_the_api_header_is_refused(traveller, room_facts, store, world):
    before = dump(store, world)
    response = traveller.post(f"{API}/rooms/{room_facts.room}/bookings", json=room_body(room_facts))
    assert "X-Requested-With" in error_of(response, 403)["message"]
    assert dump(store, world) == before


@pytest.mark.parametrize(
    "raw",
    ["not json", "[1, 2]", '"x"', "[" * 50_000 + "]" * 50_000, '{"a":' * 50_000],
    ids=["text", "array", "string", "nested-array", "nested-object"],
)
def test_a_body_that_is_not_one_json_object_is_a_400(traveller, room_facts, store, world, raw):
    before = dump(store, world)
    response = traveller.post(
        f"{API}/rooms/{room_facts.room}/bookings",
        data=raw,
        headers={**HEADERS, "Content-Type": "application/json"},
    )
    error_of(response, 400)
    assert dump(store, world) == before


def test_an_oversized_body_is_refused(app, traveller, room_facts, store, world):
    before = dump(store, world)
    limit = app.config["MAX_CONTENT_LENGTH"]
    response = traveller.post(
        f"{API}/rooms/{room_facts.room}/bookings",
        data=b'{"title": "' + b"x" * limit + b'"}',
        headers={**HEADERS, "Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert dump(store, world) == before


# -- stays -------------------------------------------------------------------------------------


def test_search_takes_the_search_pages_filters(traveller, facts):
    stay = facts.in_policy
    found = call(
        traveller,
        "GET",
        f"/stays?where={stay.city}&{stay.query()}&price_max=100000&sort=price",
    ).get_json()
    assert found["nights"] == (stay.check_out - stay.check_in).days
    ids = [r["resource_id"] for r in found["results"]]
    assert stay.resource_id in ids
    card = found["results"][ids.index(stay.resource_id)]
    assert card["total_cents"] == stay.total_cents
    nightly = [r["nightly_cents"] for r in found["results"]]
    assert nightly == sorted(nightly)
    assert {r["city"] for r in found["results"]} == {stay.city}


def test_a_search_filter_it_cannot_read_is_a_422_naming_it(traveller):
    error = error_of(call(traveller, "GET", "/stays?check_in=tomorrow&check_out=later"), 422)
    assert error["field"] in ("check_in", "check_out")


def test_a_listing_comes_with_a_quote_for_dates(traveller, facts):
    stay = facts.in_policy
    listing = call(traveller, "GET", f"/listings/{stay.resource_id}?{stay.query()}").get_json()
    assert listing["resource_id"] == stay.resource_id and listing["city"] == stay.city
    assert listing["quote"]["price"]["total"] == stay.total_cents
    assert listing["quote"]["available"] is True and listing["quote"]["in_policy"] is True
    bare = call(traveller, "GET", f"/listings/{stay.resource_id}").get_json()
    assert bare["quote"] is None


def test_an_unknown_listing_is_a_404(traveller):
    error_of(call(traveller, "GET", "/listings/987654"), 404)


def test_booking_a_stay_in_policy_confirms_it(traveller, facts, store, world):
    response = call(traveller, "POST", "/reservations", stay_body(facts.in_policy))
    assert response.status_code == 201
    made = response.get_json()
    assert (made["status"], made["total_cents"]) == ("confirmed", facts.in_policy.total_cents)
    assert made["guest"]["id"] == facts.traveller.id
    assert one(store, world, "SELECT status FROM booking_reservation WHERE id = ?", (made["id"],)) == "confirmed"  # fmt: skip


def test_a_stay_out_of_policy_needs_a_justification(traveller, facts, store, world):
    before = dump(store, world)
    error = error_of(call(traveller, "POST", "/reservations", stay_body(facts.over_policy)), 422)
    assert error["field"] == "justification"
    assert dump(store, world) == before
    response = call(
        traveller,
        "POST",
        "/reservations",
        stay_body(facts.over_policy, justification="The customer asked to meet near the venue."),
    )
    made = response.get_json()
    assert made["status"] == "pending_approval"
    assert made["approval"]["approver"]["id"] == facts.manager.id


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"guests": "2"}, "guests"),
        ({"guests": True}, "guests"),
        ({"check_in": 20251001}, "check_in"),
        ({"resource_id": None}, "resource_id"),
        ({"purpose": ""}, "purpose"),
    ],
    ids=["guests-text", "guests-bool", "date-number", "no-listing", "no-purpose"],
)
def test_a_bad_stay_is_a_422_naming_the_field_and_writes_nothing(
    traveller, facts, store, world, changes, field
):
    before = dump(store, world)
    error = error_of(call(traveller, "POST", "/reservations", stay_body(facts.in_policy, **changes)), 422)  # fmt: skip
    assert error["field"] == field
    assert dump(store, world) == before


def _booked_stay(client, facts) -> int:
    response = call(client, "POST", "/reservations", stay_body(facts.in_policy))
    assert response.status_code == 201
    return response.get_json()["id"]


def test_my_reservations_are_listed_by_tab(traveller, facts):
    rid = _booked_stay(traveller, facts)
    upcoming = call(traveller, "GET", "/reservations").get_json()
    assert upcoming["tab"] == "upcoming"
    assert rid in [r["id"] for r in upcoming["reservations"]]
    assert upcoming["counts"]["upcoming"] >= 1
    error_of(call(traveller, "GET", "/reservations?tab=everything"), 422)


def test_a_reservation_reads_back_with_its_price(traveller, facts):
    rid = _booked_stay(traveller, facts)
    found = call(traveller, "GET", f"/reservations/{rid}").get_json()
    assert found["id"] == rid and found["kind"] == "stay"
    assert found["price"]["total"] == facts.in_policy.total_cents
    assert found["check_in"] == facts.in_policy.check_in.isoformat()


def test_someone_elses_reservation_is_a_404(traveller, login, facts):
    rid = _booked_stay(traveller, facts)
    error_of(call(login(facts.stranger), "GET", f"/reservations/{rid}"), 404)


def test_a_room_booking_is_not_a_stay(traveller, room_facts, facts):
    made = call(traveller, "POST", f"/rooms/{room_facts.room}/bookings", room_body(room_facts))
    error_of(call(traveller, "GET", f"/reservations/{made.get_json()['id']}"), 404)


def test_changing_a_stays_dates_prices_it_again(traveller, facts, store, world):
    rid = _booked_stay(traveller, facts)
    stay = facts.in_policy
    moved = call(
        traveller,
        "POST",
        f"/reservations/{rid}/dates",
        {
            "check_in": (stay.check_in + timedelta(days=1)).isoformat(),
            "check_out": (stay.check_out + timedelta(days=1)).isoformat(),
        },
    )
    assert moved.status_code == 200, moved.get_json()
    body = moved.get_json()
    assert body["check_in"] == (stay.check_in + timedelta(days=1)).isoformat()
    assert one(store, world, "SELECT total_cents FROM booking_reservation WHERE id = ?", (rid,)) == body["total_cents"]  # fmt: skip


def test_cancelling_a_stay_records_the_refund(traveller, facts, store, world):
    rid = _booked_stay(traveller, facts)
    body = call(traveller, "POST", f"/reservations/{rid}/cancel").get_json()
    assert body["status"] == "cancelled" and body["refund_cents"] is not None
    assert one(store, world, "SELECT status FROM booking_reservation WHERE id = ?", (rid,)) == "cancelled"  # fmt: skip
    error_of(call(traveller, "POST", f"/reservations/{rid}/cancel"), 409)


def test_another_user_cannot_cancel_a_stay(traveller, login, facts, store, world):
    rid = _booked_stay(traveller, facts)
    before = dump(store, world)
    error_of(call(login(facts.stranger), "POST", f"/reservations/{rid}/cancel"), 404)
    assert dump(store, world) == before


# -- approvals ---------------------------------------------------------------------------------


def test_an_approver_lists_the_requests_waiting(login, facts):
    listed = call(login(facts.approver), "GET", "/approvals").get_json()
    assert facts.pending_approval in [a["id"] for a in listed["approvals"]]
    assert all(a["status"] == "pending" for a in listed["approvals"])


def test_approving_confirms_the_stay(login, facts, store, world):
    body = call(
        login(facts.approver),
        "POST",
        f"/approvals/{facts.pending_approval}/decision",
        {"decision": "approve"},
    ).get_json()
    assert body["status"] == "approved" and body["reservation"]["status"] == "confirmed"
    assert one(store, world, "SELECT status FROM booking_approval WHERE id = ?", (facts.pending_approval,)) == "approved"  # fmt: skip


def test_rejecting_without_a_comment_is_refused(login, facts, store, world):
    before = dump(store, world)
    error = error_of(
        call(
            login(facts.approver),
            "POST",
            f"/approvals/{facts.pending_approval}/decision",
            {"decision": "reject"},
        ),
        422,
    )
    assert error["field"] == "comment"
    assert dump(store, world) == before


def test_only_the_approver_decides(login, facts, store, world):
    before = dump(store, world)
    response = call(
        login(facts.stranger),
        "POST",
        f"/approvals/{facts.pending_approval}/decision",
        {"decision": "approve"},
    )
    assert response.status_code in (403, 404)
    assert dump(store, world) == before


# -- meeting rooms -----------------------------------------------------------------------------


def test_the_offices_list_puts_mine_first(traveller, room_facts):
    offices = call(traveller, "GET", "/offices").get_json()
    assert offices[0]["id"] == room_facts.office_id
    assert offices[0]["timezone"] == room_facts.timezone


def test_rooms_on_a_day_show_bookings_and_free_time_in_office_time(traveller, room_facts):
    seeded = room_facts.seeded
    day = call(traveller, "GET", f"/rooms?office={seeded.office_id}&date={seeded.day}").get_json()
    assert day["date"] == seeded.day.isoformat()
    held = [b for r in day["rooms"] for b in r["bookings"] if b["id"] == seeded.id]
    assert len(held) == 1
    assert held[0]["title"] == seeded.title and held[0]["organizer"] == seeded.organizer
    assert held[0]["start"].startswith(f"{seeded.day}T{seeded.start}:00")
    room = next(r for r in day["rooms"] if held[0] in r["bookings"])
    for stretch in room["free"]:
        assert stretch["end"] <= held[0]["start"] or stretch["start"] >= held[0]["end"]


def test_a_free_room_is_free_all_day(traveller, room_facts):
    day = call(traveller, "GET", f"/rooms?date={room_facts.day}").get_json()
    room = next(r for r in day["rooms"] if r["id"] == room_facts.room)
    assert room["bookings"] == []
    assert [(f["start"], f["end"]) for f in room["free"]] == [
        (at(room_facts, room_facts.day, "07:00"), at(room_facts, room_facts.day, "20:00"))
    ]


def test_the_rooms_filters_match_the_pages(traveller, room_facts):
    found = call(
        traveller,
        "GET",
        f"/rooms?date={room_facts.day}&capacity={room_facts.capacity}&equipment=screen",
    ).get_json()
    assert all(r["capacity"] >= room_facts.capacity for r in found["rooms"])
    assert all("screen" in r["features"] for r in found["rooms"])


@pytest.mark.parametrize(
    "query", ["date=soon", "equipment=projector", "capacity=many", "office=999"]
)
def test_a_rooms_query_it_cannot_read_is_refused(traveller, query):
    response = call(traveller, "GET", f"/rooms?{query}")
    assert response.status_code in (404, 422)


def test_booking_a_room_answers_the_booking_in_office_time(
    traveller, room_facts, facts, store, world
):
    response = call(
        traveller,
        "POST",
        f"/rooms/{room_facts.room}/bookings",
        room_body(room_facts, attendee_ids=[facts.manager.id]),
    )
    assert response.status_code == 201
    made = response.get_json()
    assert made["start"] == at(room_facts, room_facts.day, "10:00")
    assert made["organizer"]["id"] == facts.traveller.id
    assert made["attendees"] == [{"id": facts.manager.id, "name": facts.manager.name}]
    assert one(store, world, "SELECT start_at FROM booking_reservation WHERE id = ?", (made["id"],)) == room_facts.utc(room_facts.day, "10:00")  # fmt: skip


def test_a_room_clash_is_a_409_naming_what_holds_it(traveller, room_facts, facts, store, world):
    call(traveller, "POST", f"/rooms/{room_facts.room}/bookings", room_body(room_facts))
    before = dump(store, world)
    response = call(
        traveller,
        "POST",
        f"/rooms/{room_facts.room}/bookings",
        room_body(room_facts, hours=("10:30", "11:30")),
    )
    error = error_of(response, 409)
    assert "“API sync”" in error["message"] and facts.traveller.name in error["message"]
    assert [c["title"] for c in error["clashes"]] == ["API sync"]
    assert dump(store, world) == before


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"start": "tomorrow"}, "start"),
        ({"start": 9}, "start"),
        ({"attendee_ids": "5"}, "attendee_ids"),
        ({"attendee_ids": [True]}, "attendee_ids"),
        ({"title": ""}, "title"),
    ],
    ids=["start-text", "start-number", "ids-text", "ids-bool", "no-title"],
)
def test_a_bad_room_booking_is_a_422_and_writes_nothing(
    traveller, room_facts, store, world, changes, field
):
    before = dump(store, world)
    response = call(
        traveller, "POST", f"/rooms/{room_facts.room}/bookings", room_body(room_facts, **changes)
    )
    assert error_of(response, 422)["field"] == field
    assert dump(store, world) == before


def test_booking_an_unknown_room_is_a_404(traveller, room_facts):
    error_of(call(traveller, "POST", "/rooms/987654/bookings", room_body(room_facts)), 404)


def test_a_weekly_series_with_a_clash_lists_it_then_books_the_free_weeks(
    traveller, room_facts, store, world
):
    taken = room_facts.day + timedelta(weeks=1)
    call(traveller, "POST", f"/rooms/{room_facts.room}/bookings", room_body(room_facts, taken))
    before = dump(store, world)
    refused = call(
        traveller, "POST", f"/rooms/{room_facts.room}/series", room_body(room_facts, weeks=3)
    )
    error = error_of(refused, 409)
    assert [c["wanted_start"][:10] for c in error["clashes"]] == [
        room_facts.utc(taken, "10:00")[:10]
    ]
    assert dump(store, world) == before
    made = call(
        traveller,
        "POST",
        f"/rooms/{room_facts.room}/series",
        room_body(room_facts, weeks=3, skip_clashes=True),
    )
    assert made.status_code == 201
    body = made.get_json()
    assert [b["start"][:10] for b in body["bookings"]] == [
        room_facts.day.isoformat(),
        (room_facts.day + timedelta(weeks=2)).isoformat(),
    ]
    assert [s["date"] for s in body["skipped"]] == [taken.isoformat()]
    assert one(store, world, "SELECT weeks FROM booking_series WHERE id = ?", (body["series_id"],)) == 3  # fmt: skip


def test_a_room_booking_hides_its_attendees_from_others(traveller, login, room_facts, facts):
    made = call(
        traveller,
        "POST",
        f"/rooms/{room_facts.room}/bookings",
        room_body(room_facts, attendee_ids=[facts.manager.id]),
    ).get_json()
    seen = call(login(facts.stranger), "GET", f"/room-bookings/{made['id']}").get_json()
    assert seen["title"] == "API sync" and seen["attendees"] is None
    invited = call(login(facts.manager), "GET", f"/room-bookings/{made['id']}").get_json()
    assert invited["attendees"] == [{"id": facts.manager.id, "name": facts.manager.name}]


def test_the_organizer_cancels_a_room_booking(traveller, room_facts, store, world):
    made = call(traveller, "POST", f"/rooms/{room_facts.room}/bookings", room_body(room_facts))
    rid = made.get_json()["id"]
    body = call(traveller, "POST", f"/room-bookings/{rid}/cancel").get_json()
    assert body["status"] == "cancelled"
    assert rows(store, world, "SELECT status FROM booking_reservation WHERE id = ?", (rid,)) == [("cancelled",)]  # fmt: skip


@pytest.mark.parametrize(("who", "status"), [("manager", 403), ("stranger", 404)])
def test_no_one_else_cancels_a_room_booking(
    traveller, login, room_facts, facts, store, world, who, status
):
    made = call(
        traveller,
        "POST",
        f"/rooms/{room_facts.room}/bookings",
        room_body(room_facts, attendee_ids=[facts.manager.id]),
    )
    rid = made.get_json()["id"]
    before = dump(store, world)
    error_of(call(login(getattr(facts, who)), "POST", f"/room-bookings/{rid}/cancel"), status)
    assert dump(store, world) == before


def test_a_stay_is_not_a_room_booking(traveller, facts):
    rid = _booked_stay(traveller, facts)
    error_of(call(traveller, "GET", f"/room-bookings/{rid}"), 404)
    error_of(call(traveller, "POST", f"/room-bookings/{rid}/cancel"), 404)
