"""What group D's CRM templates share (biggest_deal_this_quarter, contact_email_lookup,
won_this_quarter, count_overdue_activities, update_phone_from_chat, post_deal_summary): the
world's quarter, who may edit a record, money and dates as the CRM shows them, reading a
record page's fields and a list view's rows, filtering a list by owner, and a matcher for a
phone number in any formatting.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import date
from typing import TYPE_CHECKING, Any

from officegym.apps.crm.listing import quarter_of
from officegym.apps.crm.service import CRM_DEPARTMENTS
from officegym.tasks.answer import phone_digits
from officegym.tasks.match import Matcher, squash

from .base import world_today

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

# -- the world ---------------------------------------------------------------------------


def this_quarter(world: sqlite3.Connection) -> tuple[date, date]:
    """First and last day of the world's current calendar quarter (the CRM's "this quarter")."""
    return quarter_of(world_today(world))


def editors(world: sqlite3.Connection, owner_id: int) -> list[tuple[int, str, str]]:
    """(id, email, display name) of the active people who may edit a record of `owner_id`
    without being admins: the owner, then their managers up the org chart (apps/crm/access)."""
    found = []
    person: int | None = owner_id
    seen: set[int] = set()
    while person is not None and person not in seen:
        seen.add(person)
        row = world.execute(
            "SELECT id, email, display_name, role, is_active, manager_id "
            "FROM people_employee WHERE id = ?",
            (person,),
        ).fetchone()
        if row is None:
            break
        pid, email, name, role, active, manager = row
        if active and (role == "manager" or pid == owner_id) and role != "admin":
            found.append((pid, email, name))
        person = manager
    return found


def crm_person_ids(world: sqlite3.Connection) -> set[int]:
    """Ids of the active people the CRM's owner menus offer (its departments)."""
    marks = ", ".join("?" for _ in CRM_DEPARTMENTS)
    rows = world.execute(
        f"""
        SELECT e.id FROM people_employee e JOIN people_team t ON t.id = e.team_id
        WHERE e.is_active AND t.department IN ({marks}) ORDER BY e.id
        """,
        CRM_DEPARTMENTS,
    ).fetchall()
    return {r[0] for r in rows}


def unique_person_name(world: sqlite3.Connection, name: str) -> bool:
    (count,) = world.execute(
        "SELECT count(*) FROM people_employee WHERE display_name = ?", (name,)
    ).fetchone()
    return count == 1


# -- how the CRM writes things -------------------------------------------------------------


def money(amount: int | float) -> str:
    """An amount as the CRM shows it: "$41,500"."""
    return f"${int(amount):,}"


def crm_day(day: date) -> str:
    """A date as the CRM shows it: "Sep 30, 2025"."""
    return f"{day:%b} {day.day}, {day.year}"


# -- reading pages -----------------------------------------------------------------------


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


def list_rows(actions: PageActions) -> list[dict[str, str]]:
    """The rows of the list view's table on the page, each as {column header: cell text}."""
    nodes = {n.bid: n for n in actions.nodes if n.bid}
    table = actions.find("table")
    headers = [squash(nodes[b].name) for b in actions.find_all("columnheader", within=table)]
    rows = []
    for row in actions.find_all("row", within=table):
        cells = actions.find_all("cell", within=row)
        if cells:
            rows.append({h: squash(nodes[c].name) for h, c in zip(headers, cells, strict=False)})
    return rows


def open_list(actions: PageActions, section: str, view: str) -> None:
    """Open a CRM list from the navigation ("Opportunities") and then its saved view tab."""
    nav = actions.find("navigation", "CRM", exact=True)
    actions.click(actions.find("link", section, exact=True, within=nav))
    tabs = actions.find("navigation", "List views", exact=True)
    actions.click(actions.find("link", view, exact=True, within=tabs))


def filter_owner(actions: PageActions, person: str) -> None:
    """Limit the list view on the page to records `person` owns."""
    actions.select_option(actions.find("combobox", "Owner", exact=True), person)
    actions.click(actions.find("button", "Apply filters", exact=True))


def amount_of(text: str) -> int:
    """The whole amount a money cell shows ("$41,500" → 41500)."""
    return int(re.sub(r"[^\d]", "", text) or 0)


# -- matching a posted line -------------------------------------------------------------


class _OneLine(Matcher):
    """A text on one line (no line break inside it) that `inner` also accepts."""

    def __init__(self, inner: Matcher) -> None:
        self.inner = inner

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and "\n" not in value.strip() and self.inner.matches(value)

    def describe(self) -> str:
        return f"one_line({self.inner.describe()})"


def one_line(inner: Matcher) -> Matcher:
    """A message asked for as "one line": no line break, and matching `inner`."""
    return _OneLine(inner)


# -- matching a phone number --------------------------------------------------------------

# A phone number written on its own: digits, spaces, + ( ) . - /, and an optional extension.
_PHONE_ONLY = re.compile(r"\+?[\d\s().\-/]+?(?:\s*(?:x|ext\.?)\s*(?P<ext>\d+))?", re.IGNORECASE)


def _phone_key(text: str) -> tuple[str, str] | None:
    """(digits, extension) of a field holding one phone number and nothing else, else None."""
    found = _PHONE_ONLY.fullmatch(text.strip())
    if found is None:
        return None
    return phone_digits(text), found["ext"] or ""


class _SamePhone(Matcher):
    """A phone field holding `number` in any formatting (spaces, dashes, brackets, a leading
    +1 or 001 for a North American number), its extension kept, and nothing else."""

    def __init__(self, number: str) -> None:
        key = _phone_key(number)
        if key is None:
            raise ValueError(f"{number!r} is not a phone number")
        self.number = number
        self.key = key

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and _phone_key(value) == self.key

    def describe(self) -> str:
        return f"same_phone({self.number!r})"


def same_phone(number: str) -> Matcher:
    """A phone column holding `number`, however it is formatted (see `_SamePhone`)."""
    return _SamePhone(number)


__all__ = [
    "amount_of",
    "crm_day",
    "crm_person_ids",
    "editors",
    "filter_owner",
    "list_rows",
    "money",
    "one_line",
    "open_list",
    "record_field",
    "same_phone",
    "this_quarter",
    "unique_person_name",
    "world_today",
]
