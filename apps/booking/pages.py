"""Booking's main stays pages in a world, as a traveller with a trip waiting for approval sees
them (and its approver, for the approvals inbox): the search with dates, the search with
filters, a listing with dates, its reviews, the review-and-book page, my trips, the trip's
page, its change-dates and cancel pages, and the approvals inbox. Meeting-room pages are
listed by `rooms_pages` (see `rooms`)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

from officegym.apps.registry import MainPage
from officegym.seed_data.connect import connect

_STAYS = "('home', 'hotel_room')"
_NIGHTS = 3
_AHEAD = 21


def _day(value: object) -> date:
    return value if isinstance(value, date) else datetime.fromisoformat(str(value)).date()


def stays_pages(world: Path) -> list[MainPage]:
    conn = connect(world, read_only=True)
    try:
        (now,) = conn.execute("SELECT now FROM world_meta WHERE id = 1").fetchone()
        today = _day(now)
        check_in = today + timedelta(days=_AHEAD)
        check_out = check_in + timedelta(days=_NIGHTS)
        # The traveller: the guest of the earliest upcoming stay waiting for an active
        # approver (else of the earliest upcoming stay), and that approver (else the manager).
        (trip, email, approver) = conn.execute(
            f"SELECT r.id, g.email, coalesce(m.email, b.email, g.email) "
            f"FROM booking_reservation r JOIN booking_resource s ON s.id = r.resource_id "
            f"JOIN people_employee g ON g.id = r.guest_id "
            f"LEFT JOIN booking_approval a ON a.reservation_id = r.id AND a.status = 'pending' "
            f"LEFT JOIN people_employee m ON m.id = a.approver_id AND m.is_active "
            f"LEFT JOIN people_employee b ON b.id = g.manager_id AND b.is_active "
            f"WHERE s.kind IN {_STAYS} AND g.is_active "
            f"AND r.status IN ('pending_approval', 'confirmed') AND r.start_at >= ? "
            f"ORDER BY m.id IS NULL, r.start_at, r.id LIMIT 1",
            (today.isoformat(),),
        ).fetchone()
        (city,) = conn.execute(
            f"SELECT p.city FROM booking_resource s JOIN booking_property p "
            f"ON p.id = s.property_id WHERE s.kind IN {_STAYS} "
            f"GROUP BY p.city ORDER BY count(*) DESC, p.city LIMIT 1"
        ).fetchone()
        # A home in that city, free on the dates (no holding stay, no closure) if one is,
        # the most reviewed.
        (home,) = conn.execute(
            f"SELECT s.id FROM booking_resource s JOIN booking_property p "
            f"ON p.id = s.property_id WHERE s.kind IN {_STAYS} AND p.city = ? "
            "ORDER BY s.kind != 'home', s.min_nights > ?, "
            "EXISTS (SELECT 1 FROM booking_reservation r WHERE r.resource_id = s.id "
            "  AND r.status IN ('confirmed', 'pending_approval') "
            "  AND r.start_at < ? AND r.end_at > ?), "
            "EXISTS (SELECT 1 FROM booking_availability w WHERE w.resource_id = s.id "
            "  AND w.start_date < ? AND w.end_date >= ?), "
            "(SELECT count(*) FROM booking_review v WHERE v.property_id = p.id) DESC, "
            "s.id LIMIT 1",
            (
                city,
                _NIGHTS,
                check_out.isoformat(),
                check_in.isoformat(),
                check_out.isoformat(),
                check_in.isoformat(),
            ),
        ).fetchone()
        (office,) = conn.execute(
            "SELECT id FROM booking_property WHERE kind = 'office' AND city = ? "
            "UNION ALL SELECT id FROM booking_property WHERE kind = 'office' LIMIT 1",
            (city,),
        ).fetchone()
    finally:
        conn.close()
    dates = {"check_in": check_in.isoformat(), "check_out": check_out.isoformat()}
    search = urlencode({"where": city, **dates, "guests": 2})
    filtered = urlencode(
        [
            ("where", city),
            *dates.items(),
            ("price_max", 400),
            ("amenity", "wifi"),
            ("amenity", "workspace"),
            ("rating", 4),
            ("office", office),
            ("km", 15),
            ("sort", "total"),
        ]
    )
    stay = f"/booking/stays/{home}"
    pages = [
        ("stays search", f"/booking/?{search}", email),
        ("stays search with filters", f"/booking/?{filtered}", email),
        ("listing", f"{stay}?{urlencode(dates)}", email),
        ("listing reviews", f"{stay}/reviews", email),
        ("review and book", f"{stay}/reserve?{urlencode(dates)}", email),
        ("my trips", "/booking/trips?tab=pending", email),
        ("reservation", f"/booking/trips/{trip}", email),
        ("change dates", f"/booking/trips/{trip}/change", email),
        ("cancel reservation", f"/booking/trips/{trip}/cancel", email),
        ("approvals", "/booking/approvals", approver),
    ]
    return [MainPage("booking", name, path, user) for name, path, user in pages]


def main_pages(world: Path) -> list[MainPage]:
    """Every main page of the booking app: stays, trips and approvals, then meeting rooms."""
    pages = stays_pages(world)
    try:
        from .rooms import rooms_pages
    except ImportError:
        return pages
    return pages + rooms_pages(world)
