"""Booking's JSON API: the same reads and writes as the pages, as JSON under `/booking/api`.

Built on the kit's `api_blueprint` (see `officegym.apps.web.jsonapi`): the session cookie
authenticates (every route answers 401 without it), writes need the header
`X-Requested-With: officegym` (CSRF defence), and a refusal from the service layer becomes
`{"error": {"status", "title", "message", "field"?, "fields"?}}` with 400/401/403/404/409/422;
a meeting room that is taken answers 409 with `clashes`, what holds it.

Stays: search (the search page's filters as query parameters), a listing with a quote for
dates, book, my reservations, change dates, cancel; approvals waiting for me, and deciding
them. Meeting rooms: offices, rooms with their bookings and free time on a day, book once or
weekly, a booking, cancel. Room times are ISO 8601: sent with an offset in any zone (or
naive, read as UTC, as the service reads them), answered in the office's own zone.

`GET /booking/api/openapi.json` describes every route (OpenAPI 3.1, see `openapi`).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from flask import jsonify, request

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import ValidationError
from officegym.apps.web.jsonapi import api_blueprint, arg_int, field, json_body, ok
from officegym.apps.web.localtime import to_local
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import Employee, Reservation, Resource

from . import access, reads, service
from . import rooms_reads as rooms
from .openapi import document as openapi_document

api_bp = api_blueprint("booking_api", __name__)


def _me() -> Employee:
    return current_user()


def _today() -> date:
    return world_now(get_db()).date()


def _ids(data: dict, name: str) -> list[int]:
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise ValidationError(f"'{name}' must be a list of employee ids.", name)
    return value


def _person(e: Employee | None) -> dict[str, Any] | None:
    return None if e is None else {"id": e.id, "name": e.display_name, "title": e.title}


def _tab(name: str, tabs: tuple[tuple[str, str], ...], default: str) -> str:
    tab = request.args.get(name, default)
    keys = [t[0] for t in tabs]
    if tab not in keys:
        raise ValidationError(f"'{name}' is one of {', '.join(keys)}.", name)
    return tab


# -- stays -------------------------------------------------------------------------------------


@api_bp.get("/stays")
@login_required
def search_stays():
    """The search page's search: the same query parameters, one page of results."""
    search, errors = reads.parse_search(request.args, _today())
    if errors:
        raise ValidationError.of(errors)
    found = reads.search_stays(get_db(), search)
    return ok(
        {
            "total": found.total,
            "page": found.search.page,
            "pages": found.pages,
            "nights": found.search.nights,
            "results": found.cards,
        }
    )


def _listing_json(listing: reads.Listing) -> dict[str, Any]:
    r, p = listing.resource, listing.property
    return {
        "resource_id": r.id,
        "property_id": p.id,
        "title": listing.title,
        "kind": r.kind,
        "property_type": p.property_type,
        "room_name": r.name,
        "city": p.city,
        "area": p.area,
        "country": p.country,
        "address": p.address,
        "description": p.description,
        "star_rating": p.star_rating,
        "guest_rating": p.guest_rating,
        "review_count": listing.review_count,
        "capacity": r.capacity,
        "bedrooms": r.bedrooms,
        "beds": r.beds,
        "bathrooms": r.bathrooms,
        "nightly_rate": r.nightly_rate,
        "weekend_rate": r.weekend_rate,
        "cleaning_fee": r.cleaning_fee,
        "min_nights": r.min_nights,
        "weekly_discount_pct": r.weekly_discount_pct,
        "service_fee_pct": p.service_fee_pct,
        "check_in_time": p.check_in_time,
        "check_out_time": p.check_out_time,
        "cancellation_policy": p.cancellation_policy,
        "refund_text": listing.refund_text,
        "instant_book": bool(p.instant_book),
        "preferred": bool(p.is_preferred),
        "amenities": listing.amenities,
        "house_rules": listing.rules,
        "host": None
        if listing.host is None
        else {"name": listing.host.name, "superhost": listing.host.is_superhost},
        "reviews": [
            {
                "author": v.author_name,
                "rating": v.rating,
                "body": v.body,
                "created_on": v.created_on,
            }
            for v in listing.reviews
        ],
    }


