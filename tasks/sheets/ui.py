"""The sheets moves oracles are made of, each written once: finding a workbook from the home
page, switching sheets, going to a cell or range with the name box, typing into a cell with the
formula bar, the toolbar's buttons and menus, and the forms behind the sheet's tool links.

Oracles use only what an agent could see: controls by their accessible names, the grid's
cells by their names (`B12 = $4,200`), and URLs shown on the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from officegym.tasks.match import squash

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions


def open_workbook(actions: PageActions, name: str) -> None:
    """From anywhere in Sheets: search the home page for `name` and open it."""
    actions.goto("/sheets/")
    box = actions.find("searchbox", "Search workbooks", exact=True)
    actions.fill(box, name)
    actions.press(box, "Enter")
    actions.click(actions.find("link", name, exact=True))


def open_sheet(actions: PageActions, sheet_name: str) -> None:
    """Switch to the tab called `sheet_name` of the open workbook."""
    link = next(
        (
            n.bid
            for n in actions.nodes
            if n.bid and n.role == "link" and squash(n.name) == squash(sheet_name)
        ),
        None,
    )
    if link is None:
        raise LookupError(f"no sheet tab called {sheet_name!r}")
    actions.click(link)


def go_to(actions: PageActions, ref: str) -> None:
    """Select a cell or range by typing it into the name box."""
    box = actions.find("textbox", "Name box", exact=True)
    actions.fill(box, ref)
    actions.press(box, "Enter")


def type_cell(actions: PageActions, address: str, raw: str) -> None:
    """Go to `address` and type `raw` into it through the formula bar."""
    go_to(actions, address)
    bar = actions.find("textbox", "Formula bar", exact=True)
    actions.fill(bar, raw)
    actions.press(bar, "Enter")


def type_cells(actions: PageActions, cells: Mapping[str, str]) -> None:
    for address, raw in cells.items():
        type_cell(actions, address, raw)


def tool(actions: PageActions, name: str, ref: str | None = None) -> None:
    """Press a toolbar button (`Fill down`, `Sort A→Z`, ...) on `ref` (default: the current
    selection)."""
    if ref is not None:
        go_to(actions, ref)
    actions.click(actions.find("button", name, exact=True))


def number_format(actions: PageActions, ref: str, label: str) -> None:
    """Give `ref` the number format called `label` in the toolbar's menu."""
    go_to(actions, ref)
    actions.select_option(actions.find("combobox", "Number format", exact=True), label)
    actions.click(actions.find("button", "Apply format", exact=True))


def open_tool(actions: PageActions, link: str) -> None:
    """Follow one of the sheet's tool links (`Insert chart`, `Pivot table`, ...); a link
    that shows a count after its name ("Comments (2)") counts as that link."""
    found = next(
        (
            n.bid
            for n in actions.nodes
            if n.bid
            and n.role == "link"
            and (squash(n.name) == link or squash(n.name).startswith(f"{link} ("))
        ),
        None,
    )
    if found is None:
        raise LookupError(f"no link called {link!r}")
    actions.click(found)


def fill_form(actions: PageActions, fields: Mapping[str, str]) -> None:
    """Fill a form's labelled fields: text boxes typed into, menus picked by option name."""
    for label, value in fields.items():
        found = next(
            (
                n
                for n in actions.nodes
                if n.bid
                and n.role in ("textbox", "combobox", "spinbutton", "searchbox")
                and squash(n.name) == squash(label)
            ),
            None,
        )
        if found is None:
            raise LookupError(f"no field labelled {label!r}")
        if found.role == "combobox" and not getattr(found, "editable", False):
            try:
                actions.select_option(found.bid, value)
                continue
            except Exception:  # noqa: BLE001 - a lookup box is a combobox that takes typing
                pass
        actions.fill(found.bid, value)


def submit(actions: PageActions, button: str) -> None:
    actions.click(actions.find("button", button, exact=True))


def type_down(actions: PageActions, top: str, raws: list[str] | tuple[str, ...]) -> None:
    """Type `raws` into the cells from `top` downwards: the name box once, then the formula bar
    and Enter per cell (Enter moves the selection one row down)."""
    go_to(actions, top)
    for raw in raws:
        bar = actions.find("textbox", "Formula bar", exact=True)
        actions.fill(bar, raw)
        actions.press(bar, "Enter")


def rename_this_sheet(actions: PageActions, name: str) -> None:
    """Rename the open sheet through "Rename, move or delete this sheet"."""
    actions.click(actions.find("link", "Rename, move or delete this sheet", exact=True))
    fill_form(actions, {"Sheet name": name})
    submit(actions, "Rename sheet")


def add_sheet(actions: PageActions, name: str) -> None:
    """Add a sheet to the open workbook ("Add sheet" makes `SheetN`) and name it `name`."""
    submit(actions, "Add sheet")
    rename_this_sheet(actions, name)


