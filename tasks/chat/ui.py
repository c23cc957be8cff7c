"""The chat moves oracles are made of, each written once: the sidebar, channels and their
details page, the composer, message search and its results, finding a message on the page,
its "More actions" menu, its thread, the People directory and the type-ahead people pickers.

Oracles use only what an agent could see: links and buttons by their accessible names, the
search box, and URLs shown on the page. They never write to the world directly.

A message is an article named for its author and time ("Message from Dana Lee today at
10:42 AM"); its action bar is only on the page while it is hovered or focused, so message
actions hover the message first and then click, as a person does. Every action names the
message it acts on ("Pin to channel (message from Dana Lee today at 10:42 AM)").
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from officegym.tasks.match import squash

from ._phone_conflicts import PHONE

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions


def _fold(text: str) -> str:
    return squash(text).casefold()


def _name_of(actions: PageActions, bid: str) -> str:
    return squash(next((n.name for n in actions.nodes if n.bid == bid), "") or "")


# ---- the sidebar -------------------------------------------------------------------------

# A sidebar channel link reads "<name>", "<name> <mentions>" or "<name> , <n> unread".
_SIDEBAR = re.compile(r"^(?P<name>\S+?)(?: (?P<mentions>\d+))?(?: , \d+ unread)?$")


def _side_label(name: str) -> str:
    """A sidebar link's channel or person name without its unread note or mention badge
    ("deals , 3 unread", "deals 2"), and a DM's without "Direct message with"."""
    name = squash(name).removeprefix("Direct message with ")
    return re.sub(r"\s+\d+$", "", name.split(" , ")[0]).strip()


def sidebar_link(actions: PageActions, label: str) -> str | None:
    """The bid of the sidebar link to channel or DM `label` (whatever badge it carries)."""
    for node in actions.nodes:
        if node.bid and node.role == "link" and _side_label(node.name) == label:
            return node.bid
    return None


def _channel_links(actions: PageActions) -> list[str]:
    return actions.find_all("link", within=actions.find("list", "Channels", exact=True))


def sidebar_channels(actions: PageActions) -> list[str]:
    """The names of the channels in the sidebar's Channels list, in order."""
    names = []
    for bid in _channel_links(actions):
        label = _side_label(_name_of(actions, bid))
        if label and label != "Add channel":
            names.append(label)
    return names


def sidebar_mentions(actions: PageActions) -> dict[str, int]:
    """Channel name → mention badge (0 when none) from the sidebar's Channels list."""
    links = set(_channel_links(actions))
    found = {}
    for node in actions.nodes:
        match = _SIDEBAR.match(squash(node.name)) if node.bid in links else None
        if match:
            found[match["name"]] = int(match["mentions"] or 0)
    return found


# ---- channels ----------------------------------------------------------------------------


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


def open_details(actions: PageActions, channel: str) -> None:
    """Open #`channel`'s details page (members, topic, archiving)."""
    open_channel(actions, channel)
    actions.click(actions.find("link", "Details", exact=True))


def post(actions: PageActions, text: str, composer: str | None = None) -> None:
    """Send `text` from the composer labelled `composer` ("Message #deals"), or by default
    from the page's one composer (a DM's reads "Message <their names>")."""
    if composer is not None:
        box = actions.find("textbox", composer, exact=True)
    else:
        box = next(
            n.bid
            for n in actions.nodes
            if n.bid and n.role == "textbox" and squash(n.name).startswith("Message ")
        )
    actions.fill(box, text)
    actions.click(actions.find("button", "Send", exact=True))


def message_link(actions: PageActions) -> str:
    """The address of the page the last action landed on, without the site's origin."""
    url = urlsplit(actions.last[0]["url"])
    return (
        url.path
        + (f"?{url.query}" if url.query else "")
        + (f"#{url.fragment}" if url.fragment else "")
    )


# ---- message search ----------------------------------------------------------------------

_HIT = re.compile(
    r"^(?P<where>\S+)(?P<thread> · in a thread)? (?P<author>.+?) "
    r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (?P<month>\w+) (?P<day>\d{1,2}), "
    r"(?P<year>\d{4}) at (?P<time>\d{1,2}:\d\d [AP]M)"
    r"(?: (?P<text>.*))?$"
)
_MONTHS = {name: number for number, name in enumerate(calendar.month_name) if name}


@dataclass(frozen=True)
class Hit:
    """One search result as the results page shows it (day and time in the viewer's
    timezone, the time as written, like "6:05 PM"; `name` is the whole link text)."""

    bid: str
    where: str
    in_thread: bool
    author: str
    day: date
    time: str
    text: str
    name: str


def phrase(text: str) -> str:
    """`text` as an exact-phrase search term."""
    return '"' + text.replace('"', " ") + '"'


