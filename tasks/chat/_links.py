"""Grading a posted link to a chat message, in any of the forms chat's own links take."""

from __future__ import annotations

import re

from officegym.tasks.match import FreeText, Matcher, links_in

# How a link to message N can read: /chat/m/N, a channel page at ?m=N or #m-N, a thread /chat/t/N.
_LINK = re.compile(r"/chat/m/(\d+)|[?&]m=(\d+)|#m-(\d+)|/chat/t/(\d+)")


class LinksTo(FreeText):
    """A text that links to exactly one message, whose id `ids` matches (e.g. another
    expectation's `.pk`), in any of the forms chat's own links take; a text linking other
    messages too (every candidate at once) does not match."""

    links = True

    def __init__(self, ids: Matcher) -> None:
        self.ids = ids

    def accepts(self, text: str) -> bool:
        linked = {int(g) for found in _LINK.findall(text) for g in found if g}
        other = [link for link in links_in(text) if not _LINK.search(link)]
        return len(linked) == 1 and self.ids.matches(next(iter(linked))) and not other

    def describe(self) -> str:
        return f"links_to({self.ids.describe()})"


__all__ = ["LinksTo"]
