"""Stays, trips and approvals: server-rendered pages over `reads` and `service`.

Search is a GET form whose URL holds the whole search (destination, dates, guests, filters,
sort, page). A listing quotes the chosen dates with `service.quote_stay`, and Reserve opens
the review page: the same quote, the trip's name and customer, the traveller (for people who
book for others) and the travel-policy check, with a justification for the manager when the
stay breaks policy. Booking, changing dates, cancelling and deciding approvals are POSTs that
redirect on success (PRG) and re-render their form with the service's message, what was typed
and a 4xx when refused, so nothing is written (the web kit rolls the request back).
booking.js adds a calendar popover to the date fields; typing dates always works without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any
from urllib.parse import urlencode

from flask import flash, g, jsonify, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from officegym.apps.crm import lookups as crm_lookups
from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import (
    TITLES,
    AppError,
    Conflict,
    Forbidden,
    ValidationError,
    error_response,
)
from officegym.apps.web.inputs import parse_int
from officegym.apps.web.localtime import to_local
from officegym.seed_data import booking_rules
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import Reservation, Resource

from . import access, availability, photos, reads, service
from .blueprint import bp

TEXT_SUFFIX = "_text"
LOOKUP_LIMIT = 8


def _actor() -> Employee:
    return current_user()


def _today() -> date:
    return world_now(get_db()).date()


def _render(template: str, status: int = 200, **context: Any):
    context.setdefault("section", "stays")
    return render_template(template, **context), status


@bp.errorhandler(AppError)
def _refusal(error: AppError):
    """A service refusal no form handles ends the request with the kit's error page."""
    return error_response(error.status, TITLES.get(error.status, "Error"), error.message)


@bp.context_processor
def _booking_context() -> dict[str, Any]:
    """What the booking layout shows on every page: the approvals waiting for the reader."""
    if g.get("plain_layout"):
        return {"pending_approvals": 0, "booking_cover": photos.cover}
    user = current_user()
    return {
        "pending_approvals": reads.pending_approvals(get_db(), user) if user else 0,
        "booking_cover": photos.cover,
    }


# -- template filters ---------------------------------------------------------------------------


@bp.app_template_filter("booking_money")
def _money(cents: int | None) -> str:
    return reads.money(cents)


@bp.app_template_filter("booking_date")
def _date(value: date | datetime | None) -> str:
    """ "Wed 17 Sep 2025", as the service's messages write dates."""
    if value is None:
        return ""
    return f"{value:%a} {value.day} {value:%b %Y}"


@bp.app_template_filter("booking_when")
def _when(value: datetime | None) -> str:
    """A stored (UTC) time in the reader's zone: "17 Sep 2025, 14:30"."""
    if value is None:
        return ""
    user = current_user()
    local = to_local(value, user.timezone if user is not None else None)
    return f"{local.day} {local:%b %Y}, {local:%H:%M}"


@bp.app_template_filter("booking_range")
def _range(pair: tuple[date, date]) -> str:
    """ "17–20 Sep 2025", "29 Sep – 2 Oct 2025", "30 Dec 2025 – 2 Jan 2026"."""
    first, last = pair
    if first.year != last.year:
        return f"{first.day} {first:%b %Y} – {last.day} {last:%b %Y}"
    if first.month != last.month:
        return f"{first.day} {first:%b} – {last.day} {last:%b %Y}"
    return f"{first.day}–{last.day} {last:%b %Y}"


@bp.app_template_filter("booking_plural")
def _plural(n: int | float, word: str) -> str:
    return reads.plural(n, word)


# -- small helpers ------------------------------------------------------------------------------


def _int(value: Any) -> int | None:
    return parse_int(value)


def _query(pairs: list[tuple[str, str]] | Mapping[str, Any]) -> str:
    items = pairs.items() if isinstance(pairs, Mapping) else pairs
    kept = [(k, v) for k, v in items if v not in (None, "")]
    return f"?{urlencode(kept)}" if kept else ""


def stay_url(resource_id: int, **params: Any) -> str:
    """A listing's address with the dates and guests of a search."""
    return url_for("booking.stay", resource_id=resource_id) + _query(params)


def _dates_params(check_in: Any, check_out: Any, guests: Any) -> dict[str, Any]:
    return {
        "check_in": check_in.isoformat() if isinstance(check_in, date) else check_in,
        "check_out": check_out.isoformat() if isinstance(check_out, date) else check_out,
        "guests": guests if str(guests or "") not in ("", "1") else None,
    }