def search(actions: PageActions, query: str) -> None:
    """Run `query` from the sidebar's "Search messages" box (filters such as `in:#deals` and
    `from:@Name` allowed); the results page follows."""
    box = actions.find("searchbox", "Search messages", exact=True)
    actions.fill(box, query)
    actions.press(box, "Enter")


def hits(actions: PageActions) -> list[Hit]:
    """The results on the current search page, newest first. Each link reads
    "<channel>[ · in a thread] <author> <Weekday, Month D, YYYY at H:MM AM> <snippet>"."""
    found = []
    for node in actions.nodes:
        if node.role != "link" or not node.bid:
            continue
        name = squash(node.name)
        match = _HIT.match(name)
        if match is None:
            continue
        found.append(
            Hit(
                bid=node.bid,
                where=match["where"],
                in_thread=bool(match["thread"]),
                author=match["author"],
                day=date(int(match["year"]), _MONTHS[match["month"]], int(match["day"])),
                time=match["time"],
                text=match["text"] or "",
                name=name,
            )
        )
    return found


def open_hit(actions: PageActions, accept: Callable[[Hit], bool], *, only: bool = False) -> Hit:
    """Click the newest search result `accept` takes (with `only`, the one it takes: more or
    fewer is an error) and return it."""
    found = [h for h in hits(actions) if accept(h)]
    if not found or (only and len(found) != 1):
        raise LookupError(f"expected one search result the oracle wants, found {len(found)}")
    actions.click(found[0].bid)
    return found[0]


def holding(snippet: str, author: str | None = None) -> Callable[[Hit], bool]:
    """A test of search results: the result's text holds `snippet` (and names `author`)."""
    wanted = _fold(snippet)
    return lambda hit: wanted in _fold(hit.name) and (author is None or author in hit.name)


# ---- messages on the page ----------------------------------------------------------------


# An article's name: "Message from <author> today at 10:42 AM", "... on Thu, Sep 4 at 9:02 AM";
# a second one by the same person in the same minute is "2nd message from ...".
_ARTICLE = re.compile(
    r"^(?:\d+(?:st|nd|rd|th) )?[Mm]essage from (?P<author>.+?) "
    r"(?P<when>(?:today|yesterday|on .+?) at (?P<time>\d{1,2}:\d\d [AP]M))$"
)


@dataclass(frozen=True)
class Message:
    """One message (article) on the page: its author and time (from the article's name, the
    time as written, like "6:05 PM", and with its day, like "on Thu, Sep 4 at 6:05 PM"), its
    visible text (author, time and body, up to its reactions and actions) and that text's
    parts."""

    bid: str
    author: str
    text: str
    parts: tuple[str, ...]
    time: str = ""
    when: str = ""


def _parts(nodes: Sequence[Any], index: int, about: str) -> tuple[str, ...]:
    """The names inside the article at `nodes[index]`, leaving out its forms (reactions,
    actions) and the controls named for the message (`about`), so a reactor's name or the
    message's own time is not read as its text."""
    article = nodes[index]
    parts = []
    skip_below: int | None = None
    for inner in nodes[index + 1 :]:
        if inner.depth <= article.depth:
            break
        if skip_below is not None and inner.depth > skip_below:
            continue
        skip_below = None
        if inner.role == "form" or squash(inner.name).endswith(f"({about})"):
            skip_below = inner.depth
            continue
        if inner.name:
            parts.append(squash(inner.name))
    return tuple(parts)


def messages(actions: PageActions) -> list[Message]:
    """Every message on the page, in page order."""
    nodes = list(actions.nodes)
    found = []
    for index, node in enumerate(nodes):
        if node.role != "article" or not node.bid:
            continue
        name = squash(node.name)
        named = _ARTICLE.match(name)
        if named is None:
            continue
        author = named["author"]
        inner = _parts(nodes, index, name[0].lower() + name[1:])
        if inner and inner[0] == author:
            inner = inner[1:]
        parts = (author, named["time"], *inner)
        found.append(
            Message(node.bid, author, " ".join(parts), parts, named["time"], named["when"])
        )
    return found


def find_messages(
    actions: PageActions,
    snippet: str,
    author: str | None = None,
    accept: Callable[[str], bool] = lambda text: True,
) -> list[str]:
    """The bids of the messages on the page by `author` (anyone by default) whose text holds
    `snippet` and that `accept` takes (by their text), in page order."""
    wanted = _fold(snippet)
    return [
        m.bid
        for m in messages(actions)
        if (author is None or m.author == author) and wanted in _fold(m.text) and accept(m.text)
    ]


def find_message(
    actions: PageActions,
    snippet: str,
    author: str | None = None,
    accept: Callable[[str], bool] = lambda text: True,
) -> str:
    """The bid of the one message `find_messages` finds (none or several is an error)."""
    found = find_messages(actions, snippet, author, accept)
    if len(found) != 1:
        who = f" by {author}" if author else ""
        raise LookupError(f"expected one message{who} with {snippet!r}, found {len(found)}")
    return found[0]


