"""The CRM moves oracles are made of, each written once: the global search and opening a
record, a form's labelled fields, editing a record (the full form or one field in place),
the activity composers, reading a record's Details and a list view's rows, filtering a list,
and the duplicate-merge and lead-conversion pages.

Oracles use only what an agent could see: links, buttons and fields by their accessible names,
the search box, and URLs shown on the page. They never write to the world directly.

People, accounts and contacts are picked with type-ahead lookups: a box (role combobox) that
lists matching options as one types, each read "Name — detail" (a title, a city, an account).
`fill_fields` types the name and picks the option of that name, as an agent reading the list
would; menus (selects) get their option picked the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from officegym.tasks.match import squash

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

# Roles a labelled form control has in the accessibility tree.
_FIELD_ROLES = ("textbox", "combobox", "Date", "searchbox", "spinbutton", "listbox", "checkbox")
READ_ONLY = "Read only for you"


# ---- finding records ---------------------------------------------------------------------


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
    actions.click(record_link(actions, title, within=region))


def record_link(actions: PageActions, title: str, within: str | None = None) -> str:
    """The bid of the link to the record called `title`: named exactly so, or, where records
    of one name are listed together, "`title` (<what tells it apart>)" (the first such)."""
    exact = actions.find_all("link", title, exact=True, within=within)
    if exact:
        return exact[0]
    for bid in actions.find_all("link", f"{title} (", within=within):
        name = squash(next(n.name for n in actions.nodes if n.bid == bid) or "")
        if name.startswith(f"{title} ("):
            return bid
    return actions.find("link", title, exact=True, within=within)


# ---- forms ---------------------------------------------------------------------------------


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


# How often to look again for a lookup's options before leaving the typed name to the server.
_LOOKUP_LOOKS = 4


def _is_lookup(node: Any) -> bool:
    """Whether a combobox node is a type-ahead lookup (a select's popup is a menu)."""
    return node.role == "combobox" and "haspopup=listbox" in node.states


def choose(actions: PageActions, bid: str, label: str, value: str) -> None:
    """Type `value` into the lookup box `bid` (labelled `label`) and pick its option that reads
    `value`, or "`value` — <detail>" (the first of those); if no option shows, the typed name
    stays for the server to resolve."""
    actions.fill(bid, value)
    for _ in range(_LOOKUP_LOOKS):
        listbox = actions.find_all("listbox", f"{label} suggestions", exact=True)
        if listbox:
            names = {n.bid: squash(n.name or "") for n in actions.nodes if n.bid}
            options = actions.find_all("option", within=listbox[0])
            exact = [o for o in options if names[o] == value]
            near = [o for o in options if names[o].startswith(f"{value} — ")]
            if exact or near:
                actions.click((exact or near)[0])
                return
        actions.noop(250)


def _pick_option(actions: PageActions, bid: str, value: str) -> None:
    """Select the option of menu `bid` that reads `value` or "`value` — <title>"."""
    options = set(actions.find_all("option", within=bid, include_hidden=True))
    for node in actions.nodes:
        name = squash(node.name or "")
        if node.bid in options and (name == value or name.startswith(f"{value} — ")):
            actions.select_option(bid, name)
            return
    actions.select_option(bid, value)


def fill_fields(actions: PageActions, values: Mapping[str, str], within: str | None = None) -> None:
    """Set each labelled field: type a name into a lookup and pick its option (a person's
    "Name — Title" by the name alone), pick the option of a select, tick or clear a checkbox,
    type into anything else (dates as YYYY-MM-DD)."""
    for label, value in values.items():
        bid, role = field(actions, label, within)
        node = next(n for n in actions.nodes if n.bid == bid)
        if _is_lookup(node):
            choose(actions, bid, label, value)
        elif role in ("combobox", "listbox"):
            _pick_option(actions, bid, value)
        elif role == "checkbox":
            (actions.check if value else actions.uncheck)(bid)
        else:
            actions.fill(bid, value)


def edit_record(actions: PageActions, values: Mapping[str, str]) -> None:
    """On a record page: open the full edit form, set `values` by label, save."""
    actions.click(actions.find("link", "Edit", exact=True))
    fill_fields(actions, values)
    actions.click(actions.find("button", "Save", exact=True))


def edit_in_place(actions: PageActions, label: str, value: str) -> None:
    """On a record page: edit the one field `label` in the Details panel (its pencil link
    "Edit <label>"), set it to `value` and save."""
    actions.click(actions.find("link", f"Edit {label}", exact=True))
    details = actions.find("region", "Details", exact=True)
    fill_fields(actions, {label: value}, within=details)
    actions.click(actions.find("button", "Save", exact=True, within=details))


def log_on_record(
    actions: PageActions, composer: str, values: Mapping[str, str], button: str = "Save"
) -> None:
    """On a record page: open the activity composer `composer` ("Log a call", "New task",
    "New event", "Log an email", "New note"), fill it and press its `button` ("Save call",
    "Save note"...; "Save" finds the composer's own)."""
    toggle = actions.find(None, composer, exact=True)
    actions.click(toggle)
    group = _parent_group(actions, toggle)
    fill_fields(actions, values, within=group)
    actions.click(actions.find("button", button, within=group))


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


def page_says(actions: PageActions, text: str) -> bool:
    """Whether any node of the page (static text included) shows `text`."""
    wanted = squash(text).casefold()
    return any(wanted in squash(node.name or "").casefold() for node in actions.nodes)


def require_read_only(actions: PageActions, what: str) -> None:
    """Check the open record page says it is read only for the user (the oracle reports a
    read-only record as infeasible only after seeing that)."""
    if not page_says(actions, READ_ONLY):
        raise LookupError(f"{what} is not marked read only for this user")


# ---- reading pages -----------------------------------------------------------------------


def _text_of(nodes: list[Any], index: int) -> str:
    """The text inside node `index` (its descendants' names), edit links left out."""
    depth = nodes[index].depth
    parts = []
    for node in nodes[index + 1 :]:
        if node.depth <= depth:
            break
        name = squash(node.name or "")
        if not name or (node.role == "link" and name.startswith("Edit ")):
            continue
        if node.role in ("StaticText", "link") and name not in parts:
            parts.append(name)
    return squash(" ".join(parts))


def record_field(actions: PageActions, label: str) -> str:
    """The value a record page's Details panel shows for `label` ("" for "—")."""
    nodes = list(actions.nodes)
    start = next(
        (i for i, n in enumerate(nodes) if n.role == "region" and squash(n.name) == "Details"),
        0,
    )
    for index in range(start, len(nodes)):
        node = nodes[index]
        if node.role == "term" and squash(node.name) == label:
            following = next(
                i for i in range(index + 1, len(nodes)) if nodes[i].role == "definition"
            )
            value = _text_of(nodes, following)
            return "" if value == "—" else value
    raise LookupError(f"the record page shows no field {label!r}")


@dataclass(frozen=True)
class ListRow:
    """One record row of a list view: its selection checkbox (bulk views), its cells' texts
    in order, and the same texts by column header."""

    checkbox: str | None
    cells: tuple[str, ...]
    columns: Mapping[str, str]


def list_rows(actions: PageActions) -> list[ListRow]:
    """The record rows of the list view's table on the page (none when the list is empty and
    the page shows no table); LookupError if the list goes on over more pages."""
    if not actions.find_all("table"):
        return []
    pager = actions.find_all("navigation", "Pages", exact=True)
    if pager and actions.find_all("link", "Next", exact=True, within=pager[0]):
        raise LookupError("the list goes on over more pages; show more rows per page")
    names = {n.bid: squash(n.name or "") for n in actions.nodes if n.bid}
    table = actions.find("table")
    headers = [names[b] for b in actions.find_all("columnheader", within=table)]
    rows = []
    for row in actions.find_all("row", within=table):
        cells = tuple(names[c] for c in actions.find_all("cell", within=row))
        if cells:
            boxes = actions.find_all("checkbox", within=row)
            columns = dict(zip(headers, cells, strict=False))
            rows.append(ListRow(boxes[0] if boxes else None, cells, columns))
    return rows


def row_links(actions: PageActions, within: str | None = None) -> list[str]:
    """Bids of the links in a list view's table cells (one per record row, first column
    first), leaving out the column headers' sort links."""
    cells = actions.find_all("cell", within=within)
    links = []
    for cell in cells:
        links += actions.find_all("link", within=cell)
    return links


def open_list(actions: PageActions, section: str, view: str) -> None:
    """Open a CRM list from the navigation ("Opportunities") and then its saved view tab."""
    nav = actions.find("navigation", "CRM", exact=True)
    actions.click(actions.find("link", section, exact=True, within=nav))
    tabs = actions.find("navigation", "List views", exact=True)
    actions.click(actions.find("link", view, exact=True, within=tabs))


def filter_list(actions: PageActions, values: Mapping[str, str]) -> None:
    """Set the list view's filters by label ("Owner", "Stage", "Search") and apply them, with
    the most rows per page (so one page holds the whole answer) unless `values` say otherwise."""
    fill_fields(actions, {**values, "Rows per page": values.get("Rows per page", "200")})
    actions.click(actions.find("button", "Apply filters", exact=True))


# ---- duplicates and lead conversion ------------------------------------------------------


def open_duplicate_group(actions: PageActions, section: str, title: str) -> None:
    """From anywhere in the CRM: the Duplicates page of `section` ("Accounts", "Contacts"),
    then "Compare and merge" on the group headed by the record called `title`."""
    actions.click(actions.find("link", "Duplicates", exact=True))
    tabs = actions.find("navigation", "Object", exact=True)
    actions.click(actions.find("link", f"Duplicate {section}", exact=True, within=tabs))
    heading = f"{title} — "
    seen = False
    for node in actions.nodes:
        name = squash(node.name or "")
        if node.role == "heading" and name.startswith(heading):
            seen = True
        elif seen and node.bid and node.role == "link" and name.startswith("Compare and merge"):
            actions.click(node.bid)
            return
    raise LookupError(f"no duplicate group headed {title!r}")


def merge_column(actions: PageActions, title: str) -> int:
    """On the merge page: the 0-based column of the record called `title`."""
    headers = [
        squash(n.name)
        for n in actions.nodes
        if n.role == "columnheader" and squash(n.name) != "Field"
    ]
    for index, header in enumerate(headers):
        if header.startswith(f"{title} · "):
            return index
    raise LookupError(f"the merge page has no column for {title!r}; columns: {headers}")


def merge_records(actions: PageActions, keep: int, picks: Mapping[str, int]) -> None:
    """On the merge page: keep the record of column `keep` (its radio "Keep <record>"), take
    each field labelled in `picks` from the record of the given column (fields whose values
    differ), and merge."""
    keepers = [
        n.bid
        for n in actions.nodes
        if n.bid and n.role == "radio" and squash(n.name or "").startswith("Keep ")
    ]
    actions.click(keepers[keep])
    for label, column in picks.items():
        radios = actions.find_all("radio", f"(keep for {label})")
        if radios:
            actions.click(radios[column])
    actions.click(actions.find("button", "Merge", exact=True))


def merge_pair(
    actions: PageActions,
    section: str,
    titles: Mapping[str, str],
    keep: str,
    picks: Mapping[str, str],
) -> None:
    """From anywhere in the CRM: merge the duplicate pair `titles` ({"original": title,
    "duplicate": title}) of `section`, keeping the record of side `keep` and taking each
    field labelled in `picks` from the side it names."""
    open_duplicate_group(actions, section, titles["original"])
    column = {side: merge_column(actions, title) for side, title in titles.items()}
    merge_records(actions, column[keep], {label: column[side] for label, side in picks.items()})


def convert_form(actions: PageActions, opportunity: str | None) -> None:
    """On the convert page: name the opportunity (or create none) and press Convert."""
    if opportunity:
        actions.fill(actions.find("textbox", "Opportunity name", exact=True), opportunity)
    else:
        actions.uncheck(actions.find("checkbox", "Create an opportunity", exact=True))
    actions.click(actions.find("button", "Convert", exact=True))


__all__ = [
    "READ_ONLY",
    "ListRow",
    "choose",
    "convert_form",
    "edit_in_place",
    "edit_record",
    "field",
    "fill_fields",
    "filter_list",
    "list_rows",
    "log_on_record",
    "merge_column",
    "merge_pair",
    "merge_records",
    "open_duplicate_group",
    "open_list",
    "open_record",
    "page_says",
    "record_field",
    "record_link",
    "require_read_only",
    "row_links",
    "search",
]
