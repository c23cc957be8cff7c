"""Chat through real Chromium against the real server: what a person (or an agent) does."""

from __future__ import annotations

import re

import pytest

from .conftest import rows

pytestmark = pytest.mark.browser


def channel_url(live_server, channel_id: int) -> str:
    return f"{live_server.url}/chat/c/{channel_id}"


def send(page, text: str, selector: str = "#composer") -> None:
    page.fill(selector, text)
    page.press(selector, "Enter")


def test_send_a_message_with_enter(page, live_server, ui_facts):
    page.goto(channel_url(live_server, ui_facts.public_id))
    send(page, "Shipping the **Q3 deck** today")
    message = page.locator(".history__list .msg", has_text="Shipping the Q3 deck today")
    message.wait_for()
    assert message.locator("strong").inner_text() == "Q3 deck"
    assert page.locator("#composer").input_value() == ""


def test_opening_a_channel_marks_it_read(page, live_server, ui_facts, store, ui_world):
    query = (
        "SELECT coalesce(last_read_message_id, 0) FROM chat_membership "
        "WHERE channel_id=? AND employee_id=?"
    )
    args = (ui_facts.public_id, ui_facts.public_member.id)
    with page.expect_response(lambda r: r.url.endswith(f"/channels/{ui_facts.public_id}/read")):
        page.goto(channel_url(live_server, ui_facts.public_id))
    newest = page.locator(".history__list .msg").last.get_attribute("id")
    assert rows(store, ui_world, query, args)[0][0] == int(newest.removeprefix("m-"))


def test_shift_enter_adds_a_new_line(page, live_server, ui_facts):
    page.goto(channel_url(live_server, ui_facts.public_id))
    page.fill("#composer", "first line")
    page.press("#composer", "Shift+Enter")
    page.type("#composer", "second line")
    assert page.locator("#composer").input_value() == "first line\nsecond line"


def test_reply_in_a_thread(page, live_server, ui_facts):
    page.goto(channel_url(live_server, ui_facts.public_id))
    parent = page.locator(f"#m-{ui_facts.public_message_id}")
    parent.hover()
    page.goto(f"{live_server.url}/chat/t/{ui_facts.public_message_id}")
    send(page, "Replying in the thread", "#thread-composer")
    page.locator(".thread__replies .msg", has_text="Replying in the thread").wait_for()
    assert "reply" in page.locator(".thread__divider").inner_text()


def test_react_to_a_message(page, live_server, ui_facts):
    page.goto(channel_url(live_server, ui_facts.public_id) + f"?m={ui_facts.public_message_id}")
    message = page.locator(f"#m-{ui_facts.public_message_id}")
    message.hover()
    message.get_by_role("button", name="React with eyes").click()
    mine = page.locator(f"#m-{ui_facts.public_message_id} .reaction.is-mine")
    mine.wait_for()
    assert "👀" in mine.inner_text()


def test_react_with_the_emoji_picker(page, live_server, ui_facts):
    page.goto(channel_url(live_server, ui_facts.public_id) + f"?m={ui_facts.public_message_id}")
    message = page.locator(f"#m-{ui_facts.public_message_id}")
    message.hover()
    message.locator(".msg__actions [data-picker-for]").click()
    page.locator("[data-picker]").get_by_role("button", name="rocket").click()
    page.locator(f"#m-{ui_facts.public_message_id} .reaction.is-mine", has_text="🚀").wait_for()


def test_create_a_private_channel_and_invite_two_people(
    page, live_server, ui_facts, store, ui_world
):
    page.goto(f"{live_server.url}/chat/new")
    page.fill("#name", "deal-room")
    page.check("input[name=is_private]")
    box = page.get_by_role("combobox", name="Add people (optional)")
    for person in (ui_facts.dm_a, ui_facts.dm_b):
        box.fill(person.name)
        page.get_by_role("option", name=re.compile(rf"^{re.escape(person.name)} — ")).click()
        page.get_by_role("button", name=f"Remove {person.name}").wait_for()
    chosen = {ui_facts.dm_a.id, ui_facts.dm_b.id}
    page.get_by_role("button", name="Create channel").click()
    page.wait_for_url(re.compile(r"/chat/c/\d+$"))
    assert page.locator("#channel-title").inner_text().strip() == "deal-room"
    assert page.locator("#channel-title .icon-lock").count() == 1
    cid = int(page.url.rsplit("/", 1)[1])
    members = {
        r[0]
        for r in rows(
            store, ui_world, "SELECT employee_id FROM chat_membership WHERE channel_id=?", (cid,)
        )
    }
    assert members == chosen | {ui_facts.public_member.id}


