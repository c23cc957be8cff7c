"""The CRM through real Chromium against the real server: what a person (or an agent) does.

The module shares one world; each test acts on its own records.
"""

from __future__ import annotations

import pytest

from .conftest import read_facts, rows

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def ui_facts(store, ui_world):
    return read_facts(store.world_path(ui_world))


def _value(store, world, sql, params=()):
    found = rows(store, world, sql, params)
    return found[0][0] if found else None


def test_inline_edit_saves_a_field(sign_in, live_server, ui_facts, store, ui_world):
    page = sign_in(ui_facts.rep.email)
    opp = ui_facts.rep_opportunities[0]
    page.goto(f"{live_server.url}/crm/opportunities/{opp}")
    page.get_by_role("link", name="Edit Next step").click()
    page.fill("#f-next_step", "Book the security review")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("status").filter(has_text="Next step saved.").wait_for()
    assert _value(store, ui_world, "SELECT next_step FROM crm_opportunity WHERE id=?", (opp,)) == (
        "Book the security review"
    )
    assert page.locator("#history").get_by_text("Book the security review").count() == 1


def test_inline_edit_shows_a_field_error_and_saves_nothing(
    sign_in, live_server, ui_facts, store, ui_world
):
    page = sign_in(ui_facts.rep.email)
    opp = ui_facts.rep_opportunities[0]
    before = _value(store, ui_world, "SELECT amount FROM crm_opportunity WHERE id=?", (opp,))
    page.goto(f"{live_server.url}/crm/opportunities/{opp}?edit=amount")
    page.fill("#f-amount", "-500")
    page.get_by_role("button", name="Save", exact=True).click()
    error = page.locator("#f-amount-error")
    error.wait_for()
    assert error.inner_text() == "Amount can't be negative."
    assert page.locator("#f-amount").get_attribute("aria-invalid") == "true"
    assert (
        _value(store, ui_world, "SELECT amount FROM crm_opportunity WHERE id=?", (opp,)) == before
    )


def test_pipeline_card_moves_with_its_stage_menu(sign_in, live_server, ui_facts, store, ui_world):
    page = sign_in(ui_facts.rep.email)
    opp = ui_facts.rep_opportunities[1]
    page.goto(f"{live_server.url}/crm/pipeline?owner=me")
    page.select_option(f"#stage-{opp}", "Negotiation")
    page.locator(f"#deal-{opp}").get_by_role("button", name="Move").click()
    page.locator(f"section[data-stage='Negotiation'] #deal-{opp}").wait_for()
    assert _value(store, ui_world, "SELECT stage FROM crm_opportunity WHERE id=?", (opp,)) == (
        "Negotiation"
    )


def test_pipeline_card_moves_by_drag_and_drop(sign_in, live_server, ui_facts, store, ui_world):
    page = sign_in(ui_facts.rep.email)
    opp = ui_facts.rep_opportunities[2]
    stage = _value(store, ui_world, "SELECT stage FROM crm_opportunity WHERE id=?", (opp,))
    target = "Proposal" if stage != "Proposal" else "Qualification"
    page.goto(f"{live_server.url}/crm/pipeline?owner=me")
    with page.expect_navigation():
        page.drag_and_drop(f"#deal-{opp}", f"section[data-stage='{target}']")
    page.locator(f"section[data-stage='{target}'] #deal-{opp}").wait_for()
    assert _value(store, ui_world, "SELECT stage FROM crm_opportunity WHERE id=?", (opp,)) == target


def test_convert_a_lead(sign_in, live_server, ui_facts, store, ui_world):
    page = sign_in(ui_facts.lead_owner.email)
    lead = ui_facts.rep_lead
    page.goto(f"{live_server.url}/crm/leads/{lead}")
    page.get_by_role("link", name="Convert").click()
    page.get_by_label("Create a new account").check()
    page.fill("#account_name", "Wombat Browser Testing Ltd")
    page.fill("#opportunity_name", "Wombat pilot")
    page.get_by_role("button", name="Convert").click()
    page.get_by_role("heading", name="Wombat pilot").wait_for()
    status, account = rows(
        store, ui_world, "SELECT status, converted_account_id FROM crm_lead WHERE id=?", (lead,)
    )[0]
    assert status == "Converted"
    assert _value(store, ui_world, "SELECT name FROM crm_account WHERE id=?", (account,)) == (
        "Wombat Browser Testing Ltd"
    )


def test_merge_duplicate_contacts(sign_in, live_server, ui_facts, store, ui_world):
    page = sign_in(ui_facts.admin.email)
    original, duplicate = ui_facts.duplicate_contacts
    dup_email = _value(store, ui_world, "SELECT email FROM crm_contact WHERE id=?", (duplicate,))
    page.goto(f"{live_server.url}/crm/duplicates?object=contacts")
    group = page.locator(".dupe-group", has=page.locator(f"a[href='/crm/contacts/{duplicate}']"))
    group.get_by_role("link", name="Compare and merge").click()
    page.locator(f"input[name='pick_email'][value='{duplicate}']").check()
    page.get_by_role("button", name="Merge").click()
    page.get_by_role("status").filter(has_text="Merged 2 contacts").wait_for()
    assert rows(store, ui_world, "SELECT id FROM crm_contact WHERE id=?", (duplicate,)) == []
    assert (
        _value(store, ui_world, "SELECT email FROM crm_contact WHERE id=?", (original,))
        == dup_email
    )


def test_import_contacts_from_a_file(sign_in, live_server, ui_facts, store, ui_world, tmp_path):
    page = sign_in(ui_facts.rep.email)
    path = tmp_path / "new-contacts.csv"
    path.write_text(
        "First Name,Last Name,Email,Title\n"
        "Iris,Importer,iris@import.example,Buyer\n"
        'Ivan,Importer,ivan@import.example,=HYPERLINK("x")\n'
        "Bad,Importer,not-an-email,\n"
    )
    page.goto(f"{live_server.url}/crm/import")
    page.set_input_files("#import-file", str(path))
    page.get_by_role("button", name="Next: map columns").click()
    page.get_by_text("rows ready to import").wait_for()
    assert page.locator("#map-2").input_value() == "email"
    page.get_by_role("button", name="Import 2 contacts").click()
    page.get_by_text("Imported 2 of 3 contacts.").wait_for()
    assert page.get_by_role("cell", name="must be an email address", exact=False).count() == 1
    names = rows(
        store, ui_world, "SELECT first_name FROM crm_contact WHERE last_name='Importer' ORDER BY id"
    )
    assert names == [("Iris",), ("Ivan",)]


def test_bulk_reassign_with_confirmation(sign_in, live_server, ui_facts, store, ui_world):
    page = sign_in(ui_facts.manager.email)
    targets = ui_facts.rep_opportunities[3:5]
    page.goto(f"{live_server.url}/crm/opportunities?owner={ui_facts.rep.id}&per_page=200")
    for opp in targets:
        page.locator(f"input[name='ids'][value='{opp}']").check()
    page.select_option("#bulk-owner_id", str(ui_facts.manager.id))
    page.get_by_role("button", name="Change owner of selected…").click()
    page.get_by_role("button", name="Confirm change").click()
    page.get_by_role("status").filter(has_text="Updated 2 opportunities").wait_for()
    owners = rows(
        store,
        ui_world,
        f"SELECT DISTINCT owner_id FROM crm_opportunity WHERE id IN ({','.join(map(str, targets))})",
    )
    assert owners == [(ui_facts.manager.id,)]
