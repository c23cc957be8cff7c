"""Observations of live pages: bids, the accessibility tree text, pruned DOM and screenshots."""

from __future__ import annotations

import re
import sqlite3

import numpy as np
import pytest

from officegym.harness.observe import (
    AXNode,
    ObservationError,
    PageObservation,
    build_axtree,
    mark_elements,
    observe,
)
from officegym.seed_data.store import WorldStore

from .conftest import VIEWPORT, BrowserLoop, first_active_email

INTERACTIVE = "a[href], button, input:not([type=hidden]), select, textarea, summary"


def busiest_channel(store: WorldStore, world_id: str) -> int:
    """The channel with the most messages among those of the world's first active employee."""
    conn = sqlite3.connect(f"file:{store.world_path(world_id).resolve()}?mode=ro", uri=True)
    try:
        (channel_id,) = conn.execute(
            """
            SELECT c.id FROM chat_channel c
            JOIN chat_membership m ON m.channel_id = c.id
            JOIN people_employee e ON e.id = m.employee_id
            JOIN chat_message msg ON msg.channel_id = c.id
            WHERE e.email = ? AND c.archived_at IS NULL
            GROUP BY c.id ORDER BY count(msg.id) DESC, c.id LIMIT 1
            """,
            (first_active_email(store, world_id),),
        ).fetchone()
        return channel_id
    finally:
        conn.close()


@pytest.fixture
def channel_path(store, world) -> str:
    return f"/chat/c/{busiest_channel(store, world)}"


@pytest.fixture
def channel_page(signed_in_page, world, channel_path):
    """The busiest channel of the test's world, signed in as one of its members."""
    return signed_in_page(world, channel_path)


def see(loop: BrowserLoop, page, **parts) -> PageObservation:
    return loop.run(observe(page, **parts))


def bid_of(loop: BrowserLoop, page, selector: str) -> str:
    bid = loop.run(page.locator(selector).first.get_attribute("bid"))
    assert bid, f"{selector} has no bid"
    return bid


def line_of(observation: PageObservation, bid: str) -> str:
    for node in observation.nodes:
        if node.bid == bid:
            return node.line()
    raise AssertionError(f"no node with bid {bid} in:\n{observation.axtree_txt}")


# -- bids -------------------------------------------------------------------------------------


@pytest.mark.browser
def test_every_interactive_element_gets_a_bid(loop, channel_page):
    loop.run(mark_elements(channel_page))
    missing = loop.run(
        channel_page.evaluate(f"document.querySelectorAll(':is({INTERACTIVE}):not([bid])').length")
    )
    marked = loop.run(channel_page.locator(f":is({INTERACTIVE})[bid]").count())
    assert missing == 0
    assert marked > 50


@pytest.mark.browser
def test_bids_are_unique(loop, channel_page):
    loop.run(mark_elements(channel_page))
    bids = loop.run(
        channel_page.evaluate(
            "[...document.querySelectorAll('[bid]')].map(e => e.getAttribute('bid'))"
        )
    )
    assert len(bids) == len(set(bids))


@pytest.mark.browser
def test_head_scripts_and_styles_get_no_bid(loop, channel_page):
    loop.run(mark_elements(channel_page))
    assert loop.run(channel_page.locator("head [bid], script[bid], style[bid]").count()) == 0


@pytest.mark.browser
def test_the_same_page_in_two_contexts_gets_the_same_observation(
    loop, signed_in_page, world, channel_path
):
    first = see(loop, signed_in_page(world, channel_path))
    second = see(loop, signed_in_page(world, channel_path))
    assert first.axtree_txt == second.axtree_txt
    assert first.dom_txt == second.dom_txt
    assert [n.bid for n in first.nodes] == [n.bid for n in second.nodes]


