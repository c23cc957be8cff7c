"""The CRM service: creating, editing, history rows, bulk changes, activities, conversion,
merge.

Refusals are checked the strict way: after the error the test *commits* the session and the
world's diff must still be empty, so the service wrote nothing before saying no.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select, text

from officegym.apps.crm import service
from officegym.apps.crm.duplicates import LikelyDuplicate
from officegym.apps.web.errors import Conflict, Forbidden, ValidationError
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import (
    Account,
    Activity,
    Contact,
    ContactHistory,
    Lead,
    Note,
    Opportunity,
    OpportunityHistory,
    Reservation,
)

from .conftest import employee


def _nothing_written(db, store, world) -> None:
    db.commit()
    assert not store.diff(world), store.diff(world).counts()


def _history(db, opportunity_id: int):
    return db.execute(
        select(OpportunityHistory.field, OpportunityHistory.old_value, OpportunityHistory.new_value)
        .where(OpportunityHistory.opportunity_id == opportunity_id)
        .order_by(OpportunityHistory.id)
    ).all()


# -- create ---------------------------------------------------------------------------------


def test_new_opportunity_gets_defaults_world_time_and_a_created_entry(db, facts):
    rep = employee(db, facts.rep)
    now = world_now(db)
    new_id = service.create(
        db,
        rep,
        "opportunities",
        {"name": "Pilot", "account_id": facts.rep_account, "close_date": str(now.date())},
    )
    opp = db.get(Opportunity, new_id)
    assert (opp.stage, opp.probability, opp.owner_id) == ("Prospecting", 10, rep.id)
    assert opp.created_at == opp.updated_at == now + timedelta(seconds=1)
    assert _history(db, new_id) == [("created", None, None)]


def test_account_can_be_named_instead_of_numbered(db, facts):
    name = db.get(Account, facts.rep_account).name
    new_id = service.create(
        db,
        employee(db, facts.rep),
        "opportunities",
        {"name": "Pilot", "account_id": name.upper(), "close_date": "2030-01-31"},
    )
    assert db.get(Opportunity, new_id).account_id == facts.rep_account


def test_missing_required_fields_are_each_reported(db, store, world, facts):
    with pytest.raises(ValidationError) as caught:
        service.create(db, employee(db, facts.rep), "opportunities", {"amount": "-3"})
    assert set(caught.value.errors) == {"name", "account_id", "close_date", "amount"}
    assert caught.value.errors["amount"] == "Amount can't be negative."
    _nothing_written(db, store, world)


def test_unknown_account_name_is_a_field_error(db, store, world, facts):
    with pytest.raises(ValidationError) as caught:
        service.create(
            db,
            employee(db, facts.rep),
            "contacts",
            {"first_name": "Ada", "last_name": "Quill", "account_id": "No Such Company"},
        )
    assert "No account named “No Such Company”" in caught.value.errors["account_id"]
    _nothing_written(db, store, world)


def test_new_opportunity_cannot_close_before_today(db, store, world, facts):
    yesterday = world_now(db).date() - timedelta(days=1)
    with pytest.raises(ValidationError) as caught:
        service.create(
            db,
            employee(db, facts.rep),
            "opportunities",
            {"name": "Late", "account_id": facts.rep_account, "close_date": str(yesterday)},
        )
    assert caught.value.errors == {"close_date": "Close date can't be before today."}
    _nothing_written(db, store, world)


def test_owner_must_be_an_active_employee(db, store, world, facts):
    with pytest.raises(ValidationError) as caught:
        service.create(
            db,
            employee(db, facts.rep),
            "accounts",
            {"name": "Zebra Works", "owner_id": facts.inactive.id},
        )
    assert "has left" in caught.value.errors["owner_id"]
    _nothing_written(db, store, world)


def test_creating_a_likely_duplicate_account_needs_confirmation(db, store, world, facts):
    original = db.get(Account, facts.duplicate_accounts[0])
    rep = employee(db, facts.rep)
    with pytest.raises(LikelyDuplicate) as caught:
        service.create(db, rep, "accounts", {"name": f"The {original.name}"})
    assert original.id in [d.id for d in caught.value.duplicates]
    _nothing_written(db, store, world)
    new_id = service.create(
        db, rep, "accounts", {"name": f"The {original.name}"}, allow_duplicate=True
    )
    assert db.get(Account, new_id).name == f"The {original.name}"


def test_contact_with_an_existing_email_is_a_likely_duplicate(db, facts):
    existing = db.get(Contact, facts.rep_contact)
    with pytest.raises(LikelyDuplicate, match="Same email".lower()):
        service.create(
            db,
            employee(db, facts.rep),
            "contacts",
            {"first_name": "Someone", "last_name": "Else", "email": existing.email.upper()},
        )


# -- update and history ---------------------------------------------------------------------


def test_update_writes_one_history_row_per_changed_field(db, facts):
    rep = employee(db, facts.rep)
    opp = db.get(Opportunity, facts.rep_opportunity)
    before_amount = opp.amount
    changes = service.update(
        db,
        rep,
        "opportunities",
        opp.id,
        {"amount": "99,000", "next_step": "Send contract", "name": opp.name},
    )
    assert {c.field for c in changes} == {"amount", "next_step"}
    rows = _history(db, opp.id)[-2:]
    assert ("amount", str(before_amount), "99000") in rows
    latest = db.execute(
        select(OpportunityHistory.changed_by_id, OpportunityHistory.changed_at)
        .where(OpportunityHistory.opportunity_id == opp.id)
        .order_by(OpportunityHistory.id.desc())
    ).first()
    assert latest == (rep.id, opp.updated_at)
    assert opp.updated_at == world_now(db) + timedelta(seconds=1)


def test_saving_unchanged_values_writes_nothing(db, store, world, facts):
    opp = db.get(Opportunity, facts.rep_opportunity)
    changes = service.update(
        db,
        employee(db, facts.rep),
        "opportunities",
        opp.id,
        {"name": opp.name, "amount": str(opp.amount), "stage": opp.stage.lower()},
    )
    assert changes == []
    _nothing_written(db, store, world)


def test_stage_change_sets_the_stage_probability(db, facts):
    changes = service.move_stage(db, employee(db, facts.rep), facts.rep_opportunity, "Negotiation")
    opp = db.get(Opportunity, facts.rep_opportunity)
    assert opp.probability == 75
    assert {c.field for c in changes} >= {"stage"}


def test_stage_change_keeps_a_probability_changed_in_the_same_save(db, facts):
    service.update(
        db,
        employee(db, facts.rep),
        "opportunities",
        facts.rep_opportunity,
        {"stage": "Proposal", "probability": "35"},
    )
    assert db.get(Opportunity, facts.rep_opportunity).probability == 35


@pytest.mark.parametrize(("stage", "probability"), [("Closed Won", 100), ("Closed Lost", 0)])
def test_closed_stages_force_their_probability(db, facts, stage, probability):
    service.update(
        db,
        employee(db, facts.rep),
        "opportunities",
        facts.rep_opportunity,
        {"stage": stage, "probability": "40"},
    )
    assert db.get(Opportunity, facts.rep_opportunity).probability == probability


def test_close_date_cannot_move_before_the_deal_was_created(db, store, world, facts):
    opp = db.get(Opportunity, facts.rep_opportunity)
    before = opp.created_at.date() - timedelta(days=1)
    with pytest.raises(ValidationError) as caught:
        service.update(db, employee(db, facts.rep), "opportunities", opp.id, {"close_date": before})
    assert "before the opportunity was created" in caught.value.errors["close_date"]
    _nothing_written(db, store, world)


def test_a_full_form_resending_a_close_date_older_than_creation_still_saves(db, facts):
    # Some won deals were entered after they closed; their stored close date goes back
    # unchanged with every full-form save and must not block the other fields.
    opp = db.get(Opportunity, facts.rep_opportunity)
    opp.created_at = datetime.combine(opp.close_date + timedelta(days=3), datetime.min.time())
    db.commit()
    values = {"close_date": str(opp.close_date), "next_step": "Send the countersigned copy"}
    service.update(db, employee(db, facts.rep), "opportunities", opp.id, values)
    assert db.get(Opportunity, opp.id).next_step == "Send the countersigned copy"


def test_stale_deal_can_be_closed_lost_with_its_past_close_date(db, store, world, facts):
    opp = db.get(Opportunity, facts.stale_opportunity)
    owner = employee(db, opp.owner_id)
    service.update(db, owner, "opportunities", opp.id, {"stage": "Closed Lost"})
    db.commit()
    change = store.diff(world).table("crm_opportunity").updated[opp.id]
    assert change.changes["stage"][1] == "Closed Lost"
    assert change.changes["probability"][1] == 0


def test_history_tables_are_in_the_change_log(db, store, world, facts):
    service.update(
        db, employee(db, facts.rep), "contacts", facts.rep_contact, {"title": "Head of Data"}
    )
    db.commit()
    diff = store.diff(world)
    assert len(diff.table("crm_contact_history").inserted) == 1
    assert diff.table("crm_contact").updated[facts.rep_contact].changes["title"][1] == (
        "Head of Data"
    )


def test_inline_edit_changes_one_field(db, facts):
    service.update_field(db, employee(db, facts.rep), "contacts", facts.rep_contact, "phone", "")
    assert db.get(Contact, facts.rep_contact).phone is None
    with pytest.raises(ValidationError):
        service.update_field(
            db, employee(db, facts.rep), "contacts", facts.rep_contact, "created_at", "x"
        )


def test_same_actions_give_the_same_ids_and_times(store, facts):
    from sqlalchemy.orm import Session

    from officegym.seed_data.connect import make_engine, writer
    from tests.conftest import new_world_id

    outcomes = []
    for _ in range(2):
        world_id = new_world_id("det")
        store.create(world_id, 0, "tiny")
        engine = make_engine(store.world_path(world_id), create=False)
        try:
            with Session(writer(engine)) as db, db.begin():
                rep = employee(db, facts.rep)
                new_id = service.create(
                    db, rep, "accounts", {"name": "Deterministic Labs"}, allow_duplicate=True
                )
                service.update(db, rep, "accounts", new_id, {"phone": "+1 415-555-0100"})
                row = db.get(Account, new_id)
                outcomes.append((new_id, row.created_at, row.updated_at))
        finally:
            engine.dispose()
            store.drop(world_id)
    assert outcomes[0] == outcomes[1]


# -- delete -----------------------------------------------------------------------------------


def test_an_account_with_contacts_cannot_be_deleted(db, store, world, facts):
    with pytest.raises(Conflict, match="Merge it into another record"):
        service.delete(db, employee(db, facts.rep), "accounts", facts.rep_account)
    _nothing_written(db, store, world)


def test_an_unreferenced_record_is_deleted_with_its_history(db, facts):
    rep = employee(db, facts.rep)
    new_id = service.create(
        db, rep, "leads", {"first_name": "Tess", "last_name": "Trial", "company": "Trial Co"}
    )
    service.update(db, rep, "leads", new_id, {"status": "Working"})
    service.delete(db, rep, "leads", new_id)
    assert db.get(Lead, new_id) is None


# -- activities and notes -------------------------------------------------------------------


def test_logging_a_call_on_a_deal_also_files_it_under_the_account(db, facts):
    opp = db.get(Opportunity, facts.other_opportunity)
    activity_id = service.log_activity(
        db,
        employee(db, facts.bystander),
        {"kind": "call", "subject": "Call", "status": "Completed", "opportunity_id": opp.id},
    )
    activity = db.get(Activity, activity_id)
    assert activity.account_id == opp.account_id
    assert activity.owner_id == facts.bystander.id
    assert activity.completed_at == activity.created_at


def test_completing_and_reopening_a_task_stamps_and_clears_completed_at(db, facts):
    rep = employee(db, facts.rep)
    task_id = service.log_activity(
        db, rep, {"subject": "Follow up", "due_date": "2030-01-02", "contact_id": facts.rep_contact}
    )
    service.complete_activity(db, rep, task_id)
    assert db.get(Activity, task_id).completed_at is not None
    service.update(db, rep, "activities", task_id, {"status": "Open"})
    assert db.get(Activity, task_id).completed_at is None


def test_a_note_must_be_attached_to_a_record(db, store, world, facts):
    with pytest.raises(ValidationError, match="Attach the note"):
        service.add_note(db, employee(db, facts.rep), {"title": "Loose", "body": "Text"})
    _nothing_written(db, store, world)
    note_id = service.add_note(
        db,
        employee(db, facts.rep),
        {"title": "Call recap", "body": "Went well", "contact_id": facts.other_contact},
    )
    assert db.get(Note, note_id).author_id == facts.rep.id


# -- bulk -------------------------------------------------------------------------------------


def test_bulk_stage_change_updates_every_selected_deal_at_one_time(db, facts):
    ids = list(facts.rep_opportunities[:3])
    changed = service.bulk_update(
        db, employee(db, facts.rep), "opportunities", ids, "stage", "Proposal"
    )
    assert changed == 3
    rows = db.scalars(select(Opportunity).where(Opportunity.id.in_(ids))).all()
    assert {(r.stage, r.probability) for r in rows} == {("Proposal", 50)}
    assert len({r.updated_at for r in rows}) == 1


def test_bulk_change_including_a_record_you_cannot_edit_changes_nothing(db, store, world, facts):
    ids = [facts.rep_opportunity, facts.other_opportunity]
    with pytest.raises(Forbidden, match="Nothing was changed"):
        service.bulk_update(
            db, employee(db, facts.rep), "opportunities", ids, "owner_id", facts.rep.id
        )
    _nothing_written(db, store, world)


def test_bulk_only_sets_owner_stage_or_status(db, facts):
    with pytest.raises(ValidationError, match="Bulk changes"):
        service.bulk_update(
            db, employee(db, facts.rep), "opportunities", [facts.rep_opportunity], "amount", "1"
        )


def test_manager_reassigns_a_reps_deals_to_themself(db, facts):
    manager = employee(db, facts.manager)
    ids = list(facts.rep_opportunities)
    assert service.bulk_update(db, manager, "opportunities", ids, "owner_id", manager.id) == len(
        ids
    )
    owners = set(db.scalars(select(Opportunity.owner_id).where(Opportunity.id.in_(ids))))
    assert owners == {manager.id}


# -- lead conversion ------------------------------------------------------------------------


def _fresh_lead(db, owner, company="Quokka Analytics", email="qa@quokka.example"):
    return service.create(
        db,
        owner,
        "leads",
        {"first_name": "Quinn", "last_name": "Archer", "company": company, "email": email},
    )


def test_convert_makes_account_contact_and_opportunity(db, facts):
    rep = employee(db, facts.rep)
    lead_id = _fresh_lead(db, rep)
    result = service.convert_lead(db, rep, lead_id, opportunity_name="Quokka pilot")
    lead = db.get(Lead, lead_id)
    assert (lead.status, lead.converted_account_id, lead.converted_contact_id) == (
        "Converted",
        result.account_id,
        result.contact_id,
    )
    assert db.get(Account, result.account_id).name == "Quokka Analytics"
    contact = db.get(Contact, result.contact_id)
    assert (contact.account_id, contact.email) == (result.account_id, "qa@quokka.example")
    opp = db.get(Opportunity, result.opportunity_id)
    assert (opp.name, opp.primary_contact_id, opp.stage) == (
        "Quokka pilot",
        contact.id,
        "Prospecting",
    )


def test_convert_refuses_to_duplicate_an_existing_account(db, store, world, facts):
    rep = employee(db, facts.rep)
    existing = db.get(Account, facts.duplicate_accounts[0])
    lead_id = _fresh_lead(db, rep, company=existing.name.upper() + " Inc.")
    db.commit()
    before = store.diff(world)
    with pytest.raises(LikelyDuplicate) as caught:
        service.convert_lead(db, rep, lead_id)
    assert existing.id in [d.id for d in caught.value.duplicates]
    db.commit()
    assert store.diff(world).counts() == before.counts()


def test_convert_into_an_existing_account_adds_only_a_contact(db, facts):
    rep = employee(db, facts.rep)
    existing = db.get(Account, facts.rep_account)
    lead_id = _fresh_lead(db, rep, company=existing.name)
    accounts = db.scalar(select(func.count(Account.id)))
    result = service.convert_lead(
        db, rep, lead_id, account_id=existing.id, create_opportunity=False
    )
    assert result.account_id == existing.id and not result.created_account
    assert result.opportunity_id is None
    assert db.scalar(select(func.count(Account.id))) == accounts
    assert db.get(Contact, result.contact_id).account_id == existing.id


def test_a_converted_lead_is_read_only(db, store, world, facts):
    lead = db.get(Lead, facts.converted_lead)
    owner = employee(db, lead.owner_id)
    with pytest.raises(Conflict):
        service.convert_lead(db, owner, lead.id)
    with pytest.raises(Conflict):
        service.update(db, owner, "leads", lead.id, {"title": "CEO"})
    _nothing_written(db, store, world)


# -- merge ------------------------------------------------------------------------------------


def test_merge_contacts_keeps_picked_values_and_moves_related_records(db, facts):
    original, duplicate = facts.duplicate_contacts
    admin = employee(db, facts.admin)
    dup = db.get(Contact, duplicate)
    dup_email = dup.email
    db.add(
        Activity(
            kind="call",
            subject="Call the duplicate",
            description="",
            status="Open",
            priority="Normal",
            owner_id=admin.id,
            contact_id=duplicate,
            created_at=world_now(db),
        )
    )
    db.flush()
    kept = service.merge(
        db, admin, "contacts", [original, duplicate], original, {"email": duplicate}
    )
    assert kept == original
    assert db.get(Contact, duplicate) is None
    assert db.get(Contact, original).email == dup_email
    moved = db.scalar(
        select(func.count(Activity.id)).where(
            Activity.subject == "Call the duplicate", Activity.contact_id == original
        )
    )
    assert moved == 1
    assert (
        db.scalar(
            select(func.count(ContactHistory.id)).where(ContactHistory.contact_id == duplicate)
        )
        == 0
    )
    merged = db.scalars(
        select(ContactHistory.old_value).where(
            ContactHistory.contact_id == original, ContactHistory.field == "merged"
        )
    ).all()
    assert merged == [f"{dup.first_name} {dup.last_name} (#{duplicate})"]
    assert db.execute(text("PRAGMA foreign_key_check")).all() == []


def test_merge_accounts_moves_contacts_deals_and_reservations(db, facts):
    original, duplicate = facts.duplicate_accounts
    admin = employee(db, facts.admin)
    reservation = db.scalars(select(Reservation).where(Reservation.account_id.is_not(None))).first()
    reservation.account_id = duplicate
    contact = db.scalars(select(Contact)).first()
    contact.account_id = duplicate
    db.flush()
    service.merge(db, admin, "accounts", [duplicate, original], original)
    db.expire_all()
    assert db.get(Account, duplicate) is None
    assert db.get(Reservation, reservation.id).account_id == original
    assert db.get(Contact, contact.id).account_id == original
    assert db.execute(text("PRAGMA foreign_key_check")).all() == []


def test_merge_needs_edit_rights_on_every_record(db, store, world, facts):
    original, duplicate = facts.duplicate_contacts
    with pytest.raises(Forbidden):
        service.merge(
            db, employee(db, facts.bystander), "contacts", [original, duplicate], original
        )
    _nothing_written(db, store, world)


def test_merge_takes_two_or_three_records(db, facts):
    with pytest.raises(ValidationError, match="2 to 3"):
        service.merge(
            db, employee(db, facts.admin), "contacts", [facts.rep_contact], facts.rep_contact
        )


def test_loss_reason_belongs_to_closed_lost_deals(db, store, world, facts):
    rep = employee(db, facts.rep)
    with pytest.raises(ValidationError) as caught:
        service.update(db, rep, "opportunities", facts.rep_opportunity, {"loss_reason": "Price"})
    assert caught.value.errors == {
        "loss_reason": "Only Closed Lost opportunities have a loss reason."
    }
    _nothing_written(db, store, world)
    service.update(
        db,
        rep,
        "opportunities",
        facts.rep_opportunity,
        {"stage": "Closed Lost", "loss_reason": "lost to competitor"},
    )
    opp = db.get(Opportunity, facts.rep_opportunity)
    assert (opp.stage, opp.loss_reason) == ("Closed Lost", "Lost to competitor")
    service.move_stage(db, rep, opp.id, "Negotiation")
    assert (opp.stage, opp.loss_reason, opp.probability) == ("Negotiation", None, 75)
