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
    """Follow one of the sheet's tool links (`Insert chart`, `Pivot table`, ...)."""
    actions.click(actions.find("link", link, exact=True))


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


__all__ = [
    "fill_form",
    "go_to",
    "number_format",
    "open_sheet",
    "open_tool",
    "open_workbook",
    "submit",
    "tool",
    "type_cell",
    "type_cells",
]
