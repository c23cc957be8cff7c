"""The Booking moves oracles are made of, each written once: searching stays with dates,
guests, filters and a sort, reading the result cards, opening a listing and reserving it with a
trip name (and a justification), finding a trip in My trips, changing its dates or cancelling
it, deciding approval requests, reading the rooms of a day, and booking a room with attendees
picked in the type-ahead, weekly, with "book the free weeks" when some clash.

Oracles use only what an agent could see: links, buttons and fields by their accessible names,
the texts pages show, and URLs shown on the page. They never write to the world directly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, time
from typing import TYPE_CHECKING, Any

from officegym.tasks.crm.ui import choose, field
from officegym.tasks.match import squash

from ._formats import cents_of, clock, month_number, stay_range

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

SORTS = {
    "recommended": "Recommended",
    "price": "Price per night, lowest first",
    "total": "Total price, lowest first",
    "rating": "Rating, highest first",
}
AMENITY_LABELS = {
    "wifi": "Wifi",
    "workspace": "Workspace",
    "parking": "Parking",
    "kitchen": "Kitchen",
    "washer": "Washer",
}


# ---- reading pages ---------------------------------------------------------------------------


def _index(nodes: Sequence[Any], bid: str) -> int:
    return next(i for i, n in enumerate(nodes) if n.bid == bid)


def inside(actions: PageActions, bid: str) -> list[Any]:
    """The nodes below node `bid` (StaticText included), in page order."""
    nodes = list(actions.nodes)
    start = _index(nodes, bid)
    found = []
    for node in nodes[start + 1 :]:
        if node.depth <= nodes[start].depth:
            break
        found.append(node)
    return found


def text_of(actions: PageActions, bid: str) -> str:
    """The text inside node `bid`: its descendants' names, in order, squashed."""
    parts = [squash(n.name or "") for n in inside(actions, bid) if n.role == "StaticText"]
    return squash(" ".join(p for p in parts if p))


def page_says(actions: PageActions, text: str) -> bool:
    """Whether any node of the page shows `text` (ignoring case)."""
    wanted = squash(text).casefold()
    return any(wanted in squash(n.name or "").casefold() for n in actions.nodes)


def facts(actions: PageActions, within: str | None = None) -> dict[str, str]:
    """A description list's terms and the text of their definitions ("Dates" -> "...")."""
    nodes = inside(actions, within) if within is not None else list(actions.nodes)
    found: dict[str, str] = {}
    for i, node in enumerate(nodes):
        if node.role != "term":
            continue
        definition = next((n for n in nodes[i + 1 :] if n.role == "definition"), None)
        if definition is None:
            continue
        depth = definition.depth
        start = nodes.index(definition)
        parts = []
        for later in nodes[start + 1 :]:
            if later.depth <= depth:
                break
            if later.role in ("StaticText", "link") and later.name:
                parts.append(squash(later.name))
        found.setdefault(squash(node.name or ""), squash(" ".join(parts)))
    return found


def nav(actions: PageActions, label: str) -> None:
    """Follow one of the Booking navigation's tabs ("Stays", "My trips", "Approvals"...)."""
    bar = actions.find("navigation", "Booking", exact=True)
    links = actions.find_all("link", within=bar)
    names = {n.bid: squash(n.name or "") for n in actions.nodes if n.bid}
    target = next((b for b in links if names[b] == label or names[b].startswith(f"{label} ")), None)
    if target is None:
        raise LookupError(f"the Booking navigation has no {label!r} tab")
    actions.click(target)


# ---- stays search ------------------------------------------------------------------------------


def fill_field(actions: PageActions, role: str, label: str, value: str) -> None:
    """Type `value` into the control of `role` labelled exactly `label` (dates as ISO)."""
    actions.fill(actions.find(role, label, exact=True), value)


def _open_filters(actions: PageActions) -> None:
    toggle = next(
        (
            n
            for n in actions.nodes
            if n.bid and n.role == "DisclosureTriangle" and squash(n.name).startswith("Filters")
        ),
        None,
    )
    if toggle is None:
        raise LookupError("the search has no Filters toggle")
    if "expanded=true" not in toggle.states:
        actions.click(toggle.bid)


