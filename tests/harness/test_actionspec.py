"""The action specs: one per action, read by the parser, the manual, the session and the env."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
from types import SimpleNamespace
from typing import Any

import pytest

from officegym.harness import gate, sft
from officegym.harness.actions import action_space_description, parse_action
from officegym.harness.actionspec import (
    ACTION_DOCS,
    ACTION_NAMES,
    INSTRUCTIONS,
    SPECS,
    ActionFailed,
    ActionSpec,
    ending_actions,
)
from officegym.harness.sandbox import Sandbox
from officegym.harness.session import BrowserSession


def run_alone(coroutine):
    """Run `coroutine` on a fresh loop in its own thread: a browser test that ran before in
    this worker may have left an event loop running on the main thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


EXAMPLES = {name: doc.rsplit("Example: ", 1)[1] for name, doc in ACTION_DOCS.items()}


def parse_one(text: str):
    (action,) = parse_action(text)
    return action


# --- the action set ---


def test_action_names_are_browsergyms_high_level_set() -> None:
    assert set(ACTION_NAMES) == {
        "click",
        "dblclick",
        "hover",
        "fill",
        "clear",
        "select_option",
        "check",
        "uncheck",
        "press",
        "focus",
        "scroll",
        "scroll_at",
        "drag_and_drop",
        "upload_file",
        "goto",
        "go_back",
        "go_forward",
        "new_tab",
        "tab_focus",
        "tab_close",
        "mouse_move",
        "mouse_click",
        "mouse_dblclick",
        "mouse_down",
        "mouse_up",
        "mouse_drag_and_drop",
        "mouse_upload_file",
        "keyboard_type",
        "keyboard_insert_text",
        "keyboard_press",
        "keyboard_down",
        "keyboard_up",
        "send_msg_to_user",
        "report_infeasible",
        "noop",
    }


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_documented_example_parses_to_its_action_in_canonical_form(name: str) -> None:
    action = parse_one(EXAMPLES[name])
    assert action.name == name
    assert str(action) == EXAMPLES[name]


def test_every_action_has_a_one_line_doc() -> None:
    assert list(ACTION_DOCS) == list(ACTION_NAMES)
    assert all("\n" not in doc for doc in ACTION_DOCS.values())


def test_description_lists_every_action_with_signature_and_example() -> None:
    manual = action_space_description()
    assert 'click(bid: str, button: Literal["left", "middle", "right"] = "left"' in manual
    assert "noop(wait_ms: float = 1000)" in manual
    for name in ACTION_NAMES:
        assert f"\n{name}(" in manual
        assert EXAMPLES[name] in manual


# --- one spec per action ---


def test_specs_are_keyed_by_their_names_in_manual_order() -> None:
    assert list(SPECS) == [spec.name for spec in SPECS.values()] == list(ACTION_NAMES)


def test_a_spec_is_frozen() -> None:
    with pytest.raises(AttributeError):
        SPECS["click"].name = "tap"  # type: ignore[misc]


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_each_handler_takes_the_session_and_the_specs_parameters(name: str) -> None:
    parameters = list(inspect.signature(SPECS[name].handler).parameters)
    assert parameters == ["session", *(param.name for param in SPECS[name].params)]


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_each_signature_is_the_typed_one_without_types(name: str) -> None:
    spec = SPECS[name]
    assert spec.signature().startswith(f"{name}(")
    assert spec.signature(typed=True).startswith(f"{name}(")
    assert [p.name for p in spec.params] == [
        part.split("=")[0] for part in spec.signature()[len(name) + 1 : -1].split(", ") if part
    ]


# --- self-describing specs (what an env or MCP server publishes) ---

_JSON_TYPES = {
    "boolean": bool,
    "string": str,
    "integer": int,
    "number": (int, float),
    "array": (list, tuple),
}


