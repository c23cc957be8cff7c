"""The OpenAPI 3.1 document of the booking JSON API (api.py), on the kit's scaffold
(`officegym.apps.web.openapi`)."""

from __future__ import annotations

from functools import partial
from typing import Any

from officegym.apps.web.openapi import (
    BOOL,
    DATE,
    IDS,
    INT,
    NULL_INT,
    NULL_TIME,
    STR,
    TIME,
    error_schema,
    list_of,
    obj,
    operation,
    param,
    ref,
)
from officegym.apps.web.openapi import document as kit_document
from officegym.seed_data.schema.booking import RESERVATION_STATUSES

from .reads import AMENITIES, APPROVAL_TABS, SORTS, TRIP_TABS
from .rooms_reads import EQUIPMENT

PREFIX = "/booking/api"
DESCRIPTION = (
    "JSON over the booking service layer: stays under the travel policy, approvals and "
    "meeting rooms. Room times are ISO 8601 date-times: send them with an offset in any zone "
    "(a time without one is read as UTC); they come back in the office's own zone."
)
ERRORS = {
    "400": "Malformed request (a body that is not a JSON object, or nested too deeply)",
    "401": "Not signed in",
    "403": "Not yours to change (only the guest or booker; only the approver decides), or a "
    "write without the CSRF header",
    "404": "No such listing, reservation, room, booking or approval (or not one you may see)",
    "409": "Conflicts with the current state: the nights or the room are taken (`clashes` "
    "says by what), a past stay, a decided request",
    "422": "Invalid input; `field` and `fields` say what is wrong",
}
_op = partial(operation, errors=ERRORS)
NULL_STR: dict[str, Any] = {"type": ["string", "null"]}
NUM: dict[str, Any] = {"type": "number"}
NULL_NUM: dict[str, Any] = {"type": ["number", "null"]}
STRS: dict[str, Any] = {"type": "array", "items": STR}
ZONED = {**TIME, "description": "ISO 8601 with the office's offset"}
PERSON = obj({"id": INT, "name": STR, "title": STR})
RID = param("reservation_id")


