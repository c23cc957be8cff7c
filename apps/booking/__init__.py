"""Booking: stays (hotels and homes) under the travel policy with manager approvals, and the
offices' meeting rooms, mounted at `/booking`."""

from officegym.apps.registry import AppEntry, Child

ICON = (
    '<svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" '
    'stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">'
    '<rect x="3" y="4" width="18" height="17" rx="2"/><path d="M3 9h18M8 2v4M16 2v4"/>'
    '<path d="M8 14h3v3H8z"/></svg>'
)

APP = AppEntry(
    slug="booking",
    name="Booking",
    description="Stays, travel approvals and meeting rooms",
    icon_svg=ICON,
    endpoint="booking.index",
    blueprint="officegym.apps.booking.blueprint:bp",
    service="officegym.apps.booking.service",
    pages="officegym.apps.booking.pages:main_pages",
    stamps={"booking_reservation": frozenset({"updated_at"})},
    # Attendees are made with their meeting; an approval request with its reservation.
    children={
        "booking_attendee": Child("reservation_id", "booking_reservation", "with_parent"),
        "booking_approval": Child("reservation_id", "booking_reservation", "with_parent"),
    },
    blanks={
        "booking_reservation": {
            "refund_cents": None,
            "justification": "",
            "series_id": None,
            "account_id": None,
            "opportunity_id": None,
            "updated_at": None,
            "cancelled_at": None,
        },
    },
)

__all__ = ["APP"]
