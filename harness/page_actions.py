"""`PageActions`: the actions as Python methods, for oracles and scripted agents.

One method per `ActionSpec`, with the action's own parameters and defaults (a test holds the
two together), plus Playwright-like finders over the accessibility tree. Every method sends
one canonical action string through `format_action`, so it is validated like agent text.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Sequence
from typing import Any

from .actions import format_action
from .actionspec import Button, Modifier


class ElementNotFound(LookupError):
    """No accessibility node matches a `PageActions.find` query."""


def _normalise(text: str | None) -> str:
    return " ".join((text or "").split())


class PageActions:
    """The actions as Python methods, plus Playwright-like finders over the accessibility tree.

    `step(text)` runs one canonical action string in the environment (its return value is
    kept as `last`); `nodes()` returns the current page's accessibility nodes in preorder,
    each with `bid`, `role`, `name`, `value`, `depth` and `states`.

        bid = actions.find("textbox", "Deal name")
        actions.fill(bid, "Renewal 2025")
        actions.click(actions.find("button", "Save", exact=True))
    """

    def __init__(self, step: Callable[[str], Any], nodes: Callable[[], Sequence[Any]]) -> None:
        self._step = step
        self._nodes = nodes
        self._last: Any = None

    @property
    def last(self) -> Any:
        """What `step` returned for the most recent action (None before the first)."""
        return self._last

    @property
    def nodes(self) -> Sequence[Any]:
        """The current page's accessibility nodes (preorder), for finders of your own."""
        return self._nodes()

    def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        self._last = self._step(format_action(name, *args, **kwargs))
        return self._last

    # finders

    def find_all(
        self,
        role: str | None = None,
        name: str | None = None,
        *,
        exact: bool = False,
        within: str | int | None = None,
        include_hidden: bool = False,
    ) -> list[str]:
        """Bids of every node matching `role` and `name`, in page order.

        `role` matches exactly (ignoring case). `name` matches as a case-insensitive
        substring, or the whole name case-sensitively when `exact`; whitespace is
        normalised either way. `within` limits the search to descendants of that bid.
        Nodes without a bid, and hidden ones unless `include_hidden`, never match.
        """
        return [node.bid for node in self._matches(role, name, exact, within, include_hidden)[0]]

    def find(
        self,
        role: str | None = None,
        name: str | None = None,
        *,
        exact: bool = False,
        nth: int = 0,
        within: str | int | None = None,
        include_hidden: bool = False,
    ) -> str:
        """The bid of the `nth` match (0-based; negative counts from the end), see `find_all`.

        Raises `ElementNotFound` naming the closest candidates when nothing matches.
        """
        matches, scope = self._matches(role, name, exact, within, include_hidden)
        query = _query(role, name, exact, within)
        if not matches:
            raise ElementNotFound(f"no element with {query}; {_closest(scope, role, name)}")
        if not -len(matches) <= nth < len(matches):
            bids = ", ".join(json.dumps(node.bid) for node in matches)
            raise ElementNotFound(
                f"{len(matches)} element{'s' * (len(matches) != 1)} with {query} "
                f"({bids}), so there is no nth={nth}"
            )
        return str(matches[nth].bid)

    def exists(
        self,
        role: str | None = None,
        name: str | None = None,
        *,
        exact: bool = False,
        within: str | int | None = None,
        include_hidden: bool = False,
    ) -> bool:
        """Whether any node matches (see `find_all`)."""
        return bool(
            self.find_all(role, name, exact=exact, within=within, include_hidden=include_hidden)
        )

    def _matches(
        self,
        role: str | None,
        name: str | None,
        exact: bool,
        within: str | int | None,
        include_hidden: bool,
    ) -> tuple[list[Any], list[Any]]:
        """(matching nodes, every actionable node in scope)."""
        scope = [
            node
            for node in _descendants(list(self._nodes()), within)
            if node.bid is not None and (include_hidden or "hidden" not in node.states)
        ]
        wanted_role = role.casefold() if role is not None else None
        wanted_name = _normalise(name)
        matches = []
        for node in scope:
            if wanted_role is not None and (node.role or "").casefold() != wanted_role:
                continue
            if name is not None:
                have = _normalise(node.name)
                if exact and have != wanted_name:
                    continue
                if not exact and wanted_name.casefold() not in have.casefold():
                    continue
            matches.append(node)
        return matches, scope

    # actions, one method each with the action's own signature

    def click(
        self, bid: str | int, button: Button = "left", modifiers: Sequence[Modifier] = ()
    ) -> Any:
        return self._run("click", bid, button=button, modifiers=modifiers)

    def dblclick(
        self, bid: str | int, button: Button = "left", modifiers: Sequence[Modifier] = ()
    ) -> Any:
        return self._run("dblclick", bid, button=button, modifiers=modifiers)

    def hover(self, bid: str | int) -> Any:
        return self._run("hover", bid)

    def fill(self, bid: str | int, value: str, enable_autocomplete_menu: bool = False) -> Any:
        return self._run("fill", bid, value, enable_autocomplete_menu=enable_autocomplete_menu)

    def clear(self, bid: str | int) -> Any:
        return self._run("clear", bid)

    def select_option(self, bid: str | int, options: str | Sequence[str]) -> Any:
        return self._run("select_option", bid, options)

    def check(self, bid: str | int) -> Any:
        return self._run("check", bid)

    def uncheck(self, bid: str | int) -> Any:
        return self._run("uncheck", bid)

    def press(self, bid: str | int, key_comb: str) -> Any:
        return self._run("press", bid, key_comb)

    def focus(self, bid: str | int) -> Any:
        return self._run("focus", bid)

    def scroll(self, delta_x: float, delta_y: float) -> Any:
        return self._run("scroll", delta_x, delta_y)

    def drag_and_drop(self, from_bid: str | int, to_bid: str | int) -> Any:
        return self._run("drag_and_drop", from_bid, to_bid)

    def upload_file(self, bid: str | int, file: str | Sequence[str]) -> Any:
        return self._run("upload_file", bid, file)

    def scroll_at(self, x: float, y: float, dx: float, dy: float) -> Any:
        return self._run("scroll_at", x, y, dx, dy)

    def goto(self, url: str) -> Any:
        return self._run("goto", url)

    def go_back(self) -> Any:
        return self._run("go_back")

    def go_forward(self) -> Any:
        return self._run("go_forward")

    def new_tab(self) -> Any:
        return self._run("new_tab")

    def tab_focus(self, index: int) -> Any:
        return self._run("tab_focus", index)

    def tab_close(self) -> Any:
        return self._run("tab_close")

    def mouse_move(self, x: float, y: float) -> Any:
        return self._run("mouse_move", x, y)

    def mouse_click(self, x: float, y: float, button: Button = "left") -> Any:
        return self._run("mouse_click", x, y, button=button)

    def mouse_dblclick(self, x: float, y: float, button: Button = "left") -> Any:
        return self._run("mouse_dblclick", x, y, button=button)

    def mouse_down(self, x: float, y: float, button: Button = "left") -> Any:
        return self._run("mouse_down", x, y, button=button)

    def mouse_up(self, x: float, y: float, button: Button = "left") -> Any:
        return self._run("mouse_up", x, y, button=button)

    def mouse_drag_and_drop(self, from_x: float, from_y: float, to_x: float, to_y: float) -> Any:
        return self._run("mouse_drag_and_drop", from_x, from_y, to_x, to_y)

    def mouse_upload_file(self, x: float, y: float, file: str | Sequence[str]) -> Any:
        return self._run("mouse_upload_file", x, y, file)

    def keyboard_down(self, key: str) -> Any:
        return self._run("keyboard_down", key)

    def keyboard_up(self, key: str) -> Any:
        return self._run("keyboard_up", key)

    def keyboard_insert_text(self, text: str) -> Any:
        return self._run("keyboard_insert_text", text)

    def keyboard_type(self, text: str) -> Any:
        return self._run("keyboard_type", text)

    def keyboard_press(self, key: str) -> Any:
        return self._run("keyboard_press", key)

    def send_msg_to_user(self, text: str) -> Any:
        return self._run("send_msg_to_user", text)

    def report_infeasible(self, reason: str) -> Any:
        return self._run("report_infeasible", reason)

    def noop(self, wait_ms: float = 1000) -> Any:
        return self._run("noop", wait_ms=wait_ms)


