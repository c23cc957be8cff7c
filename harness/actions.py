"""The agent's action language: BrowserGym-style calls such as `click("12")`, read safely.

Agents send text. `parse_action` reads it with `ast` and accepts only calls to the actions of
`actionspec.SPECS` with literal arguments, so agent text is never executed. `format_action`
writes the same canonical strings from Python (`PageActions` sends its calls through it);
every path ends in one canonical action string.

    >>> parse_action('click(12, button="right")')
    [Action(name='click', args=(('bid', '12'), ('button', 'right'), ('modifiers', ())))]
    >>> format_action("fill", 7, "Quarterly review")
    'fill("7", "Quarterly review")'
"""

from __future__ import annotations

import ast
import difflib
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actionspec import (
    SPECS,
    ActionParseError,
    ActionSpec,
    describe_value,
    render_literal,
    spec_of,
)

MAX_ACTIONS_PER_STEP = 10
MAX_ACTION_CHARS = 20_000


def action_space_description() -> str:
    """A compact manual of every action, for an agent's prompt (like BrowserGym's `describe()`)."""
    lines = [
        f"Send one action call per line, at most {MAX_ACTIONS_PER_STEP} per step. Arguments are "
        "literals only: strings in double quotes, numbers, lists. A bid is the id of an element "
        "in the observation.",
        "",
    ]
    for spec in SPECS.values():
        lines.append(spec.signature(typed=True))
        lines.append(f"    {spec.doc}")
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

    @property
    def spec(self) -> ActionSpec:
        """The action's spec (signature, handler, ending)."""
        return SPECS[self.name]

    @property
    def ends_episode(self) -> bool:
        return self.spec.ends_episode

    def __str__(self) -> str:
        """Canonical text: required arguments positional, changed optional ones by keyword."""
        values = dict(self.args)
        parts = []
        for param in self.spec.params:
            if param.name not in values:
                continue
            value = values[param.name]
            if param.required:
                parts.append(render_literal(value))
            elif value != param.default:
                parts.append(f"{param.name}={render_literal(value)}")
        return f"{self.name}({', '.join(parts)})"


def _bind(spec: ActionSpec, args: Sequence[Any], kwargs: Sequence[tuple[str, Any]]) -> Action:
    usage = f"Usage: {spec.signature()}"
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
            param.check(spec.name, given[param.name]) if param.name in given else param.default,
        )
        for param in spec.params
    )
    return Action(spec.name, bound)


def make_action(name: str, *args: Any, **kwargs: Any) -> Action:
    """Bind and validate an action from Python values, as `parse_action` does from text."""
    return _bind(spec_of(name), args, list(kwargs.items()))


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
    spec = spec_of(call.func.id)
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
        raise ActionParseError(f"an action must be a string, got {describe_value(text)}")
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


__all__ = [
    "MAX_ACTIONS_PER_STEP",
    "MAX_ACTION_CHARS",
    "Action",
    "ActionParseError",
    "action_space_description",
    "format_action",
    "make_action",
    "parse_action",
]