def search_stays(
    actions: PageActions,
    where: str,
    check_in: date,
    check_out: date,
    guests: int = 1,
    *,
    bedrooms: int = 0,
    amenities: Iterable[str] = (),
    sort: str = "total",
) -> None:
    """From anywhere in Booking: search stays in `where` for the dates and guests, with at
    least `bedrooms` and each of `amenities` (filters), sorted by `sort` (a key of `SORTS`)."""
    nav(actions, "Stays")
    fill_field(actions, "combobox", "Where", where)
    fill_field(actions, "Date", "Check-in", check_in.isoformat())
    fill_field(actions, "Date", "Check-out", check_out.isoformat())
    fill_field(actions, "spinbutton", "Guests", str(guests))
    wanted = [AMENITY_LABELS[a] for a in amenities]
    if bedrooms or wanted:
        _open_filters(actions)
        if bedrooms:
            fill_field(actions, "spinbutton", "Bedrooms", str(bedrooms))
        for label in wanted:
            actions.check(actions.find("checkbox", label, exact=True))
    actions.select_option(actions.find("combobox", "Sort by", exact=True), SORTS[sort])
    actions.click(actions.find("button", "Search", exact=True))


@dataclass(frozen=True)
class Card:
    """One search result as its card shows it."""

    name: str
    link: str
    total_cents: int | None
    text: str


def result_cards(actions: PageActions) -> list[Card]:
    """The result cards of the search page shown, in order (none when nothing matches)."""
    region = next(
        (
            n.bid
            for n in actions.nodes
            if n.bid and n.role == "region" and re.match(r"[\d,]+ stays? ", squash(n.name))
        ),
        None,
    )
    if region is None:
        raise LookupError("the page shows no stay results")
    cards = []
    for item in actions.find_all("listitem", within=region):
        links = actions.find_all("link", within=item)
        if not links:
            continue
        name = squash(next(n.name for n in actions.nodes if n.bid == links[0]))
        text = text_of(actions, item)
        total = re.search(r"(\$[\d,]+\.\d\d) total", text)
        cards.append(Card(name, links[0], cents_of(total[1]) if total else None, text))
    return cards


def listing_link(actions: PageActions, title: str) -> str:
    """The bid of the link to the listing called `title` (or "`title` (<area>)", where two
    cards would read the same)."""
    for node in actions.nodes:
        if node.bid and node.role == "link":
            name = squash(node.name or "")
            if name == title or name.startswith(f"{title} ("):
                return node.bid
    raise LookupError(f"no listing called {title!r} on the page")


def open_listing(actions: PageActions, title: str, pages: int = 10) -> None:
    """On the search results: open the listing called `title`, paging on while it is not
    shown (LookupError when no page shows it)."""
    for _ in range(pages):
        try:
            link = listing_link(actions, title)
        except LookupError:
            more = actions.find_all("link", "Next page", exact=True)
            if not more:
                raise
            actions.click(more[0])
            continue
        actions.click(link)
        return
    raise LookupError(f"no listing called {title!r} in {pages} pages of results")


def within_policy(actions: PageActions) -> bool:
    """Whether the listing page says the quoted dates are within the traveller's policy."""
    return any(
        n.role == "StaticText" and squash(n.name or "").startswith("Within the ")
        for n in actions.nodes
    )


def reserve(actions: PageActions, trip: str, justification: str | None = None) -> None:
    """On a listing page with dates chosen: Reserve, name the trip, give the justification when
    the stay is outside the policy, and book (or request approval)."""
    actions.click(actions.find("button", "Reserve", exact=True))
    bid, _role = field(actions, "Trip name")
    actions.fill(bid, trip)
    if justification is not None:
        box, _role = field(actions, "Justification")
        actions.fill(box, justification)
        actions.click(actions.find("button", "Request approval", exact=True))
    else:
        actions.click(actions.find("button", "Confirm and book", exact=True))


