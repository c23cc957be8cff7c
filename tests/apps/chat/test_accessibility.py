"""What an agent reading the accessibility tree gets from chat's pages, through real Chromium:
a message's actions only while it is hovered or focused (as Slack renders them), messages
named for their author and time, and controls whose names say what they act on."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

pytestmark = pytest.mark.browser

CONTROLS = frozenset(
    {
        "button",
        "link",
        "checkbox",
        "radio",
        "textbox",
        "searchbox",
        "combobox",
        "DisclosureTriangle",
        "menuitem",
        "option",
    }
)
# What each control does, written on it before the tree is read: its link target, its form
# submission (action, field and value), or for a field its form and name.
_MARK_TARGETS = r"""() => {
  for (const el of document.querySelectorAll('a, button, input, select, textarea, summary')) {
    let target;
    if (el.localName === 'a') target = 'go ' + el.getAttribute('href');
    else if (el.localName === 'summary') target = 'open ' + (el.closest('[id]') || {}).id;
    else {
      const form = el.form;
      const action = el.getAttribute('formaction') || (form && form.getAttribute('action'));
      target = 'send ' + action + ' ' + el.name + '=' + (el.type === 'text' ? '' : el.value);
    }
    el.setAttribute('data-target', target);
  }
}"""


def tree(page) -> list[dict]:
    """The page's accessibility tree as Chromium gives it to the harness: the nodes that are
    not ignored, each with its role, name and what the control does (`target`)."""
    cdp = page.context.new_cdp_session(page)
    try:
        page.evaluate(_MARK_TARGETS)
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        snapshot = cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
    finally:
        cdp.detach()
    strings = snapshot["strings"]
    dom = snapshot["documents"][0]["nodes"]
    targets = {}
    for backend, attributes in zip(dom["backendNodeId"], dom["attributes"], strict=True):
        pairs = dict(zip(attributes[::2], attributes[1::2], strict=True))
        for key, value in pairs.items():
            if strings[key] == "data-target":
                targets[backend] = strings[value]
    return [
        {
            "role": node.get("role", {}).get("value", ""),
            "name": " ".join(str(node.get("name", {}).get("value", "")).split()),
            "target": targets.get(node.get("backendDOMNodeId")),
        }
        for node in nodes
        if not node.get("ignored")
    ]


def names(page) -> list[str]:
    return [node["name"] for node in tree(page)]


def actions_of(page, message_label: str) -> list[str]:
    """The names of the controls that act on the message called `message_label`."""
    about = f"({message_label[0].lower()}{message_label[1:]})"
    return [name for name in names(page) if name.endswith(about)]


def open_message(page, live_server, channel_id: int, message_id: int):
    page.goto(f"{live_server.url}/chat/c/{channel_id}?m={message_id}")
    article = page.locator(f"#m-{message_id}")
    return article, article.get_attribute("aria-label")


# -- message actions on hover and focus -----------------------------------------------------


def test_a_message_is_focusable_and_named_for_its_author_and_time(page, live_server, ui_facts):
    article, label = open_message(page, live_server, ui_facts.public_id, ui_facts.public_message_id)
    assert article.get_attribute("tabindex") == "0"
    assert re.fullmatch(
        r"Message from .+ (today|yesterday|on \w{3}, \w{3} \d{1,2}) at \d{1,2}:\d\d [AP]M", label
    )
    assert {"role": "article", "name": label, "target": None} in tree(page)


def test_message_actions_stay_out_of_the_accessibility_tree_until_the_message_is_hovered(
    page, live_server, ui_facts
):
    article, label = open_message(page, live_server, ui_facts.public_id, ui_facts.public_message_id)
    page.mouse.move(0, 0)
    assert not any(
        n.startswith(("React with", "Reply in thread", "More actions")) for n in names(page)
    )
    article.hover()
    shown = actions_of(page, label)
    assert any(n.startswith("React with eyes") for n in shown)
    assert any(n.startswith("Reply in thread") for n in shown)
    assert any(n.startswith("More actions") for n in shown)
    page.mouse.move(0, 0)
    assert actions_of(page, label) == []


def test_focusing_a_message_shows_its_actions(page, live_server, ui_facts):
    article, label = open_message(page, live_server, ui_facts.public_id, ui_facts.public_message_id)
    page.mouse.move(0, 0)
    article.focus()
    assert any(n.startswith("More actions") for n in actions_of(page, label))
    page.locator("#composer").focus()
    assert actions_of(page, label) == []


def test_an_open_actions_menu_stays_open_when_the_pointer_leaves(page, live_server, ui_facts):
    article, label = open_message(page, live_server, ui_facts.public_id, ui_facts.public_message_id)
    article.hover()
    article.get_by_label("More actions").click()
    page.mouse.move(0, 0)
    shown = actions_of(page, label)
    assert any(n.startswith("Pin to channel") or n.startswith("Unpin") for n in shown)
    assert any(n.startswith("Link to message") for n in shown)


def test_every_action_of_a_message_is_reachable_from_its_hover_bar(page, live_server, ui_facts):
    page.goto(f"{live_server.url}/chat/c/{ui_facts.public_id}")
    page.fill("#composer", "Reachable actions check")
    page.press("#composer", "Enter")
    mine = page.locator(".history__list .msg", has_text="Reachable actions check")
    mine.wait_for()
    label = mine.get_attribute("aria-label")
    mine.hover()
    mine.get_by_label("More actions").click()
    shown = {name.split(" (")[0] for name in actions_of(page, label)}
    assert shown >= {
        "React with white check mark",
        "React with eyes",
        "React with thumbsup",
        "Add reaction",
        "Add reaction…",
        "Reply in thread",
        "Pin to channel",
        "Save for later",
        "Link to message",
        "Edit message",
        "Delete message…",
    }


def test_hovering_then_clicking_an_action_acts_on_that_message(page, live_server, ui_facts):
    article, _ = open_message(page, live_server, ui_facts.public_id, ui_facts.public_message_id)
    article.hover()
    article.get_by_label("More actions").click()
    article.get_by_role("button", name="Save for later").click()
    page.wait_for_url(re.compile(r"/chat/"))
    page.locator(f"#m-{ui_facts.public_message_id} .msg__flag--saved").wait_for()


# -- names ----------------------------------------------------------------------------------


def _pages(facts) -> dict[str, tuple[str, str]]:
    """Chat's main pages: name -> (who reads it, path)."""
    member = facts.public_member.email
    return {
        "channel": (member, f"/chat/c/{facts.public_id}"),
        "thread": (member, f"/chat/t/{facts.public_message_id}"),
        "search": (member, "/chat/search?q=the"),
        "people": (member, "/chat/people"),
        "dm": (facts.dm_a.email, f"/chat/c/{facts.dm_id}"),
        "browse": (member, "/chat/browse?archived=1"),
        "details": (member, f"/chat/c/{facts.public_id}/details"),
        "pins": (member, f"/chat/c/{facts.public_id}/pins"),
        "new channel": (member, "/chat/new"),
        "new dm": (member, "/chat/dm/new"),
        "profile": (member, f"/chat/people/{facts.dm_b.id}"),
        "status": (member, "/chat/status"),
    }


