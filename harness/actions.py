"""The agent's action language: BrowserGym-style calls such as `click("12")`, read safely.

Agents send text. `parse_action` reads it with `ast` and accepts only calls to the actions
below with literal arguments, so agent text is never executed. `format_action` writes the
same canonical strings from Python, and `PageActions` is the Python API over them that
oracles and scripted agents use; every path ends in one canonical action string.

    >>> parse_action('click(12, button="right")')
    [Action(name='click', args=(('bid', '12'), ('button', 'right'), ('modifiers', ())))]
    >>> format_action("fill", 7, "Quarterly review")
    'fill("7", "Quarterly review")'
"""

from __future__ import annotations

import ast
import difflib
import json
import math
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from officegym.tasks.answer import CONTRACT

MAX_ACTIONS_PER_STEP = 10
MAX_ACTION_CHARS = 20_000
MAX_STRING_CHARS = 10_000
MAX_WAIT_MS = 10_000

Button = Literal["left", "middle", "right"]
Modifier = Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]
BUTTONS: tuple[str, ...] = ("left", "middle", "right")
MODIFIERS: tuple[str, ...] = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")


class ActionParseError(ValueError):
    """The action text is not a valid action; the message says what to send instead."""


class ElementNotFound(LookupError):
    """No accessibility node matches a `PageActions.find` query."""


# --- argument checks: each returns the value in canonical form or raises ActionParseError ---

Check = Callable[[str, str, Any], Any]