@api_bp.get("/listings/<int:resource_id>")
@login_required
def get_listing(resource_id: int):
    """A stay listing; with `check_in` and `check_out`, its quote for those dates (for
    `guests`, and for the traveller `guest_id` when booking for someone)."""
    db = get_db()
    body = _listing_json(reads.listing(db, resource_id))
    body["quote"] = None
    if request.args.get("check_in") or request.args.get("check_out"):
        quote = service.quote_stay(
            db,
            _me(),
            resource_id=resource_id,
            check_in=request.args.get("check_in", ""),
            check_out=request.args.get("check_out", ""),
            guests=request.args.get("guests", "1"),
            guest_id=request.args.get("guest_id") or None,
        )
        body["quote"] = quote.to_json()
    return ok(body)


def _stay_json(reservation: Reservation) -> dict[str, Any]:
    view = reads.trip(get_db(), reservation)
    r = view.reservation
    approval = view.approval
    return {
        "id": r.id,
        "kind": "stay",
        "status": r.status,
        "resource_id": view.resource.id,
        "property_id": view.property.id,
        "title": view.title,
        "city": view.property.city,
        "check_in": view.check_in,
        "check_out": view.check_out,
        "nights": view.nights,
        "guests": r.guests,
        "guest": _person(view.guest),
        "booked_by": _person(view.booked_by),
        "purpose": r.purpose,
        "justification": r.justification,
        "total_cents": r.total_cents,
        "refund_cents": r.refund_cents,
        "price": reads.loads(r.price_json),
        "policy_breaches": view.broken,
        "approval": None
        if approval is None
        else {
            "id": approval.id,
            "status": approval.status,
            "approver": _person(view.approver),
            "comment": approval.comment,
            "decided_at": approval.decided_at,
        },
        "account": view.account or None,
        "opportunity": view.opportunity or None,
        "created_at": r.created_at,
        "cancelled_at": r.cancelled_at,
    }


def _stay(reservation_id: int) -> Reservation:
    """A stay the actor may see (a meeting-room booking is not one: 404)."""
    db = get_db()
    found = access.visible_reservation(db, _me(), reservation_id)
    if db.get(Resource, found.resource_id).kind not in reads.STAY_KINDS:
        raise access.reservation_not_found()
    return found


@api_bp.get("/reservations")
@login_required
def list_reservations():
    """My stays (as the traveller or the booker) in one tab, 20 a page."""
    tab = _tab("tab", reads.TRIP_TABS, "upcoming")
    page = reads.trips(get_db(), _me(), tab, _today(), arg_int("page", 1) or 1)
    return ok({"tab": tab, "page": page.page, "pages": page.pages, "counts": page.counts,
               "reservations": page.rows})  # fmt: skip


@api_bp.post("/reservations")
@login_required
def create_reservation():
    data = json_body()
    made = service.book_stay(
        get_db(),
        _me(),
        resource_id=field(data, "resource_id", int, required=True),
        check_in=field(data, "check_in", str, required=True),
        check_out=field(data, "check_out", str, required=True),
        guests=field(data, "guests", int, 1),
        purpose=field(data, "purpose", str, ""),
        justification=field(data, "justification", str, ""),
        guest_id=field(data, "guest_id", int),
        account_id=field(data, "account_id", int),
        opportunity_id=field(data, "opportunity_id", int),
    )
    return ok(_stay_json(made), 201)


@api_bp.get("/reservations/<int:reservation_id>")
@login_required
def get_reservation(reservation_id: int):
    return ok(_stay_json(_stay(reservation_id)))


