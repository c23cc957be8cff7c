"""Stays, trips and approvals without JavaScript: search is a GET whose URL holds the search,
every act is a form that posts and redirects, a refused act re-renders its form with the
service's message, what was typed and a 4xx, and writes nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape
from html.parser import HTMLParser

import pytest
from sqlalchemy.orm import Session

from officegym.apps.booking import reads, service
from officegym.seed_data.booking_rules import refund_cents
from officegym.seed_data.connect import make_engine
from officegym.seed_data.schema import Employee

from .conftest import dump, one, post, rows

STAY_LINK = re.compile(r'href="/booking/stays/(\d+)[?"]')
TOTAL = re.compile(r"<strong>\$([\d,]+\.\d\d) total</strong>")


def page(client, path: str, status: int = 200) -> str:
    response = client.get(path)
    assert response.status_code == status, (response.status_code, path)
    return response.get_data(as_text=True)


def text_of(html: str) -> str:
    """The page's text with tags dropped and spaces squeezed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def result_ids(html: str) -> list[int]:
    return [int(i) for i in STAY_LINK.findall(html)]


def cents(text: str) -> int:
    return round(float(text.replace(",", "")) * 100)


def quote(store, world, guest_id: int, stay, **changes):
    """The service's quote of a stay, read from the world file in a session of its own."""
    engine = make_engine(store.world_path(world), create=False)
    try:
        with Session(engine) as db:
            args = {
                "resource_id": stay.resource_id,
                "check_in": stay.check_in,
                "check_out": stay.check_out,
                "guests": stay.guests,
                **changes,
            }
            return service.quote_stay(db, db.get(Employee, guest_id), **args)
    finally:
        engine.dispose()


def book(client, stay, purpose="Customer visit", **extra):
    data = {
        "check_in": stay.check_in.isoformat(),
        "check_out": stay.check_out.isoformat(),
        "guests": str(stay.guests),
        "purpose": purpose,
        **extra,
    }
    return post(client, f"/booking/stays/{stay.resource_id}/reserve", data)


def reservation_count(store, world) -> int:
    return one(store, world, "SELECT count(*) FROM booking_reservation")


# -- access ------------------------------------------------------------------------------------


def test_signed_out_visitors_are_sent_to_the_login_page(client):
    response = client.get("/booking/trips")
    assert response.status_code == 302
    assert "/login" in response.headers["Location"]


def test_every_stays_page_opens_for_the_traveller(login, facts):
    traveller = login(facts.traveller)
    s = facts.in_policy
    for path in (
        "/booking/",
        f"/booking/?where={s.city}&{s.query()}",
        f"/booking/stays/{s.resource_id}",
        f"/booking/stays/{s.resource_id}?{s.query()}",
        f"/booking/stays/{s.resource_id}/reviews",
        f"/booking/stays/{s.resource_id}/reserve?{s.query()}",
        "/booking/trips",
        "/booking/trips?tab=past",
        "/booking/approvals",
    ):
        page(traveller, path)


def test_the_layout_counts_the_approvals_waiting(login, facts):
    html = page(login(facts.approver), "/booking/")
    waiting = len(page(login(facts.approver), "/booking/approvals").split('name="decision"')) // 2
    assert f'aria-label="{waiting} waiting"' in html


# -- search ------------------------------------------------------------------------------------


def test_search_by_city_lists_every_stay_there(login, facts, store, world):
    city = facts.in_policy.city
    html = page(login(facts.traveller), f"/booking/?where={city}")
    expected = [
        r
        for (r,) in rows(
            store,
            world,
            "SELECT r.id FROM booking_resource r JOIN booking_property p ON p.id = r.property_id "
            "WHERE r.kind IN ('home', 'hotel_room') AND p.city = ?",
            (city,),
        )
    ]
    assert f"{len(expected)} stays in {city}" in text_of(html)
    assert set(result_ids(html)) == set(expected[:20]) or len(expected) > 20