# ---- trips -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TripRow:
    """One row of My trips: its link, and its cells by column header."""

    link: str
    columns: Mapping[str, str]


def open_trips(actions: PageActions, tab: str = "Upcoming") -> None:
    """My trips, on the tab whose label starts with `tab` ("Upcoming", "Past", ...)."""
    nav(actions, "My trips")
    tabs = actions.find("navigation", "Trips", exact=True)
    names = {n.bid: squash(n.name or "") for n in actions.nodes if n.bid}
    link = next(b for b in actions.find_all("link", within=tabs) if names[b].startswith(tab))
    actions.click(link)


def _page_rows(actions: PageActions) -> list[TripRow]:
    """The rows of the My trips page shown (this page only)."""
    tables = actions.find_all("table")
    if not tables:
        return []
    names = {n.bid: squash(n.name or "") for n in actions.nodes if n.bid}
    headers = [names[b] for b in actions.find_all("columnheader", within=tables[0])]
    rows = []
    for row in actions.find_all("row", within=tables[0]):
        cells = actions.find_all("cell", within=row)
        links = actions.find_all("link", within=row)
        if cells and links:
            values = [names[c] or text_of(actions, c) for c in cells]
            rows.append(TripRow(links[0], dict(zip(headers, values, strict=False))))
    return rows


def _next_page(actions: PageActions) -> bool:
    """Follow "Next page" when the list goes on; whether it did."""
    more = actions.find_all("link", "Next page", exact=True)
    if more:
        actions.click(more[0])
    return bool(more)


def trip_rows(actions: PageActions, pages: int = 20) -> list[TripRow]:
    """The rows of the My trips tab shown, every page of it (following "Next page"; the
    links of rows on earlier pages are gone by the end)."""
    rows: list[TripRow] = []
    for _ in range(pages):
        rows += _page_rows(actions)
        if not _next_page(actions):
            return rows
    raise LookupError("My trips goes on over too many pages")


def find_trip(
    actions: PageActions,
    city: str,
    check_in: date,
    check_out: date,
    tab: str = "Upcoming",
    pages: int = 20,
) -> TripRow | None:
    """The row of My trips (`tab`) for the stay in `city` on those dates, if listed (the page
    showing it stays open)."""
    open_trips(actions, tab)
    when = stay_range(check_in, check_out)
    for _ in range(pages):
        for row in _page_rows(actions):
            if row.columns.get("Dates") == when and f", {city}" in row.columns.get("Stay", ""):
                return row
        if not _next_page(actions):
            return None
    return None


def open_trip(
    actions: PageActions, city: str, check_in: date, check_out: date, tab: str = "Upcoming"
) -> None:
    """Open the trip in `city` on those dates from My trips (`tab`)."""
    row = find_trip(actions, city, check_in, check_out, tab)
    if row is None:
        raise LookupError(f"My trips ({tab}) lists no stay in {city} on {check_in}–{check_out}")
    actions.click(row.link)


def cancel_this_trip(actions: PageActions) -> str:
    """On a trip's page: cancel it and return the refund its page then shows ("$123.45")."""
    actions.click(actions.find("link", "Cancel reservation", exact=True))
    actions.click(actions.find("button", "Cancel reservation", exact=True))
    return facts(actions).get("Refund", "")


def preview_dates(actions: PageActions, check_in: date, check_out: date) -> bool:
    """On a trip's page: Change dates, pick new ones and see the new price; whether the stay
    is free for them (the page says when it isn't)."""
    actions.click(actions.find("link", "Change dates", exact=True))
    fill_field(actions, "Date", "Check-in", check_in.isoformat())
    fill_field(actions, "Date", "Check-out", check_out.isoformat())
    actions.click(actions.find("button", "See the new price", exact=True))
    return not page_says(actions, "isn't available for all of those nights")