@pytest.mark.browser
def test_bids_survive_a_mutation_and_new_elements_get_the_next_numbers(loop, channel_page):
    loop.run(mark_elements(channel_page))
    before = loop.run(
        channel_page.evaluate(
            "[...document.querySelectorAll('[bid]')].map(e => [e.id || e.tagName, e.getAttribute('bid')])"
        )
    )
    highest = max(int(bid) for _, bid in before)
    loop.run(
        channel_page.evaluate(
            """() => {
              const box = document.createElement('div');
              box.id = 'inserted';
              box.innerHTML = '<button id="inserted-button">New</button>';
              document.body.prepend(box);
            }"""
        )
    )
    loop.run(mark_elements(channel_page))
    after = loop.run(
        channel_page.evaluate(
            "[...document.querySelectorAll('[bid]')].map(e => [e.id || e.tagName, e.getAttribute('bid')])"
        )
    )
    assert [pair for pair in after if pair[0] not in ("inserted", "inserted-button")] == before
    assert bid_of(loop, channel_page, "#inserted") == str(highest + 1)
    assert bid_of(loop, channel_page, "#inserted-button") == str(highest + 2)


@pytest.mark.browser
def test_a_copy_of_a_marked_element_gets_its_own_bid(loop, channel_page):
    loop.run(mark_elements(channel_page))
    original = bid_of(loop, channel_page, "#composer")
    loop.run(
        channel_page.evaluate(
            """() => {
              const copy = document.querySelector('#composer').cloneNode(true);
              copy.id = 'composer-copy';
              document.body.append(copy);
            }"""
        )
    )
    loop.run(mark_elements(channel_page))
    assert bid_of(loop, channel_page, "#composer") == original
    assert bid_of(loop, channel_page, "#composer-copy") != original


@pytest.mark.browser
def test_a_bid_finds_its_element_with_a_locator(loop, channel_page):
    observation = see(loop, channel_page, dom=False)
    send = next(n for n in observation.nodes if n.role == "button" and n.name == "Send")
    assert loop.run(channel_page.locator(f'[bid="{send.bid}"]').get_attribute("aria-label")) == (
        "Send"
    )


# -- accessibility tree -----------------------------------------------------------------------


@pytest.mark.browser
def test_the_first_line_is_the_root_with_the_page_title(loop, channel_page):
    observation = see(loop, channel_page, dom=False)
    title = loop.run(channel_page.title())
    assert observation.axtree_txt.splitlines()[0].startswith(f"RootWebArea {title!r}")


@pytest.mark.browser
def test_controls_appear_as_bid_role_and_name(loop, channel_page):
    observation = see(loop, channel_page, dom=False)
    send = bid_of(loop, channel_page, "button[aria-label=Send]")
    composer = bid_of(loop, channel_page, "#composer")
    browse = bid_of(loop, channel_page, "a[href='/chat/browse']")
    lines = observation.axtree_txt.splitlines()
    assert any(re.fullmatch(rf"\t+\[{send}\] button 'Send'", line) for line in lines)
    assert any(
        re.fullmatch(rf"\t+\[{composer}\] textbox 'Message #[\w-]+'(, focused)?", line)
        for line in lines
    )
    assert any(re.fullmatch(rf"\t+\[{browse}\] link 'Browse channels'", line) for line in lines)


@pytest.mark.browser
def test_text_repeating_the_name_of_its_element_is_left_out(loop, channel_page):
    lines = see(loop, channel_page, dom=False).axtree_txt.splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith("link 'Browse channels'"))
    assert "StaticText 'Browse channels'" not in lines[at + 1]


@pytest.mark.browser
def test_a_filled_textbox_shows_its_value(loop, channel_page):
    loop.run(channel_page.fill("#composer", "Draft for the team"))
    observation = see(loop, channel_page, dom=False)
    line = line_of(observation, bid_of(loop, channel_page, "#composer"))
    assert "value='Draft for the team'" in line


@pytest.mark.browser
def test_checkboxes_show_whether_they_are_checked(loop, signed_in_page, world):
    page = signed_in_page(world, "/chat/new")
    unchecked = line_of(see(loop, page, dom=False), bid_of(loop, page, "input[name=is_private]"))
    loop.run(page.check("input[name=is_private]"))
    checked = line_of(see(loop, page, dom=False), bid_of(loop, page, "input[name=is_private]"))
    assert unchecked.endswith(", checked=false")
    assert checked.endswith(", checked=true")


