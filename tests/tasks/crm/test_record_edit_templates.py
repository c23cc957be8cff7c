"""Templates that edit one CRM record or log on it (a deal's terms, a call, a follow-up
task, completing an activity, a contact's details, an account note): instances on the small
seed-0 world and verifiers on hand-made diffs.
"""

from __future__ import annotations

from datetime import date

import pytest

from officegym.tasks.crm._calendar import add_business_days
from officegym.tasks.crm._matchers import same_phone
from officegym.tasks.verdict import Verdict
from tests.tasks.episodes import grade, one, row, update

IDS = (
    "crm.update_deal_terms",
    "crm.log_call",
    "crm.follow_up_task",
    "crm.complete_activity",
    "crm.update_contact_details",
    "crm.add_account_note",
)
SEEDS = range(30)
STAMP = "2025-09-17 14:30:05"
# What a gaming agent appends to a text it was asked to write.
SPAM = " Also: see https://deals.example.test/win and @Dana Diaz - act now!!!"
STRAY_NOTE = {
    "crm_note": {
        "inserted": {
            9900: {"id": 9900, "title": "Done, closing this out.", "body": "x", "author_id": 1,
                   "account_id": 1, "contact_id": None, "opportunity_id": None}
        }
    }
}  # fmt: skip


def user_id(world, email: str) -> int:
    return one(world, "SELECT id FROM people_employee WHERE email = ?", email)[0]


def updated(world, table: str, pk: int, **new) -> dict:
    old = row(world, table, pk)
    changes = {k: (old[k], v) for k, v in new.items()}
    if "updated_at" in old:
        changes["updated_at"] = (old["updated_at"], STAMP)
    return {table: {"updated": {pk: update(old, **changes)}}}


def inserted(table: str, pk: int = 9001, **values) -> dict:
    return {table: {"inserted": {pk: {"id": pk, **values}}}}


def merged(*diffs: dict) -> dict:
    out: dict = {}
    for diff in diffs:
        for table, parts in diff.items():
            for how, rows in parts.items():
                out.setdefault(table, {}).setdefault(how, {}).update(rows)
    return out


def params_of(instances, template_id: str, *, feasible: bool = True, decoy: bool = False):
    return next(
        t.params
        for t in instances[template_id]
        if t.params.get("feasible", True) is feasible and (t.params.get("decoy") or not decoy)
    )


def passes(verdict: Verdict) -> bool:
    return verdict.success and verdict.score == 1.0


# -- instances -----------------------------------------------------------------------------


@pytest.mark.parametrize("template_id", ["crm.update_deal_terms", "crm.update_contact_details"])
def test_about_one_instance_in_six_is_impossible(instances, template_id):
    impossible = sum(t.params["feasible"] is False for t in instances[template_id])
    assert 2 <= impossible <= 10


def test_deal_terms_name_an_open_deal_of_the_user_and_a_date_the_app_accepts_or_refuses(
    instances, world
):
    for task in instances["crm.update_deal_terms"]:
        p = task.params
        deal = row(world, "crm_opportunity", p["deal_id"])
        assert deal["name"] == p["deal"] and p["deal"] in task.goal
        assert p["amount_text"] in task.goal and p["close_text"] in task.goal
        assert deal["stage"] not in ("Closed Won", "Closed Lost")
        assert user_id(world, p["user"]) == deal["owner_id"]
        assert p["amount"] != deal["amount"] and p["close_date"] != deal["close_date"]
        created = date.fromisoformat(deal["created_at"][:10])
        close = date.fromisoformat(p["close_date"])
        if p["feasible"]:
            assert close > date(2025, 9, 17) > created
        else:
            # Before the creation day by more than a time zone's worth.
            assert (created - close).days >= 5 and p["decoy"] is None
        if p["decoy"]:
            (owner,) = one(
                world, "SELECT owner_id FROM crm_opportunity WHERE name = ?", p["decoy"]["deal"]
            )
            assert owner == deal["owner_id"] and p["decoy"]["deal"] != p["deal"]


def test_calls_name_a_unique_contact_and_the_decoy_works_at_the_same_account(instances, world):
    for task in instances["crm.log_call"]:
        p = task.params
        contact = row(world, "crm_contact", p["contact_id"])
        assert f"{contact['first_name']} {contact['last_name']}" == p["contact"]
        assert f"“{p['contact']}”" in task.goal and f"“{p['subject']}”" in task.goal
        assert f"“{p['comment']}”" in task.goal
        (count,) = one(
            world,
            "SELECT count(*) FROM crm_contact WHERE first_name || ' ' || last_name = ?",
            p["contact"],
        )
        assert count == 1 and user_id(world, p["user"]) == p["user_id"]
        if p["decoy"]:
            (account,) = one(
                world,
                "SELECT account_id FROM crm_contact WHERE first_name || ' ' || last_name = ?",
                p["decoy"]["contact"],
            )
            assert account == contact["account_id"] and p["decoy"]["contact"] != p["contact"]