@api_bp.post("/reservations/<int:reservation_id>/dates")
@login_required
def change_dates(reservation_id: int):
    data = json_body()
    _stay(reservation_id)
    changed = service.change_stay_dates(
        get_db(),
        _me(),
        reservation_id=reservation_id,
        check_in=field(data, "check_in", str, required=True),
        check_out=field(data, "check_out", str, required=True),
        justification=field(data, "justification", str, ""),
    )
    return ok(_stay_json(changed))


@api_bp.post("/reservations/<int:reservation_id>/cancel")
@login_required
def cancel_reservation(reservation_id: int):
    _stay(reservation_id)
    cancelled = service.cancel_reservation(get_db(), _me(), reservation_id=reservation_id)
    return ok(_stay_json(cancelled))


# -- approvals ---------------------------------------------------------------------------------


@api_bp.get("/approvals")
@login_required
def list_approvals():
    """Approval requests sent to me: `pending` (waiting for my decision) or `decided`."""
    tab = _tab("tab", reads.APPROVAL_TABS, "pending")
    page = reads.approvals(get_db(), _me(), tab, arg_int("page", 1) or 1)
    return ok({"tab": tab, "page": page.page, "pages": page.pages, "counts": page.counts,
               "approvals": page.rows})  # fmt: skip


@api_bp.post("/approvals/<int:approval_id>/decision")
@login_required
def decide(approval_id: int):
    data = json_body()
    decided = service.decide_approval(
        get_db(),
        _me(),
        approval_id=approval_id,
        decision=field(data, "decision", str, required=True),
        comment=field(data, "comment", str, ""),
    )
    return ok(
        {
            "id": decided.id,
            "status": decided.status,
            "comment": decided.comment,
            "decided_at": decided.decided_at,
            "reservation": _stay_json(get_db().get(Reservation, decided.reservation_id)),
        }
    )


# -- meeting rooms -----------------------------------------------------------------------------


def _local(value: datetime, timezone: str) -> str:
    """A stored (naive UTC) time in the office's zone, ISO 8601 with its offset."""
    return to_local(value, timezone).isoformat()


def _room_json(room: rooms.Room) -> dict[str, Any]:
    return {
        "id": room.id,
        "name": room.name,
        "capacity": room.capacity,
        "features": list(room.features),
        "office_id": room.office_id,
        "office": room.office_name,
        "timezone": room.timezone,
    }


def _booking_json(found: rooms.BookingDetail, show_people: bool) -> dict[str, Any]:
    b, tz = found.booking, found.room.timezone
    return {
        "id": b.id,
        "kind": "meeting_room",
        "status": b.status,
        "title": b.title,
        "room": _room_json(found.room),
        "start": _local(b.start_at, tz),
        "end": _local(b.end_at, tz),
        "organizer": {"id": found.organizer.id, "name": found.organizer.name},
        "attendees": [{"id": p.id, "name": p.name} for p in found.attendees]
        if show_people
        else None,
        "series_id": b.series_id,
        "series_weeks": found.series_weeks,
        "cancelled_at": found.cancelled_at,
    }


def _booking(reservation_id: int) -> dict[str, Any]:
    db, me = get_db(), _me()
    found = rooms.booking(db, reservation_id)
    return _booking_json(found, access.sees(db, me, db.get(Reservation, reservation_id)))


@api_bp.get("/offices")
@login_required
def list_offices():
    """The offices with meeting rooms, the signed-in user's first."""
    db, me = get_db(), _me()
    found = rooms.offices(db)
    found.sort(key=lambda o: o.id != me.office_id)
    return ok(found)


