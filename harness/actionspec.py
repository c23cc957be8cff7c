"""Every action an agent may send, declared once: one `ActionSpec` per action.

A spec holds the action's name, its parameters (with type hints, JSON schemas and the check
that reads an argument), a one-line description, an example call, the handler that performs
it on a `BrowserSession`, and how it ends the episode (when it does). The parser, the prompt
manual, `PageActions`, the session, the environment, the gate and the SFT export all read
`SPECS`; an env or MCP server can publish `spec.to_json()`.

    >>> SPECS["fill"].signature(typed=True)
    'fill(bid: str, value: str, enable_autocomplete_menu: bool = False)'
    >>> ending_actions()
    ('send_msg_to_user', 'report_infeasible')
"""

from __future__ import annotations

import copy
import difflib
import json
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from playwright.async_api import TimeoutError as PlaywrightTimeout

from officegym.tasks.answer import CONTRACT

if TYPE_CHECKING:
    from .session import BrowserSession

MAX_STRING_CHARS = 10_000
MAX_WAIT_MS = 10_000

Button = Literal["left", "middle", "right"]
Modifier = Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]
BUTTONS: tuple[str, ...] = ("left", "middle", "right")
MODIFIERS: tuple[str, ...] = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")


class ActionParseError(ValueError):
    """The action text is not a valid action; the message says what to send instead."""


class ActionFailed(Exception):
    """An action could not be carried out; the message is shown to the agent."""


# --- argument checks: each returns the value in canonical form or raises ActionParseError ---

Check = Callable[[str, str, Any], Any]


