"""What chat templates share: the app, the start page and the gate's collateral edit. The UI
moves oracles are made of live in `ui`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks.registry import Template

from .ui import open_channel, post, sidebar_channels

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

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
        post(actions, COLLATERAL_TEXT, f"Message #{target}")


__all__ = ["COLLATERAL_TEXT", "ChatTemplate"]