def confirm_dates(actions: PageActions, justification: str | None = None) -> None:
    """On the change-dates page with a new price shown: confirm (with a justification when
    the new dates are outside the policy)."""
    if justification is not None:
        box, _role = field(actions, "Justification")
        actions.fill(box, justification)
        actions.click(actions.find("button", "Request approval for new dates", exact=True))
    else:
        actions.click(actions.find("button", "Confirm new dates", exact=True))


def price_total(actions: PageActions) -> int:
    """The Total row of the price table on the page, in cents."""
    nodes = list(actions.nodes)
    for i, node in enumerate(nodes):
        if node.role == "rowheader" and squash(node.name or "") == "Total":
            cell = next(n for n in nodes[i + 1 :] if n.role == "cell")
            return cents_of(cell.name or "")
    raise LookupError("the page shows no price total")


# ---- approvals -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RequestCard:
    """One request waiting on the Approvals page: what its buttons call it, and its facts."""

    who: str
    traveller: str
    facts: Mapping[str, str]

    @property
    def total_cents(self) -> int:
        return cents_of(self.facts["Total"])


def waiting_requests(actions: PageActions) -> list[RequestCard]:
    """The requests waiting on the Approvals page shown (its first page)."""
    cards = []
    for item in actions.find_all("listitem"):
        buttons = actions.find_all("button", "Approve ", within=item)
        if not buttons:
            continue
        name = squash(next(n.name for n in actions.nodes if n.bid == buttons[0]))
        heading = actions.find_all("heading", within=item)
        title = squash(next(n.name for n in actions.nodes if n.bid == heading[0]))
        cards.append(
            RequestCard(name.removeprefix("Approve "), title.split(" · ")[0], facts(actions, item))
        )
    return cards


def open_approvals(actions: PageActions) -> None:
    nav(actions, "Approvals")


def decide(actions: PageActions, who: str, approve: bool, comment: str = "") -> None:
    """On the Approvals page: approve or reject the request `who` ("Ana Ruiz's stay at ...,
    9–11 Oct 2025"), with `comment` (a rejection needs one)."""
    if comment:
        box = actions.find("textbox", f"Comment on {who}", exact=False)
        actions.fill(box, comment)
    verb = "Approve" if approve else "Reject"
    actions.click(actions.find("button", f"{verb} {who}", exact=True))


def request_who(traveller: str, title: str, check_in: date, check_out: date) -> str:
    """What the Approvals page calls a request: "Ana Ruiz's stay at <title>, 9–11 Oct 2025"."""
    return f"{traveller}'s stay at {title}, {stay_range(check_in, check_out)}"


# ---- meeting rooms ----------------------------------------------------------------------------


def open_rooms(
    actions: PageActions,
    office: str,
    day: date,
    *,
    seats: int | None = None,
    equipment: Iterable[str] = (),
) -> None:
    """Meeting rooms: the office's rooms on `day`, filtered by seats and equipment."""
    nav(actions, "Meeting rooms")
    actions.select_option(actions.find("combobox", "Office", exact=True), office)
    fill_field(actions, "Date", "Date", day.isoformat())
    if seats:
        fill_field(actions, "spinbutton", "Seats at least", str(seats))
    for item in equipment:
        actions.check(actions.find("checkbox", item.capitalize(), exact=True))
    actions.click(actions.find("button", "Show rooms", exact=True))


_WHEN = re.compile(r"(\d\d:\d\d)–(\d\d:\d\d)")


def free_rooms(actions: PageActions, start: time, end: time) -> list[str]:
    """The rooms of the day grid shown that are free from `start` to `end` (office time), in
    the order the grid lists them: no booking overlaps and the room is not closed."""
    table = next(
        (n.bid for n in actions.nodes if n.bid and n.role == "table"),
        None,
    )
    if table is None:
        return []
    names = {n.bid: squash(n.name or "") for n in actions.nodes if n.bid}
    free = []
    for row in actions.find_all("row", within=table):
        heads = actions.find_all("rowheader", within=row)
        if not heads:
            continue
        room = names[heads[0]].split(" ")[0]
        closed = any(names[c].startswith("Closed") for c in actions.find_all("cell", within=row))
        taken = False
        for link in actions.find_all("link", within=row):
            found = _WHEN.search(names[link])
            if found and not names[link].startswith("Book "):
                first, last = (time.fromisoformat(found[1]), time.fromisoformat(found[2]))
                taken = taken or (first < end and start < last)
        if not closed and not taken:
            free.append(room)
    return free