def test_business_days_skip_the_weekend():
    wednesday = date(2025, 9, 17)
    assert [add_business_days(wednesday, n).isoformat() for n in range(2, 8)] == [
        "2025-09-19",
        "2025-09-22",
        "2025-09-23",
        "2025-09-24",
        "2025-09-25",
        "2025-09-26",
    ]


def test_follow_up_tasks_are_due_the_counted_business_day(instances, world):
    for task in instances["crm.follow_up_task"]:
        p = task.params
        deal = row(world, "crm_opportunity", p["deal_id"])
        assert deal["name"] == p["deal"] and deal["stage"] not in ("Closed Won", "Closed Lost")
        assert user_id(world, p["user"]) == deal["owner_id"] == p["user_id"]
        assert 2 <= p["days"] <= 7 and f"{p['days']} " in task.goal
        assert p["due_date"] == add_business_days(date(2025, 9, 17), p["days"]).isoformat()
        assert date.fromisoformat(p["due_date"]).weekday() < 5


def test_activities_to_complete_are_open_owned_by_the_user_and_unique_on_the_deal(instances, world):
    decoys = 0
    for task in instances["crm.complete_activity"]:
        p = task.params
        activity = row(world, "crm_activity", p["activity_id"])
        assert activity["status"] == "Open" and activity["subject"] == p["subject"]
        assert activity["opportunity_id"] == p["deal_id"] and p["deal"] in task.goal
        assert activity["owner_id"] == p["user_id"] == user_id(world, p["user"])
        (same,) = one(
            world,
            "SELECT count(*) FROM crm_activity WHERE opportunity_id = ? AND lower(subject) = ?",
            p["deal_id"],
            p["subject"].lower(),
        )
        assert same == 1
        if p["decoy"]:
            decoys += 1
            status, owner = one(
                world,
                "SELECT status, owner_id FROM crm_activity WHERE opportunity_id = ? "
                "AND subject = ?",
                p["deal_id"],
                p["decoy"]["subject"],
            )
            assert status == "Open" and owner == p["user_id"]
    assert decoys >= 20


def test_contact_updates_are_asked_by_the_owner_or_by_a_rep_who_cannot_edit(instances, world):
    for task in instances["crm.update_contact_details"]:
        p = task.params
        contact = row(world, "crm_contact", p["contact_id"])
        assert contact["phone"] == p["old_phone"] and contact["title"] == p["old_title"]
        assert p["phone"] != p["old_phone"] and p["title"] != p["old_title"]
        assert p["phone"][:-4] == p["old_phone"][:-4] and p["phone"] in task.goal
        uid, role = one(world, "SELECT id, role FROM people_employee WHERE email = ?", p["user"])
        if p["feasible"]:
            assert uid == contact["owner_id"]
        else:
            assert uid != contact["owner_id"] and role == "member" and p["decoy"] is None


def test_account_notes_name_a_unique_account_and_a_look_alike_decoy(instances, world):
    for task in instances["crm.add_account_note"]:
        p = task.params
        account = row(world, "crm_account", p["account_id"])
        assert account["name"] == p["account"] and p["account"] in task.goal
        assert account["owner_id"] == p["user_id"] == user_id(world, p["user"])
        assert f"“{p['title']}”" in task.goal and f"“{p['body']}”" in task.goal
        if p["decoy"]:
            other = p["decoy"]["account"]
            assert other != p["account"]
            assert other.split()[0].casefold() == p["account"].split()[0].casefold()


# -- verifiers -----------------------------------------------------------------------------


def test_deal_terms_pass_with_both_fields_and_fail_otherwise(instances, world):
    p = params_of(instances, "crm.update_deal_terms", decoy=True)
    both = updated(
        world, "crm_opportunity", p["deal_id"], amount=p["amount"], close_date=p["close_date"]
    )
    tid = "crm.update_deal_terms"
    assert passes(grade(tid, p, both))
    nothing = grade(tid, p)
    assert not nothing.success and nothing.score == 0.0
    amount_only = updated(world, "crm_opportunity", p["deal_id"], amount=p["amount"])
    assert not grade(tid, p, amount_only).success
    extra = updated(
        world, "crm_opportunity", p["deal_id"], amount=p["amount"], close_date=p["close_date"],
        next_step="Call them",
    )  # fmt: skip
    assert not grade(tid, p, extra).success
    assert not grade(tid, p, merged(both, STRAY_NOTE)).success
    (decoy_id,) = one(world, "SELECT id FROM crm_opportunity WHERE name = ?", p["decoy"]["deal"])
    wrong = updated(
        world, "crm_opportunity", decoy_id, amount=p["amount"], close_date=p["close_date"]
    )
    assert not grade(tid, p, wrong).success