def _conforms(value: Any, schema: dict[str, Any]) -> bool:
    """A small JSON-schema check: type, enum, anyOf, array items, bounds."""
    if "anyOf" in schema:
        return any(_conforms(value, option) for option in schema["anyOf"])
    if "enum" in schema and value not in schema["enum"]:
        return False
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        if isinstance(value, bool) != ("boolean" in names) or not any(
            isinstance(value, _JSON_TYPES[name]) for name in names
        ):
            return False
    if "items" in schema and not all(_conforms(item, schema["items"]) for item in value):
        return False
    if "minimum" in schema and value < schema["minimum"]:
        return False
    if "maximum" in schema and value > schema["maximum"]:
        return False
    return not ("maxLength" in schema and len(value) > schema["maxLength"])


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_each_spec_is_published_as_json(name: str) -> None:
    published = json.loads(json.dumps(SPECS[name].to_json()))
    assert published["name"] == name
    assert published["example"] == EXAMPLES[name]
    assert published["ends_episode"] == SPECS[name].ends_episode
    schema = published["parameters"]
    assert list(schema["properties"]) == [param.name for param in SPECS[name].params]
    assert schema["required"] == [param.name for param in SPECS[name].params if param.required]
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_each_examples_arguments_fit_the_published_schema(name: str) -> None:
    properties = SPECS[name].json_schema()["properties"]
    for key, value in parse_one(EXAMPLES[name]).args:
        assert _conforms(value, properties[key]), (key, value, properties[key])
        if "default" in properties[key]:
            assert _conforms(properties[key]["default"], properties[key])


def test_schema_defaults_are_the_specs_defaults_in_json() -> None:
    properties = SPECS["click"].json_schema()["properties"]
    assert properties["button"]["default"] == "left"
    assert properties["modifiers"]["default"] == []
    assert SPECS["noop"].json_schema()["properties"]["wait_ms"]["default"] == 1000


# --- dispatch: the session runs each action with its spec's handler ---


class FakeBrowser:
    """Stands in for the session and everything reached from it; records each call by path."""

    def __init__(self, log: list[str], path: str = "") -> None:
        self._log = log
        self._path = path

    def __getattr__(self, name: str) -> FakeBrowser:
        return FakeBrowser(self._log, f"{self._path}.{name}".lstrip("."))

    def __call__(self, *args: Any, **kwargs: Any) -> FakeBrowser:
        self._log.append(self._path)
        return FakeBrowser(self._log, self._path)

    def __await__(self):
        return self
        yield  # an awaitable that resolves to itself at once

    async def __aenter__(self) -> FakeBrowser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class FakeSession(FakeBrowser):
    pages = ["tab 0", "tab 1"]


def dispatch(text: str) -> list[str]:
    log: list[str] = []
    run_alone(BrowserSession.execute(FakeSession(log), parse_one(text)))
    return log


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_each_action_is_dispatched_to_its_handler(name: str) -> None:
    calls = dispatch(EXAMPLES[name])
    if SPECS[name].ends_episode:
        assert calls == [], "an ending action does nothing in the browser"
    else:
        assert calls, f"{name} reached nothing in the browser"


def test_dispatch_runs_element_actions_on_the_element_with_the_bid() -> None:
    assert dispatch('click("12")') == ["element", "element.click"]
    assert dispatch('fill("7", "x")') == ["element", "element.fill"]
    assert dispatch("mouse_click(1, 2)") == ["page.mouse.click"]
    assert dispatch("noop()") == ["settle"]
    assert dispatch("tab_focus(1)") == ["activate"]


def test_dispatch_of_browsergyms_pointer_and_keyboard_actions() -> None:
    assert dispatch("scroll_at(1, 2, 0, 300)") == ["page.mouse.move", "page.mouse.wheel"]
    assert dispatch("mouse_drag_and_drop(1, 2, 3, 4)") == [
        "page.mouse.move",
        "page.mouse.down",
        "page.mouse.move",
        "page.mouse.up",
    ]
    assert dispatch('keyboard_insert_text("x")') == ["page.keyboard.insert_text"]
    assert dispatch('keyboard_down("Shift")') == ["page.keyboard.down"]
    assert dispatch('keyboard_up("Shift")') == ["page.keyboard.up"]
    assert dispatch('fill("7", "Mon", True)') == [
        "element",
        "element.clear",
        "element.fill",
        "element.press_sequentially",
    ]


# --- ending actions come only from the specs ---


def test_ending_actions_are_the_specs_with_an_ending() -> None:
    assert ending_actions() == tuple(n for n, s in SPECS.items() if s.ending is not None)
    assert ending_actions() == ("send_msg_to_user", "report_infeasible")


def test_an_answer_ends_the_episode_with_the_answer() -> None:
    ending = SPECS["send_msg_to_user"].ending
    assert ending.outcome({"text": "42"}) == {"answer": "42", "infeasible": None}