def test_bad_channel_name_shows_the_rule(page, live_server):
    page.goto(f"{live_server.url}/chat/new")
    page.fill("#name", "Has Spaces")
    page.get_by_role("button", name="Create channel").click()
    assert page.locator(".alert--error").is_visible()
    assert page.locator("#name").input_value() == "Has Spaces"


def test_search_with_filters_and_open_a_result(page, live_server, ui_facts):
    page.goto(channel_url(live_server, ui_facts.public_id))
    send(page, "The quokka migration is scheduled")
    page.locator(".history__list .msg", has_text="quokka migration").wait_for()
    page.fill("#sidebar-search", f"quokka in:#{ui_facts.public_name}")
    page.press("#sidebar-search", "Enter")
    page.wait_for_url(re.compile(r"/chat/search\?"))
    assert "in" in page.locator(".filters").inner_text()
    page.locator(".hit__link", has_text="quokka").first.click()
    page.wait_for_url(re.compile(r"/chat/c/\d+\?m=\d+"))
    highlighted = page.locator(".msg.is-highlighted")
    assert "quokka migration" in highlighted.inner_text()


def test_edit_then_delete_own_message(page, live_server, ui_facts):
    page.goto(channel_url(live_server, ui_facts.public_id))
    send(page, "Draft numbers: 41")
    message = page.locator(".history__list .msg", has_text="Draft numbers: 41")
    message.wait_for()
    message.hover()
    message.get_by_label("More actions").click()
    message.get_by_role("link", name="Edit message").click()
    page.fill("#edit-body", "Final numbers: 42")
    page.get_by_role("button", name="Save changes").click()
    edited = page.locator(".history__list .msg", has_text="Final numbers: 42")
    edited.wait_for()
    assert "(edited)" in edited.inner_text()
    edited.hover()
    edited.get_by_label("More actions").click()
    edited.get_by_role("link", name="Delete message").click()
    page.get_by_role("button", name="Delete", exact=True).click()
    page.wait_for_url(re.compile(r"/chat/c/\d+$"))
    assert page.locator(".history__list .msg", has_text="Final numbers: 42").count() == 0


def test_upload_a_file_and_download_it(page, live_server, ui_facts):
    data = b"region,revenue\nwest,1200\neast,900\n"
    page.goto(channel_url(live_server, ui_facts.public_id))
    page.set_input_files(
        "#composer ~ .composer__bar input[type=file]",
        files=[{"name": "revenue.csv", "mimeType": "text/csv", "buffer": data}],
    )
    send(page, "Revenue by region attached")
    chip = page.locator(".history__list .file-chip", has_text="revenue.csv")
    chip.wait_for()
    with page.expect_download() as info:
        chip.click()
    download = info.value
    assert download.suggested_filename == "revenue.csv"
    assert download.failure() is None, download.failure()
    with open(download.path(), "rb") as handle:
        assert handle.read() == data


def test_mention_autocomplete_inserts_a_real_person(page, live_server, ui_facts):
    page.goto(channel_url(live_server, ui_facts.public_id))
    first = ui_facts.public_non_member.name.split()[0]
    page.fill("#composer", "")
    page.type("#composer", f"ping @{first[:3]}")
    option = page.locator(".autocomplete li", has_text=ui_facts.public_non_member.name)
    option.wait_for()
    option.click()
    assert page.locator("#composer").input_value() == f"ping @{ui_facts.public_non_member.name} "