def test_a_refused_close_date_pays_only_the_report(instances, world):
    tid = "crm.update_deal_terms"
    p = params_of(instances, tid, feasible=False)
    assert passes(grade(tid, p, infeasible="before the deal was created"))
    assert not grade(tid, p).success
    amount_only = updated(world, "crm_opportunity", p["deal_id"], amount=p["amount"])
    assert not grade(tid, p, amount_only, infeasible="date refused").success


def call(p, contact_id=None, **override) -> dict:
    values = {
        "kind": "call",
        "subject": p["subject"],
        "description": p["comment"],
        "status": "Completed",
        "priority": "Normal",
        "due_date": "2025-09-17",
        "owner_id": p["user_id"],
        "contact_id": contact_id or p["contact_id"],
        "opportunity_id": None,
    }
    return inserted("crm_activity", **{**values, **override})


def test_a_logged_call_passes_and_near_misses_fail(instances, world):
    tid = "crm.log_call"
    p = params_of(instances, tid, decoy=True)
    assert passes(grade(tid, p, call(p, subject=p["subject"].upper())))
    nothing = grade(tid, p)
    assert not nothing.success and nothing.score == 0.0
    assert not grade(tid, p, call(p, kind="task", status="Open")).success
    assert not grade(tid, p, call(p, description="")).success
    assert not grade(tid, p, call(p, subject="Call")).success
    (decoy_id,) = one(
        world,
        "SELECT id FROM crm_contact WHERE first_name || ' ' || last_name = ?",
        p["decoy"]["contact"],
    )
    assert not grade(tid, p, call(p, decoy_id)).success
    assert not grade(tid, p, merged(call(p), STRAY_NOTE)).success
    again = {k: v for k, v in call(p)["crm_activity"]["inserted"][9001].items() if k != "id"}
    twice = merged(call(p), inserted("crm_activity", 9002, **again))
    assert not grade(tid, p, twice).success


def test_a_logged_call_holds_the_quoted_comment_and_nothing_it_was_not_given(instances, world):
    tid = "crm.log_call"
    p = params_of(instances, tid)
    assert passes(grade(tid, p, call(p, description=p["comment"].lower(), due_date=None)))
    assert not grade(tid, p, call(p, description=p["comment"] + SPAM)).success
    assert not grade(tid, p, call(p, description=f"{p['comment']} Will call again.")).success
    assert not grade(tid, p, call(p, due_date="2031-01-01")).success
    assert not grade(tid, p, call(p, priority="High")).success
    (deal,) = one(world, "SELECT id FROM crm_opportunity ORDER BY id")
    assert not grade(tid, p, call(p, opportunity_id=deal)).success


def task_row(p, **override) -> dict:
    values = {
        "kind": "task",
        "subject": p["subject"],
        "description": "",
        "status": "Open",
        "priority": "Normal",
        "due_date": p["due_date"],
        "owner_id": p["user_id"],
        "opportunity_id": p["deal_id"],
    }
    return inserted("crm_activity", **{**values, **override})


def test_a_follow_up_task_needs_the_exact_due_date_and_deal(instances, world):
    tid = "crm.follow_up_task"
    p = params_of(instances, tid, decoy=True)
    assert passes(grade(tid, p, task_row(p)))
    assert grade(tid, p).score == 0.0
    calendar_days = date(2025, 9, 17).toordinal() + p["days"]
    wrong_day = date.fromordinal(calendar_days).isoformat()
    if wrong_day != p["due_date"]:
        assert not grade(tid, p, task_row(p, due_date=wrong_day)).success
    assert not grade(tid, p, task_row(p, due_date=None)).success
    assert not grade(tid, p, task_row(p, kind="meeting")).success
    (decoy_id,) = one(world, "SELECT id FROM crm_opportunity WHERE name = ?", p["decoy"]["deal"])
    assert not grade(tid, p, task_row(p, opportunity_id=decoy_id)).success
    assert not grade(tid, p, merged(task_row(p), STRAY_NOTE)).success


def test_a_follow_up_task_holds_only_what_was_asked(instances, world):
    tid = "crm.follow_up_task"
    p = params_of(instances, tid)
    assert not grade(tid, p, task_row(p, subject=p["subject"] + SPAM)).success
    assert not grade(tid, p, task_row(p, description="zz junk")).success
    assert not grade(tid, p, task_row(p, priority="High")).success
    (contact,) = one(world, "SELECT id FROM crm_contact ORDER BY id")
    assert not grade(tid, p, task_row(p, contact_id=contact)).success


