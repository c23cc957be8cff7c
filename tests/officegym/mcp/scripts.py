"""Scripted tool calls that reproduce templates' oracles through the apps' MCP tools.

Each script reads its instance's params the way the template's oracle does (names, the text
to write, whether the instance is feasible) and finds everything else through the tools,
as an agent would: ids by name through search and list tools, the facts an answer states
from the API's replies. `SCRIPTS` maps a template id to its script.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from officegym.mcp.env import McpEnv


class ScriptError(AssertionError):
    """A scripted call failed, or the reply lacks what the script looked for."""


class Play:
    """Calls tools on `env` and returns each reply's JSON; a refused call raises."""

    def __init__(self, env: McpEnv) -> None:
        self.env = env

    def __call__(self, tool: str, **arguments: Any) -> Any:
        obs, _, _, _, _ = self.env.step({"tool": tool, "arguments": arguments})
        if obs["last_action_error"]:
            raise ScriptError(f"{tool}({arguments}) failed: {obs['last_action_error']}")
        text = obs["last_result"]
        return json.loads(text) if text[:1] in "[{" else text

    def say(self, text: str) -> None:
        self.env.step({"tool": "send_msg_to_user", "arguments": {"text": text}})

    def infeasible(self, reason: str) -> None:
        self.env.step({"tool": "report_infeasible", "arguments": {"reason": reason}})

    def pages(self, tool: str, key: str, **arguments: Any) -> Iterator[dict[str, Any]]:
        """Every row of a paged list (`page`/`pages` in the reply, rows under `key`)."""
        page = 1
        while True:
            reply = self(tool, page=page, **arguments)
            yield from reply[key]
            if page >= reply.get("pages", 1):
                return
            page += 1


Script = Callable[[Play, Mapping[str, Any]], None]
SCRIPTS: dict[str, Script] = {}


def script(template_id: str) -> Callable[[Script], Script]:
    def register(fn: Script) -> Script:
        SCRIPTS[template_id] = fn
        return fn

    return register


def one(rows: Any, what: str, **match: Any) -> dict[str, Any]:
    """The one row whose fields equal `match`."""
    found = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    if len(found) != 1:
        raise ScriptError(f"{len(found)} {what} match {match}")
    return found[0]


def money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


# ---- chat ----------------------------------------------------------------------------------


@script("chat.set_topic")
def set_topic(play: Play, p: Mapping[str, Any]) -> None:
    channel = play("chat_get_channels_by_name_item", name=p["channel"])
    play("chat_patch_channels_item", channel_id=channel["id"], body={"topic": p["topic"]})
    play.say(f"The topic of #{p['channel']} is now: {p['topic']}")


@script("chat.post_update")
def post_update(play: Play, p: Mapping[str, Any]) -> None:
    channel = play("chat_get_channels_by_name_item", name=p["channel"])
    if channel["is_archived"]:
        play.infeasible(f"#{p['channel']} is archived, so it is read-only.")
        return
    play("chat_post_channels_messages", channel_id=channel["id"], body={"body": p["text"]})
    play.say("Posted.")


@script("chat.reply_in_thread")
def reply_in_thread(play: Play, p: Mapping[str, Any]) -> None:
    hits = play("chat_get_search", q=f"{p['account']} in:#{p['channel']}")["hits"]
    message = one(
        [h["message"] for h in hits if h["message"]["author"]["display_name"] == p["author"]],
        "messages",
    )
    play("chat_post_messages_replies", message_id=message["id"], body={"body": p["text"]})
    play.say("Replied in the thread.")


@script("chat.channel_member_count")
def channel_member_count(play: Play, p: Mapping[str, Any]) -> None:
    channel = play("chat_get_channels_by_name_item", name=p["channel"])
    play.say(f"{channel['member_count']} members")


# ---- crm -----------------------------------------------------------------------------------