@pytest.mark.browser
def test_a_disabled_button_shows_disabled(loop, channel_page):
    loop.run(channel_page.locator("button[aria-label=Send]").evaluate("b => b.disabled = true"))
    observation = see(loop, channel_page, dom=False)
    line = line_of(observation, bid_of(loop, channel_page, "button[aria-label=Send]"))
    assert line.endswith("button 'Send', disabled")


@pytest.mark.browser
def test_the_focused_input_is_the_focused_element_bid(loop, channel_page):
    loop.run(channel_page.focus("#composer"))
    observation = see(loop, channel_page)
    composer = bid_of(loop, channel_page, "#composer")
    assert observation.focused_element_bid == composer
    assert "focused" in line_of(observation, composer).split(", ")


@pytest.mark.browser
def test_nothing_focused_gives_an_empty_focused_element_bid(loop, channel_page):
    loop.run(channel_page.evaluate("document.activeElement && document.activeElement.blur()"))
    assert see(loop, channel_page).focused_element_bid == ""


@pytest.mark.browser
def test_nodes_are_the_lines_of_the_axtree_text(loop, channel_page):
    observation = see(loop, channel_page, dom=False)
    lines = ["\t" * node.depth + node.line() for node in observation.nodes]
    assert lines == observation.axtree_txt.splitlines()


def ax_node(
    node_id: str,
    role: str,
    name: str,
    children: list[str],
    *,
    backend: int | None,
    ignored: bool = False,
) -> dict:
    node: dict = {"nodeId": node_id, "ignored": ignored, "role": {"value": role}}
    if not ignored:
        node["name"] = {"type": "computedString", "value": name}
    if children:
        node["childIds"] = children
    if backend is not None:
        node["backendDOMNodeId"] = backend
    return node


def test_pruning_collapses_wrappers_and_drops_repeated_text():
    ax = [
        ax_node("1", "RootWebArea", "Title", ["2"], backend=1),
        ax_node("2", "none", "", ["3"], backend=2, ignored=True),
        ax_node("3", "generic", "", ["4", "6"], backend=3),
        ax_node("4", "button", "Go", ["5"], backend=4),
        ax_node("5", "StaticText", "Go", ["7"], backend=5),
        ax_node("7", "InlineTextBox", "Go", [], backend=None),
        ax_node("6", "StaticText", "Hello", [], backend=6),
    ]
    nodes, text = build_axtree(ax, {3: "10", 4: "11"})
    assert text == "RootWebArea 'Title'\n\t[11] button 'Go'\n\tStaticText 'Hello'"
    assert nodes == (
        AXNode(bid=None, role="RootWebArea", name="Title", value=None, depth=0),
        AXNode(bid="11", role="button", name="Go", value=None, depth=1),
        AXNode(bid=None, role="StaticText", name="Hello", value=None, depth=1),
    )


def test_states_follow_the_value_and_text_repeating_the_value_is_left_out():
    box = ax_node("2", "textbox", "Name", ["3"], backend=2)
    box["value"] = {"type": "string", "value": "Has Spaces"}
    box["properties"] = [
        {"name": "focusable", "value": {"type": "booleanOrUndefined", "value": True}},
        {"name": "focused", "value": {"type": "booleanOrUndefined", "value": True}},
        {"name": "required", "value": {"type": "boolean", "value": True}},
        {"name": "invalid", "value": {"type": "token", "value": "true"}},
        {"name": "expanded", "value": {"type": "booleanOrUndefined", "value": False}},
    ]
    ax = [
        ax_node("1", "RootWebArea", "Form", ["2"], backend=1),
        box,
        ax_node("3", "StaticText", "Has Spaces", [], backend=3),
    ]
    _, text = build_axtree(ax, {2: "7"})
    assert text.splitlines()[1:] == [
        "\t[7] textbox 'Name' value='Has Spaces', focused, required, expanded=false, invalid"
    ]