def _pick_room(actions: PageActions, room: str) -> None:
    menu = actions.find("combobox", "Room", exact=True)
    for bid in actions.find_all("option", within=menu, include_hidden=True):
        name = squash(next(n.name for n in actions.nodes if n.bid == bid) or "")
        if name.startswith(f"{room} ("):
            actions.select_option(menu, name)
            return
    raise LookupError(f"the Room menu has no room called {room!r}")


def book_room(
    actions: PageActions,
    room: str,
    day: date,
    start: time,
    end: time,
    title: str,
    attendees: Sequence[str] = (),
    weeks: int = 1,
) -> None:
    """From anywhere in Booking: the Book a room form for `room` on `day` from `start` to
    `end` (office time), titled `title`, inviting `attendees` (picked by name in the
    type-ahead), repeated weekly for `weeks`; then Book."""
    nav(actions, "Meeting rooms")
    actions.click(actions.find("link", "Book a room", exact=True))
    _pick_room(actions, room)
    fill_field(actions, "Date", "Date", day.isoformat())
    actions.select_option(actions.find("combobox", "Start time", exact=True), clock(start))
    actions.select_option(actions.find("combobox", "End time", exact=True), clock(end))
    fill_field(actions, "textbox", "Title", title)
    for person in attendees:
        box = actions.find("combobox", "Attendees", exact=True)
        choose(actions, box, "Attendees", person)
    if weeks != 1:
        fill_field(actions, "spinbutton", "Repeat weekly for (weeks)", str(weeks))
    actions.click(actions.find("button", "Book", exact=True))


_LONG_DAY = re.compile(r"^(?:[A-Z][a-z]+day) (\d{1,2}) ([A-Z][a-z]+) (\d{4})")


def clashing_days(actions: PageActions) -> list[date]:
    """The dates the booking form lists as clashing with a weekly booking (none if no list)."""
    lists = actions.find_all("list", "Clashing dates", exact=True)
    if not lists:
        return []
    found = []
    for item in actions.find_all("listitem", within=lists[0]):
        text = text_of(actions, item)
        match = _LONG_DAY.match(text)
        if match:
            day, month, year = match.groups()
            found.append(date(int(year), month_number(month), int(day)))
    return found


def book_free_weeks(actions: PageActions) -> bool:
    """Press "Book the N free weeks" when the form offers it; whether it did."""
    offer = [
        n.bid
        for n in actions.nodes
        if n.bid and n.role == "button" and squash(n.name or "").startswith("Book the ")
    ]
    if not offer:
        return False
    actions.click(offer[0])
    return True


def office_today(actions: PageActions) -> date:
    """Today in the user's office, the day the Meeting rooms page opens on."""
    nav(actions, "Meeting rooms")
    node = next(n for n in actions.nodes if n.role == "Date" and squash(n.name) == "Date")
    return date.fromisoformat(str(node.value))


__all__ = [
    "AMENITY_LABELS",
    "SORTS",
    "Card",
    "RequestCard",
    "TripRow",
    "book_free_weeks",
    "book_room",
    "cancel_this_trip",
    "clashing_days",
    "confirm_dates",
    "decide",
    "facts",
    "fill_field",
    "find_trip",
    "free_rooms",
    "inside",
    "listing_link",
    "nav",
    "office_today",
    "open_approvals",
    "open_listing",
    "open_rooms",
    "open_trip",
    "open_trips",
    "page_says",
    "preview_dates",
    "price_total",
    "request_who",
    "reserve",
    "result_cards",
    "search_stays",
    "text_of",
    "trip_rows",
    "waiting_requests",
    "within_policy",
]