def _schemas() -> dict[str, Any]:
    clash = obj(
        {
            "resource_id": INT,
            "room": STR,
            "wanted_start": TIME,
            "wanted_end": TIME,
            "start": TIME,
            "end": TIME,
            "title": STR,
            "organizer": STR,
            "reservation_id": NULL_INT,
        }
    )
    return {
        "Error": error_schema(clashes={"type": "array", "items": ref("Clash")}),
        "Clash": {**clash, "description": "What holds a room at a wanted time (times UTC)"},
        "StayCard": obj(
            {
                "resource_id": INT,
                "property_id": INT,
                "kind": {"enum": ["hotel_room", "home"]},
                "name": STR,
                "property_name": STR,
                "room_name": STR,
                "property_type": STR,
                "city": STR,
                "area": STR,
                "capacity": INT,
                "bedrooms": INT,
                "beds": INT,
                "bathrooms": NUM,
                "rating": NULL_NUM,
                "reviews": INT,
                "preferred": BOOL,
                "instant_book": BOOL,
                "cancellation_policy": STR,
                "nightly_cents": INT,
                "total_cents": NULL_INT,
                "nights": INT,
                "units_left": NULL_INT,
                "distance_km": NULL_NUM,
                "photo": STR,
            }
        ),  # fmt: skip
        "SearchResults": obj(
            {"total": INT, "page": INT, "pages": INT, "nights": INT, "results": list_of("StayCard")}
        ),  # fmt: skip
        "Quote": obj(
            {
                "resource_id": INT,
                "property_id": INT,
                "guest_id": INT,
                "check_in": DATE,
                "check_out": DATE,
                "guests": INT,
                "nights": INT,
                "available": BOOL,
                "units_left": INT,
                "unavailable_reason": STR,
                "price": {
                    "type": "object",
                    "description": "nights, subtotal, discount, cleaning, service, taxes, total (cents)",
                },
                "policy": STR,
                "in_policy": BOOL,
                "breaches": {"type": "array", "items": obj({"code": STR, "message": STR})},
                "cancellation_policy": STR,
                "refund_text": STR,
            }
        ),  # fmt: skip
        "Listing": obj(
            {
                "resource_id": INT,
                "property_id": INT,
                "title": STR,
                "kind": STR,
                "property_type": STR,
                "room_name": STR,
                "city": STR,
                "area": STR,
                "country": STR,
                "address": STR,
                "description": STR,
                "star_rating": NULL_INT,
                "guest_rating": NULL_NUM,
                "review_count": INT,
                "capacity": INT,
                "bedrooms": INT,
                "beds": INT,
                "bathrooms": NUM,
                "nightly_rate": INT,
                "weekend_rate": NULL_INT,
                "cleaning_fee": INT,
                "min_nights": INT,
                "weekly_discount_pct": INT,
                "service_fee_pct": INT,
                "check_in_time": STR,
                "check_out_time": STR,
                "cancellation_policy": STR,
                "refund_text": STR,
                "instant_book": BOOL,
                "preferred": BOOL,
                "amenities": STRS,
                "house_rules": STRS,
                "host": {"type": ["object", "null"]},
                "reviews": {"type": "array"},
                "quote": {"oneOf": [ref("Quote"), {"type": "null"}]},
            }
        ),  # fmt: skip
        "Stay": obj(
            {
                "id": INT,
                "kind": {"const": "stay"},
                "status": {"enum": list(RESERVATION_STATUSES)},
                "resource_id": INT,
                "property_id": INT,
                "title": STR,
                "city": STR,
                "check_in": DATE,
                "check_out": DATE,
                "nights": INT,
                "guests": INT,
                "guest": PERSON,
                "booked_by": PERSON,
                "purpose": STR,
                "justification": STR,
                "total_cents": INT,
                "refund_cents": NULL_INT,
                "price": {"type": ["object", "null"]},
                "policy_breaches": STRS,
                "approval": {
                    "type": ["object", "null"],
                    "properties": {
                        "id": INT,
                        "status": STR,
                        "approver": PERSON,
                        "comment": STR,
                        "decided_at": NULL_TIME,
                    },
                },
                "account": NULL_STR,
                "opportunity": NULL_STR,
                "created_at": TIME,
                "cancelled_at": NULL_TIME,
            }
        ),  # fmt: skip
        "TripRow": obj(
            {
                "id": INT,
                "title": STR,
                "city": STR,
                "check_in": DATE,
                "check_out": DATE,
                "total_cents": INT,
                "refund_cents": NULL_INT,
                "status": STR,
                "purpose": STR,
                "guest_name": {**STR, "description": "empty when you are the traveller"},
            }
        ),  # fmt: skip
        "Trips": obj(
            {
                "tab": STR,
                "page": INT,
                "pages": INT,
                "counts": {"type": "object", "additionalProperties": INT},
                "reservations": list_of("TripRow"),
            }
        ),  # fmt: skip
        "ApprovalRow": obj(
            {
                "id": INT,
                "status": STR,
                "comment": STR,
                "created_at": TIME,
                "decided_at": NULL_TIME,
                "reservation_id": INT,
                "reservation_status": STR,
                "traveller": STR,
                "title": STR,
                "city": STR,
                "check_in": DATE,
                "check_out": DATE,
                "total_cents": INT,
                "broken": STRS,
                "justification": STR,
                "purpose": STR,
            }
        ),  # fmt: skip
        "Approvals": obj(
            {
                "tab": STR,
                "page": INT,
                "pages": INT,
                "counts": {"type": "object", "additionalProperties": INT},
                "approvals": list_of("ApprovalRow"),
            }
        ),  # fmt: skip
        "Decision": obj(
            {
                "id": INT,
                "status": STR,
                "comment": STR,
                "decided_at": NULL_TIME,
                "reservation": ref("Stay"),
            }
        ),  # fmt: skip
        "Office": obj({"id": INT, "name": STR, "city": STR, "timezone": STR}),
        "Room": obj(
            {
                "id": INT,
                "name": STR,
                "capacity": INT,
                "features": STRS,
                "office_id": INT,
                "office": STR,
                "timezone": STR,
            }
        ),  # fmt: skip
        "RoomDay": obj(
            {
                "office": ref("Office"),
                "date": DATE,
                "rooms": {
                    "type": "array",
                    "items": {
                        "allOf": [
                            ref("Room"),
                            obj(
                                {
                                    "closed": {
                                        **NULL_STR,
                                        "description": "why the room is closed that day",
                                    },
                                    "bookings": {
                                        "type": "array",
                                        "items": obj(
                                            {
                                                "id": INT,
                                                "title": STR,
                                                "organizer": STR,
                                                "start": ZONED,
                                                "end": ZONED,
                                            }
                                        ),
                                    },
                                    "free": {
                                        "type": "array",
                                        "items": obj({"start": ZONED, "end": ZONED}),
                                    },
                                }
                            ),
                        ]
                    },
                },
            }
        ),  # fmt: skip
        "RoomBooking": obj(
            {
                "id": INT,
                "kind": {"const": "meeting_room"},
                "status": STR,
                "title": STR,
                "room": ref("Room"),
                "start": ZONED,
                "end": ZONED,
                "organizer": obj({"id": INT, "name": STR}),
                "attendees": {
                    "type": ["array", "null"],
                    "items": obj({"id": INT, "name": STR}),
                    "description": "null unless you organize it or are invited",
                },
                "series_id": NULL_INT,
                "series_weeks": NULL_INT,
                "cancelled_at": NULL_TIME,
            }
        ),  # fmt: skip
        "Series": obj(
            {
                "series_id": INT,
                "weeks": INT,
                "bookings": list_of("RoomBooking"),
                "skipped": {"type": "array", "items": obj({"date": DATE, "clashes": STRS})},
            }
        ),  # fmt: skip
    }


