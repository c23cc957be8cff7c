"""What CRM templates share: the app, the start page, the gate's collateral edit, and the
UI moves oracles are made of (search the CRM, open a record, fill a form by its labels, use a
record's activity composers).

Oracles use only what an agent could see: links, buttons and fields by their accessible names,
the search box, and URLs shown on the page. They never write to the world directly.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from officegym.tasks.match import squash
from officegym.tasks.registry import Template

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

COLLATERAL_TITLE = "Done, closing this out."

# Roles a labelled form control has in the accessibility tree.
_FIELD_ROLES = ("textbox", "combobox", "Date", "searchbox", "spinbutton", "listbox", "checkbox")


class CrmTemplate(Template):
    """Base of the CRM templates: `apps`, start page, collateral edit."""

    apps = ("crm",)

    def start_url(self, params: Mapping[str, Any]) -> str:
        return "/crm/"

    def collateral(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        """Add a stray note to the first account of the Accounts list that the task does not
        name (anyone may add notes to any record)."""
        actions.goto("/crm/accounts")
        named = {squash(str(v)).casefold() for v in params.values() if isinstance(v, str)}
        for bid in row_links(actions):
            if squash(_name(actions, bid)).casefold() not in named:
                actions.click(bid)
                break
        else:
            raise LookupError("no account to put the collateral note on")
        log_on_record(
            actions, "New note", {"Title": COLLATERAL_TITLE, "Body": COLLATERAL_TITLE}, "Save note"
        )


def world_today(world: sqlite3.Connection) -> date:
    """The world clock's date (the day the user is working on)."""
    (now,) = world.execute("SELECT now FROM world_meta ORDER BY id LIMIT 1").fetchone()
    return datetime.fromisoformat(str(now)).date()


def _name(actions: PageActions, bid: str) -> str:
    return next((n.name for n in actions.nodes if n.bid == bid), "") or ""


def row_links(actions: PageActions, within: str | None = None) -> list[str]:
    """Bids of the links in a list view's table cells (one per record row, first column
    first), leaving out the column headers' sort links."""
    cells = actions.find_all("cell", within=within)
    links = []
    for cell in cells:
        links += actions.find_all("link", within=cell)
    return links


def search(actions: PageActions, text: str) -> None:
    """Run the CRM's global search (the box in the CRM navigation) for `text`."""
    box = actions.find("searchbox", "Search the CRM", exact=True)
    actions.fill(box, text)
    actions.press(box, "Enter")


def open_record(actions: PageActions, section: str, title: str, query: str | None = None) -> None:
    """Open the record called `title` from the global search's `section` ("Accounts",
    "Contacts", "Leads", "Opportunities"), searching for `query` (default: the title)."""
    search(actions, query or title)
    region = next(
        (
            n.bid
            for n in actions.nodes
            if n.bid and n.role == "region" and squash(n.name).startswith(f"{section} (")
        ),
        None,
    )
    if region is None:
        raise LookupError(f"the search results have no {section} section")
    actions.click(actions.find("link", title, exact=True, within=region))


def field(actions: PageActions, label: str, within: str | None = None) -> tuple[str, str]:
    """(bid, role) of the form control labelled `label` (a required field's label ends in
    " *", which may be left out)."""
    names = {label, f"{label} *"}
    scope = set(actions.find_all(within=within)) if within is not None else None
    for node in actions.nodes:
        if not node.bid or node.role not in _FIELD_ROLES or squash(node.name) not in names:
            continue
        if "hidden" in node.states or (scope is not None and node.bid not in scope):
            continue
        return node.bid, node.role
    raise LookupError(f"no form field labelled {label!r} on the page")


def fill_fields(actions: PageActions, values: Mapping[str, str], within: str | None = None) -> None:
    """Set each labelled field: pick the option of a select, type into anything else (dates
    as YYYY-MM-DD)."""
    for label, value in values.items():
        bid, role = field(actions, label, within)
        if role in ("combobox", "listbox"):
            actions.select_option(bid, value)
        elif role == "checkbox":
            (actions.check if value else actions.uncheck)(bid)
        else:
            actions.fill(bid, value)


def edit_record(actions: PageActions, values: Mapping[str, str]) -> None:
    """On a record page: open the full edit form, set `values` by label, save."""
    actions.click(actions.find("link", "Edit", exact=True))
    fill_fields(actions, values)
    actions.click(actions.find("button", "Save", exact=True))


def log_on_record(
    actions: PageActions, composer: str, values: Mapping[str, str], button: str = "Save"
) -> None:
    """On a record page: open the activity composer `composer` ("Log a call", "New task",
    "New event", "Log an email", "New note"), fill it and save."""
    toggle = actions.find(None, composer, exact=True)
    actions.click(toggle)
    group = _parent_group(actions, toggle)
    fill_fields(actions, values, within=group)
    actions.click(actions.find("button", button, exact=True, within=group))


def _parent_group(actions: PageActions, bid: str) -> str | None:
    """The bid of the nearest `group` node holding node `bid` (a composer's <details>)."""
    nodes = list(actions.nodes)
    index = next(i for i, n in enumerate(nodes) if n.bid == bid)
    depth = nodes[index].depth
    for node in reversed(nodes[:index]):
        if node.depth < depth:
            if node.role == "group":
                return node.bid
            depth = node.depth
    return None


__all__ = [
    "COLLATERAL_TITLE",
    "CrmTemplate",
    "edit_record",
    "field",
    "fill_fields",
    "log_on_record",
    "open_record",
    "row_links",
    "search",
    "world_today",
]