def _describe(value: Any) -> str:
    if value is None:
        return "None"
    text = repr(list(value) if isinstance(value, tuple) else value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _type_error(action: str, param: str, expected: str, value: Any) -> ActionParseError:
    return ActionParseError(
        f"{action}(): argument '{param}' must be {expected}, got {_describe(value)}"
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
                f"{_describe(item)} is not a modifier key"
            )
    return tuple(str(item) for item in value)


def _text_or_list(action: str, param: str, value: Any) -> str | tuple[str, ...]:
    if isinstance(value, str):
        return _text(action, param, value)
    if not isinstance(value, list | tuple):
        raise _type_error(action, param, "a string or a list of strings", value)
    return tuple(_text(action, f"{param}[{i}]", item) for i, item in enumerate(value))


# --- the action table ---


@dataclass(frozen=True)
class _Param:
    name: str
    hint: str
    check: Check
    required: bool = True
    default: Any = None


@dataclass(frozen=True)
class _Spec:
    name: str
    params: tuple[_Param, ...]
    doc: str
    example: str


_BUTTON_HINT = f"Literal[{_choices(BUTTONS)}]"
_MODIFIERS_HINT = f"list[Literal[{_choices(MODIFIERS)}]]"


def _p(name: str, hint: str, check: Check) -> _Param:
    return _Param(name, hint, check)


def _opt(name: str, hint: str, check: Check, default: Any) -> _Param:
    return _Param(name, hint, check, required=False, default=default)


_BID = ("str", _bid)
_TEXT = ("str", _text)
_NUMBER = ("float", _number)
_BUTTON_ARG = _opt("button", _BUTTON_HINT, _button, "left")
_MODIFIERS_ARG = _opt("modifiers", _MODIFIERS_HINT, _modifiers, ())
_XY = (_p("x", *_NUMBER), _p("y", *_NUMBER))

_SPECS: dict[str, _Spec] = {
    spec.name: spec
    for spec in (
        _Spec(
            "click",
            (_p("bid", *_BID), _BUTTON_ARG, _MODIFIERS_ARG),
            "Click an element; optionally another mouse button or held modifier keys.",
            'click("12")',
        ),
        _Spec(
            "dblclick",
            (_p("bid", *_BID), _BUTTON_ARG, _MODIFIERS_ARG),
            "Double-click an element.",
            'dblclick("12")',
        ),
        _Spec("hover", (_p("bid", *_BID),), "Move the mouse over an element.", 'hover("12")'),
        _Spec(
            "fill",
            (_p("bid", *_BID), _p("value", *_TEXT)),
            "Replace the text of an input, textarea or editable element.",
            'fill("7", "Quarterly review")',
        ),
        _Spec("clear", (_p("bid", *_BID),), "Empty an input field.", 'clear("7")'),
        _Spec(
            "select_option",
            (_p("bid", *_BID), _p("options", "str | list[str]", _text_or_list)),
            "Choose an option of a <select> by value or label; a list selects several.",
            'select_option("9", "Negotiation")',
        ),
        _Spec(
            "check",
            (_p("bid", *_BID),),
            "Make sure a checkbox or radio button is checked.",
            'check("15")',
        ),
        _Spec(
            "uncheck", (_p("bid", *_BID),), "Make sure a checkbox is unchecked.", 'uncheck("15")'
        ),
        _Spec(
            "press",
            (_p("bid", *_BID), _p("key_comb", *_TEXT)),
            "Focus an element and press a key or combination (Enter, Escape, Control+a).",
            'press("7", "Enter")',
        ),
        _Spec("focus", (_p("bid", *_BID),), "Focus an element.", 'focus("7")'),
        _Spec(
            "scroll",
            (_p("delta_x", *_NUMBER), _p("delta_y", *_NUMBER)),
            "Scroll by pixels: positive is right/down, negative is left/up.",
            "scroll(0, 300)",
        ),
        _Spec(
            "drag_and_drop",
            (_p("from_bid", *_BID), _p("to_bid", *_BID)),
            "Drag one element and drop it on another.",
            'drag_and_drop("21", "34")',
        ),
        _Spec(
            "upload_file",
            (_p("bid", *_BID), _p("file", "str | list[str]", _text_or_list)),
            "Set the file(s) of a file input by path; a list sets several.",
            'upload_file("18", "report.pdf")',
        ),
        _Spec("goto", (_p("url", *_TEXT),), "Open a URL in the current tab.", 'goto("/crm/")'),
        _Spec("go_back", (), "Go back one page in the current tab's history.", "go_back()"),
        _Spec(
            "go_forward", (), "Go forward one page in the current tab's history.", "go_forward()"
        ),
        _Spec("new_tab", (), "Open a new empty tab and switch to it.", "new_tab()"),
        _Spec(
            "tab_focus",
            (_p("index", "int", _index),),
            "Switch to the tab at this 0-based index (see the open pages).",
            "tab_focus(0)",
        ),
        _Spec("tab_close", (), "Close the current tab.", "tab_close()"),
        _Spec(
            "mouse_move",
            _XY,
            "Move the mouse to viewport coordinates in pixels (from the top-left).",
            "mouse_move(420, 300)",
        ),
        _Spec(
            "mouse_click",
            (*_XY, _BUTTON_ARG),
            "Click at viewport coordinates.",
            "mouse_click(420, 300)",
        ),
        _Spec(
            "mouse_dblclick",
            (*_XY, _BUTTON_ARG),
            "Double-click at viewport coordinates.",
            "mouse_dblclick(420, 300)",
        ),
        _Spec(
            "mouse_down",
            (*_XY, _BUTTON_ARG),
            "Move to viewport coordinates and press a mouse button (hold it).",
            "mouse_down(420, 300)",
        ),
        _Spec(
            "mouse_up",
            (*_XY, _BUTTON_ARG),
            "Move to viewport coordinates and release a mouse button.",
            "mouse_up(520, 300)",
        ),
        _Spec(
            "keyboard_type",
            (_p("text", *_TEXT),),
            "Type text into the focused element, key by key.",
            'keyboard_type("Hello")',
        ),
        _Spec(
            "keyboard_press",
            (_p("key", *_TEXT),),
            "Press a key or combination on the focused element (Enter, Control+a).",
            'keyboard_press("Enter")',
        ),
        _Spec(
            "send_msg_to_user",
            (_p("text", *_TEXT),),
            "Send a message to the user; use it to give the answer when the goal asks a question.",
            'send_msg_to_user("The deal is worth $12,400.")',
        ),
        _Spec(
            "report_infeasible",
            (_p("reason", *_TEXT),),
            "Tell the user the goal cannot be done, and why.",
            'report_infeasible("There is no booking on that date.")',
        ),
        _Spec(
            "noop",
            (_opt("wait_ms", "float", _wait_ms, 1000),),
            f"Do nothing and wait (milliseconds, at most {MAX_WAIT_MS}).",
            "noop()",
        ),
    )
}

ACTION_NAMES: tuple[str, ...] = tuple(_SPECS)
"""Every action an agent may send, in manual order."""

ACTION_DOCS: dict[str, str] = {
    name: f"{spec.doc} Example: {spec.example}" for name, spec in _SPECS.items()
}
"""One line per action for prompts: what it does, then `Example: <call>`."""


def _render(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_render(item) for item in value) + "]"
    return repr(value)


def _signature(spec: _Spec, *, typed: bool = False) -> str:
    parts = []
    for param in spec.params:
        part = f"{param.name}: {param.hint}" if typed else param.name
        if not param.required:
            part += f"{' = ' if typed else '='}{_render(param.default)}"
        parts.append(part)
    return f"{spec.name}({', '.join(parts)})"


def action_space_description() -> str:
    """A compact manual of every action, for an agent's prompt (like BrowserGym's `describe()`)."""
    lines = [
        f"Send one action call per line, at most {MAX_ACTIONS_PER_STEP} per step. Arguments are "
        "literals only: strings in double quotes, numbers, lists. A bid is the id of an element "
        "in the observation.",
        "",
    ]
    for spec in _SPECS.values():
        lines.append(_signature(spec, typed=True))
        lines.append(f"    {ACTION_DOCS[spec.name]}")
    return "\n".join(lines)


# --- actions as values ---


@dataclass(frozen=True)
class Action:
    """One validated action: its name and every parameter bound, in signature order.

    Defaults are filled in and lists are stored as tuples, so actions compare and hash by
    value. Build one with `parse_action` or `make_action`; `str()` gives the canonical text.
    """

    name: str
    args: tuple[tuple[str, Any], ...]

    @property
    def kwargs(self) -> dict[str, Any]:
        """The bound arguments by name (list arguments appear as tuples)."""
        return dict(self.args)

    def arg(self, name: str) -> Any:
        """The value bound to parameter `name`."""
        for key, value in self.args:
            if key == name:
                return value
        raise KeyError(f"{self.name}() has no argument {name!r}")

    def __str__(self) -> str:
        """Canonical text: required arguments positional, changed optional ones by keyword."""
        values = dict(self.args)
        parts = []
        for param in _SPECS[self.name].params:
            if param.name not in values:
                continue
            value = values[param.name]
            if param.required:
                parts.append(_render(value))
            elif value != param.default:
                parts.append(f"{param.name}={_render(value)}")
        return f"{self.name}({', '.join(parts)})"


def _spec(name: str) -> _Spec:
    spec = _SPECS.get(name)
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


def _bind(spec: _Spec, args: Sequence[Any], kwargs: Sequence[tuple[str, Any]]) -> Action:
    usage = f"Usage: {_signature(spec)}"
    names = [param.name for param in spec.params]
    if len(args) > len(names):
        takes = f"at most {len(names)} positional argument{'s' * (len(names) != 1)}"
        raise ActionParseError(
            f"{spec.name}() takes {takes if names else 'no arguments'} but {len(args)} "
            f"{'was' if len(args) == 1 else 'were'} given. {usage}"
        )
    given: dict[str, Any] = dict(zip(names, args, strict=False))
    for key, value in kwargs:
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else "."
            raise ActionParseError(
                f"{spec.name}() got an unexpected keyword argument '{key}'{hint} {usage}"
            )
        if key in given:
            raise ActionParseError(f"{spec.name}() got multiple values for argument '{key}'")
        given[key] = value
    missing = [param.name for param in spec.params if param.required and param.name not in given]
    if missing:
        listed = ", ".join(f"'{name}'" for name in missing)
        plural = "s" if len(missing) > 1 else ""
        raise ActionParseError(f"{spec.name}() missing required argument{plural} {listed}. {usage}")
    bound = tuple(
        (
            param.name,
            param.check(spec.name, param.name, given[param.name])
            if param.name in given
            else param.default,
        )
        for param in spec.params
    )
    return Action(spec.name, bound)


def make_action(name: str, *args: Any, **kwargs: Any) -> Action:
    """Bind and validate an action from Python values, as `parse_action` does from text."""
    return _bind(_spec(name), args, list(kwargs.items()))


def format_action(name: str, *args: Any, **kwargs: Any) -> str:
    """The canonical action text for these arguments (validated like parsed text)."""
    return str(make_action(name, *args, **kwargs))


# --- parsing text ---

_EMPTY = "empty action; send one call such as noop()"
_FENCE = re.compile(
    r"\A```[ \t]*(?:python3?|py)?[ \t]*\r?\n(?P<body>.*?)\r?\n?[ \t]*```\Z",
    re.DOTALL | re.IGNORECASE,
)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_STATEMENTS: dict[type[ast.stmt], str] = {
    ast.Assign: "assignments",
    ast.AugAssign: "assignments",
    ast.AnnAssign: "assignments",
    ast.Import: "import statements",
    ast.ImportFrom: "import statements",
    ast.FunctionDef: "function definitions",
    ast.AsyncFunctionDef: "function definitions",
    ast.ClassDef: "class definitions",
    ast.For: "loops",
    ast.AsyncFor: "loops",
    ast.While: "loops",
    ast.If: "if statements",
    ast.With: "with statements",
    ast.AsyncWith: "with statements",
    ast.Try: "try statements",
}


def _snippet(node: ast.AST, source: str) -> str:
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


def _not_literal(node: ast.expr, source: str, *, top: bool = False) -> ActionParseError:
    """Why `node` is not allowed, in words an agent can act on."""
    found = _snippet(node, source)
    if isinstance(node, ast.Attribute):
        message = f"attribute access is not allowed (found {found})"
    elif isinstance(node, ast.Subscript):
        message = f"subscripts are not allowed (found {found})"
    elif isinstance(node, _COMPREHENSIONS):
        message = f"comprehensions are not allowed (found {found})"
    elif isinstance(node, ast.Lambda):
        message = f"lambda expressions are not allowed (found {found})"
    elif isinstance(node, ast.JoinedStr):
        message = f"f-strings are not allowed; write the text as a plain string (found {found})"
    elif isinstance(node, ast.NamedExpr):
        message = f"assignment expressions are not allowed (found {found})"
    elif isinstance(node, ast.BinOp | ast.BoolOp | ast.Compare):
        message = (
            "only literals are allowed; operators such as + are not, so write the final value "
            f"(found {found})"
        )
    elif top:
        message = f'each statement must be one action call such as click("12") (found {found})'
    elif isinstance(node, ast.Call):
        message = f"only literal arguments are allowed (found a function call inside the arguments: {found})"
    elif isinstance(node, ast.Starred):
        message = f"starred arguments are not allowed; write each argument out (found {found})"
    elif isinstance(node, ast.Name):
        message = (
            f"only literal arguments are allowed (found the name {found}); "
            f'put strings in quotes, e.g. "{found}"'
        )
    elif isinstance(node, ast.Dict | ast.Set):
        message = f"only strings, numbers and lists are allowed (found {found})"
    elif isinstance(node, ast.UnaryOp):
        message = f"only a sign directly before a number is allowed (found {found})"
    else:
        message = f"only literal arguments are allowed (found {found})"
    return ActionParseError(message)


def _literal(node: ast.expr, source: str, *, in_list: bool = False) -> Any:
    """The value of a whitelisted literal node: str, number, bool, None, or a flat list."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or type(value) in (str, int, float, bool):
            return value
        raise ActionParseError(
            f"only string, number, True/False and None literals are allowed "
            f"(found {_snippet(node, source)})"
        )
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) in (int, float)
    ):
        number = node.operand.value
        return -number if isinstance(node.op, ast.USub) else number
    if isinstance(node, ast.List | ast.Tuple):
        if in_list:
            raise ActionParseError(f"nested lists are not allowed (found {_snippet(node, source)})")
        return [_literal(item, source, in_list=True) for item in node.elts]
    raise _not_literal(node, source)


def _from_statement(statement: ast.stmt, source: str) -> Action:
    if not isinstance(statement, ast.Expr):
        what = _STATEMENTS.get(type(statement), f"{type(statement).__name__} statements")
        raise ActionParseError(
            f'{what} are not allowed; send only action calls such as click("12") '
            f"(found {_snippet(statement, source)})"
        )
    call = statement.value
    if not isinstance(call, ast.Call):
        raise _not_literal(call, source, top=True)
    if not isinstance(call.func, ast.Name):
        if isinstance(call.func, ast.Attribute):
            raise _not_literal(call.func, source)
        raise ActionParseError(
            f"the action must be a plain name such as click (found {_snippet(call.func, source)})"
        )
    spec = _spec(call.func.id)
    args = [_literal(node, source) for node in call.args]
    kwargs = []
    for keyword in call.keywords:
        if keyword.arg is None:
            raise ActionParseError(
                f"keyword unpacking is not allowed; write each argument as name=value "
                f"(found {_snippet(keyword, source)})"
            )
        kwargs.append((keyword.arg, _literal(keyword.value, source)))
    return _bind(spec, args, kwargs)


def _unwrap(text: str) -> tuple[str, int]:
    """The code inside an optional markdown fence, and how many lines the fence moved it."""
    stripped = text.strip()
    match = _FENCE.match(stripped)
    if match is None:
        return textwrap.dedent(text), 0
    body_start = len(text) - len(text.lstrip()) + match.start("body")
    return textwrap.dedent(match["body"]), text.count("\n", 0, body_start)


def parse_action(text: str) -> list[Action]:
    """Parse an agent's action text into validated actions, without executing any of it.

    The text holds one or more calls (one per line or separated by `;`), optionally inside
    a markdown code fence. Raises `ActionParseError` with a message meant for the agent.
    """
    if not isinstance(text, str):
        raise ActionParseError(f"an action must be a string, got {_describe(text)}")
    if len(text) > MAX_ACTION_CHARS:
        raise ActionParseError(
            f"the action text is {len(text)} characters long; the limit is {MAX_ACTION_CHARS}"
        )
    source, line_offset = _unwrap(text)
    if not source.strip():
        raise ActionParseError(_EMPTY)
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as exc:
        where = f"line {(exc.lineno or 1) + line_offset}, column {exc.offset or 0}"
        line = f" in: {' '.join(exc.text.split())}" if exc.text and exc.text.strip() else ""
        raise ActionParseError(f"syntax error at {where}: {exc.msg}{line}") from None
    except (MemoryError, RecursionError):
        # CPython's parser gives up this way on pathological nesting such as 10,000 minus signs.
        raise ActionParseError("the action text is nested too deeply to read") from None
    statements = tree.body
    if not statements:
        raise ActionParseError(_EMPTY)
    if len(statements) > MAX_ACTIONS_PER_STEP:
        raise ActionParseError(
            f"too many actions in one step: {len(statements)} (at most {MAX_ACTIONS_PER_STEP})"
        )
    actions = []
    for number, statement in enumerate(statements, start=1):
        try:
            actions.append(_from_statement(statement, source))
        except ActionParseError as exc:
            if len(statements) == 1:
                raise
            raise ActionParseError(f"action {number} of {len(statements)}: {exc}") from None
    return actions


# --- the Python API for oracles and scripted agents ---


def _normalise(text: str | None) -> str:
    return " ".join((text or "").split())


class PageActions:
    """The actions as Python methods, plus Playwright-like finders over the accessibility tree.

    `step(text)` runs one canonical action string in the environment (its return value is
    kept as `last`); `nodes()` returns the current page's accessibility nodes in preorder,
    each with `bid`, `role`, `name`, `value`, `depth` and `states`.

        bid = actions.find("textbox", "Deal name")
        actions.fill(bid, "Renewal 2025")
        actions.click(actions.find("button", "Save", exact=True))
    """

    def __init__(self, step: Callable[[str], Any], nodes: Callable[[], Sequence[Any]]) -> None:
        self._step = step
        self._nodes = nodes
        self._last: Any = None

    @property
    def last(self) -> Any:
        """What `step` returned for the most recent action (None before the first)."""
        return self._last

    @property
    def nodes(self) -> Sequence[Any]:
        """The current page's accessibility nodes (preorder), for finders of your own."""
        return self._nodes()

    def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        self._last = self._step(format_action(name, *args, **kwargs))
        return self._last

    # finders

    def find_all(
        self,
        role: str | None = None,
        name: str | None = None,
        *,
        exact: bool = False,
        within: str | int | None = None,
        include_hidden: bool = False,
    ) -> list[str]:
        """Bids of every node matching `role` and `name`, in page order.

        `role` matches exactly (ignoring case). `name` matches as a case-insensitive
        substring, or the whole name case-sensitively when `exact`; whitespace is
        normalised either way. `within` limits the search to descendants of that bid.
        Nodes without a bid, and hidden ones unless `include_hidden`, never match.
        """
        return [node.bid for node in self._matches(role, name, exact, within, include_hidden)[0]]

    def find(
        self,
        role: str | None = None,
        name: str | None = None,
        *,
        exact: bool = False,
        nth: int = 0,
        within: str | int | None = None,
        include_hidden: bool = False,
    ) -> str:
        """The bid of the `nth` match (0-based; negative counts from the end), see `find_all`.

        Raises `ElementNotFound` naming the closest candidates when nothing matches.
        """
        matches, scope = self._matches(role, name, exact, within, include_hidden)
        query = _query(role, name, exact, within)
        if not matches:
            raise ElementNotFound(f"no element with {query}; {_closest(scope, role, name)}")
        if not -len(matches) <= nth < len(matches):
            bids = ", ".join(json.dumps(node.bid) for node in matches)
            raise ElementNotFound(
                f"{len(matches)} element{'s' * (len(matches) != 1)} with {query} "
                f"({bids}), so there is no nth={nth}"
            )
        return str(matches[nth].bid)

    def exists(
        self,
        role: str | None = None,
        name: str | None = None,
        *,
        exact: bool = False,
        within: str | int | None = None,
        include_hidden: bool = False,
    ) -> bool:
        """Whether any node matches (see `find_all`)."""
        return bool(
            self.find_all(role, name, exact=exact, within=within, include_hidden=include_hidden)
        )

    def _matches(
        self,
        role: str | None,
        name: str | None,
        exact: bool,
        within: str | int | None,
        include_hidden: bool,
    ) -> tuple[list[Any], list[Any]]:
        """(matching nodes, every actionable node in scope)."""
        scope = [
            node
            for node in _descendants(list(self._nodes()), within)
            if node.bid is not None and (include_hidden or "hidden" not in node.states)
        ]
        wanted_role = role.casefold() if role is not None else None
        wanted_name = _normalise(name)
        matches = []
        for node in scope:
            if wanted_role is not None and (node.role or "").casefold() != wanted_role:
                continue
            if name is not None:
                have = _normalise(node.name)
                if exact and have != wanted_name:
                    continue
                if not exact and wanted_name.casefold() not in have.casefold():
                    continue
            matches.append(node)
        return matches, scope

    # actions, one method each with the action's own signature

    def click(
        self, bid: str | int, button: Button = "left", modifiers: Sequence[Modifier] = ()
    ) -> Any:
        return self._run("click", bid, button=button, modifiers=modifiers)

    def dblclick(
        self, bid: str | int, button: Button = "left", modifiers: Sequence[Modifier] = ()
    ) -> Any:
        return self._run("dblclick", bid, button=button, modifiers=modifiers)

    def hover(self, bid: str | int) -> Any:
        return self._run("hover", bid)

    def fill(self, bid: str | int, value: str) -> Any:
        return self._run("fill", bid, value)

    def clear(self, bid: str | int) -> Any:
        return self._run("clear", bid)

    def select_option(self, bid: str | int, options: str | Sequence[str]) -> Any:
        return self._run("select_option", bid, options)

    def check(self, bid: str | int) -> Any:
        return self._run("check", bid)

    def uncheck(self, bid: str | int) -> Any:
        return self._run("uncheck", bid)

    def press(self, bid: str | int, key_comb: str) -> Any:
        return self._run("press", bid, key_comb)

    def focus(self, bid: str | int) -> Any:
        return self._run("focus", bid)

    def scroll(self, delta_x: float, delta_y: float) -> Any:
        return self._run("scroll", delta_x, delta_y)

    def drag_and_drop(self, from_bid: str | int, to_bid: str | int) -> Any:
        return self._run("drag_and_drop", from_bid, to_bid)

    def upload_file(self, bid: str | int, file: str | Sequence[str]) -> Any:
        return self._run("upload_file", bid, file)

    def goto(self, url: str) -> Any:
        return self._run("goto", url)

    def go_back(self) -> Any:
        return self._run("go_back")

    def go_forward(self) -> Any:
        return self._run("go_forward")

    def new_tab(self) -> Any:
        return self._run("new_tab")

    def tab_focus(self, index: int) -> Any:
        return self._run("tab_focus", index)

    def tab_close(self) -> Any:
        return self._run("tab_close")

    def mouse_move(self, x: float, y: float) -> Any:
        return self._run("mouse_move", x, y)

    def mouse_click(self, x: float, y: float, button: Button = "left") -> Any:
        return self._run("mouse_click", x, y, button=button)

    def mouse_dblclick(self, x: float, y: float, button: Button = "left") -> Any:
        return self._run("mouse_dblclick", x, y, button=button)

    def mouse_down(self, x: float, y: float, button: Button = "left") -> Any:
        return self._run("mouse_down", x, y, button=button)

    def mouse_up(self, x: float, y: float, button: Button = "left") -> Any:
        return self._run("mouse_up", x, y, button=button)

    def keyboard_type(self, text: str) -> Any:
        return self._run("keyboard_type", text)

    def keyboard_press(self, key: str) -> Any:
        return self._run("keyboard_press", key)

    def send_msg_to_user(self, text: str) -> Any:
        return self._run("send_msg_to_user", text)

    def report_infeasible(self, reason: str) -> Any:
        return self._run("report_infeasible", reason)

    def noop(self, wait_ms: float = 1000) -> Any:
        return self._run("noop", wait_ms=wait_ms)


def _descendants(nodes: list[Any], within: str | int | None) -> list[Any]:
    """All nodes, or only those below the node `within` (by depth in the preorder list)."""
    if within is None:
        return nodes
    for i, node in enumerate(nodes):
        if node.bid is not None and node.bid == str(within):
            inside = []
            for later in nodes[i + 1 :]:
                if later.depth <= node.depth:
                    break
                inside.append(later)
            return inside
    raise ElementNotFound(f"no element with bid {json.dumps(str(within))} to search within")


def _query(role: str | None, name: str | None, exact: bool, within: str | int | None) -> str:
    parts = []
    if role is not None:
        parts.append(f"role={json.dumps(role)}")
    if name is not None:
        parts.append(f"name={json.dumps(name)}" + (" (exact)" if exact else ""))
    if within is not None:
        parts.append(f"within bid {json.dumps(str(within))}")
    return " ".join(parts) or "any role or name"


def _label(node: Any) -> str:
    return f"{node.role} {json.dumps(_normalise(node.name), ensure_ascii=False)} (bid {json.dumps(node.bid)})"


def _closest(scope: list[Any], role: str | None, name: str | None) -> str:
    """The few nodes that look most like the query, to show what the page does hold."""
    if not scope:
        return "there are no elements with a bid there"
    query = f"{role or ''} {_normalise(name)}".strip().casefold()
    keys: dict[str, Any] = {}
    for node in scope:
        keys.setdefault(f"{node.role} {_normalise(node.name)}".casefold(), node)
    nearest = difflib.get_close_matches(query, list(keys), n=5, cutoff=0.0)
    return "closest: " + ", ".join(_label(keys[key]) for key in nearest)


# Shown to the agent in every observation: how to end an episode, and the answer contract
# that every answer check reads final messages by.
INSTRUCTIONS = (
    "Finish with send_msg_to_user(text) when the task is done or asks for an answer, or with "
    "report_infeasible(reason) when the task cannot be done in this world (only then: "
    "reporting a task that can be done fails it, whatever else was done). " + CONTRACT
)


__all__ = [
    "INSTRUCTIONS",
    "ACTION_DOCS",
    "ACTION_NAMES",
    "BUTTONS",
    "MAX_ACTIONS_PER_STEP",
    "MAX_ACTION_CHARS",
    "MAX_STRING_CHARS",
    "MAX_WAIT_MS",
    "MODIFIERS",
    "Action",
    "ActionParseError",
    "Button",
    "ElementNotFound",
    "Modifier",
    "PageActions",
    "action_space_description",
    "format_action",
    "make_action",
    "parse_action",
]
