"""Who may change which CRM records (`access`), and the permission matrix: who may do what to
a sales rep's records.

Everyone reads everything and may log activities on any record; edits (fields, stage, delete,
bulk, merge, convert) belong to the owner, the owner's managers up the org chart, and admins.
A refused edit raises Forbidden and leaves the world exactly as it was.
"""

from __future__ import annotations

import pytest

from officegym.apps.crm import access, listing, reads, service
from officegym.apps.crm.fields import NOTES, OPPORTUNITIES
from officegym.apps.web.errors import Forbidden
from officegym.seed_data.schema import Note, Opportunity

from .conftest import CrmFacts, employee

OK = "ok"


def _update(db, actor, facts: CrmFacts):
    service.update(db, actor, "opportunities", facts.rep_opportunity, {"next_step": "Call back"})


def _inline(db, actor, facts):
    service.update_field(db, actor, "contacts", facts.rep_contact, "title", "CTO")


def _stage(db, actor, facts):
    service.move_stage(db, actor, facts.rep_opportunity, "Negotiation")


def _bulk(db, actor, facts):
    service.bulk_update(
        db, actor, "opportunities", list(facts.rep_opportunities[:2]), "owner_id", actor.id
    )


def _convert(db, actor, facts):
    service.convert_lead(db, actor, facts.rep_lead, allow_duplicate=True)


def _delete(db, actor, facts):
    lead_id = db.info["rep_lead_to_delete"]
    service.delete(db, actor, "leads", lead_id)


def _read(db, actor, facts):
    record = reads.record(db, actor, "opportunities", facts.rep_opportunity)
    assert record.title
    page = listing.list_records(db, actor, "opportunities", {"owner": str(facts.rep.id)})
    assert page.total >= 1
    return "can edit" if record.can_edit else "read only"


def _log(db, actor, facts):
    service.log_activity(
        db, actor, {"kind": "call", "subject": "Hi", "opportunity_id": facts.rep_opportunity}
    )


ACTIONS = {
    "update": _update,
    "inline": _inline,
    "stage": _stage,
    "bulk": _bulk,
    "convert": _convert,
    "delete": _delete,
    "read": _read,
    "log": _log,
}

EDIT = {name: OK for name in ("update", "inline", "stage", "bulk", "convert", "delete", "log")}
DENY = {name: Forbidden for name in ("update", "inline", "stage", "bulk", "convert", "delete")}
EXPECTED = {
    "rep": {**EDIT, "read": "can edit"},
    "manager": {**EDIT, "read": "can edit"},
    "admin": {**EDIT, "read": "can edit"},
    "other_rep": {**DENY, "read": "read only", "log": OK},
    "outside_manager": {**DENY, "read": "read only", "log": OK},
    "bystander": {**DENY, "read": "read only", "log": OK},
}

CASES = [(who, action) for who in EXPECTED for action in ACTIONS]


@pytest.mark.parametrize(("who", "action"), CASES, ids=[f"{w}-{a}" for w, a in CASES])
def test_permission_matrix(db, store, world, facts, who, action):
    # Arrange: a lead of the rep's that nothing refers to, for the delete case.
    rep = employee(db, facts.rep)
    db.info["rep_lead_to_delete"] = service.create(
        db, rep, "leads", {"first_name": "Del", "last_name": "Able", "company": "Deletable Co"}
    )
    db.commit()
    before = store.diff(world).to_json()
    actor = employee(db, getattr(facts, who))
    expected = EXPECTED[who][action]
    if expected is Forbidden:
        with pytest.raises(Forbidden):
            ACTIONS[action](db, actor, facts)
        db.commit()
        assert store.diff(world).to_json() == before, "a refused edit changed the world"
    else:
        outcome = ACTIONS[action](db, actor, facts)
        assert (outcome or OK) == expected


def test_forbidden_message_names_the_owner_and_the_rule(db, facts):
    with pytest.raises(Forbidden) as caught:
        _update(db, employee(db, facts.other_rep), facts)
    assert facts.rep.name in caught.value.message
    assert "only records you own" in caught.value.message


def test_manager_rule_mentions_reports(db, facts):
    with pytest.raises(Forbidden, match="people who report to you"):
        service.update(
            db,
            employee(db, facts.outside_manager),
            "contacts",
            facts.rep_contact,
            {"title": "VP"},
        )


def test_handing_your_record_to_someone_else_ends_your_edit_rights(db, facts):
    rep = employee(db, facts.rep)
    service.update(db, rep, "contacts", facts.rep_contact, {"owner_id": str(facts.other_rep.id)})
    with pytest.raises(Forbidden):
        service.update(db, rep, "contacts", facts.rep_contact, {"title": "Back to me?"})


def test_notes_belong_to_their_author(db, facts):
    note_id = service.add_note(
        db,
        employee(db, facts.rep),
        {"title": "Mine", "body": "Text", "account_id": facts.rep_account},
    )
    with pytest.raises(Forbidden):
        service.update(db, employee(db, facts.other_rep), "notes", note_id, {"title": "Theirs"})
    service.update(db, employee(db, facts.manager), "notes", note_id, {"title": "Edited"})


# -- the rules themselves -------------------------------------------------------------------


def test_owner_of_a_note_is_its_author(db, facts):
    note_id = service.add_note(
        db,
        employee(db, facts.rep),
        {"title": "Mine", "body": "Text", "account_id": facts.rep_account},
    )
    assert access.owner_of(NOTES, db.get(Note, note_id)) == facts.rep.id


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("rep", True), ("manager", True), ("admin", True), ("other_rep", False), ("bystander", False)],
)
def test_can_edit_follows_owner_and_role(db, facts, who, allowed):
    row = db.get(Opportunity, facts.rep_opportunity)
    actor = employee(db, getattr(facts, who))
    assert access.can_edit(db, actor, OPPORTUNITIES, row) is allowed


def test_require_edit_checks_many_rows_against_one_scope(db, facts):
    rep = employee(db, facts.rep)
    scope = access.edit_scope(db, rep)
    for opportunity_id in facts.rep_opportunities:
        access.require_edit(db, rep, OPPORTUNITIES, db.get(Opportunity, opportunity_id), scope)
    with pytest.raises(Forbidden, match=facts.other_rep.name):
        access.require_edit(db, rep, OPPORTUNITIES, db.get(Opportunity, facts.other_opportunity))
