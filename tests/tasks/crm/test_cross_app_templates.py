"""Templates that carry a fact between chat and the CRM (a contact's new phone from a chat
post, a deal's summary posted to a channel): instances on the small seed-0 world and
verifiers on hand-made diffs.
"""

from __future__ import annotations

from datetime import date

import pytest

from officegym.tasks.crm._formats import money
from officegym.tasks.crm._people import editors
from tests.tasks.episodes import changed, grade, one, row

IDS = (
    "crm.update_phone_from_chat",
    "crm.post_deal_summary",
)
SEEDS = range(30)


def stray_note(tables: dict | None = None, pk: int = 9100) -> dict:
    note = {"id": pk, "title": "Done, closing this out.", "body": "x", "account_id": 1}
    return {**(tables or {}), "crm_note": {"inserted": {pk: note}}}


def message(params, body: str, *, pk: int = 9001, **overrides) -> dict:
    posted = {
        "id": pk,
        "channel_id": params["channel_id"],
        "author_id": params["user_id"],
        "thread_parent_id": None,
        "body": body,
        "also_in_channel": 0,
        **overrides,
    }
    return {"chat_message": {"inserted": {pk: posted}}}


def test_the_chat_number_is_the_poster_s_newest_post_and_the_user_may_use_it(world, instances):
    contacts = set()
    for task in instances["crm.update_phone_from_chat"]:
        p = task.params
        body, author, channel_id = one(
            world,
            "SELECT m.body, e.display_name, m.channel_id FROM chat_message m "
            "JOIN people_employee e ON e.id = m.author_id WHERE m.id = ?",
            p["message_id"],
        )
        assert p["phone"] in body and p["contact"] in body and author == p["poster"]
        contact = row(world, "crm_contact", p["contact_id"])
        assert contact["phone"] == p["crm_phone"] != p["phone"]
        assert one(
            world,
            "SELECT 1 FROM chat_membership WHERE channel_id = ? AND employee_id = ?",
            channel_id,
            p["user_id"],
        )
        assert p["user_id"] in {e[0] for e in editors(world, contact["owner_id"])}
        later = world.execute(
            "SELECT body FROM chat_message WHERE instr(body, ?) > 0 AND created_at > "
            "(SELECT created_at FROM chat_message WHERE id = ?) AND body LIKE '%+%'",
            (p["contact"], p["message_id"]),
        ).fetchall()
        assert all(p["crm_phone"] in b for (b,) in later)
        assert p["contact"] in task.goal and (p["poster"] in task.goal) is not p["poster_is_user"]
        contacts.add(p["contact"])
    assert len(contacts) >= 4


def test_a_summary_goes_to_a_channel_of_the_user_about_a_real_deal(world, instances):
    channels = set()
    for task in instances["crm.post_deal_summary"]:
        p = task.params
        deal = row(world, "crm_opportunity", p["deal_id"])
        assert (deal["name"], deal["stage"], deal["amount"]) == (p["deal"], p["stage"], p["amount"])
        assert str(deal["close_date"])[:10] == p["close_date"]
        assert one(
            world,
            "SELECT 1 FROM chat_membership m JOIN chat_channel c ON c.id = m.channel_id "
            "WHERE c.id = ? AND c.name = ? AND m.employee_id = ? AND c.archived_at IS NULL",
            p["channel_id"],
            p["channel"],
            p["user_id"],
        )
        assert f'"{p["deal"]}"' in task.goal and f"#{p['channel']}" in task.goal
        decoy = one(world, "SELECT amount FROM crm_opportunity WHERE name = ?", p["decoy"]["deal"])
        assert decoy != (p["amount"],)
        channels.add(p["channel"])
    assert len(channels) >= 3


def test_the_phone_must_be_the_chat_number_on_the_named_contact_only(world, instances):
    tid = "crm.update_phone_from_chat"
    p = instances[tid][0].params
    right = changed(world, "crm_contact", p["contact_id"], phone=p["phone"])
    assert grade(tid, p, right).success
    assert not grade(tid, p, stray_note(right)).success
    extra = changed(world, "crm_contact", p["contact_id"], phone=p["phone"], title="CEO")
    assert not grade(tid, p, extra).success
    others = world.execute(
        "SELECT id FROM crm_contact WHERE id != ? ORDER BY id LIMIT 1", (p["contact_id"],)
    ).fetchone()
    wrong = changed(world, "crm_contact", others[0], phone=p["phone"])
    assert not grade(tid, p, wrong).success and grade(tid, p, wrong).score == 0
    old = changed(world, "crm_contact", p["contact_id"], phone=p["phone"][:-1] + "0")
    assert not grade(tid, p, old).success