def message_action(actions: PageActions, message: str, action: str) -> str:
    """Hover the message `message` (its action bar shows) and return the bid of its action
    whose name starts with `action` ("Reply in thread", "More actions", "React with eyes")."""
    actions.hover(message)
    wanted = f"{action} ("
    for bid in actions.find_all(within=message):
        if _name_of(actions, bid).startswith(wanted):
            return bid
    raise LookupError(f"the message has no {action!r} action")


def message_menu(actions: PageActions, locate: Callable[[], str], item: str) -> None:
    """Open the "More actions" menu of the message `locate()` finds (hovering it shows its
    action bar) and choose `item` ("Pin to channel", "Edit message", "Link to message"...);
    the message is found again once the menu is open."""
    actions.click(message_action(actions, locate(), "More actions"))
    message = locate()
    for bid in actions.find_all(within=message):
        if _name_of(actions, bid).startswith(item):
            actions.click(bid)
            return
    raise LookupError(f"the message's menu has no {item!r}")


def open_message(actions: PageActions, channel: str, snippet: str, author: str) -> str:
    """Search for `author`'s one message holding `snippet` in #`channel`, open it in its
    channel and return its bid."""
    search(actions, f'"{snippet}" from:@{author} in:#{channel}')
    open_hit(actions, holding(snippet, author), only=True)
    return find_message(actions, snippet, author)


def open_thread(actions: PageActions, message: str) -> str:
    """Open the thread of the message `message` (hover it, then its "Reply in thread" action)
    and return the thread panel's bid."""
    actions.click(message_action(actions, message, "Reply in thread"))
    return actions.find("complementary", "Thread", exact=True)


def reply(actions: PageActions, thread: str, text: str) -> None:
    """Send `text` from the reply box of the open thread panel `thread`."""
    actions.fill(actions.find("textbox", "Reply…", exact=True, within=thread), text)
    actions.click(actions.find("button", "Send reply", exact=True, within=thread))


def posted_number(actions: PageActions, contact: str, poster: str) -> str:
    """The latest phone number `poster` posted in chat for `contact`: the newest result of a
    search for the contact's name from the poster whose snippet shares a number (results cut
    long messages short, so the message itself is read after opening it)."""
    search(actions, f"{phrase(contact)} from:@{poster}")
    found = hits(actions)
    # Results are newest first; a snippet holding "+<digit>" is a number being shared.
    hit = ([h for h in found if re.search(r"\+\d", h.text)] or found)[0]
    actions.click(hit.bid)
    numbers = [
        number.group()
        for m in messages(actions)
        if m.author == poster and hit.time in m.parts
        for text in m.parts
        if contact in text and (number := PHONE.search(text))
    ]
    return numbers[-1]


# ---- people ------------------------------------------------------------------------------


# How often, and how far apart, a picker is looked at for its suggestions to come in.
_SUGGESTION_LOOKS = 4
_SUGGESTION_WAIT_MS = 500


def pick_person(actions: PageActions, box: str, name: str, title: str | None = None) -> bool:
    """In the type-ahead people picker labelled `box` ("To", "People to add"), type `name` and
    choose the option reading "<name> — <title>" (any title when None). False, choosing
    nothing, when the picker offers no such person."""
    actions.fill(actions.find("combobox", box, exact=True), name)
    wanted = f"{name} — {title}" if title is not None else f"{name} — "
    for _ in range(_SUGGESTION_LOOKS):
        offered = [n for n in actions.nodes if n.bid and n.role == "option"]
        for node in offered:
            if squash(node.name).startswith(wanted):
                actions.click(node.bid)
                return True
        if offered:  # the suggestions (or "No matches") are in, without them
            return False
        actions.noop(_SUGGESTION_WAIT_MS)  # the suggestions are still on their way
    return False


def find_person(actions: PageActions, query: str, accept: Callable[[str], bool]) -> str | None:
    """Search the People directory for `query` and return the bid of the first result card
    (reading "<name> <title>") that `accept` takes, or None."""
    actions.click(actions.find("link", "People", exact=True))
    actions.fill(actions.find("searchbox", "Search people", exact=True), query)
    actions.click(actions.find("button", "Search", exact=True))
    return next(
        (n.bid for n in actions.nodes if n.bid and n.role == "link" and accept(squash(n.name))),
        None,
    )


__all__ = [
    "Hit",
    "Message",
    "find_message",
    "find_messages",
    "find_person",
    "hits",
    "holding",
    "message_action",
    "message_link",
    "message_menu",
    "messages",
    "open_channel",
    "open_details",
    "open_hit",
    "open_message",
    "open_thread",
    "phrase",
    "pick_person",
    "post",
    "posted_number",
    "reply",
    "search",
    "sidebar_channels",
    "sidebar_link",
    "sidebar_mentions",
]