def test_an_empty_infeasibility_report_still_reports_infeasible() -> None:
    ending = SPECS["report_infeasible"].ending
    assert ending.outcome({"reason": ""}) == {"answer": None, "infeasible": "infeasible"}
    assert ending.outcome({"reason": "no room"}) == {"answer": None, "infeasible": "no room"}


def test_instructions_name_each_ending_action_with_its_argument() -> None:
    assert INSTRUCTIONS.startswith("Finish with send_msg_to_user(text) when the task is done")
    for name in ending_actions():
        assert f"{name}({SPECS[name].ending.param})" in INSTRUCTIONS


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_the_gate_replays_exactly_the_ending_actions_after_the_collateral_edit(name: str) -> None:
    ended = SimpleNamespace(done=True, truncated=False, last_action=EXAMPLES[name])
    expected = EXAMPLES[name] if SPECS[name].ends_episode else None
    assert gate._ending(ended) == expected
    assert gate._ending(SimpleNamespace(**{**vars(ended), "truncated": True})) is None


def test_the_sft_prompt_lists_every_spec() -> None:
    for spec in SPECS.values():
        assert f"- {spec.doc}" in sft.SYSTEM_PROMPT
    assert INSTRUCTIONS in sft.SYSTEM_PROMPT


def test_a_spec_is_an_action_spec() -> None:
    assert all(isinstance(spec, ActionSpec) for spec in SPECS.values())


# --- BrowserGym's further handlers on a real page (a local document, no server) ---

_PAGE = """<!doctype html>
<style>body { margin: 0 } #box { height: 80px; width: 200px; overflow: auto }</style>
<input bid="1" id="city">
<div bid="2" id="box"><div style="height: 1000px">long</div></div>
<div bid="3" id="from" style="height: 40px; width: 80px">from</div>
<div bid="4" id="to" style="height: 40px; width: 80px">to</div>
<button bid="5" id="pick" type="button">Attach</button>
<input bid="6" id="files" type="file" style="display: none">
<input bid="7" id="direct" type="file" multiple>
<script>
  window.events = [];
  for (const type of ["keydown", "keyup", "input", "mousedown", "mouseup"]) {
    document.addEventListener(type, e => {
      window.events.push([type, e.key || (e.target.id || null)]);
    }, true);
  }
  document.querySelector("#pick").onclick = () => document.querySelector("#files").click();
</script>"""


@pytest.fixture(scope="module")
def real_page(loop, tmp_path_factory):
    """A session on a local document with bids written in, and `notes.txt` to upload."""
    folder = tmp_path_factory.mktemp("uploads")
    (folder / "notes.txt").write_text("hello", encoding="utf-8")
    origin = "http://127.0.0.1:9"
    session = loop.run(
        BrowserSession.prepare(
            loop.browser,
            origin=origin,
            world_id="0",
            sandbox=Sandbox(origin, folder),
        )
    )
    yield loop, session
    loop.run(session.close())


def on_page(real_page, *texts: str) -> Any:
    """Load the test document, run each action, and return the page's recorded events."""
    loop, session = real_page

    async def go():
        await session.page.set_content(_PAGE)
        for text in texts:
            await session.execute(parse_one(text))
        return await session.page.evaluate("() => window.events")

    return loop.run(go())


def page_value(real_page, script: str) -> Any:
    loop, session = real_page
    return loop.run(session.page.evaluate(script))


def centre(real_page, selector: str) -> tuple[float, float]:
    box = page_value(
        real_page,
        f"() => {{ const r = document.querySelector({json.dumps(selector)})"
        ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }",
    )
    return box[0], box[1]


@pytest.mark.browser
def test_fill_with_the_autocomplete_flag_types_only_the_last_character(real_page) -> None:
    events = on_page(real_page, 'fill("1", "Montre", True)')
    assert page_value(real_page, "() => city.value") == "Montre"
    # Clearing may press Delete; of the text, only the last character comes as a key press.
    assert [key for kind, key in events if kind == "keydown" and len(key) == 1] == ["e"]
    plain = on_page(real_page, 'fill("1", "Montre")')
    assert page_value(real_page, "() => city.value") == "Montre"
    assert [key for kind, key in plain if kind == "keydown" and len(key) == 1] == []


@pytest.mark.browser
def test_keyboard_insert_text_inserts_without_key_events(real_page) -> None:
    events = on_page(real_page, 'focus("1")', 'keyboard_insert_text("Lyon")')
    assert page_value(real_page, "() => city.value") == "Lyon"
    assert [kind for kind, _ in events] == ["input"]