@api_bp.get("/rooms")
@login_required
def list_rooms():
    """An office's rooms (default: mine) with at least `capacity` seats and every piece of
    `equipment`, each with its bookings and free time from 07:00 to 20:00 office time on
    `date` (default: today there)."""
    db, me = get_db(), _me()
    office_id = arg_int("office")
    office = rooms.office(db, office_id) if office_id is not None else rooms.home_office(db, me)
    raw = request.args.get("date")
    day = rooms.today(world_now(db), office.timezone)
    if raw:
        try:
            day = date.fromisoformat(raw)
        except ValueError:
            raise ValidationError("Enter the date as YYYY-MM-DD.", "date") from None
    wanted = request.args.getlist("equipment")
    unknown = [e for e in wanted if e not in rooms.EQUIPMENT]
    if unknown:
        raise ValidationError(
            f"'equipment' is any of {', '.join(rooms.EQUIPMENT)}; not {unknown[0]!r}.",
            "equipment",
        )
    capacity = arg_int("capacity")
    shown = rooms.rooms(db, office.id, capacity, wanted)
    start, end = rooms.window(day, office.timezone)
    held: dict[int, list[rooms.RoomBooking]] = {}
    for b in rooms.bookings(db, [r.id for r in shown], start, end):
        held.setdefault(b.room_id, []).append(b)
    closed = rooms.closures(db, [r.id for r in shown], day, day)
    tz = office.timezone
    out = []
    for r in shown:
        mine = held.get(r.id, [])
        reason = closed.get((r.id, day))
        free = [] if reason is not None else rooms.free_between(start, end, mine)
        out.append(
            {
                **_room_json(r),
                "closed": reason,
                "bookings": [
                    {
                        "id": b.id,
                        "title": b.title,
                        "organizer": b.organizer_name,
                        "start": _local(b.start_at, tz),
                        "end": _local(b.end_at, tz),
                    }
                    for b in mine
                ],  # fmt: skip
                "free": [{"start": _local(a, tz), "end": _local(b, tz)} for a, b in free],
            }
        )
    return ok({"office": office, "date": day, "rooms": out})


def _room_body(data: dict) -> dict[str, Any]:
    return {
        "start": field(data, "start", str, required=True),
        "end": field(data, "end", str, required=True),
        "title": field(data, "title", str, ""),
        "attendee_ids": _ids(data, "attendee_ids"),
    }


@api_bp.post("/rooms/<int:room_id>/bookings")
@login_required
def book_room(room_id: int):
    """Book a room once; a clash is a 409 naming what holds the room."""
    made = service.book_room(get_db(), _me(), resource_id=room_id, **_room_body(json_body()))
    return ok(_booking(made.id), 201)


@api_bp.post("/rooms/<int:room_id>/series")
@login_required
def book_series(room_id: int):
    """Book a room weekly for `weeks` weeks; with clashes a 409 listing them all, unless
    `skip_clashes`, which books the free weeks and lists the skipped ones."""
    data = json_body()
    result = service.book_room_series(
        get_db(),
        _me(),
        resource_id=room_id,
        weeks=field(data, "weeks", int, required=True),
        skip_clashes=field(data, "skip_clashes", bool, False),
        **_room_body(data),
    )
    tz = rooms.room(get_db(), room_id).timezone
    return ok(
        {
            "series_id": result.series.id,
            "weeks": result.series.weeks,
            "bookings": [_booking(r.id) for r in result.created],
            "skipped": [
                {"date": week.day, "clashes": list(week.clashes)}
                for week in rooms.clashing_weeks(result.clashes, tz)
            ],
        },
        201,
    )


@api_bp.get("/room-bookings/<int:reservation_id>")
@login_required
def get_room_booking(reservation_id: int):
    """A room booking: anyone sees its title and organizer; the attendees are listed to the
    people on it (`null` to others)."""
    return ok(_booking(reservation_id))


@api_bp.post("/room-bookings/<int:reservation_id>/cancel")
@login_required
def cancel_room_booking(reservation_id: int):
    """Cancel a room booking you organize (before it starts)."""
    rooms.booking(get_db(), reservation_id)
    service.cancel_reservation(get_db(), _me(), reservation_id=reservation_id)
    return ok(_booking(reservation_id))


@api_bp.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())


__all__ = ["api_bp"]