def _paths() -> dict[str, Any]:
    q = partial(param, where="query")
    many = {"type": "array", "items": STR}
    search_params = (
        q("where"), q("check_in", schema=DATE), q("check_out", schema=DATE), q("guests", schema=INT),
        q("price_min", schema=INT), q("price_max", schema=INT), q("total_min", schema=INT),
        q("total_max", schema=INT), q("type", schema=many), q("bedrooms", schema=INT),
        q("beds", schema=INT), q("bathrooms", schema=NUM),
        q("amenity", schema={"type": "array", "items": {"enum": [a[0] for a in AMENITIES]}}),
        q("instant", schema=BOOL), q("rating", schema=NUM), q("office", schema=INT),
        q("km", schema=NUM), q("cancellation", schema=many),
        q("sort", schema={"enum": [s[0] for s in SORTS]}), q("page", schema=INT),
    )  # fmt: skip
    room_body = {
        "start": {**TIME, "description": "with an offset, or UTC"},
        "end": {**TIME, "description": "with an offset, or UTC"},
        "title": STR,
        "attendee_ids": IDS,
    }
    return {
        "/stays": {"get": _op("Search stays (the search page's filters)", ref("SearchResults"), params=search_params)},
        "/listings/{resource_id}": {"get": _op("A stay listing, with a quote when dates are given", ref("Listing"),
            params=(param("resource_id"), q("check_in", schema=DATE), q("check_out", schema=DATE), q("guests", schema=INT), q("guest_id", schema=INT)))},
        "/reservations": {
            "get": _op("My stays in one tab", ref("Trips"), params=(q("tab", schema={"enum": [t[0] for t in TRIP_TABS]}), q("page", schema=INT))),
            "post": _op("Book a stay (out of policy: a justification, and it waits for approval)", ref("Stay"), status="201", write=True,
                        body=obj({"resource_id": INT, "check_in": DATE, "check_out": DATE, "guests": INT, "purpose": STR,
                                  "justification": STR, "guest_id": INT, "account_id": INT, "opportunity_id": INT},
                                 ("resource_id", "check_in", "check_out", "purpose"))),
        },
        "/reservations/{reservation_id}": {"get": _op("A stay", ref("Stay"), params=(RID,))},
        "/reservations/{reservation_id}/dates": {"post": _op("Change a stay's dates", ref("Stay"), params=(RID,), write=True,
            body=obj({"check_in": DATE, "check_out": DATE, "justification": STR}, ("check_in", "check_out")))},
        "/reservations/{reservation_id}/cancel": {"post": _op("Cancel a stay (refund by its policy)", ref("Stay"), params=(RID,), write=True)},
        "/approvals": {"get": _op("Approval requests sent to me", ref("Approvals"), params=(q("tab", schema={"enum": [t[0] for t in APPROVAL_TABS]}), q("page", schema=INT)))},
        "/approvals/{approval_id}/decision": {"post": _op("Approve or reject a request (rejecting needs a comment)", ref("Decision"), params=(param("approval_id"),), write=True,
            body=obj({"decision": {"enum": ["approve", "reject"]}, "comment": STR}, ("decision",)))},
        "/offices": {"get": _op("Offices with meeting rooms, mine first", list_of("Office"))},
        "/rooms": {"get": _op("An office's rooms with bookings and free time on a day (07:00-20:00 office time)", ref("RoomDay"),
            params=(q("office", schema=INT), q("date", schema=DATE), q("capacity", schema=INT), q("equipment", schema={"type": "array", "items": {"enum": list(EQUIPMENT)}})))},
        "/rooms/{room_id}/bookings": {"post": _op("Book a room once", ref("RoomBooking"), status="201", params=(param("room_id"),), write=True,
            body=obj(room_body, ("start", "end", "title")))},
        "/rooms/{room_id}/series": {"post": _op("Book a room weekly (2-26 weeks); skip_clashes books the free weeks", ref("Series"), status="201",
            params=(param("room_id"),), write=True, body=obj({**room_body, "weeks": INT, "skip_clashes": BOOL}, ("start", "end", "title", "weeks")))},
        "/room-bookings/{reservation_id}": {"get": _op("A room booking", ref("RoomBooking"), params=(RID,))},
        "/room-bookings/{reservation_id}/cancel": {"post": _op("Cancel a room booking you organize", ref("RoomBooking"), params=(RID,), write=True)},
    }  # fmt: skip


def document() -> dict[str, Any]:
    return kit_document("Booking", PREFIX, DESCRIPTION, _schemas(), _paths())