def describe_value(value: Any) -> str:
    """A short `type repr` of a value, for error messages an agent reads."""
    if value is None:
        return "None"
    text = repr(list(value) if isinstance(value, tuple) else value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def render_literal(value: Any) -> str:
    """A value as it is written in action text: strings in double quotes, lists in brackets."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(render_literal(item) for item in value) + "]"
    return repr(value)


def _type_error(action: str, param: str, expected: str, value: Any) -> ActionParseError:
    return ActionParseError(
        f"{action}(): argument '{param}' must be {expected}, got {describe_value(value)}"
    )


def _text(action: str, param: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _type_error(action, param, "a string", value)
    if len(value) > MAX_STRING_CHARS:
        raise ActionParseError(
            f"{action}(): argument '{param}' is {len(value)} characters long; "
            f"the limit is {MAX_STRING_CHARS}"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ActionParseError(
            f"{action}(): argument '{param}' contains an unpaired surrogate; send valid Unicode text"
        ) from None
    return str(value)


def _bid(action: str, param: str, value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(int(value))
    if not isinstance(value, str):
        raise _type_error(action, param, 'an element id (bid) such as "12"', value)
    value = _text(action, param, value)
    if not value.strip():
        raise ActionParseError(
            f"{action}(): argument '{param}' must be a non-empty element id (bid) such as \"12\""
        )
    return value


def _number(action: str, param: str, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _type_error(action, param, "a number", value)
    try:
        finite = math.isfinite(value)
    except OverflowError:
        finite = False
    if not finite:
        raise _type_error(action, param, "a finite number", value)
    return int(value) if isinstance(value, int) else float(value)


def _wait_ms(action: str, param: str, value: Any) -> int | float:
    value = _number(action, param, value)
    if not 0 <= value <= MAX_WAIT_MS:
        raise ActionParseError(
            f"{action}(): argument '{param}' must be between 0 and {MAX_WAIT_MS} "
            f"(milliseconds), got {value!r}"
        )
    return value


def _index(action: str, param: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _type_error(action, param, "an integer", value)
    if value < 0:
        raise ActionParseError(
            f"{action}(): argument '{param}' must be 0 or more (tabs count from 0), got {value!r}"
        )
    return int(value)


def _choices(options: tuple[str, ...]) -> str:
    return ", ".join(json.dumps(option) for option in options)


def _button(action: str, param: str, value: Any) -> str:
    if not isinstance(value, str) or value not in BUTTONS:
        raise _type_error(action, param, f"one of {_choices(BUTTONS)}", value)
    return str(value)


def _modifiers(action: str, param: str, value: Any) -> tuple[str, ...]:
    expected = f'a list of {_choices(MODIFIERS)} such as ["Shift"]'
    if not isinstance(value, list | tuple):
        raise _type_error(action, param, expected, value)
    for item in value:
        if not isinstance(item, str) or item not in MODIFIERS:
            raise ActionParseError(
                f"{action}(): argument '{param}' must be {expected}; "
                f"{describe_value(item)} is not a modifier key"
            )
    return tuple(str(item) for item in value)


def _flag(action: str, param: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _type_error(action, param, "True or False", value)
    return value


def _text_or_list(action: str, param: str, value: Any) -> str | tuple[str, ...]:
    if isinstance(value, str):
        return _text(action, param, value)
    if not isinstance(value, list | tuple):
        raise _type_error(action, param, "a string or a list of strings", value)
    return tuple(_text(action, f"{param}[{i}]", item) for i, item in enumerate(value))


# --- parameters ---


@dataclass(frozen=True)
class ParamType:
    """What an argument may be: a Python hint for the manual, a JSON schema, and its check."""

    hint: str
    schema: Mapping[str, Any]
    check: Check


BID = ParamType(
    "str",
    {"type": ["string", "integer"], "description": 'an element id (bid) such as "12"'},
    _bid,
)
TEXT = ParamType("str", {"type": "string", "maxLength": MAX_STRING_CHARS}, _text)
TEXTS = ParamType(
    "str | list[str]",
    {
        "anyOf": [
            {"type": "string", "maxLength": MAX_STRING_CHARS},
            {"type": "array", "items": {"type": "string", "maxLength": MAX_STRING_CHARS}},
        ]
    },
    _text_or_list,
)
NUMBER = ParamType("float", {"type": "number"}, _number)
FLAG = ParamType("bool", {"type": "boolean"}, _flag)
WAIT_MS = ParamType("float", {"type": "number", "minimum": 0, "maximum": MAX_WAIT_MS}, _wait_ms)
INDEX = ParamType("int", {"type": "integer", "minimum": 0}, _index)
BUTTON = ParamType(f"Literal[{_choices(BUTTONS)}]", {"enum": list(BUTTONS)}, _button)
MODIFIER_KEYS = ParamType(
    f"list[Literal[{_choices(MODIFIERS)}]]",
    {"type": "array", "items": {"enum": list(MODIFIERS)}},
    _modifiers,
)


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a parameter that has none: the argument must be given."""


def _to_json(value: Any) -> Any:
    return [_to_json(item) for item in value] if isinstance(value, list | tuple) else value


@dataclass(frozen=True)
class Param:
    """One parameter of an action: its name, type and default (`REQUIRED` when it has none)."""

    name: str
    type: ParamType
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def check(self, action: str, value: Any) -> Any:
        """`value` in canonical form (lists become tuples); raises ActionParseError."""
        return self.type.check(action, self.name, value)

    def json_schema(self) -> dict[str, Any]:
        schema = copy.deepcopy(dict(self.type.schema))
        if not self.required:
            schema["default"] = _to_json(self.default)
        return schema


# --- how an action ends the episode ---


@dataclass(frozen=True)
class Ending:
    """How an action ends the episode: which argument carries its text, which outcome that
    text becomes (`answer` or `infeasible`), and when an agent should end with it."""

    sets: Literal["answer", "infeasible"]
    param: str
    when: str

    def outcome(self, args: Mapping[str, Any]) -> dict[str, str | None]:
        """The episode's `answer` and `infeasible` once the action ran with `args`."""
        text = args[self.param]
        if self.sets == "answer":
            return {"answer": text, "infeasible": None}
        return {"answer": None, "infeasible": text or "infeasible"}


# --- the specs ---

Handler = Callable[..., Awaitable[None]]


@dataclass(frozen=True)
class ActionSpec:
    """One action: its signature, what it does, an example, its handler and its ending.

    `handler(session, **arguments)` performs the action on a `BrowserSession` with the bound
    arguments (parameter names as keywords). `ending` is set for the actions that end the
    episode; the environment reads it, the browser does nothing for them.
    """

    name: str
    params: tuple[Param, ...]
    description: str
    example: str
    handler: Handler
    ending: Ending | None = None

    @property
    def ends_episode(self) -> bool:
        return self.ending is not None

    @property
    def doc(self) -> str:
        """One line for prompts: what the action does, then `Example: <call>`."""
        return f"{self.description} Example: {self.example}"

    def signature(self, *, typed: bool = False) -> str:
        """`name(a, b="x")`, or with type hints (`name(a: str, b: str = "x")`) when `typed`."""
        parts = []
        for param in self.params:
            part = f"{param.name}: {param.type.hint}" if typed else param.name
            if not param.required:
                part += f"{' = ' if typed else '='}{render_literal(param.default)}"
            parts.append(part)
        return f"{self.name}({', '.join(parts)})"

    def json_schema(self) -> dict[str, Any]:
        """The arguments as a JSON schema object (for tool-calling APIs)."""
        return {
            "type": "object",
            "properties": {param.name: param.json_schema() for param in self.params},
            "required": [param.name for param in self.params if param.required],
            "additionalProperties": False,
        }

    def to_json(self) -> dict[str, Any]:
        """The spec without its handler, JSON-serialisable (what a server publishes)."""
        return {
            "name": self.name,
            "signature": self.signature(typed=True),
            "description": self.description,
            "example": self.example,
            "parameters": self.json_schema(),
            "ends_episode": self.ends_episode,
        }


# --- handlers: each performs one action on the session's active tab ---


async def _click(session: BrowserSession, bid: str, button: str, modifiers: tuple[str, ...]):
    await (await session.element(bid)).click(button=button, modifiers=list(modifiers))


async def _dblclick(session: BrowserSession, bid: str, button: str, modifiers: tuple[str, ...]):
    await (await session.element(bid)).dblclick(button=button, modifiers=list(modifiers))


async def _hover(session: BrowserSession, bid: str) -> None:
    await (await session.element(bid, enabled=False)).hover()


async def _fill(session: BrowserSession, bid: str, value: str, enable_autocomplete_menu: bool):
    element = await session.element(bid)
    if not enable_autocomplete_menu:
        await element.fill(value)
        return
    # As BrowserGym does: fill all but the last character, then type that one as a key press,
    # so that pages which open a suggestion menu on keyboard input open it.
    await element.clear()
    if len(value) > 1:
        await element.fill(value[:-1])
    if value:
        await element.press_sequentially(value[-1])


async def _clear(session: BrowserSession, bid: str) -> None:
    await (await session.element(bid)).clear()


async def _select_option(session: BrowserSession, bid: str, options: str | tuple[str, ...]):
    choice = [options] if isinstance(options, str) else list(options)
    await (await session.element(bid)).select_option(choice)


async def _check(session: BrowserSession, bid: str) -> None:
    await (await session.element(bid)).set_checked(True)


async def _uncheck(session: BrowserSession, bid: str) -> None:
    await (await session.element(bid)).set_checked(False)


async def _press(session: BrowserSession, bid: str, key_comb: str) -> None:
    await (await session.element(bid, enabled=False)).press(key_comb)


async def _focus(session: BrowserSession, bid: str) -> None:
    await (await session.element(bid, enabled=False)).focus()


async def _scroll(session: BrowserSession, delta_x: float, delta_y: float) -> None:
    await session.page.mouse.wheel(delta_x, delta_y)


async def _scroll_at(session: BrowserSession, x: float, y: float, dx: float, dy: float) -> None:
    await session.page.mouse.move(x, y)
    await session.page.mouse.wheel(dx, dy)


async def _drag_and_drop(session: BrowserSession, from_bid: str, to_bid: str) -> None:
    source = await session.element(from_bid)
    target = await session.element(to_bid, enabled=False)
    await source.drag_to(target)


# The element a file is set on, as Playwright's setInputFiles retargets: the element itself,
# or the control of the <label> around it. True when that is an <input type=file>.
_TAKES_FILES_JS = """el => {
    const plain = el.matches('input, textarea, select') || el.isContentEditable;
    const target = plain ? el : (el.closest('label')?.control || el);
    return target instanceof HTMLInputElement && target.type === 'file';
}"""


async def _choose_files(
    session: BrowserSession,
    name: str,
    where: str,
    click: Callable[[], Awaitable[Any]],
    paths: list[str],
) -> None:
    """Click, wait for the file chooser the click opens, and give it `paths`."""
    page = session.page
    try:
        async with page.expect_file_chooser() as chooser:
            await click()
        await (await chooser.value).set_files(paths)
    except PlaywrightTimeout:
        raise ActionFailed(
            f"{name}: no file chooser opened after clicking {where}; "
            "click a file input or the button that opens one"
        ) from None


async def _upload_file(session: BrowserSession, bid: str, file: str | tuple[str, ...]) -> None:
    paths = session.sandbox.upload_paths([file] if isinstance(file, str) else list(file))
    element = await session.element(bid)
    if await element.evaluate(_TAKES_FILES_JS):
        await element.set_input_files(paths)
    else:
        # Like BrowserGym: a button or link that opens a file chooser when clicked.
        await _choose_files(session, "upload_file", f"element {bid!r}", element.click, paths)


async def _mouse_upload_file(
    session: BrowserSession, x: float, y: float, file: str | tuple[str, ...]
) -> None:
    paths = session.sandbox.upload_paths([file] if isinstance(file, str) else list(file))
    mouse = session.page.mouse
    await _choose_files(
        session, "mouse_upload_file", f"({x}, {y})", lambda: mouse.click(x, y), paths
    )


async def _goto(session: BrowserSession, url: str) -> None:
    page = session.page
    await page.goto(session.sandbox.resolve_url(url, page.url), wait_until="load")


async def _go_back(session: BrowserSession) -> None:
    if not await session.history(-1):
        raise ActionFailed("go_back: there is no previous page in this tab's history")


async def _go_forward(session: BrowserSession) -> None:
    if not await session.history(1):
        raise ActionFailed("go_forward: there is no next page in this tab's history")


async def _new_tab(session: BrowserSession) -> None:
    await session.context.new_page()


async def _tab_focus(session: BrowserSession, index: int) -> None:
    if not 0 <= index < len(session.pages):
        raise ActionFailed(f"tab_focus: no tab {index}; open tabs are 0..{len(session.pages) - 1}")
    await session.activate(index)


async def _tab_close(session: BrowserSession) -> None:
    await session.close_tab()


async def _mouse_move(session: BrowserSession, x: float, y: float) -> None:
    await session.page.mouse.move(x, y)


async def _mouse_click(session: BrowserSession, x: float, y: float, button: str) -> None:
    await session.page.mouse.click(x, y, button=button, click_count=1)


async def _mouse_dblclick(session: BrowserSession, x: float, y: float, button: str) -> None:
    await session.page.mouse.click(x, y, button=button, click_count=2)


async def _mouse_down(session: BrowserSession, x: float, y: float, button: str) -> None:
    await session.page.mouse.move(x, y)
    await session.page.mouse.down(button=button)


async def _mouse_up(session: BrowserSession, x: float, y: float, button: str) -> None:
    await session.page.mouse.move(x, y)
    await session.page.mouse.up(button=button)


async def _mouse_drag_and_drop(
    session: BrowserSession, from_x: float, from_y: float, to_x: float, to_y: float
) -> None:
    mouse = session.page.mouse
    await mouse.move(from_x, from_y)
    await mouse.down()
    await mouse.move(to_x, to_y)
    await mouse.up()


async def _keyboard_type(session: BrowserSession, text: str) -> None:
    await session.page.keyboard.type(text)


async def _keyboard_insert_text(session: BrowserSession, text: str) -> None:
    await session.page.keyboard.insert_text(text)


async def _keyboard_press(session: BrowserSession, key: str) -> None:
    await session.page.keyboard.press(key)


async def _keyboard_down(session: BrowserSession, key: str) -> None:
    await session.page.keyboard.down(key)


async def _keyboard_up(session: BrowserSession, key: str) -> None:
    await session.page.keyboard.up(key)


async def _send_msg_to_user(session: BrowserSession, text: str) -> None:
    """Nothing happens in the browser: the environment ends the episode with the answer."""


async def _report_infeasible(session: BrowserSession, reason: str) -> None:
    """Nothing happens in the browser: the environment ends the episode as infeasible."""


async def _noop(session: BrowserSession, wait_ms: float) -> None:
    # Wait for the page to be quiet, at most wait_ms (nothing changes without traffic).
    await session.settle(wait_ms)


# --- the table, in manual order ---

_BUTTON_ARG = Param("button", BUTTON, "left")
_MODIFIERS_ARG = Param("modifiers", MODIFIER_KEYS, ())
_XY = (Param("x", NUMBER), Param("y", NUMBER))

_ALL = (
    ActionSpec(
        "click",
        (Param("bid", BID), _BUTTON_ARG, _MODIFIERS_ARG),
        "Click an element; optionally another mouse button or held modifier keys.",
        'click("12")',
        _click,
    ),
    ActionSpec(
        "dblclick",
        (Param("bid", BID), _BUTTON_ARG, _MODIFIERS_ARG),
        "Double-click an element.",
        'dblclick("12")',
        _dblclick,
    ),
    ActionSpec(
        "hover", (Param("bid", BID),), "Move the mouse over an element.", 'hover("12")', _hover
    ),
    ActionSpec(
        "fill",
        (Param("bid", BID), Param("value", TEXT), Param("enable_autocomplete_menu", FLAG, False)),
        "Replace the text of an input, textarea or editable element; with "
        "enable_autocomplete_menu=True the last character is typed as a key press, so a "
        "suggestion menu opens.",
        'fill("7", "Quarterly review")',
        _fill,
    ),
    ActionSpec("clear", (Param("bid", BID),), "Empty an input field.", 'clear("7")', _clear),
    ActionSpec(
        "select_option",
        (Param("bid", BID), Param("options", TEXTS)),
        "Choose an option of a <select> by value or label; a list selects several.",
        'select_option("9", "Negotiation")',
        _select_option,
    ),
    ActionSpec(
        "check",
        (Param("bid", BID),),
        "Make sure a checkbox or radio button is checked.",
        'check("15")',
        _check,
    ),
    ActionSpec(
        "uncheck",
        (Param("bid", BID),),
        "Make sure a checkbox is unchecked.",
        'uncheck("15")',
        _uncheck,
    ),
    ActionSpec(
        "press",
        (Param("bid", BID), Param("key_comb", TEXT)),
        "Focus an element and press a key or combination (Enter, Escape, Control+a).",
        'press("7", "Enter")',
        _press,
    ),
    ActionSpec("focus", (Param("bid", BID),), "Focus an element.", 'focus("7")', _focus),
    ActionSpec(
        "scroll",
        (Param("delta_x", NUMBER), Param("delta_y", NUMBER)),
        "Scroll by pixels: positive is right/down, negative is left/up.",
        "scroll(0, 300)",
        _scroll,
    ),
    ActionSpec(
        "scroll_at",
        (*_XY, Param("dx", NUMBER), Param("dy", NUMBER)),
        "Move the mouse to viewport coordinates and scroll there by pixels (dx, dy).",
        "scroll_at(420, 300, 0, 300)",
        _scroll_at,
    ),
    ActionSpec(
        "drag_and_drop",
        (Param("from_bid", BID), Param("to_bid", BID)),
        "Drag one element and drop it on another.",
        'drag_and_drop("21", "34")',
        _drag_and_drop,
    ),
    ActionSpec(
        "upload_file",
        (Param("bid", BID), Param("file", TEXTS)),
        "Set the file(s) of a file input, or of the file chooser an element opens when "
        "clicked, by path; a list sets several.",
        'upload_file("18", "report.pdf")',
        _upload_file,
    ),
    ActionSpec(
        "goto", (Param("url", TEXT),), "Open a URL in the current tab.", 'goto("/crm/")', _goto
    ),
    ActionSpec(
        "go_back", (), "Go back one page in the current tab's history.", "go_back()", _go_back
    ),
    ActionSpec(
        "go_forward",
        (),
        "Go forward one page in the current tab's history.",
        "go_forward()",
        _go_forward,
    ),
    ActionSpec("new_tab", (), "Open a new empty tab and switch to it.", "new_tab()", _new_tab),
    ActionSpec(
        "tab_focus",
        (Param("index", INDEX),),
        "Switch to the tab at this 0-based index (see the open pages).",
        "tab_focus(0)",
        _tab_focus,
    ),
    ActionSpec("tab_close", (), "Close the current tab.", "tab_close()", _tab_close),
    ActionSpec(
        "mouse_move",
        _XY,
        "Move the mouse to viewport coordinates in pixels (from the top-left).",
        "mouse_move(420, 300)",
        _mouse_move,
    ),
    ActionSpec(
        "mouse_click",
        (*_XY, _BUTTON_ARG),
        "Click at viewport coordinates.",
        "mouse_click(420, 300)",
        _mouse_click,
    ),
    ActionSpec(
        "mouse_dblclick",
        (*_XY, _BUTTON_ARG),
        "Double-click at viewport coordinates.",
        "mouse_dblclick(420, 300)",
        _mouse_dblclick,
    ),
    ActionSpec(
        "mouse_down",
        (*_XY, _BUTTON_ARG),
        "Move to viewport coordinates and press a mouse button (hold it).",
        "mouse_down(420, 300)",
        _mouse_down,
    ),
    ActionSpec(
        "mouse_up",
        (*_XY, _BUTTON_ARG),
        "Move to viewport coordinates and release a mouse button.",
        "mouse_up(520, 300)",
        _mouse_up,
    ),
    ActionSpec(
        "mouse_drag_and_drop",
        (
            Param("from_x", NUMBER),
            Param("from_y", NUMBER),
            Param("to_x", NUMBER),
            Param("to_y", NUMBER),
        ),
        "Press the left mouse button at one point, move to another and release it there.",
        "mouse_drag_and_drop(420, 300, 520, 300)",
        _mouse_drag_and_drop,
    ),
    ActionSpec(
        "mouse_upload_file",
        (*_XY, Param("file", TEXTS)),
        "Click at viewport coordinates where a file chooser opens and give it the file(s).",
        'mouse_upload_file(420, 300, "report.pdf")',
        _mouse_upload_file,
    ),
    ActionSpec(
        "keyboard_type",
        (Param("text", TEXT),),
        "Type text into the focused element, key by key.",
        'keyboard_type("Hello")',
        _keyboard_type,
    ),
    ActionSpec(
        "keyboard_insert_text",
        (Param("text", TEXT),),
        "Insert text into the focused element at once (an input event, no key events).",
        'keyboard_insert_text("Hello")',
        _keyboard_insert_text,
    ),
    ActionSpec(
        "keyboard_press",
        (Param("key", TEXT),),
        "Press a key or combination on the focused element (Enter, Control+a).",
        'keyboard_press("Enter")',
        _keyboard_press,
    ),
    ActionSpec(
        "keyboard_down",
        (Param("key", TEXT),),
        "Press and hold a key (Shift, Control, a) until keyboard_up releases it.",
        'keyboard_down("Shift")',
        _keyboard_down,
    ),
    ActionSpec(
        "keyboard_up",
        (Param("key", TEXT),),
        "Release a key held with keyboard_down.",
        'keyboard_up("Shift")',
        _keyboard_up,
    ),
    ActionSpec(
        "send_msg_to_user",
        (Param("text", TEXT),),
        "Send a message to the user; use it to give the answer when the goal asks a question.",
        'send_msg_to_user("The deal is worth $12,400.")',
        _send_msg_to_user,
        Ending("answer", "text", "when the task is done or asks for an answer"),
    ),
    ActionSpec(
        "report_infeasible",
        (Param("reason", TEXT),),
        "Tell the user the goal cannot be done, and why.",
        'report_infeasible("There is no booking on that date.")',
        _report_infeasible,
        Ending(
            "infeasible",
            "reason",
            "when the task cannot be done in this world (only then: reporting a task that can "
            "be done fails it, whatever else was done)",
        ),
    ),
    ActionSpec(
        "noop",
        (Param("wait_ms", WAIT_MS, 1000),),
        f"Do nothing and wait (milliseconds, at most {MAX_WAIT_MS}).",
        "noop()",
        _noop,
    ),
)

SPECS: Mapping[str, ActionSpec] = {spec.name: spec for spec in _ALL}
"""Every action by name, in manual order."""

ACTION_NAMES: tuple[str, ...] = tuple(SPECS)
"""Every action an agent may send, in manual order."""

ACTION_DOCS: dict[str, str] = {name: spec.doc for name, spec in SPECS.items()}
"""One line per action for prompts: what it does, then `Example: <call>`."""


def ending_actions() -> tuple[str, ...]:
    """The names of the actions that end the episode, in manual order."""
    return tuple(name for name, spec in SPECS.items() if spec.ends_episode)


def spec_of(name: str) -> ActionSpec:
    """The spec of action `name`; ActionParseError with the nearest names when unknown."""
    spec = SPECS.get(name)
    if spec is not None:
        return spec
    suggestions = difflib.get_close_matches(name, ACTION_NAMES, n=2, cutoff=0.6)
    lowered = name.lower()
    if lowered:
        suggestions += [n for n in ACTION_NAMES if lowered in n and n not in suggestions]
    quoted = [repr(s) for s in suggestions[:3]]
    if len(quoted) > 1:
        quoted = [", ".join(quoted[:-1]) + " or " + quoted[-1]]
    hint = f"; did you mean {quoted[0]}?" if quoted else "."
    raise ActionParseError(f"unknown action {name!r}{hint} Allowed: {', '.join(ACTION_NAMES)}")


def _instructions() -> str:
    endings = [
        f"{spec.name}({spec.ending.param}) {spec.ending.when}"
        for spec in SPECS.values()
        if spec.ending is not None
    ]
    return "Finish with " + ", or with ".join(endings) + ". " + CONTRACT


# Shown to the agent in every observation: how to end an episode, and the answer contract
# that every answer check reads final messages by.
INSTRUCTIONS = _instructions()


__all__ = [
    "ACTION_DOCS",
    "ACTION_NAMES",
    "BUTTONS",
    "INSTRUCTIONS",
    "MAX_STRING_CHARS",
    "MAX_WAIT_MS",
    "MODIFIERS",
    "REQUIRED",
    "SPECS",
    "ActionFailed",
    "ActionParseError",
    "ActionSpec",
    "Button",
    "Ending",
    "Modifier",
    "Param",
    "ParamType",
    "ending_actions",
    "spec_of",
]