@pytest.mark.browser
def test_keyboard_down_holds_a_key_until_keyboard_up(real_page) -> None:
    events = on_page(
        real_page,
        'focus("1")',
        'keyboard_down("Shift")',
        'keyboard_type("a")',
        'keyboard_up("Shift")',
    )
    keys = [(kind, key) for kind, key in events if kind in ("keydown", "keyup")]
    assert keys[0] == ("keydown", "Shift") and keys[-1] == ("keyup", "Shift")
    assert ("keyup", "Shift") not in keys[:-1]


@pytest.mark.browser
def test_scroll_at_scrolls_the_element_under_the_point(real_page) -> None:
    on_page(real_page)
    x, y = centre(real_page, "#box")
    loop, session = real_page
    loop.run(session.execute(parse_one(f"scroll_at({x}, {y}, 0, 200)")))
    loop.run(session.page.wait_for_function("() => box.scrollTop > 0"))
    assert page_value(real_page, "() => window.scrollY") == 0


@pytest.mark.browser
def test_mouse_drag_and_drop_presses_at_one_point_and_releases_at_the_other(real_page) -> None:
    on_page(real_page)
    (fx, fy), (tx, ty) = centre(real_page, "#from"), centre(real_page, "#to")
    loop, session = real_page
    loop.run(session.execute(parse_one(f"mouse_drag_and_drop({fx}, {fy}, {tx}, {ty})")))
    events = page_value(real_page, "() => window.events")
    assert [e for e in events if e[0] in ("mousedown", "mouseup")] == [
        ["mousedown", "from"],
        ["mouseup", "to"],
    ]


@pytest.mark.browser
def test_upload_file_on_a_file_input_sets_its_files_and_an_empty_list_clears_them(
    real_page,
) -> None:
    on_page(real_page, 'upload_file("7", ["notes.txt", "notes.txt"])')
    names = "() => [...direct.files].map(f => f.name)"
    assert page_value(real_page, names) == ["notes.txt", "notes.txt"]
    loop, session = real_page
    loop.run(session.execute(parse_one('upload_file("7", [])')))
    assert page_value(real_page, names) == []


@pytest.mark.browser
def test_upload_file_on_a_button_fills_the_chooser_it_opens(real_page) -> None:
    on_page(real_page, 'upload_file("5", "notes.txt")')
    assert page_value(real_page, "() => [...files.files].map(f => f.name)") == ["notes.txt"]


@pytest.mark.browser
def test_mouse_upload_file_clicks_a_point_and_fills_the_chooser(real_page) -> None:
    on_page(real_page)
    x, y = centre(real_page, "#pick")
    loop, session = real_page
    loop.run(session.execute(parse_one(f'mouse_upload_file({x}, {y}, ["notes.txt"])')))
    assert page_value(real_page, "() => [...files.files].map(f => f.name)") == ["notes.txt"]


@pytest.mark.browser
def test_every_upload_on_a_fresh_tab_gets_its_chooser(loop, tmp_path) -> None:
    """A chooser that opened before Playwright's subscription arrived was lost (2 of 20)."""
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    origin = "http://127.0.0.1:9"

    async def go() -> list[list[str]]:
        names = []
        for _ in range(20):
            session = await BrowserSession.prepare(
                loop.browser, origin=origin, world_id="0", sandbox=Sandbox(origin, tmp_path)
            )
            try:
                await session.page.set_content(_PAGE)
                box = await session.page.locator("#pick").bounding_box()
                x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
                await session.execute(parse_one(f'mouse_upload_file({x}, {y}, "notes.txt")'))
                names.append(await session.page.evaluate("() => [...files.files].map(f => f.name)"))
            finally:
                await session.close()
        return names

    assert loop.run(go()) == [["notes.txt"]] * 20


@pytest.mark.browser
def test_mouse_upload_file_where_no_chooser_opens_is_an_action_error(real_page) -> None:
    with pytest.raises(ActionFailed, match="no file chooser opened after clicking"):
        on_page(real_page, 'mouse_upload_file(5, 790, "notes.txt")')


@pytest.mark.browser
def test_mouse_upload_file_reads_only_the_episode_folder(real_page) -> None:
    with pytest.raises(ActionFailed, match="outside the episode folder"):
        on_page(real_page, 'mouse_upload_file(5, 5, "/etc/passwd")')
