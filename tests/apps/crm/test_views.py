"""The CRM's pages over HTTP: every page renders, every form writes or refuses with a message.

A refused form answers 4xx and the world's diff stays empty (the web kit rolls back).
"""

from __future__ import annotations

import csv
import io
import re
import sqlite3

import pytest

from .conftest import one, rows, token

PAGES = [
    "/crm/",
    "/crm/accounts",
    "/crm/contacts",
    "/crm/leads",
    "/crm/opportunities",
    "/crm/activities",
    "/crm/opportunities?view=closing_this_quarter",
    "/crm/activities?view=my_overdue",
    "/crm/pipeline",
    "/crm/reports",
    "/crm/duplicates",
    "/crm/duplicates?object=accounts",
    "/crm/duplicates?object=leads",
    "/crm/import",
    "/crm/search?q=a",
    "/crm/accounts/new",
    "/crm/contacts/new",
    "/crm/leads/new",
    "/crm/opportunities/new",
    "/crm/activities/new",
    "/crm/accounts/1",
    "/crm/contacts/1",
    "/crm/leads/1",
    "/crm/opportunities/1",
    "/crm/activities/1",
    "/crm/notes/1",
]


@pytest.fixture
def rep(as_person, facts):
    return as_person(facts.rep)


def _diff(store, world):
    return store.diff(world).without("world_meta")