# -- DOM text ---------------------------------------------------------------------------------


@pytest.mark.browser
def test_dom_text_holds_no_csrf_token(loop, channel_page):
    token = loop.run(channel_page.locator("input[name=csrf_token]").first.input_value())
    dom_txt = see(loop, channel_page, axtree=False).dom_txt
    assert token not in dom_txt
    assert "csrf_token" not in dom_txt


@pytest.mark.browser
def test_dom_text_holds_no_scripts(loop, channel_page):
    loop.run(
        channel_page.evaluate(
            """() => {
              const script = document.createElement('script');
              script.textContent = "window.marker = 'inline-script-text';";
              document.body.append(script);
            }"""
        )
    )
    dom_txt = see(loop, channel_page, axtree=False).dom_txt
    assert "<script" not in dom_txt
    assert "inline-script-text" not in dom_txt


@pytest.mark.browser
def test_dom_text_shows_bids_and_current_values(loop, channel_page):
    loop.run(channel_page.fill("#composer", "Typed just now"))
    dom_txt = see(loop, channel_page, axtree=False).dom_txt
    composer = bid_of(loop, channel_page, "#composer")
    assert re.search(
        rf'<textarea bid="{composer}" id="composer"[^>]*>Typed just now</textarea>', dom_txt
    )


@pytest.mark.browser
def test_a_dom_only_observation_has_no_accessibility_tree(loop, channel_page):
    observation = see(loop, channel_page, axtree=False)
    assert observation.nodes == ()
    assert observation.axtree_txt == ""
    assert observation.dom_txt.startswith("<body bid=")


# -- screenshots ------------------------------------------------------------------------------


@pytest.mark.browser
def test_screenshot_is_the_viewport_as_rgb_bytes(loop, channel_page):
    observation = see(loop, channel_page, axtree=False, dom=False, screenshot=True)
    assert observation.screenshot.shape == (VIEWPORT["height"], VIEWPORT["width"], 3)
    assert observation.screenshot.dtype == np.uint8
    assert observation.screenshot_png.startswith(b"\x89PNG")


@pytest.mark.browser
def test_set_of_marks_draws_on_the_screenshot(loop, channel_page):
    observation = see(loop, channel_page, axtree=False, dom=False, screenshot=True, som=True)
    assert observation.som_screenshot.shape == observation.screenshot.shape
    assert not np.array_equal(observation.som_screenshot, observation.screenshot)


@pytest.mark.browser
def test_a_text_observation_takes_no_screenshot(loop, channel_page, monkeypatch):
    calls = []

    async def spy(*args, **kwargs):
        calls.append(args)
        raise AssertionError("screenshot taken")

    monkeypatch.setattr(channel_page, "screenshot", spy)
    observation = see(loop, channel_page)
    assert calls == []
    assert observation.screenshot is None
    assert observation.som_screenshot is None
    assert observation.screenshot_png is None


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.browser
def test_observing_a_closed_page_raises_observation_error(loop, channel_page):
    loop.run(channel_page.close())
    with pytest.raises(ObservationError, match="closed"):
        see(loop, channel_page)


# -- BrowserGym's page objects ----------------------------------------------------------------


def attributes_of(dom_object: dict, bid: str) -> dict[str, str]:
    """The attributes of the element with this bid in a DOM snapshot (`dom_object`)."""
    strings = dom_object["strings"]
    for document in dom_object["documents"]:
        for attrs in document["nodes"]["attributes"]:
            found = {strings[attrs[i]]: strings[attrs[i + 1]] for i in range(0, len(attrs), 2)}
            if found.get("bid") == bid:
                return found
    raise AssertionError(f"no element with bid {bid} in the DOM snapshot")