@script("crm.move_deal_stage")
def move_deal_stage(play: Play, p: Mapping[str, Any]) -> None:
    rows = play("crm_get_opportunities", q=p["deal"])["rows"]
    deal = one(rows, "deals", name=p["deal"])
    if not deal["editable"]:
        play.infeasible(f"{p['deal']} is read only for me: only its owner's team can edit it.")
        return
    play("crm_post_opportunities_stage", record_id=deal["id"], body={"stage": p["stage"]})
    play.say(f"Moved {p['deal']} to {p['stage']}.")


@script("crm.add_account_note")
def add_account_note(play: Play, p: Mapping[str, Any]) -> None:
    account = one(play("crm_get_accounts", q=p["account"])["rows"], "accounts", name=p["account"])
    play(
        "crm_post_notes",
        body={"title": p["title"], "body": p["body"], "account_id": account["id"]},
    )
    play.say(f"Added the note “{p['title']}” to {p['account']}.")


@script("crm.contact_email_lookup")
def contact_email_lookup(play: Play, p: Mapping[str, Any]) -> None:
    rows = play("crm_get_contacts", q=p["contact"])["rows"]
    contact = one(rows, "contacts", name=p["contact"], account=p["account"])
    if not contact["email"]:
        play.infeasible(f"{p['contact']} has no email address in the CRM.")
        return
    play.say(contact["email"])


# ---- sheets --------------------------------------------------------------------------------


def workbook(play: Play, name: str) -> dict[str, Any] | None:
    """The workbook named `name` the user can open (with its sheets), or None."""
    found = [w for w in play("sheets_get_workbooks", q=name) if w["name"] == name]
    return play("sheets_get_workbooks_item", workbook_id=found[0]["id"]) if found else None


@script("sheets.rename_sheet")
def rename_sheet(play: Play, p: Mapping[str, Any]) -> None:
    book = workbook(play, p["workbook"])
    if book is None or book["role"] not in ("owner", "edit"):
        play.infeasible(f"I can't edit “{p['workbook']}”, so I can't rename its tabs.")
        return
    sheet = one(book["sheets"], "sheets", name=p["sheet"])
    play(
        "sheets_patch_workbooks_sheets_item",
        workbook_id=book["id"],
        sheet_id=sheet["id"],
        body={"name": p["name"]},
    )
    play.say(f"Renamed “{p['sheet']}” to “{p['name']}”.")


@script("sheets.comment_on_cell")
def comment_on_cell(play: Play, p: Mapping[str, Any]) -> None:
    book = workbook(play, p["workbook"])
    if book is None:
        play.infeasible(f"“{p['workbook']}” isn't shared with me, so I can't open it to comment.")
        return
    hit = one(play("sheets_get_workbooks_find", workbook_id=book["id"], q=p["deal"]), "cells")
    header = play(
        "sheets_get_workbooks_sheets_range",
        workbook_id=book["id"],
        sheet_id=hit["sheet_id"],
        ref="A1:Z1",
    )["cells"]
    column = one(header, "headers", shown="Amount")["address"].rstrip("1")
    cell = f"{column}{hit['row']}"
    play(
        "sheets_post_workbooks_sheets_comments",
        workbook_id=book["id"],
        sheet_id=hit["sheet_id"],
        body={"cell": cell, "body": p["note"]},
    )
    play.say(f"Commented on {p['deal']}'s Amount ({cell}).")


# ---- booking -------------------------------------------------------------------------------


@script("booking.approve_request")
def approve_request(play: Play, p: Mapping[str, Any]) -> None:
    requests = play.pages("booking_get_approvals", "approvals", tab="pending")
    request = one(requests, "requests", traveller=p["traveller"], city=p["city"])
    decision: dict[str, Any] = {"decision": "approve"}
    if p["comment"]:
        decision["comment"] = p["comment"]
    play("booking_post_approvals_decision", approval_id=request["id"], body=decision)
    play.say(f"Approved {p['traveller']}'s request.")