def test_completing_the_activity_passes_and_the_sibling_fails(instances, world):
    tid = "crm.complete_activity"
    p = params_of(instances, tid, decoy=True)
    done = updated(world, "crm_activity", p["activity_id"], status="Completed", completed_at=STAMP)
    assert passes(grade(tid, p, done))
    assert grade(tid, p).score == 0.0
    status_only = updated(world, "crm_activity", p["activity_id"], status="Completed")
    assert not grade(tid, p, status_only).success
    (sibling,) = one(
        world,
        "SELECT id FROM crm_activity WHERE opportunity_id = ? AND subject = ?",
        p["deal_id"],
        p["decoy"]["subject"],
    )
    wrong = updated(world, "crm_activity", sibling, status="Completed", completed_at=STAMP)
    assert not grade(tid, p, wrong).success
    both = merged(done, wrong)
    assert not grade(tid, p, both).success
    assert not grade(tid, p, merged(done, STRAY_NOTE)).success


def test_the_phone_is_matched_on_its_digits_with_nothing_else_in_the_field():
    matcher = same_phone("+1 214-851-7883")
    assert matcher.matches("(214) 851 7883") and matcher.matches("+1 214-851-7883")
    assert not matcher.matches("+1 214-851-7884") and not matcher.matches(None)
    assert not matcher.matches("+1 214-851-7883" + SPAM)


def test_contact_details_need_both_fields_on_the_right_contact(instances, world):
    tid = "crm.update_contact_details"
    p = params_of(instances, tid, decoy=True)
    both = updated(
        world, "crm_contact", p["contact_id"], phone=p["phone"], title=p["title"].lower()
    )
    assert passes(grade(tid, p, both))
    assert grade(tid, p).score == 0.0
    assert not grade(
        tid, p, updated(world, "crm_contact", p["contact_id"], phone=p["phone"])
    ).success
    assert not grade(tid, p, updated(world, "crm_contact", p["contact_id"], phone=p["phone"],
                                     title=p["title"], email="x@example.com")).success  # fmt: skip
    (decoy_id,) = one(
        world,
        "SELECT id FROM crm_contact WHERE first_name || ' ' || last_name = ?",
        p["decoy"]["contact"],
    )
    wrong = updated(world, "crm_contact", decoy_id, phone=p["phone"], title=p["title"])
    assert not grade(tid, p, wrong).success
    assert not grade(tid, p, merged(both, STRAY_NOTE)).success


def test_contact_details_with_more_than_the_number_and_title_fail(instances, world):
    tid = "crm.update_contact_details"
    p = params_of(instances, tid)
    spam_phone = updated(
        world, "crm_contact", p["contact_id"], phone=p["phone"] + SPAM, title=p["title"]
    )
    assert not grade(tid, p, spam_phone).success
    spam_title = updated(
        world, "crm_contact", p["contact_id"], phone=p["phone"], title=p["title"] + SPAM
    )
    assert not grade(tid, p, spam_title).success


def test_a_read_only_contact_pays_only_the_report(instances, world):
    tid = "crm.update_contact_details"
    p = params_of(instances, tid, feasible=False)
    assert passes(grade(tid, p, infeasible="read only"))
    assert not grade(tid, p).success
    edit = updated(world, "crm_contact", p["contact_id"], phone=p["phone"], title=p["title"])
    assert not grade(tid, p, edit, infeasible="read only").success


def note(p, account_id=None, **override) -> dict:
    values = {
        "title": p["title"],
        "body": p["body"],
        "author_id": p["user_id"],
        "account_id": account_id or p["account_id"],
        "contact_id": None,
        "opportunity_id": None,
    }
    return inserted("crm_note", **{**values, **override})


def test_an_account_note_passes_and_a_stray_note_or_the_look_alike_fails(instances, world):
    tid = "crm.add_account_note"
    p = params_of(instances, tid, decoy=True)
    assert passes(grade(tid, p, note(p)))
    assert grade(tid, p).score == 0.0
    # The gate's collateral is a note on another account: an unclaimed insert.
    stray = note(p)
    stray["crm_note"]["inserted"].update(STRAY_NOTE["crm_note"]["inserted"])
    verdict = grade(tid, p, stray)
    assert not verdict.success and verdict.score < 1.0
    assert not grade(tid, p, note(p, title="Note")).success
    assert not grade(tid, p, note(p, body="See above.")).success
    assert not grade(tid, p, note(p, body=p["body"] + SPAM)).success
    assert not grade(tid, p, note(p, body=f"{p['body']} Will follow up.")).success
    assert not grade(tid, p, note(p, title=p["title"] + SPAM)).success
    assert not grade(tid, p, note(p, opportunity_id=1)).success
    (decoy_id,) = one(world, "SELECT id FROM crm_account WHERE name = ?", p["decoy"]["account"])
    assert not grade(tid, p, note(p, decoy_id)).success
