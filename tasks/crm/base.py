"""What CRM templates share: the app, the start page and the gate's collateral edit. The UI
moves oracles are made of live in `ui`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from officegym.tasks.match import squash
from officegym.tasks.registry import Template

from .ui import log_on_record, row_links

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

COLLATERAL_TITLE = "Done, closing this out."


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
            name = next((n.name for n in actions.nodes if n.bid == bid), "") or ""
            if squash(name).casefold() not in named:
                actions.click(bid)
                break
        else:
            raise LookupError("no account to put the collateral note on")
        log_on_record(
            actions, "New note", {"Title": COLLATERAL_TITLE, "Body": COLLATERAL_TITLE}, "Save note"
        )


__all__ = ["COLLATERAL_TITLE", "CrmTemplate"]