def test_filters_return_what_the_rows_say(login, facts, store, world):
    city = facts.in_policy.city
    html = page(
        login(facts.traveller),
        f"/booking/?where={city}&type=Apartment&type=Hotel&amenity=wifi&bedrooms=1&rating=4",
    )
    expected = {
        r
        for (r,) in rows(
            store,
            world,
            "SELECT r.id FROM booking_resource r JOIN booking_property p ON p.id = r.property_id "
            "WHERE r.kind IN ('home', 'hotel_room') AND p.city = ? "
            "AND p.property_type IN ('Apartment', 'Hotel') "
            "AND (', ' || p.amenities || ',') LIKE '%, wifi,%' AND r.bedrooms >= 1 "
            "AND p.guest_rating >= 4",
            (city,),
        )
    }
    assert expected
    assert set(result_ids(html)) == expected
    assert 'name="amenity" value="wifi" checked' in html


def test_dates_hide_a_listing_booked_for_them(login, facts, store, world):
    s = facts.in_policy
    traveller = login(facts.traveller)
    assert s.resource_id in result_ids(page(traveller, f"/booking/?where={s.city}&{s.query()}"))
    units = one(store, world, "SELECT units FROM booking_resource WHERE id = ?", (s.resource_id,))
    for i in range(units):
        assert book(traveller, s, purpose=f"Trip {i}").status_code == 302
    after = page(traveller, f"/booking/?where={s.city}&{s.query()}")
    assert s.resource_id not in result_ids(after)
    assert s.resource_id in result_ids(page(traveller, f"/booking/?where={s.city}"))


def test_each_result_shows_the_exact_total_for_the_dates(login, facts, store, world):
    s = facts.in_policy
    html = page(login(facts.traveller), f"/booking/?where={s.city}&{s.query()}&sort=total")
    ids = result_ids(html)
    totals = [cents(t) for t in TOTAL.findall(html)]
    assert len(ids) == len(totals) > 1
    assert totals == sorted(totals)
    for resource_id, total in zip(ids, totals, strict=True):
        q = quote(store, world, facts.traveller.id, s, resource_id=resource_id)
        assert q.total_cents == total


def test_results_come_twenty_to_a_page(login, facts, store, world):
    (city, count) = rows(
        store,
        world,
        "SELECT p.city, count(*) FROM booking_resource r JOIN booking_property p "
        "ON p.id = r.property_id WHERE r.kind IN ('home', 'hotel_room') "
        "GROUP BY p.city ORDER BY 2 DESC LIMIT 1",
    )[0]
    traveller = login(facts.traveller)
    everything = page(traveller, "/booking/?sort=price")
    total = one(
        store, world, "SELECT count(*) FROM booking_resource WHERE kind IN ('home', 'hotel_room')"
    )
    assert len(result_ids(everything)) == min(20, total)
    if total > 20:
        second = page(traveller, "/booking/?sort=price&page=2")
        assert not set(result_ids(second)) & set(result_ids(everything))
        assert f"Page 2 of {-(-total // 20)}" in second
    assert count >= 1


def test_impossible_dates_are_named_and_nothing_breaks(login, facts):
    html = page(
        login(facts.traveller),
        "/booking/?where=x&check_in=2030-05-04&check_out=2030-05-01",
        status=422,
    )
    assert "Check-out must be after check-in." in html
    assert 'value="2030-05-04"' in html


# -- a listing ---------------------------------------------------------------------------------


def test_the_listing_price_is_the_service_quote(login, facts, store, world):
    s = facts.over_policy
    html = page(login(facts.traveller), f"/booking/stays/{s.resource_id}?{s.query()}")
    q = quote(store, world, facts.traveller.id, s)
    price = reads.breakdown(q.price)
    table = text_of(html[html.index('<table class="price">') :])
    assert f"Total {reads.money(q.total_cents)}" in table
    for line in price.nights + price.lines[:-1]:
        assert f"{line.label} {reads.money(line.cents)}" in table
    assert 'aria-label="' + reads.Day(s.check_in, "available", True).label + '"' in html
    assert ">Reserve</button>" in html


def test_the_listing_says_why_dates_cannot_be_booked(login, facts):
    s = facts.in_policy
    html = page(
        login(facts.traveller),
        f"/booking/stays/{s.resource_id}?check_in={s.check_out}&check_out={s.check_in}",
    )
    assert "Check-out must be after check-in." in html
    assert ">Reserve</button>" not in html