def _descendants(nodes: list[Any], within: str | int | None) -> list[Any]:
    """All nodes, or only those below the node `within` (by depth in the preorder list)."""
    if within is None:
        return nodes
    for i, node in enumerate(nodes):
        if node.bid is not None and node.bid == str(within):
            inside = []
            for later in nodes[i + 1 :]:
                if later.depth <= node.depth:
                    break
                inside.append(later)
            return inside
    raise ElementNotFound(f"no element with bid {json.dumps(str(within))} to search within")


def _query(role: str | None, name: str | None, exact: bool, within: str | int | None) -> str:
    parts = []
    if role is not None:
        parts.append(f"role={json.dumps(role)}")
    if name is not None:
        parts.append(f"name={json.dumps(name)}" + (" (exact)" if exact else ""))
    if within is not None:
        parts.append(f"within bid {json.dumps(str(within))}")
    return " ".join(parts) or "any role or name"


def _label(node: Any) -> str:
    return f"{node.role} {json.dumps(_normalise(node.name), ensure_ascii=False)} (bid {json.dumps(node.bid)})"


def _closest(scope: list[Any], role: str | None, name: str | None) -> str:
    """The few nodes that look most like the query, to show what the page does hold."""
    if not scope:
        return "there are no elements with a bid there"
    query = f"{role or ''} {_normalise(name)}".strip().casefold()
    keys: dict[str, Any] = {}
    for node in scope:
        keys.setdefault(f"{node.role} {_normalise(node.name)}".casefold(), node)
    nearest = difflib.get_close_matches(query, list(keys), n=5, cutoff=0.0)
    return "closest: " + ", ".join(_label(keys[key]) for key in nearest)


__all__ = ["ElementNotFound", "PageActions"]
