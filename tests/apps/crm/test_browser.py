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


@pytest.fixture(scope="module")
def app_jinja(store, ui_world):
    """The web app's template environment, to render a shared macro on its own."""
    from officegym.apps.web import create_app

    app = create_app({"WORLD_STORE": store, "DEFAULT_WORLD": ui_world, "SECRET_KEY": "t"})
    return app.jinja_env


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


def test_pipeline_card_moves_with_its_move_menu(sign_in, live_server, ui_facts, store, ui_world):
    page = sign_in(ui_facts.rep.email)
    opp = ui_facts.rep_opportunities[1]
    stage = _value(store, ui_world, "SELECT stage FROM crm_opportunity WHERE id=?", (opp,))
    target = "Negotiation" if stage != "Negotiation" else "Proposal"
    page.goto(f"{live_server.url}/crm/pipeline?owner=me&show_{stage.lower().replace(' ', '_')}=200")
    card = page.locator(f"#deal-{opp}")
    card.locator("summary").click()
    card.get_by_role("button", name=target, exact=True).click()
    page.locator(f"section[data-stage='{target}'] #deal-{opp}").wait_for()
    assert _value(store, ui_world, "SELECT stage FROM crm_opportunity WHERE id=?", (opp,)) == target


def test_pipeline_card_moves_by_drag_and_drop(sign_in, live_server, ui_facts, store, ui_world):
    page = sign_in(ui_facts.rep.email)
    opp = ui_facts.rep_opportunities[2]
    stage = _value(store, ui_world, "SELECT stage FROM crm_opportunity WHERE id=?", (opp,))
    target = "Proposal" if stage != "Proposal" else "Qualification"
    page.goto(f"{live_server.url}/crm/pipeline?owner=me&show_{stage.lower().replace(' ', '_')}=200")
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
    page.fill("#bulk-owner_id", ui_facts.manager.name)
    page.get_by_role("option", name=f"{ui_facts.manager.name} — ").first.click()
    assert page.locator("input[name=value_owner_id]").input_value() == str(ui_facts.manager.id)
    page.get_by_role("button", name="Change owner of selected…").click()
    page.get_by_role("button", name="Confirm change").click()
    page.get_by_role("status").filter(has_text="Updated 2 opportunities").wait_for()
    owners = rows(
        store,
        ui_world,
        f"SELECT DISTINCT owner_id FROM crm_opportunity WHERE id IN ({','.join(map(str, targets))})",
    )
    assert owners == [(ui_facts.manager.id,)]


def test_the_owner_lookup_offers_matches_and_chooses_one_with_the_keyboard(
    sign_in, live_server, ui_facts, store, ui_world
):
    page = sign_in(ui_facts.rep.email)
    account = ui_facts.rep_account
    page.goto(f"{live_server.url}/crm/accounts/{account}/edit")
    box = page.get_by_role("combobox", name="Account owner")
    box.fill(ui_facts.manager.name)
    listbox = page.get_by_role("listbox", name="Account owner suggestions")
    option = listbox.get_by_role("option", name=f"{ui_facts.manager.name} — ")
    option.first.wait_for()
    assert box.get_attribute("aria-expanded") == "true"
    box.press("ArrowDown")
    assert box.get_attribute("aria-activedescendant") == option.first.get_attribute("id")
    box.press("Enter")
    listbox.wait_for(state="hidden")
    assert box.input_value() == ui_facts.manager.name
    assert page.locator("input[name=owner_id]").input_value() == str(ui_facts.manager.id)
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("status").filter(has_text="Account saved.").wait_for()
    assert _value(store, ui_world, "SELECT owner_id FROM crm_account WHERE id=?", (account,)) == (
        ui_facts.manager.id
    )


def test_typing_over_a_chosen_owner_clears_the_choice_and_escape_closes_the_list(
    sign_in, live_server, ui_facts
):
    page = sign_in(ui_facts.rep.email)
    page.goto(f"{live_server.url}/crm/contacts/{ui_facts.rep_contact}/edit")
    hidden = page.locator("input[name=owner_id]")
    assert hidden.input_value() == str(ui_facts.rep.id)
    box = page.get_by_role("combobox", name="Contact owner")
    box.fill(ui_facts.rep.name[:3])
    assert hidden.input_value() == ""
    page.get_by_role("listbox", name="Contact owner suggestions").wait_for()
    box.press("Escape")
    page.get_by_role("listbox", name="Contact owner suggestions").wait_for(state="hidden")
    assert box.get_attribute("aria-expanded") == "false"


def test_a_list_filter_lookup_offers_me_and_filters_by_the_chosen_person(
    sign_in, live_server, ui_facts
):
    page = sign_in(ui_facts.rep.email)
    page.goto(f"{live_server.url}/crm/opportunities")
    page.get_by_role("combobox", name="Owner", exact=True).fill("me")
    page.get_by_role("option", name=f"Me — {ui_facts.rep.name}").click()
    page.get_by_role("button", name="Apply filters").click()
    page.wait_for_url("**owner=me**")
    assert page.get_by_role("combobox", name="Owner", exact=True).input_value() == "Me"


def test_a_lookup_of_many_adds_removable_chips(sign_in, live_server, ui_facts, app_jinja):
    """The shared macro with `multiple`: each choice becomes a hidden input and a chip whose
    remove button names the person."""
    page = sign_in(ui_facts.rep.email)
    html = app_jinja.from_string(
        '{% from "_macros.html" import lookup %}<form>'
        '{{ lookup("people", "People", "/crm/lookup/owners", multiple=true,'
        " value=[first], value_label=[first_name]) }}</form>"
    ).render(first=ui_facts.rep.id, first_name=ui_facts.rep.name)
    page.route(
        f"{live_server.url}/crm/lookup-test",
        lambda route: route.fulfill(
            content_type="text/html",
            body=f'<!doctype html><script src="/static/js/lookup.js"></script>{html}',
        ),
    )
    page.goto(f"{live_server.url}/crm/lookup-test")
    page.get_by_role("combobox", name="People").fill(ui_facts.manager.name)
    page.get_by_role("option", name=f"{ui_facts.manager.name} — ").first.click()
    ids = page.locator("input[name=people]").evaluate_all("inputs => inputs.map(i => i.value)")
    assert ids == [str(ui_facts.rep.id), str(ui_facts.manager.id)]
    assert page.get_by_role("combobox", name="People").input_value() == ""
    page.get_by_role("button", name=f"Remove {ui_facts.rep.name}").click()
    ids = page.locator("input[name=people]").evaluate_all("inputs => inputs.map(i => i.value)")
    assert ids == [str(ui_facts.manager.id)]


def test_one_move_menu_is_open_at_a_time_on_the_board(sign_in, live_server, ui_facts):
    page = sign_in(ui_facts.admin.email)
    page.goto(f"{live_server.url}/crm/pipeline")
    menus = page.locator(".deal-card__move")
    menus.nth(0).locator("summary").click()
    menus.nth(1).locator("summary").click()
    assert menus.evaluate_all("ds => ds.filter(d => d.open).length") == 1
    assert menus.nth(1).evaluate("d => d.open")