def test_crm_pages_send_visitors_to_sign_in(client):
    response = client.get("/crm/opportunities")
    assert response.status_code == 302
    assert "/login?next=/crm/opportunities" in response.headers["Location"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_with_landmarks_and_local_assets_only(rep, path):
    response = rep.get(path)
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html[:2000]
    assert '<nav class="crm-nav" aria-label="CRM">' in html
    assert '<main id="main"' in html
    assert not re.search(r'(?:src|href|action)="(?![/#?]|mailto:|https?://www\.)', html)
    assert " style=" not in html and "<style" not in html


def test_launcher_lists_the_crm(rep):
    html = rep.get("/").get_data(as_text=True)
    assert 'href="/crm/"' in html and "Accounts, contacts, leads and deals" in html


def test_record_page_shows_related_lists_activity_and_history(rep, facts):
    html = rep.get(f"/crm/accounts/{facts.rep_account}").get_data(as_text=True)
    for heading in ("Details", "Contacts", "Opportunities", "Activity", "Notes", "History"):
        assert f">{heading}" in html
    assert "Created." in html


def test_inline_edit_saves_one_field_and_records_history(rep, facts, store, world):
    path = f"/crm/opportunities/{facts.rep_opportunity}"
    form = rep.get(f"{path}?edit=next_step").get_data(as_text=True)
    assert 'name="value"' in form and 'id="f-next_step"' in form
    response = rep.post(
        f"{path}/field",
        data={"field": "next_step", "value": "Send the MSA", "csrf_token": token(rep)},
    )
    assert response.status_code == 302
    assert (
        one(
            store,
            world,
            "SELECT next_step FROM crm_opportunity WHERE id=?",
            (facts.rep_opportunity,),
        )
        == "Send the MSA"
    )
    page = rep.get(path).get_data(as_text=True)
    assert "Send the MSA" in page and "Next step</td>" in page


def test_inline_edit_with_a_bad_value_shows_the_message_and_writes_nothing(
    rep, facts, store, world
):
    response = rep.post(
        f"/crm/contacts/{facts.rep_contact}/field",
        data={"field": "email", "value": "not-an-email", "csrf_token": token(rep)},
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'aria-invalid="true"' in html
    assert "Email must be an email address" in html
    assert 'value="not-an-email"' in html
    assert not _diff(store, world)


def test_full_edit_form_reports_every_bad_field_and_writes_nothing(rep, facts, store, world):
    path = f"/crm/opportunities/{facts.rep_opportunity}/edit"
    form = rep.get(path).get_data(as_text=True)
    assert 'name="stage"' in form and 'name="close_date"' in form
    data = {
        "name": "",
        "account_id": "Nobody Inc",
        "stage": "Almost there",
        "amount": "-10",
        "close_date": "1999-01-01",
        "owner_id": str(facts.rep.id),
        "csrf_token": token(rep),
    }
    response = rep.post(path, data=data)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    for message in (
        "Opportunity name is required.",
        "No account named “Nobody Inc”",
        "Stage must be one of",
        "Amount can&#39;t be negative.",
        "Close date can&#39;t be before the opportunity was created",
    ):
        assert message in html
    assert html.count('aria-invalid="true"') == 5
    assert 'role="alert"' in html
    assert not _diff(store, world)


def test_editing_someone_elses_record_is_forbidden(rep, facts, store, world):
    path = f"/crm/opportunities/{facts.other_opportunity}"
    page = rep.get(path).get_data(as_text=True)
    assert "Read only for you" in page and "?edit=" not in page
    assert rep.get(f"{path}/edit").status_code == 403
    t = token(rep)
    for url, data in [
        (f"{path}/edit", {"name": "Mine now", "csrf_token": t}),
        (f"{path}/field", {"field": "amount", "value": "1", "csrf_token": t}),
        (
            f"/crm/opportunities/{facts.other_opportunity}/stage",
            {"stage": "Negotiation", "csrf_token": t},
        ),
        (f"{path}/delete", {"csrf_token": t}),
    ]:
        response = rep.post(url, data=data)
        assert response.status_code == 403, url
        assert "belongs to" in response.get_data(as_text=True)
    assert not _diff(store, world)


def test_post_without_csrf_token_is_refused(rep, facts, store, world):
    response = rep.post(
        f"/crm/contacts/{facts.rep_contact}/field", data={"field": "title", "value": "X"}
    )
    assert response.status_code == 400
    assert not _diff(store, world)


def test_new_account_form_creates_and_opens_the_record(rep, store, world):
    response = rep.post(
        "/crm/accounts/new",
        data={
            "name": "Zanzibar Robotics",
            "account_type": "Prospect",
            "website": "zanzibar.example",
            "csrf_token": token(rep),
        },
    )
    assert response.status_code == 302
    new_id = one(store, world, "SELECT id FROM crm_account WHERE name='Zanzibar Robotics'")
    assert response.headers["Location"].endswith(f"/crm/accounts/{new_id}")


def test_new_duplicate_account_asks_before_saving(rep, facts, store, world):
    name = one(
        store, world, "SELECT name FROM crm_account WHERE id=?", (facts.duplicate_accounts[0],)
    )
    data = {"name": name.lower(), "account_type": "Prospect", "csrf_token": token(rep)}
    response = rep.post("/crm/accounts/new", data=data)
    html = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "Possible duplicates" in html and 'name="allow_duplicate"' in html
    assert not _diff(store, world)
    response = rep.post("/crm/accounts/new", data={**data, "allow_duplicate": "1"})
    assert response.status_code == 302


def test_new_contact_from_an_account_page_is_linked(rep, facts, store, world):
    form = rep.get(f"/crm/contacts/new?account_id={facts.rep_account}").get_data(as_text=True)
    name = one(store, world, "SELECT name FROM crm_account WHERE id=?", (facts.rep_account,))
    assert f'value="{name}"' in form.replace("&amp;", "&")
    rep.post(
        "/crm/contacts/new",
        data={
            "first_name": "Nia",
            "last_name": "Okafor",
            "account_id": name,
            "csrf_token": token(rep),
        },
    )
    assert one(store, world, "SELECT account_id FROM crm_contact WHERE last_name='Okafor'") == (
        facts.rep_account
    )


def test_bulk_change_asks_for_confirmation_then_applies(rep, facts, store, world):
    ids = [str(i) for i in facts.rep_opportunities[:2]]
    t = token(rep)
    step1 = rep.post(
        "/crm/opportunities/bulk",
        data={"ids": ids, "field": "stage", "value_stage": "Proposal", "csrf_token": t},
    )
    html = step1.get_data(as_text=True)
    assert step1.status_code == 200 and "Confirm change</button>" in html
    assert not _diff(store, world)
    step2 = rep.post(
        "/crm/opportunities/bulk",
        data={"ids": ids, "field": "stage", "value": "Proposal", "confirm": "yes", "csrf_token": t},
    )
    assert step2.status_code == 302
    stages = rows(
        store, world, f"SELECT DISTINCT stage FROM crm_opportunity WHERE id IN ({','.join(ids)})"
    )
    assert stages == [("Proposal",)]


def test_bulk_change_with_a_forbidden_record_changes_nothing(rep, facts, store, world):
    ids = [str(facts.rep_opportunity), str(facts.other_opportunity)]
    t = token(rep)
    step1 = rep.post(
        "/crm/opportunities/bulk",
        data={
            "ids": ids,
            "field": "owner_id",
            "value_owner_id": str(facts.rep.id),
            "csrf_token": t,
        },
    )
    assert step1.status_code == 403
    assert "Confirm change</button>" not in step1.get_data(as_text=True)
    step2 = rep.post(
        "/crm/opportunities/bulk",
        data={
            "ids": ids,
            "field": "owner_id",
            "value": str(facts.rep.id),
            "confirm": "yes",
            "csrf_token": t,
        },
    )
    assert step2.status_code == 403
    assert not _diff(store, world)


def test_bulk_without_a_selection_explains(rep):
    response = rep.post(
        "/crm/opportunities/bulk",
        data={"field": "stage", "value_stage": "Proposal", "csrf_token": token(rep)},
        follow_redirects=True,
    )
    assert "Select at least one record." in response.get_data(as_text=True)


def test_pipeline_card_moves_with_its_stage_menu(rep, facts, store, world):
    board = rep.get("/crm/pipeline?owner=me&show_prospecting=200&show_qualification=200").get_data(
        as_text=True
    )
    assert f'action="/crm/opportunities/{facts.rep_opportunity}/stage"' in board
    response = rep.post(
        f"/crm/opportunities/{facts.rep_opportunity}/stage",
        data={"stage": "Closed Won", "next": "/crm/pipeline?owner=me", "csrf_token": token(rep)},
    )
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/crm/pipeline?owner=me")
    assert one(
        store,
        world,
        "SELECT stage, probability FROM crm_opportunity WHERE id=?",
        (facts.rep_opportunity,),
    ) == ("Closed Won", 100)


def test_pipeline_move_ignores_an_offsite_next(rep, facts):
    response = rep.post(
        f"/crm/opportunities/{facts.rep_opportunity}/stage",
        data={"stage": "Proposal", "next": "https://evil.example/", "csrf_token": token(rep)},
    )
    assert "evil" not in response.headers["Location"]


def test_log_a_call_from_the_record_page(rep, facts, store, world):
    response = rep.post(
        f"/crm/opportunities/{facts.other_opportunity}/log/call",
        data={
            "subject": "Pricing call",
            "description": "Asked for 10%",
            "due_date": "2025-09-17",
            "csrf_token": token(rep),
        },
    )
    assert response.status_code == 302
    kind, status, opp = one(
        store,
        world,
        "SELECT kind, status, opportunity_id FROM crm_activity WHERE subject='Pricing call'",
    )
    assert (kind, status, opp) == ("call", "Completed", facts.other_opportunity)


def test_new_task_without_a_subject_reopens_the_composer(rep, facts, store, world):
    response = rep.post(
        f"/crm/contacts/{facts.rep_contact}/log/task",
        data={
            "subject": "",
            "due_date": "2025-09-20",
            "priority": "High",
            "owner_id": str(facts.rep.id),
            "csrf_token": token(rep),
        },
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Subject is required." in html and '<details class="composer" open>' in html
    assert not _diff(store, world)


def test_convert_page_offers_matching_accounts_and_converts(as_person, facts, store, world):
    owner = as_person(facts.lead_owner)
    page = owner.get(f"/crm/leads/{facts.rep_lead}/convert").get_data(as_text=True)
    assert 'name="account_choice"' in page
    response = owner.post(
        f"/crm/leads/{facts.rep_lead}/convert",
        data={
            "account_choice": "new",
            "account_name": "Brand New Co",
            "contact_choice": "new",
            "create_opportunity": "1",
            "opportunity_name": "Brand New Co — pilot",
            "owner_id": str(facts.lead_owner.id),
            "allow_duplicate": "1",
            "csrf_token": token(owner),
        },
    )
    assert response.status_code == 302
    status, account = one(
        store,
        world,
        "SELECT status, converted_account_id FROM crm_lead WHERE id=?",
        (facts.rep_lead,),
    )
    assert status == "Converted"
    assert (
        one(store, world, "SELECT name FROM crm_account WHERE id=?", (account,)) == "Brand New Co"
    )


def test_convert_into_a_likely_duplicate_account_is_held_back(as_person, facts, store, world):
    owner = as_person(facts.lead_owner)
    name = one(
        store, world, "SELECT name FROM crm_account WHERE id=?", (facts.duplicate_accounts[0],)
    )
    response = owner.post(
        f"/crm/leads/{facts.rep_lead}/convert",
        data={
            "account_choice": "new",
            "account_name": name.upper(),
            "contact_choice": "new",
            "csrf_token": token(owner),
        },
    )
    assert response.status_code == 409
    page = response.get_data(as_text=True)
    assert "These already exist" in page
    # The user left "Create an opportunity" unticked: the page shown again keeps it so.
    assert 'name="create_opportunity" value="1">' in page
    assert 'name="create_opportunity" value="1" checked' not in page
    assert not _diff(store, world)


def test_merge_page_compares_and_merges(as_person, facts, store, world):
    admin = as_person(facts.admin)
    original, duplicate = facts.duplicate_contacts
    page = admin.get(f"/crm/contacts/merge?ids={original}&ids={duplicate}").get_data(as_text=True)
    assert 'name="master_id"' in page and 'name="pick_last_name"' in page
    response = admin.post(
        "/crm/contacts/merge",
        data={
            "ids": [str(original), str(duplicate)],
            "master_id": str(original),
            "pick_email": str(duplicate),
            "csrf_token": token(admin),
        },
    )
    assert response.status_code == 302
    assert rows(store, world, "SELECT id FROM crm_contact WHERE id=?", (duplicate,)) == []


def test_duplicates_page_lists_the_planted_pairs(rep, facts):
    html = rep.get("/crm/duplicates?object=contacts").get_data(as_text=True)
    original, duplicate = facts.duplicate_contacts
    assert f"ids={original}&amp;ids={duplicate}" in html


def test_export_downloads_every_row_of_the_view(rep, facts, store, world):
    response = rep.get("/crm/contacts/export.csv?view=all&per_page=25")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    table = list(csv.reader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))
    assert table[0][:2] == ["ID", "Name"]
    assert len(table) - 1 == one(store, world, "SELECT count(*) FROM crm_contact")


def test_delete_asks_then_deletes(rep, facts, store, world):
    rep.post(
        f"/crm/accounts/{facts.rep_account}/log/note",
        data={"title": "Scratch", "body": "to delete", "csrf_token": token(rep)},
    )
    note_id = one(store, world, "SELECT id FROM crm_note WHERE title='Scratch'")
    assert "can't be undone" in rep.get(f"/crm/notes/{note_id}/delete").get_data(as_text=True)
    rep.post(f"/crm/notes/{note_id}/delete", data={"csrf_token": token(rep)})
    assert rows(store, world, "SELECT id FROM crm_note WHERE id=?", (note_id,)) == []


def test_unknown_records_are_not_found(rep):
    assert rep.get("/crm/opportunities/999999").status_code == 404
    assert rep.get("/crm/widgets").status_code == 404


def test_bad_list_filters_answer_422_with_the_message(rep):
    response = rep.get("/crm/opportunities?amount_min=lots")
    assert response.status_code == 422
    assert "Enter a whole number." in response.get_data(as_text=True)


def test_an_activity_with_no_description_saves_from_its_edit_form_unchanged(
    rep, facts, store, world
):
    (activity, kind, subject, status, priority, due) = rows(
        store,
        world,
        "SELECT id, kind, subject, status, priority, due_date FROM crm_activity "
        "WHERE owner_id = ? ORDER BY id",
        (facts.rep.id,),
    )[0]
    conn = sqlite3.connect(store.world_path(world))
    with conn:
        conn.execute("UPDATE crm_activity SET description = '' WHERE id = ?", (activity,))
    conn.close()
    path = f"/crm/activities/{activity}/edit"
    assert rep.get(path).status_code == 200
    data = {
        "kind": kind,
        "subject": subject,
        "description": "",
        "status": status,
        "priority": priority,
        "due_date": due or "",
        "owner_id": str(facts.rep.id),
        "csrf_token": token(rep),
    }
    response = rep.post(path, data=data)
    assert response.status_code == 302
    assert one(store, world, "SELECT description FROM crm_activity WHERE id = ?", (activity,)) == ""