def test_the_chat_number_may_be_saved_in_any_formatting_but_nothing_else(world, instances):
    tid = "crm.update_phone_from_chat"
    p = instances[tid][0].params
    digits = "".join(ch for ch in p["phone"] if ch.isdigit())
    for same in (digits, "+" + digits, f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"):
        assert grade(tid, p, changed(world, "crm_contact", p["contact_id"], phone=same)).success
    for other in (
        f"{p['phone']} or {p['crm_phone']}",
        f"{p['phone']} (new, posted in chat)",
        f"{p['phone']} x12",
        p["crm_phone"],
    ):
        edit = changed(world, "crm_contact", p["contact_id"], phone=other)
        assert not grade(tid, p, edit).success, other


@pytest.mark.parametrize(
    ("amount", "day"),
    [
        ("${amount:,}", "{day:%b} {day.day}, {day.year}"),
        ("{amount:,}", "{day:%Y-%m-%d}"),
        ("{amount}", "{day.month}/{day.day}/{day.year}"),
        ("${amount:,}", "{day:%B} {day.day}"),
    ],
)
def test_a_summary_states_stage_amount_and_close_date_in_common_formats(instances, amount, day):
    tid = "crm.post_deal_summary"
    p = instances[tid][0].params
    close = date.fromisoformat(p["close_date"])
    body = (
        f"{p['deal']}: {p['stage'].lower()}, {amount.format(amount=p['amount'])}, "
        f"closing {day.format(day=close)}"
    )
    assert grade(tid, p, message(p, body)).success


def test_a_summary_with_a_wrong_part_or_place_fails(instances):
    tid = "crm.post_deal_summary"
    p = instances[tid][0].params
    close = date.fromisoformat(p["close_date"])
    good = f"{p['deal']}: {p['stage']}, {money(p['amount'])}, closing {close.isoformat()}"
    assert not grade(tid, p, stray_note(message(p, good))).success
    bigger = f"{p['deal']}: {p['stage']}, $1{p['amount']:,}, closing {close.isoformat()}"
    assert not grade(tid, p, message(p, bigger)).success
    no_stage = f"{p['deal']}: {money(p['amount'])}, closing {close.isoformat()}"
    assert not grade(tid, p, message(p, no_stage)).success
    later = f"{p['deal']}: {p['stage']}, {money(p['amount'])}, closing {close.year + 1}-01-01"
    assert not grade(tid, p, message(p, later)).success
    assert not grade(tid, p, message(p, good, channel_id=p["channel_id"] + 1)).success
    assert not grade(tid, p, message(p, good, thread_parent_id=1)).success
    assert grade(tid, p).score == 0


def test_a_summary_listing_every_stage_amount_and_date_fails(instances):
    tid = "crm.post_deal_summary"
    for task in instances[tid][:10]:
        p = task.params
        close = date.fromisoformat(p["close_date"])
        good = f"{p['deal']}: {p['stage']}, {money(p['amount'])}, closing {close.isoformat()}"
        assert grade(tid, p, message(p, good)).success
        listing = f"{good} {'; '.join(p['candidates'])}"
        assert not grade(tid, p, message(p, listing)).success
        hedged = f"{p['deal']}: {p['stage']} or Negotiation, {money(p['amount'])}, {close}"
        assert not grade(tid, p, message(p, hedged)).success


def test_a_summary_asked_for_in_one_line_is_not_a_list(instances):
    tid = "crm.post_deal_summary"
    p = instances[tid][0].params
    close = date.fromisoformat(p["close_date"])
    lines = f"{p['deal']}\nStage: {p['stage']}\nAmount: {money(p['amount'])}\nClose: {close}"
    assert not grade(tid, p, message(p, lines)).success
    assert grade(tid, p, message(p, lines.replace("\n", "; "))).success