PAGES = [
    "channel",
    "thread",
    "search",
    "people",
    "dm",
    "browse",
    "details",
    "pins",
    "new channel",
    "new dm",
    "profile",
    "status",
]


@pytest.mark.parametrize("name", PAGES)
def test_no_two_controls_share_a_name_unless_they_do_the_same_thing(
    sign_in, live_server, ui_facts, name
):
    email, path = _pages(ui_facts)[name]
    page = sign_in(email)
    page.goto(live_server.url + path)
    first = page.locator(".msg").first
    if first.count():
        first.hover()  # one message's action bar on show, as an agent would see it
    doing = defaultdict(set)
    for node in tree(page):
        if node["role"] in CONTROLS and node["name"] and node["target"] is not None:
            doing[node["role"], node["name"]].add(node["target"])
    clashes = {key: sorted(targets) for key, targets in doing.items() if len(targets) > 1}
    assert clashes == {}


@pytest.mark.parametrize("name", PAGES)
def test_pages_show_names_not_internal_ids(sign_in, live_server, ui_facts, name):
    email, path = _pages(ui_facts)[name]
    page = sign_in(email)
    page.goto(live_server.url + path)
    text = page.locator("body").inner_text()
    assert not re.search(r"\b(?:mp)?dm-\d+(?:-\d+)+\b", text)
    assert not any(re.search(r"\b(?:mp)?dm-\d+(?:-\d+)+\b", n) for n in names(page))
