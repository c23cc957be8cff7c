"""What the CRM shows: records with their history, read-only states, and the merge and lead
conversion views. Reads never write; every kind of record reads the same for everyone."""

from __future__ import annotations

import pytest

from officegym.apps.crm import reads, service
from officegym.apps.crm.fields import OPPORTUNITIES
from officegym.apps.web.errors import NotFound, ValidationError
from officegym.seed_data.schema import Account, Lead

from .conftest import employee


def test_history_reads_names_for_owner_changes(db, facts):
    service.update(
        db,
        employee(db, facts.rep),
        "opportunities",
        facts.rep_opportunity,
        {"owner_id": facts.other_rep.email},
    )
    entry = reads.history(db, "opportunities", facts.rep_opportunity)[0]
    assert (entry.label, entry.old, entry.new) == (
        "Opportunity owner",
        facts.rep.name,
        facts.other_rep.name,
    )
    assert entry.by.id == facts.rep.id


def test_a_converted_lead_reads_as_read_only_with_what_it_became(db, facts):
    lead = db.get(Lead, facts.converted_lead)
    record = reads.record(db, employee(db, lead.owner_id), "leads", lead.id)
    assert not record.can_edit
    assert record.edit_rule == "Converted leads are read-only."
    assert record.converted["account"].id == lead.converted_account_id


def test_a_record_without_its_related_lists_has_none(db, facts):
    record = reads.record(db, employee(db, facts.rep), "accounts", facts.rep_account, related=False)
    assert record.related == record.notes == record.history == ()
    assert record.title == db.get(Account, facts.rep_account).name


def test_unknown_kinds_and_records_are_not_found(db):
    with pytest.raises(NotFound, match="no such kind"):
        reads.spec_of("invoices")
    with pytest.raises(NotFound, match="doesn't exist"):
        reads.row_of(db, OPPORTUNITIES, 10**9)
    with pytest.raises(NotFound):
        reads.row_of(db, OPPORTUNITIES, True)


def test_merge_view_lines_up_the_records_and_marks_differing_fields(db, facts):
    original, duplicate = facts.duplicate_contacts
    view = reads.merge_view(db, employee(db, facts.admin), "contacts", [original, duplicate])
    assert [r.id for r in view.records] == [original, duplicate]
    assert view.differing <= {f.name for f in view.fields}


def test_merge_view_needs_two_or_three_records_of_a_mergeable_kind(db, facts):
    admin = employee(db, facts.admin)
    with pytest.raises(ValidationError, match="2 to 3"):
        reads.merge_view(db, admin, "contacts", [facts.rep_contact])
    with pytest.raises(NotFound, match="can't be merged"):
        reads.merge_view(db, admin, "opportunities", [1, 2])


def test_conversion_candidates_offer_the_account_a_lead_already_is(db, facts):
    rep = employee(db, facts.rep)
    existing = db.get(Account, facts.duplicate_accounts[0])
    lead_id = service.create(
        db,
        rep,
        "leads",
        {"first_name": "Quinn", "last_name": "Archer", "company": existing.name.upper()},
    )
    lead, accounts, _ = reads.conversion_candidates(db, rep, lead_id)
    assert lead.id == lead_id
    assert existing.id in [a.id for a in accounts]