def test_photos_are_svg_kept_for_a_year(client):
    response = client.get("/booking/photos/home/7/2.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert "max-age=31536000" in response.headers["Cache-Control"]
    assert response.get_data(as_text=True) == client.get("/booking/photos/home/7/2.svg").text
    assert client.get("/booking/photos/home/7/9.svg").status_code == 404


# -- booking -----------------------------------------------------------------------------------


def test_review_page_shows_the_policy_and_the_manager(login, facts):
    s = facts.over_policy
    html = text_of(
        page(login(facts.traveller), f"/booking/stays/{s.resource_id}/reserve?{s.query()}")
    )
    assert "Outside the" in html
    assert f"It goes to {facts.manager.name} for approval" in html
    assert "Request approval" in html


def test_booking_in_policy_makes_one_confirmed_stay_at_the_quoted_total(login, facts, store, world):
    s = facts.in_policy
    before = reservation_count(store, world)
    response = book(login(facts.traveller), s, purpose="Kickoff in town")
    assert response.status_code == 302
    assert reservation_count(store, world) == before + 1
    (rid, status, total, purpose, guest) = one(
        store,
        world,
        "SELECT id, status, total_cents, purpose, guest_id FROM booking_reservation "
        "ORDER BY id DESC LIMIT 1",
    )
    assert response.headers["Location"].endswith(f"/booking/trips/{rid}")
    assert (status, total, purpose, guest) == (
        "confirmed",
        s.total_cents,
        "Kickoff in town",
        facts.traveller.id,
    )


def test_out_of_policy_without_a_justification_is_refused_and_writes_nothing(
    login, facts, store, world
):
    before = dump(store, world)
    response = book(login(facts.traveller), facts.over_policy, purpose="Long visit")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Add a justification" in html
    assert 'value="Long visit"' in html
    assert dump(store, world) == before


def test_out_of_policy_with_a_justification_waits_for_the_manager(login, facts, store, world):
    response = book(
        login(facts.traveller),
        facts.over_policy,
        purpose="Long visit",
        justification="The customer asked us to stay on site for two weeks.",
    )
    assert response.status_code == 302
    (rid, status) = one(
        store, world, "SELECT id, status FROM booking_reservation ORDER BY id DESC LIMIT 1"
    )
    assert status == "pending_approval"
    approver = one(
        store, world, "SELECT approver_id FROM booking_approval WHERE reservation_id = ?", (rid,)
    )
    assert approver == facts.manager.id
    inbox = page(login(facts.manager), "/booking/approvals")
    assert f'href="/booking/trips/{rid}"' in inbox
    assert "The customer asked us to stay on site" in inbox


def test_a_booking_without_a_trip_name_keeps_what_was_typed(login, facts, store, world):
    before = dump(store, world)
    response = book(login(facts.traveller), facts.in_policy, purpose="  ")
    assert response.status_code == 422
    assert "Enter a trip name." in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_a_booking_without_its_csrf_token_is_refused(login, facts, store, world):
    s = facts.in_policy
    before = dump(store, world)
    response = login(facts.traveller).post(
        f"/booking/stays/{s.resource_id}/reserve",
        data={"check_in": s.check_in, "check_out": s.check_out, "guests": 1, "purpose": "x"},
    )
    assert response.status_code == 400
    assert dump(store, world) == before


def test_a_manager_books_for_a_report(login, facts, store, world):
    manager = login(facts.manager)
    s = facts.in_policy
    review = page(
        manager,
        f"/booking/stays/{s.resource_id}/reserve?{s.query()}&guest_id={facts.traveller.id}",
    )
    assert f'value="{facts.traveller.name}"' in review
    response = book(manager, s, purpose="Team visit", guest_id=str(facts.traveller.id))
    assert response.status_code == 302
    (guest, booker) = one(
        store,
        world,
        "SELECT guest_id, booked_by_id FROM booking_reservation ORDER BY id DESC LIMIT 1",
    )
    assert (guest, booker) == (facts.traveller.id, facts.manager.id)


def test_travellers_offered_are_only_those_one_may_book_for(login, facts):
    found = login(facts.traveller).get("/booking/lookup/travellers?q=").get_json()
    assert [c["id"] for c in found] == [facts.traveller.id]
    managed = login(facts.manager).get("/booking/lookup/travellers?q=").get_json()
    assert facts.traveller.id in [c["id"] for c in managed]
    assert facts.stranger.id not in [c["id"] for c in managed]


def test_booking_for_a_stranger_is_refused(login, facts, store, world):
    before = dump(store, world)
    response = book(login(facts.traveller), facts.in_policy, guest_id=str(facts.stranger.id))
    assert response.status_code == 403
    assert "can't book travel for" in text_of(response.get_data(as_text=True))
    assert dump(store, world) == before


# -- trips -------------------------------------------------------------------------------------


def booked(login, facts, store, world, stay=None, **extra) -> int:
    response = book(login(facts.traveller), stay or facts.in_policy, **extra)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    return one(store, world, "SELECT max(id) FROM booking_reservation")


def test_a_booked_stay_is_upcoming_in_my_trips(login, facts, store, world):
    rid = booked(login, facts, store, world, purpose="Quarterly review")
    traveller = login(facts.traveller)
    assert f'href="/booking/trips/{rid}"' in page(traveller, "/booking/trips")
    assert f'href="/booking/trips/{rid}"' not in page(traveller, "/booking/trips?tab=past")
    html = text_of(page(traveller, f"/booking/trips/{rid}"))
    assert "Quarterly review" in html
    assert f"Total {reads.money(facts.in_policy.total_cents)}" in html


def test_another_persons_trip_is_not_found(login, facts, store, world):
    rid = booked(login, facts, store, world)
    stranger = login(facts.stranger)
    for path in (f"/booking/trips/{rid}", f"/booking/trips/{rid}/cancel"):
        assert stranger.get(path).status_code == 404
    before = dump(store, world)
    assert post(stranger, f"/booking/trips/{rid}/cancel", {}).status_code == 404
    assert dump(store, world) == before


def test_cancelling_gives_the_refund_the_confirm_page_states(login, facts, store, world):
    rid = booked(login, facts, store, world)
    traveller = login(facts.traveller)
    policy = one(
        store,
        world,
        "SELECT p.cancellation_policy FROM booking_resource r JOIN booking_property p "
        "ON p.id = r.property_id WHERE r.id = ?",
        (facts.in_policy.resource_id,),
    )
    expected = refund_cents(
        policy, facts.today, facts.in_policy.check_in, facts.in_policy.total_cents
    )
    confirm = text_of(page(traveller, f"/booking/trips/{rid}/cancel"))
    assert f"Cancelling today refunds {reads.money(expected)}" in confirm
    response = post(traveller, f"/booking/trips/{rid}/cancel", {})
    assert response.status_code == 302
    assert one(
        store, world, "SELECT status, refund_cents FROM booking_reservation WHERE id = ?", (rid,)
    ) == ("cancelled", expected)
    assert f"Refund {reads.money(expected)}" in text_of(page(traveller, f"/booking/trips/{rid}"))
    assert f'href="/booking/trips/{rid}"' in page(traveller, "/booking/trips?tab=cancelled")


def test_changing_dates_previews_the_new_price_then_applies_it(login, facts, store, world):
    rid = booked(login, facts, store, world)
    s = facts.in_policy
    later_in = s.check_in + timedelta(days=1)
    later_out = s.check_out + timedelta(days=1)
    traveller = login(facts.traveller)
    expected = quote(store, world, facts.traveller.id, s, check_in=later_in, check_out=later_out)
    html = text_of(
        page(traveller, f"/booking/trips/{rid}/change?check_in={later_in}&check_out={later_out}")
    )
    assert f"New total {reads.money(expected.total_cents)}" in html
    response = post(
        traveller,
        f"/booking/trips/{rid}/change",
        {"check_in": later_in.isoformat(), "check_out": later_out.isoformat()},
    )
    assert response.status_code == 302
    assert one(
        store,
        world,
        "SELECT date(start_at), date(end_at), total_cents FROM booking_reservation WHERE id = ?",
        (rid,),
    ) == (later_in.isoformat(), later_out.isoformat(), expected.total_cents)


def test_changing_to_impossible_dates_keeps_them_and_writes_nothing(login, facts, store, world):
    rid = booked(login, facts, store, world)
    before = dump(store, world)
    s = facts.in_policy
    response = post(
        login(facts.traveller),
        f"/booking/trips/{rid}/change",
        {"check_in": s.check_out.isoformat(), "check_out": s.check_in.isoformat()},
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Check-out must be after check-in." in html
    assert f'value="{s.check_out.isoformat()}"' in html
    assert dump(store, world) == before


# -- approvals ---------------------------------------------------------------------------------


def test_the_approver_sees_the_request_and_approves_it(login, facts, store, world):
    approver = login(facts.approver)
    rid = one(
        store,
        world,
        "SELECT reservation_id FROM booking_approval WHERE id = ?",
        (facts.pending_approval,),
    )
    inbox = page(approver, "/booking/approvals")
    assert f'action="/booking/approvals/{facts.pending_approval}"' in inbox
    response = post(
        approver, f"/booking/approvals/{facts.pending_approval}", {"decision": "approve"}
    )
    assert response.status_code == 302
    assert (
        one(
            store,
            world,
            "SELECT status FROM booking_approval WHERE id = ?",
            (facts.pending_approval,),
        )
        == "approved"
    )
    assert one(store, world, "SELECT status FROM booking_reservation WHERE id = ?", (rid,)) == (
        "confirmed"
    )
    assert f'href="/booking/trips/{rid}"' in page(approver, "/booking/approvals?tab=decided")


def test_rejecting_without_a_comment_is_refused_and_writes_nothing(login, facts, store, world):
    before = dump(store, world)
    response = post(
        login(facts.approver),
        f"/booking/approvals/{facts.pending_approval}",
        {"decision": "reject", "comment": ""},
    )
    assert response.status_code == 422
    assert "Say why you're rejecting this request." in text_of(response.get_data(as_text=True))
    assert dump(store, world) == before


def test_rejecting_with_a_comment_tells_the_traveller(login, facts, store, world):
    response = post(
        login(facts.approver),
        f"/booking/approvals/{facts.pending_approval}",
        {"decision": "reject", "comment": "Pick a cheaper hotel."},
    )
    assert response.status_code == 302
    (rid, guest) = one(
        store,
        world,
        "SELECT r.id, r.guest_id FROM booking_approval a JOIN booking_reservation r "
        "ON r.id = a.reservation_id WHERE a.id = ?",
        (facts.pending_approval,),
    )
    (email,) = rows(store, world, "SELECT email FROM people_employee WHERE id = ?", (guest,))[0]
    html = text_of(page(login(email), f"/booking/trips/{rid}"))
    assert "Pick a cheaper hotel." in html
    assert "Rejected" in html


def test_someone_who_is_not_the_approver_cannot_decide(login, facts, store, world):
    before = dump(store, world)
    response = post(
        login(facts.stranger),
        f"/booking/approvals/{facts.pending_approval}",
        {"decision": "approve"},
    )
    assert response.status_code == 404
    assert dump(store, world) == before


def test_someone_nobody_reports_to_has_an_empty_inbox(login, facts):
    html = text_of(page(login(facts.stranger), "/booking/approvals"))
    assert "Nothing waits for your approval" in html
    assert "nobody reports to you" in html


@pytest.mark.parametrize("tab", ["upcoming", "pending", "past", "cancelled", "rejected"])
def test_every_trips_tab_opens(login, facts, tab):
    html = page(login(facts.traveller), f"/booking/trips?tab={tab}")
    assert 'aria-current="page"' in html


# -- customers and lookups ---------------------------------------------------------------------


def test_a_trip_for_a_customer_names_the_account_typed(login, facts, store, world):
    (account_id, account) = rows(store, world, "SELECT id, name FROM crm_account ORDER BY id")[0]
    response = book(
        login(facts.traveller),
        facts.in_policy,
        purpose="Customer workshop",
        account_id="",
        account_id_text=account,
    )
    assert response.status_code == 302
    assert (
        one(store, world, "SELECT account_id FROM booking_reservation ORDER BY id DESC LIMIT 1")
        == account_id
    )


def test_an_account_name_that_matches_none_is_refused_with_the_input_kept(
    login, facts, store, world
):
    before = dump(store, world)
    response = book(
        login(facts.traveller), facts.in_policy, account_id="", account_id_text="No Such Co"
    )
    assert response.status_code == 422
    html = text_of(response.get_data(as_text=True))
    assert "No account is named “No Such Co”" in html
    assert 'value="No Such Co"' in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_a_deal_of_another_account_is_refused(login, facts, store, world):
    (deal, deal_account) = rows(
        store, world, "SELECT id, account_id FROM crm_opportunity ORDER BY id LIMIT 1"
    )[0]
    (other,) = rows(
        store,
        world,
        "SELECT id FROM crm_account WHERE id != ? ORDER BY id LIMIT 1",
        (deal_account,),
    )[0]
    before = dump(store, world)
    response = book(
        login(facts.traveller),
        facts.in_policy,
        account_id=str(other),
        opportunity_id=str(deal),
    )
    assert response.status_code == 422
    assert "belongs to another account" in text_of(response.get_data(as_text=True))
    assert dump(store, world) == before


def test_the_deal_lookup_offers_deals_by_name(login, facts, store, world):
    (deal, name) = rows(store, world, "SELECT id, name FROM crm_opportunity ORDER BY id")[0]
    found = login(facts.traveller).get(f"/booking/lookup/deals?q={name}").get_json()
    assert deal in [c["id"] for c in found]
    accounts = login(facts.traveller).get("/booking/lookup/accounts?q=a").get_json()
    assert accounts and {"id", "label", "detail"} <= set(accounts[0])


# -- markup ------------------------------------------------------------------------------------


class _Audit(HTMLParser):
    """Ids, labels and controls of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.labelled: set[str] = set()
        self.controls: list[dict] = []
        self._in_label = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "label":
            self._in_label += 1
            if a.get("for"):
                self.labelled.add(a["for"])
        if tag in ("input", "select", "textarea") and a.get("type") not in ("hidden", "submit"):
            self.controls.append({**a, "_wrapped": self._in_label > 0})

    def handle_endtag(self, tag):
        if tag == "label":
            self._in_label -= 1


def test_every_control_has_a_label_and_every_id_is_unique(login, facts, store, world):
    rid = booked(login, facts, store, world)
    s = facts.over_policy
    pages = {
        facts.traveller: [
            f"/booking/?where={s.city}&{s.query()}&amenity=wifi",
            f"/booking/stays/{s.resource_id}?{s.query()}",
            f"/booking/stays/{s.resource_id}/reserve?{s.query()}",
            "/booking/trips",
            f"/booking/trips/{rid}",
            f"/booking/trips/{rid}/change?check_in={s.check_in}&check_out={s.check_out}",
            f"/booking/trips/{rid}/cancel",
        ],
        facts.manager: [f"/booking/stays/{s.resource_id}/reserve?{s.query()}"],
        facts.approver: ["/booking/approvals"],
    }
    for person, paths in pages.items():
        client = login(person)
        for path in paths:
            audit = _Audit()
            audit.feed(page(client, path))
            assert len(audit.ids) == len(set(audit.ids)), path
            unlabelled = [
                c
                for c in audit.controls
                if not c["_wrapped"] and c.get("id") not in audit.labelled and "aria-label" not in c
            ]
            assert not unlabelled, (path, unlabelled)


def test_a_meeting_room_booking_address_leads_to_its_own_page(login, facts, store, world):
    (rid, email) = rows(
        store,
        world,
        "SELECT r.id, e.email FROM booking_reservation r JOIN booking_resource s "
        "ON s.id = r.resource_id JOIN people_employee e ON e.id = r.guest_id "
        "WHERE s.kind = 'meeting_room' AND e.is_active ORDER BY r.id LIMIT 1",
    )[0]
    response = login(email).get(f"/booking/trips/{rid}")
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/booking/rooms/bookings/{rid}")
