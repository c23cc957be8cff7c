"""CRM pages in real Chromium as an agent meets them: every control has a name of its own,
nothing spills out of its box at 1280×800 or 1920×1080, and a "saved" notice moves nothing."""

from __future__ import annotations

from collections import Counter

import pytest

from .conftest import read_facts

pytestmark = pytest.mark.browser

PAGES = [
    "/crm/",
    "/crm/accounts",
    "/crm/contacts",
    "/crm/leads",
    "/crm/opportunities",
    "/crm/activities",
    "/crm/pipeline",
    "/crm/reports",
    "/crm/duplicates",
    "/crm/import",
    "/crm/accounts/{account}",
    "/crm/opportunities/{opp}",
    "/crm/opportunities/{opp}/edit",
    "/crm/leads/{lead}/convert",
    "/crm/contacts/merge?ids={dup0}&ids={dup1}",
]

# Roles of the things one acts on (links aside: several may lead to the same place).
_CONTROLS = {
    "button",
    "checkbox",
    "combobox",
    "DisclosureTriangle",
    "DisclosureTriangleGrouped",
    "radio",
    "searchbox",
    "spinbutton",
    "textbox",
}

# Shown links as (name, target): one name may lead to one place only.
_LINKS = """() => [...document.querySelectorAll("a[href]")]
  .filter(a => a.getClientRects().length && !a.closest("details:not([open])"))
  .map(a => [(a.getAttribute("aria-label") || a.textContent).split(/\\s+/).join(" ").trim(), a.href])"""

# Elements whose content is wider than their box (scrolling areas included), leaving out what
# is meant to be: text that ends in an ellipsis with its whole text in a title, text boxes
# (their text scrolls inside), hidden labels and closed disclosures.
_SPILLS = """() => {
  const out = [];
  for (const el of document.querySelectorAll("main *")) {
    if (el.clientWidth <= 2 || !el.getClientRects().length) continue;
    if (el.closest(".visually-hidden") || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)) continue;
    const shut = el.closest("details:not([open])");
    if (shut && !el.closest("summary")) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const style = getComputedStyle(el);
    if (style.textOverflow === "ellipsis" && el.title) continue;
    out.push(`${el.tagName}.${el.className} ${el.scrollWidth}>${el.clientWidth}: ${el.textContent.trim().slice(0, 40)}`);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def ui_facts(store, ui_world):
    return read_facts(store.world_path(ui_world))


def _path(template: str, facts) -> str:
    return template.format(
        account=facts.rep_account,
        opp=facts.rep_opportunity,
        lead=facts.rep_lead,
        dup0=facts.duplicate_contacts[0],
        dup1=facts.duplicate_contacts[1],
    )


@pytest.mark.parametrize("path", PAGES)
def test_every_control_on_the_page_has_a_name_of_its_own(sign_in, live_server, ui_facts, path):
    page = sign_in(ui_facts.admin.email)
    page.goto(live_server.url + _path(path, ui_facts))
    cdp = page.context.new_cdp_session(page)
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    names = Counter(
        (n["role"]["value"], n.get("name", {}).get("value", ""))
        for n in nodes
        if not n.get("ignored") and n.get("role", {}).get("value") in _CONTROLS
    )
    assert [key for key, count in names.items() if count > 1] == []
    assert [role for role, name in names if not name.strip()] == []
    places: dict[str, set[str]] = {}
    for name, href in page.evaluate(_LINKS):
        places.setdefault(name, set()).add(href)
    assert {name: hrefs for name, hrefs in places.items() if len(hrefs) > 1} == {}


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
@pytest.mark.parametrize("path", PAGES)
def test_nothing_spills_out_of_its_box(sign_in, live_server, ui_facts, path, size):
    page = sign_in(ui_facts.admin.email)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(live_server.url + _path(path, ui_facts))
    assert page.evaluate(_SPILLS) == []
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size[0]


def test_the_pipeline_board_fits_a_1280_window_without_scrolling(sign_in, live_server, ui_facts):
    page = sign_in(ui_facts.admin.email)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/crm/pipeline")
    board = page.locator(".board")
    assert board.evaluate("b => b.scrollWidth <= b.clientWidth")
    columns = page.locator(".board__column")
    assert columns.count() == 7
    right = columns.nth(6).evaluate("c => c.getBoundingClientRect().right")
    assert right <= 1280


def test_a_saved_notice_moves_neither_the_menu_nor_the_page(sign_in, live_server, ui_facts):
    page = sign_in(ui_facts.rep.email)
    url = f"{live_server.url}/crm/opportunities/{ui_facts.rep_opportunities[0]}"
    page.goto(url)
    before = page.evaluate(
        "[document.querySelector('.crm-nav').getBoundingClientRect().top,"
        " document.querySelector('.record-head').getBoundingClientRect().top]"
    )
    page.goto(f"{url}/edit")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("status").filter(has_text="Opportunity saved.").wait_for()
    after = page.evaluate(
        "[document.querySelector('.crm-nav').getBoundingClientRect().top,"
        " document.querySelector('.record-head').getBoundingClientRect().top]"
    )
    assert after == before


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_nothing_spills_out_of_opened_menus_and_forms(sign_in, live_server, ui_facts, size):
    page = sign_in(ui_facts.admin.email)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{live_server.url}/crm/opportunities?close_from=2025-01-01&amount_min=1")
    assert page.locator(".filters__more").evaluate("d => d.open")
    assert page.evaluate(_SPILLS) == []
    page.goto(f"{live_server.url}/crm/opportunities/{ui_facts.rep_opportunity}")
    page.get_by_text("New task", exact=True).click()
    page.get_by_role("combobox", name="Assigned to").fill(ui_facts.rep.name[:4])
    page.get_by_role("listbox", name="Assigned to suggestions").wait_for()
    assert page.evaluate(_SPILLS) == []
    page.goto(f"{live_server.url}/crm/pipeline")
    page.locator(".deal-card__move summary").first.click()
    assert page.evaluate(_SPILLS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
