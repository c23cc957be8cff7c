"""What chat templates share: the app, the start page, the gate's collateral edit, and the
UI moves oracles are made of (open a channel from the sidebar, post, find a message).

Oracles use only what an agent could see: links and buttons by their accessible names,
the search box, and URLs shown on the page. They never write to the world directly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from officegym.tasks.match import squash
from officegym.tasks.registry import Template

if TYPE_CHECKING:
    from officegym.harness.actions import PageActions

COLLATERAL_TEXT = "Done, closing this out."


class ChatTemplate(Template):
    """Base of the chat templates: `apps`, start page, collateral edit."""

    apps = ("chat",)

    def start_url(self, params: Mapping[str, Any]) -> str:
        return "/chat/"

    def collateral(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        """Post a stray message in #general, or in the user's first other channel when the
        task is about #general."""
        actions.goto("/chat/")
        names = sidebar_channels(actions)
        avoid = params.get("channel")
        others = [n for n in names if n != avoid]
        if not others:
            raise LookupError(f"the user is in no channel besides #{avoid}")
        target = "general" if "general" in others else others[0]
        open_channel(actions, target)
        post(actions, f"Message #{target}", COLLATERAL_TEXT)


def _side_label(name: str) -> str:
    """A sidebar link's channel or person name without its unread note or mention badge
    ("deals , 3 unread", "deals 2")."""
    return re.sub(r"\s+\d+$", "", squash(name).split(" , ")[0]).strip()


def sidebar_link(actions: PageActions, label: str) -> str | None:
    """The bid of the sidebar link to channel or DM `label`."""
    for node in actions.nodes:
        if node.bid and node.role == "link" and _side_label(node.name) == label:
            return node.bid
    return None


def sidebar_channels(actions: PageActions) -> list[str]:
    """The names of the channels in the sidebar's Channels list, in order."""
    listing = actions.find("list", "Channels", exact=True)
    names = []
    for bid in actions.find_all("link", within=listing):
        label = _side_label(next(n.name for n in actions.nodes if n.bid == bid))
        if label and label != "Add channel":
            names.append(label)
    return names


def open_channel(actions: PageActions, name: str) -> None:
    """Open #`name`: from the sidebar when the user is in it, else through Browse channels."""
    link = sidebar_link(actions, name)
    if link is None:
        actions.click(actions.find("link", "Browse channels"))
        actions.fill(actions.find("searchbox", "Search channels", exact=True), name)
        actions.check(actions.find("checkbox", "Include archived"))
        actions.click(actions.find("button", "Search", exact=True))
        # Result links read "<name> ✓ Joined · N members · topic".
        for node in actions.nodes:
            if node.bid and node.role == "link" and squash(node.name).split(" ")[0] == name:
                link = node.bid
                break
        else:
            raise LookupError(f"#{name} is not among the channels Browse found")
    actions.click(link)


def post(actions: PageActions, composer: str, text: str) -> None:
    """Type `text` into the composer labelled `composer` and send it."""
    actions.fill(actions.find("textbox", composer, exact=True), text)
    actions.click(actions.find("button", "Send", exact=True))


def find_message(actions: PageActions, snippet: str) -> str:
    """The bid of the message (article) on the page whose text contains `snippet`."""
    wanted = squash(snippet).casefold()
    nodes: Sequence[Any] = actions.nodes
    for index, node in enumerate(nodes):
        if node.role != "article" or not node.bid:
            continue
        for inner in nodes[index + 1 :]:
            if inner.depth <= node.depth:
                break
            if wanted in squash(inner.name).casefold():
                return node.bid
    raise LookupError(f"no message on the page contains {snippet!r}")


def message_action(actions: PageActions, snippet: str, action: str) -> None:
    """Open a message's "More actions" menu and click `action` (e.g. "Pin to channel")."""
    article = find_message(actions, snippet)
    # The menu's toggle is a <summary> (role DisclosureTriangle in the accessibility tree).
    actions.click(actions.find(None, "More actions", exact=True, within=article))
    article = find_message(actions, snippet)
    actions.click(actions.find(None, action, within=article))


__all__ = [
    "COLLATERAL_TEXT",
    "ChatTemplate",
    "find_message",
    "message_action",
    "open_channel",
    "post",
    "sidebar_channels",
    "sidebar_link",
]