@pytest.mark.browser
def test_page_objects_are_computed_only_when_asked(loop, channel_page):
    observation = see(loop, channel_page)
    assert observation.axtree_object is None
    assert observation.dom_object is None
    assert observation.extra_element_properties is None


@pytest.mark.browser
def test_the_axtree_object_carries_the_bids_of_the_axtree_text(loop, channel_page):
    observation = see(loop, channel_page, objects=True)
    nodes = observation.axtree_object["nodes"]
    assert nodes[0]["role"]["value"] == "RootWebArea"
    tagged = {node["browsergym_id"]: node for node in nodes if "browsergym_id" in node}
    shown = {node.bid for node in observation.nodes if node.bid is not None}
    assert shown <= set(tagged)
    composer = tagged[bid_of(loop, channel_page, "#composer")]
    assert composer["role"]["value"] == "textbox"


@pytest.mark.browser
def test_the_dom_object_is_a_snapshot_with_layout_and_current_values(loop, channel_page):
    loop.run(channel_page.fill("#composer", "Typed just now"))
    dom_object = see(loop, channel_page, objects=True).dom_object
    assert set(dom_object) == {"documents", "strings"}
    layout = dom_object["documents"][0]["layout"]
    assert {"bounds", "clientRects", "paintOrders"} <= set(layout)
    composer = attributes_of(dom_object, bid_of(loop, channel_page, "#composer"))
    assert composer["value"] == "Typed just now"


@pytest.mark.browser
def test_the_dom_object_shows_whether_a_checkbox_is_checked(loop, signed_in_page, world):
    page = signed_in_page(world, "/chat/new")
    unchecked = see(loop, page, objects=True).dom_object
    bid = bid_of(loop, page, "input[name=is_private]")
    assert "checked" not in attributes_of(unchecked, bid)
    loop.run(page.check("input[name=is_private]"))
    assert "checked" in attributes_of(see(loop, page, objects=True).dom_object, bid)


@pytest.mark.browser
def test_extra_element_properties_cover_every_bid(loop, channel_page):
    properties = see(loop, channel_page, objects=True).extra_element_properties
    bids = loop.run(
        channel_page.evaluate(
            "[...document.querySelectorAll('[bid]')].map(e => e.getAttribute('bid'))"
        )
    )
    assert set(properties) == set(bids)
    assert all(
        set(value) == {"visibility", "bbox", "clickable", "set_of_marks"}
        for value in properties.values()
    )


@pytest.mark.browser
def test_a_visible_button_is_in_view_clickable_marked_and_boxed(loop, channel_page):
    properties = see(loop, channel_page, objects=True).extra_element_properties
    send = properties[bid_of(loop, channel_page, "button[aria-label=Send]")]
    rect = loop.run(
        channel_page.locator("button[aria-label=Send]").evaluate(
            "b => { const r = b.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"
        )
    )
    assert send["visibility"] == 1.0
    assert send["clickable"] is True and send["set_of_marks"] is True
    assert send["bbox"] == pytest.approx(rect, abs=1)


@pytest.mark.browser
def test_an_element_out_of_view_has_no_visibility(loop, channel_page):
    loop.run(
        channel_page.evaluate(
            """() => { const p = document.createElement('p'); p.id = 'far'; p.textContent = 'x';
            p.style = 'position:absolute; top:20000px'; document.body.append(p); }"""
        )
    )
    properties = see(loop, channel_page, objects=True).extra_element_properties
    far = properties[bid_of(loop, channel_page, "#far")]
    assert far["visibility"] == 0.0 and far["set_of_marks"] is False
    assert far["bbox"][1] > VIEWPORT["height"]


@pytest.mark.browser
def test_a_hidden_element_has_no_box(loop, channel_page):
    loop.run(channel_page.locator("button[aria-label=Send]").evaluate("b => b.hidden = true"))
    properties = see(loop, channel_page, objects=True).extra_element_properties
    send = properties[bid_of(loop, channel_page, "button[aria-label=Send]")]
    assert send["visibility"] == 0.0 and send["bbox"] is None and send["set_of_marks"] is False