def _iso(day: date | None) -> str:
    return day.isoformat() if day is not None else ""


def _form_errors(error: AppError) -> dict[str, str]:
    if isinstance(error, ValidationError) and error.errors:
        return dict(error.errors)
    return {error.field or "form": error.message}


# -- search ---------------------------------------------------------------------------------


@bp.get("/")
@login_required
def index():
    """Stay search: destination, dates, guests, filters, sort and page, all in the URL."""
    db = get_db()
    today = _today()
    search, errors = reads.parse_search(request.args, today)
    places = reads.destinations(db)
    found = reads.resolve_place(places, search.where) if search.where else []
    results = reads.search_stays(db, search, found)
    search = results.search
    stays = url_for("booking.stay", resource_id=0)[:-1]
    card_query = _query(_dates_params(search.check_in, search.check_out, search.guests))
    filters_on = sum(
        1
        for value in (
            search.price_min,
            search.price_max,
            search.total_min,
            search.total_max,
            search.types,
            search.bedrooms,
            search.beds,
            search.bathrooms,
            search.amenities,
            search.instant,
            search.rating,
            search.office,
            search.cancellation,
        )
        if value not in (None, (), 0, False)
    )
    filters_used = bool(filters_on or errors.keys() - {"check_in", "check_out", "guests", "sort"})
    typed = bool(errors.keys() & {"check_in", "check_out"})
    return _render(
        "booking/search.html",
        422 if errors else 200,
        search=search,
        results=results,
        errors=errors,
        raw=request.args,
        places=places,
        offices=reads.offices(db),
        types=reads.property_types(),
        amenities=reads.AMENITIES,
        sorts=reads.SORTS,
        ratings=reads.RATING_CHOICES,
        cancellations=reads.CANCELLATION_LABELS,
        filters_used=filters_used,
        filters_on=filters_on,
        shown_in=request.args.get("check_in", "") if typed else _iso(search.check_in),
        shown_out=request.args.get("check_out", "") if typed else _iso(search.check_out),
        today=today,
        page_url=lambda page: url_for("booking.index") + _query(search.params(page=page)),
        card_url=lambda card: f"{stays}{card.resource_id}{card_query}",
    )


# -- a listing ------------------------------------------------------------------------------


def _quote_for(
    resource_id: int, check_in: Any, check_out: Any, guests: Any
) -> tuple[service.StayQuote | None, dict[str, str]]:
    """The service's quote for the dates, or what is wrong with them (nothing asked: neither)."""
    if not check_in and not check_out:
        return None, {}
    try:
        quoted = service.quote_stay(
            get_db(),
            _actor(),
            resource_id=resource_id,
            check_in=check_in,
            check_out=check_out,
            guests=guests or "1",
        )
    except ValidationError as error:
        return None, _form_errors(error)
    return quoted, {}


@bp.get("/stays/<int:resource_id>")
@login_required
def stay(resource_id: int):
    """A listing: photos, description, amenities, rules, host, reviews, an availability
    calendar and the price of the chosen dates, with Reserve."""
    db = get_db()
    today = _today()
    found = reads.listing(db, resource_id)
    check_in = request.args.get("check_in", "").strip()
    check_out = request.args.get("check_out", "").strip()
    guests = request.args.get("guests", "").strip() or "1"
    quoted, errors = _quote_for(resource_id, check_in, check_out, guests)
    start = quoted.check_in if quoted is not None else reads.parse_day(check_in) or today
    chosen = (quoted.check_in, quoted.check_out) if quoted is not None else None
    months = reads.calendar(db, found.resource, max(start, today), today, 2, chosen)
    return _render(
        "booking/stay.html",
        listing=found,
        gallery=photos.gallery(
            found.property.kind, found.property.id, found.property.property_type
        ),
        quote=quoted,
        price=reads.breakdown(quoted.price, found.tax_name) if quoted is not None else None,
        errors=errors,
        check_in=check_in,
        check_out=check_out,
        guests=guests,
        months=months,
        today=today,
        back=url_for("booking.index")
        + _query({"where": found.property.city, **_dates_params(check_in, check_out, guests)}),
    )