def workbook_settings(actions: PageActions) -> None:
    """Open the open workbook's "Workbook settings" page."""
    actions.click(actions.find("link", "Workbook settings", exact=True))


def copy_workbook(actions: PageActions, name: str) -> None:
    """Make a copy of the open workbook called `name` (Workbook settings, "Make a copy")."""
    workbook_settings(actions)
    fill_form(actions, {"Name of the copy": name})
    submit(actions, "Make a copy")


def rename_workbook(actions: PageActions, name: str) -> None:
    """Rename the open workbook (Workbook settings, "Rename workbook")."""
    workbook_settings(actions)
    fill_form(actions, {"Workbook name": name})
    submit(actions, "Rename workbook")


def import_file(actions: PageActions, file: str) -> None:
    """Import a file handed to the agent as a new workbook from the home page's import form
    (the workbook is named after the file)."""
    actions.goto("/sheets/")
    actions.upload_file(actions.find("button", "Import .xlsx or .csv", exact=True), file)
    submit(actions, "Import")


# How often to look again for a lookup's options before leaving the typed name to the server.
_LOOKUP_LOOKS = 4


def choose(actions: PageActions, label: str, value: str) -> None:
    """Type `value` into the lookup box labelled `label` (a required one's label ends in
    " *") and pick its option that reads `value` or "`value` — <detail>"; if no option shows,
    the typed name stays for the server to resolve."""
    box = next(
        (
            n.bid
            for n in actions.nodes
            if n.bid and n.role == "combobox" and squash(n.name) in (label, f"{label} *")
        ),
        None,
    )
    if box is None:
        raise LookupError(f"no lookup box labelled {label!r}")
    actions.fill(box, value)
    for _ in range(_LOOKUP_LOOKS):
        listbox = actions.find_all("listbox", f"{label} suggestions", exact=True)
        if listbox:
            names = {n.bid: squash(n.name or "") for n in actions.nodes if n.bid}
            options = actions.find_all("option", within=listbox[0])
            picked = [o for o in options if names[o] == value or names[o].startswith(f"{value} — ")]
            if picked:
                actions.click(picked[0])
                return
        actions.noop(250)


def share_workbook(actions: PageActions, person: str, access: str = "Can view") -> None:
    """Share the open workbook with `person` ("Can view" or "Can edit") on its Share page."""
    actions.click(actions.find("link", "Share", exact=True))
    choose(actions, "Add a person", person)
    fill_form(actions, {"Access": access})
    submit(actions, "Share")


def insert_chart(
    actions: PageActions, kind: str, source: str, title: str = "", anchor: str = ""
) -> None:
    """On a sheet: select `source`, then "Insert chart" of `kind` (bar, line, pie) over it,
    titled and placed at `anchor` when given. (The chart page takes the range selected when it
    was opened over the one typed into its form, so the range is selected first.)"""
    go_to(actions, source)
    open_tool(actions, "Insert chart")
    fill_form(actions, {"Chart type": kind.capitalize()})
    actions.fill(actions.find("textbox", "Data range"), source)
    fields = {"Title": title} if title else {}
    if anchor:
        fields["Place at cell"] = anchor
    fill_form(actions, fields)
    submit(actions, "Insert chart")


def pivot_table(
    actions: PageActions,
    source: str,
    rows: tuple[str, ...] | list[str],
    value: str,
    function: str = "SUM",
    columns: tuple[str, ...] | list[str] = (),
    name: str = "",
) -> None:
    """On a sheet: "Pivot table" of the data range `source` (header row first), grouped by
    `rows` (then by a second field) and `columns`, summarising `value` by `function`, written
    to a new sheet called `name` (the product's "Pivot Table N" when empty)."""
    open_tool(actions, "Pivot table")
    box = actions.find("textbox", "Data range (header row first)", exact=True)
    actions.fill(box, source)
    submit(actions, "Use this range")
    fields = {"Rows": rows[0]}
    if len(rows) > 1:
        fields["Then rows by"] = rows[1]
    if columns:
        fields["Columns"] = columns[0]
    fields |= {"Values": value, "Summarise by": function}
    if name:
        fields["New sheet name"] = name
    fill_form(actions, fields)
    submit(actions, "Create pivot table")


__all__ = [
    "add_sheet",
    "choose",
    "copy_workbook",
    "fill_form",
    "go_to",
    "import_file",
    "insert_chart",
    "number_format",
    "open_sheet",
    "open_tool",
    "open_workbook",
    "pivot_table",
    "rename_this_sheet",
    "rename_workbook",
    "share_workbook",
    "submit",
    "tool",
    "type_cell",
    "type_cells",
    "type_down",
    "workbook_settings",
]