def trip(play: Play, p: Mapping[str, Any], tabs: tuple[str, ...]) -> dict[str, Any]:
    """The user's stay in `p["city"]` on `p`'s dates, from the given tabs of My trips."""
    stays = [
        s for tab in tabs for s in play.pages("booking_get_reservations", "reservations", tab=tab)
    ]
    return one(stays, "stays", city=p["city"], check_in=p["check_in"], check_out=p["check_out"])


@script("booking.trip_total_answer")
def trip_total_answer(play: Play, p: Mapping[str, Any]) -> None:
    stay = trip(play, p, ("upcoming", "past"))
    play.say(money(stay["total_cents"]))


@script("booking.cancel_trip_refund")
def cancel_trip_refund(play: Play, p: Mapping[str, Any]) -> None:
    stay = trip(play, p, ("upcoming", "past"))
    if not p["feasible"]:
        play.infeasible(f"My {p['city']} stay has already begun, so it can no longer be cancelled.")
        return
    cancelled = play("booking_post_reservations_cancel", reservation_id=stay["id"])
    play.say(f"Cancelled. You get {money(cancelled['refund_cents'])} back.")


# ---- across apps ---------------------------------------------------------------------------


@script("crm.post_deal_summary")
def post_deal_summary(play: Play, p: Mapping[str, Any]) -> None:
    deal = one(play("crm_get_opportunities", q=p["deal"])["rows"], "deals", name=p["deal"])
    channel = play("chat_get_channels_by_name_item", name=p["channel"])
    text = f"{p['deal']}: {deal['stage']}, ${deal['amount']:,}, closing {deal['close_date']}."
    play("chat_post_channels_messages", channel_id=channel["id"], body={"body": text})
    play.say(f"Posted the {p['deal']} summary in #{p['channel']}.")


_PHONE = re.compile(r"\+?\d[\d ().-]{6,}\d")


@script("crm.update_phone_from_chat")
def update_phone_from_chat(play: Play, p: Mapping[str, Any]) -> None:
    hits = play("chat_get_search", q=p["contact"])["hits"]
    posts = sorted(
        (
            h["message"]
            for h in hits
            if h["message"]["author"]["display_name"] == p["poster"]
            and _PHONE.search(h["message"]["body"])
        ),
        key=lambda m: m["created_at"],
    )
    if not posts:
        raise ScriptError(f"no post of {p['poster']} gives {p['contact']}'s number")
    number = _PHONE.search(posts[-1]["body"])[0]
    rows = play("crm_get_contacts", q=p["record"])["rows"]
    contact = one(rows, "contacts", name=p["record"], account=p["account"])
    play("crm_patch_contacts_item", record_id=contact["id"], body={"phone": number})
    play.say(f"Updated {p['record']}'s phone to {number}.")


@script("sheets.copy_won_deals")
def copy_won_deals(play: Play, p: Mapping[str, Any]) -> None:
    close = "this_quarter" if p["period"] == "quarter" else "this_year"
    won = [
        (row["name"], row["amount"])
        for row in play.pages(
            "crm_get_opportunities", "rows", stage="won", close=close, per_page=200
        )
        if row["owner"] == p["rep"]
    ]
    book = workbook(play, p["workbook"])
    if book is None:
        raise ScriptError(f"no workbook {p['workbook']!r}")
    sheet = play("sheets_post_workbooks_sheets", workbook_id=book["id"], body={"name": p["sheet"]})
    last = len(won) + 1
    values = [["Opportunity", "Amount"], *[[n, a] for n, a in won], ["Total", f"=SUM(B2:B{last})"]]
    play(
        "sheets_put_workbooks_sheets_range",
        workbook_id=book["id"],
        sheet_id=sheet["id"],
        body={"ref": "A1", "values": values},
    )
    play.say(f"Copied {len(won)} Closed Won deal(s) of {p['rep']} to “{p['sheet']}”.")


__all__ = ["SCRIPTS", "Play", "ScriptError"]