@bp.get("/stays/<int:resource_id>/reviews")
@login_required
def stay_reviews(resource_id: int):
    """Every review of the listing's property, newest first, a page at a time."""
    found = reads.listing(get_db(), resource_id)
    pages = max(1, -(-found.review_count // reads.REVIEWS_PER_PAGE))
    page = min(_int(request.args.get("page")) or 1, pages)
    reviews, count = reads.property_reviews(get_db(), found.property.id, page)
    return _render(
        "booking/reviews.html",
        listing=found,
        reviews=reviews,
        count=count,
        page=page,
        pages=pages,
        page_url=lambda n: url_for("booking.stay_reviews", resource_id=resource_id, page=n),
    )


# -- the reservation flow -------------------------------------------------------------------


def _traveller(db, actor: Employee, values: Mapping[str, Any]) -> tuple[Employee, str | None]:
    """The traveller a form names (`guest_id`, or a name typed in `guest_id_text`): the actor
    when none; with the problem when the name matches no one they may book for."""
    chosen = _int(values.get("guest_id"))
    text = " ".join(str(values.get("guest_id" + TEXT_SUFFIX) or "").split())
    if chosen is not None:
        person = db.get(Employee, chosen)
        if person is not None and (not text or text.casefold() == person.display_name.casefold()):
            return person, None
    if not text:
        return actor, None
    people = [p for p in _bookable(db, actor, text) if p.display_name.casefold() == text.casefold()]
    if len(people) == 1:
        return people[0], None
    if not people:
        return actor, f"You can't book for anyone named “{text}”: pick a name from the list."
    return actor, f"Several people are named “{text}”: pick one from the list."


def _bookable(db, actor: Employee, q: str) -> list[Employee]:
    """People the actor may book a stay for whose name or email holds what was typed."""
    words = " ".join(q.split()).lower().split()[:6]
    statement = select(Employee).where(Employee.is_active)
    if not access.books_for_others(actor):
        statement = statement.where(or_(Employee.id == actor.id, Employee.manager_id == actor.id))
    for word in words:
        like = f"%{word.replace('%', '').replace('_', '')}%"
        statement = statement.where(
            or_(Employee.display_name.ilike(like), Employee.email.ilike(like))
        )
    statement = statement.order_by(Employee.display_name, Employee.id).limit(50)
    return list(db.scalars(statement))


def books_for_others(db, actor: Employee) -> bool:
    """Whether the reservation form offers a traveller picker to the actor."""
    return access.books_for_others(actor) or bool(reads.reports_of(db, actor))


def _customer(db, values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The account and deal a form names (ids chosen in the lookups, or names typed), as the
    service takes them, and what couldn't be resolved."""
    out: dict[str, Any] = {"account_id": None, "opportunity_id": None}
    errors: dict[str, str] = {}
    account_id = _int(values.get("account_id"))
    account_text = " ".join(str(values.get("account_id" + TEXT_SUFFIX) or "").split())
    if account_id is not None and (
        not account_text
        or (crm_lookups.label_of(db, "account", account_id) or "").casefold()
        == account_text.casefold()
    ):
        out["account_id"] = account_id
    elif account_text:
        named = crm_lookups.accounts_named(db, account_text)
        if len(named) == 1:
            out["account_id"] = named[0]
        else:
            errors["account_id"] = (
                f"No account is named “{account_text}”: pick one from the list."
                if not named
                else f"Several accounts are named “{account_text}”: pick one from the list."
            )
    deal_id = _int(values.get("opportunity_id"))
    deal_text = " ".join(str(values.get("opportunity_id" + TEXT_SUFFIX) or "").split())
    if deal_id is not None and (
        not deal_text or (reads.deal_name(db, deal_id) or "").casefold() == deal_text.casefold()
    ):
        out["opportunity_id"] = deal_id
    elif deal_text:
        named = reads.deals_named(db, deal_text, out["account_id"])
        if len(named) == 1:
            out["opportunity_id"] = named[0]
        else:
            errors["opportunity_id"] = (
                f"No deal is named “{deal_text}”: pick one from the list."
                if not named
                else f"Several deals are named “{deal_text}”: pick one from the list."
            )
    return out, errors


def _review_page(
    resource_id: int,
    values: Mapping[str, Any],
    *,
    status: int = 200,
    errors: Mapping[str, str] | None = None,
    message: str | None = None,
):
    """The review-and-book page for the dates in `values`, with what was typed kept."""
    db = get_db()
    actor = _actor()
    found = reads.listing(db, resource_id)
    errors = dict(errors or {})
    traveller, traveller_error = _traveller(db, actor, values)
    if traveller_error:
        errors.setdefault("guest_id", traveller_error)
    check_in = str(values.get("check_in") or "").strip()
    check_out = str(values.get("check_out") or "").strip()
    guests = str(values.get("guests") or "").strip() or "1"
    quoted = None
    quote_errors: dict[str, str] = {}
    if not check_in or not check_out:
        quote_errors = {"check_in": "Choose your check-in and check-out dates."}
    else:
        try:
            quoted = service.quote_stay(
                db,
                actor,
                resource_id=resource_id,
                check_in=check_in,
                check_out=check_out,
                guests=guests,
                guest_id=traveller.id,
            )
        except ValidationError as error:
            quote_errors = _form_errors(error)
        except Forbidden as error:
            errors["guest_id"] = error.message
            traveller = actor
    for key, text in quote_errors.items():
        errors.setdefault(key, text)
    if (quote_errors or (quoted is not None and not quoted.available)) and status == 200:
        status = 422 if quote_errors else 409
    manager = db.get(Employee, traveller.manager_id) if traveller.manager_id else None
    return _render(
        "booking/reserve.html",
        status,
        listing=found,
        quote=quoted,
        price=reads.breakdown(quoted.price, found.tax_name) if quoted is not None else None,
        values=values,
        errors=errors,
        message=message,
        traveller=traveller,
        manager=manager if manager is not None and manager.is_active else None,
        top=traveller.manager_id is None,
        picker=books_for_others(db, actor),
        actor=actor,
        check_in=check_in,
        check_out=check_out,
        guests=guests,
        change_url=stay_url(resource_id, **_dates_params(check_in, check_out, guests)),
        account_label=crm_lookups.label_of(db, "account", _int(values.get("account_id")) or 0)
        or "",
        deal_label=reads.deal_name(db, _int(values.get("opportunity_id")) or 0) or "",
    )


@bp.get("/stays/<int:resource_id>/reserve")
@login_required
def reserve(resource_id: int):
    """Review the stay before booking: the price, the trip, the traveller, the policy."""
    return _review_page(resource_id, request.args)


@bp.post("/stays/<int:resource_id>/reserve")
@login_required
def book(resource_id: int):
    """Book the stay (confirmed in policy, else a request to the traveller's manager)."""
    db = get_db()
    actor = _actor()
    form = request.form
    traveller, traveller_error = _traveller(db, actor, form)
    customer, errors = _customer(db, form)
    if traveller_error:
        errors["guest_id"] = traveller_error
    if errors:
        return _review_page(resource_id, form, status=422, errors=errors)
    try:
        reservation = service.book_stay(
            db,
            actor,
            resource_id=resource_id,
            check_in=form.get("check_in", ""),
            check_out=form.get("check_out", ""),
            guests=form.get("guests", "1"),
            purpose=form.get("purpose", ""),
            justification=form.get("justification", ""),
            guest_id=traveller.id,
            account_id=customer["account_id"],
            opportunity_id=customer["opportunity_id"],
        )
    except (ValidationError, Conflict, Forbidden) as error:
        return _review_page(
            resource_id,
            form,
            status=error.status,
            errors=_form_errors(error),
            message=error.message,
        )
    if reservation.status == "pending_approval":
        manager = db.get(Employee, traveller.manager_id)
        flash(f"Request sent: the stay is held until {manager.display_name} decides.", "success")
    else:
        flash("Booked: the stay is confirmed.", "success")
    return redirect(url_for("booking.trip", reservation_id=reservation.id))


@bp.get("/lookup/travellers")
@login_required
def lookup_travellers():
    """People the signed-in person may book a stay for, matching `q` (JSON choices)."""
    people = _bookable(get_db(), _actor(), request.args.get("q", ""))[:LOOKUP_LIMIT]
    return _choices([{"id": p.id, "label": p.display_name, "detail": p.title} for p in people])


@bp.get("/lookup/accounts")
@login_required
def lookup_accounts():
    """CRM accounts whose name holds `q` (JSON choices)."""
    return _choices(crm_lookups.accounts(get_db(), request.args.get("q", "")))


@bp.get("/lookup/deals")
@login_required
def lookup_deals():
    """CRM deals whose name holds `q`, those of `account` first (JSON choices)."""
    account = _int(request.args.get("account"))
    return _choices(reads.deal_choices(get_db(), request.args.get("q", ""), account))


def _choices(found: list) -> Any:
    response = jsonify(found)
    response.headers["Cache-Control"] = "no-store"
    return response


# -- trips ----------------------------------------------------------------------------------


@bp.get("/trips")
@login_required
def trips():
    """My trips: upcoming, pending approval, past, cancelled and rejected stays."""
    tab = request.args.get("tab", "upcoming")
    if tab not in dict(reads.TRIP_TABS):
        tab = "upcoming"
    page = reads.trips(get_db(), _actor(), tab, _today(), _int(request.args.get("page")) or 1)
    return _render(
        "booking/trips.html",
        section="trips",
        page=page,
        tabs=reads.TRIP_TABS,
        page_url=lambda n: url_for("booking.trips", tab=tab, page=n if n > 1 else None),
    )


def _trip_view(reservation_id: int) -> tuple[reads.TripView, bool]:
    db = get_db()
    actor = _actor()
    reservation = access.visible_reservation(db, actor, reservation_id)
    view = reads.trip(db, reservation)
    today = _today()
    open_ = reservation.status in availability.HOLDING and view.check_in >= today
    return view, open_ and access.can_change(actor, reservation)


@bp.get("/trips/<int:reservation_id>")
@login_required
def trip(reservation_id: int):
    """A reservation: the stay, its price lines, the policy and approval, and its actions.
    A meeting-room booking's address leads to its own page."""
    db = get_db()
    reservation = access.visible_reservation(db, _actor(), reservation_id)
    if db.get(Resource, reservation.resource_id).kind not in reads.STAY_KINDS:
        return redirect(url_for("booking.room_booking", reservation_id=reservation_id))
    view, changeable = _trip_view(reservation_id)
    return _render(
        "booking/trip.html",
        section="trips",
        trip=view,
        changeable=changeable,
        refund_text=booking_rules.REFUND_TEXT.get(view.property.cancellation_policy, ""),
        listing_url=stay_url(view.resource.id),
    )


def _change_page(
    reservation_id: int,
    values: Mapping[str, Any],
    *,
    status: int = 200,
    errors: Mapping[str, str] | None = None,
    message: str | None = None,
):
    """The change-dates form, with a preview of the new price and policy outcome."""
    db = get_db()
    actor = _actor()
    view, changeable = _trip_view(reservation_id)
    if not changeable:
        raise Conflict("This stay can't be changed any more.")
    errors = dict(errors or {})
    check_in = str(values.get("check_in") or "").strip()
    check_out = str(values.get("check_out") or "").strip()
    quoted = None
    free = True
    if check_in or check_out:
        try:
            quoted = service.quote_stay(
                db,
                actor,
                resource_id=view.resource.id,
                check_in=check_in,
                check_out=check_out,
                guests=view.reservation.guests,
                guest_id=view.guest.id,
            )
        except ValidationError as error:
            for key, text in _form_errors(error).items():
                errors.setdefault(key, text)
        if quoted is not None:
            free = (
                availability.units_left(
                    db, view.resource.id, quoted.check_in, quoted.check_out, view.reservation.id
                )
                > 0
            )
            if (quoted.check_in, quoted.check_out) == (view.check_in, view.check_out):
                errors.setdefault("check_in", "Those are already the dates of this stay.")
    if errors and status == 200:
        status = 422
    elif quoted is not None and not free and status == 200:
        status = 409
    manager = db.get(Employee, view.guest.manager_id) if view.guest.manager_id else None
    return _render(
        "booking/change.html",
        status,
        section="trips",
        trip=view,
        quote=quoted if not errors else None,
        free=free,
        price=reads.breakdown(quoted.price, view.tax_name)
        if quoted is not None and not errors
        else None,
        values=values,
        errors=errors,
        message=message,
        check_in=check_in or view.check_in.isoformat(),
        check_out=check_out or view.check_out.isoformat(),
        manager=manager if manager is not None and manager.is_active else None,
        top=view.guest.manager_id is None,
        today=_today(),
    )


@bp.get("/trips/<int:reservation_id>/change")
@login_required
def change_dates(reservation_id: int):
    """Pick new dates and see the new price and policy outcome before confirming."""
    return _change_page(reservation_id, request.args)


@bp.post("/trips/<int:reservation_id>/change")
@login_required
def change_dates_confirm(reservation_id: int):
    form = request.form
    try:
        reservation = service.change_stay_dates(
            get_db(),
            _actor(),
            reservation_id=reservation_id,
            check_in=form.get("check_in", ""),
            check_out=form.get("check_out", ""),
            justification=form.get("justification", ""),
        )
    except (ValidationError, Conflict) as error:
        return _change_page(
            reservation_id,
            form,
            status=error.status,
            errors=_form_errors(error),
            message=error.message,
        )
    if reservation.status == "pending_approval":
        flash("Dates changed: the new dates wait for your manager's approval.", "success")
    else:
        flash("Dates changed: your stay is confirmed for the new dates.", "success")
    return redirect(url_for("booking.trip", reservation_id=reservation.id))


def refund_preview(reservation: Reservation, cancellation_policy: str, today: date) -> int:
    """What cancelling today gives back: all of a stay still waiting for approval (it was
    never charged), else the share the property's cancellation policy refunds."""
    if reservation.status == "pending_approval":
        return reservation.total_cents
    return booking_rules.refund_cents(
        cancellation_policy, today, reservation.start_at.date(), reservation.total_cents
    )


@bp.get("/trips/<int:reservation_id>/cancel")
@login_required
def cancel_trip(reservation_id: int):
    """Confirm a cancellation, stating the refund the cancellation policy gives today."""
    view, changeable = _trip_view(reservation_id)
    if not changeable:
        raise Conflict("This stay can't be cancelled any more.")
    policy_name = view.property.cancellation_policy
    return _render(
        "booking/cancel.html",
        section="trips",
        trip=view,
        refund=refund_preview(view.reservation, policy_name, _today()),
        refund_text=booking_rules.REFUND_TEXT.get(policy_name, ""),
        policy_label=reads.CANCELLATION_LABELS.get(policy_name, policy_name),
    )


@bp.post("/trips/<int:reservation_id>/cancel")
@login_required
def cancel_trip_confirm(reservation_id: int):
    reservation = service.cancel_reservation(get_db(), _actor(), reservation_id=reservation_id)
    flash(
        f"Reservation cancelled. Refund: {reads.money(reservation.refund_cents or 0)}.", "success"
    )
    return redirect(url_for("booking.trip", reservation_id=reservation.id))


# -- approvals ------------------------------------------------------------------------------


def _approvals_page(
    tab: str,
    *,
    status: int = 200,
    failed: int | None = None,
    error: str | None = None,
    comment: str = "",
):
    db = get_db()
    actor = _actor()
    page = reads.approvals(db, actor, tab, _int(request.args.get("page")) or 1)
    return _render(
        "booking/approvals.html",
        status,
        section="approvals",
        page=page,
        tabs=reads.APPROVAL_TABS,
        failed=failed,
        error=error,
        comment=comment,
        manages=bool(reads.reports_of(db, actor)) or page.counts["decided"] > 0,
        page_url=lambda n: url_for("booking.approvals", tab=tab, page=n if n > 1 else None),
    )


@bp.get("/approvals")
@login_required
def approvals():
    """Requests from the reader's reports: waiting ones with approve and reject, and decided
    ones with the decision and comment."""
    tab = request.args.get("tab", "pending")
    return _approvals_page(tab if tab in dict(reads.APPROVAL_TABS) else "pending")


@bp.post("/approvals/<int:approval_id>")
@login_required
def decide(approval_id: int):
    """Approve or reject one request (a rejection says why)."""
    comment = request.form.get("comment", "")
    decision = request.form.get("decision", "")
    try:
        decided = service.decide_approval(
            get_db(), _actor(), approval_id=approval_id, decision=decision, comment=comment
        )
    except (ValidationError, Conflict) as error:
        return _approvals_page(
            "pending", status=error.status, failed=approval_id, error=error.message, comment=comment
        )
    flash(
        "Approved: the stay is confirmed."
        if decided.status == "approved"
        else "Rejected: the traveller sees your comment.",
        "success",
    )
    return redirect(url_for("booking.approvals"))
