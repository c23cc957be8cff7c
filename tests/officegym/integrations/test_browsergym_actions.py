"""Action parity with BrowserGym: every high-level action with BrowserGym's exact signature,
and every example BrowserGym documents read by our `ast` parser as BrowserGym's parser reads it.

The BrowserGym side is its own code: the functions of `browsergym.core.action.functions`,
the `HighLevelActionSet` built from every subset it defines, the examples that set extracts
from the docstrings, and `highlevel_action_parser`. Nothing here opens a browser. Run with
`-s` to see the table of actions, examples and parses.
"""

from __future__ import annotations

import inspect
import typing
from types import UnionType
from typing import Any

import pytest

from officegym.harness.actions import Action, ActionParseError, parse_action
from officegym.harness.actionspec import REQUIRED, SPECS, Param
from tests.officegym.integrations.conftest import browsergym_module

pytestmark = pytest.mark.browsergym

highlevel = browsergym_module("browsergym.core.action.highlevel")
functions = browsergym_module("browsergym.core.action.functions")
parsers = browsergym_module("browsergym.core.action.parsers")

# Upstream docstring quirks, handled by name so that none passes unnoticed. A stale entry fails.

EXAMPLES_OF_ANOTHER_ACTION = {
    "keyboard_down": "its docstring's examples are keyboard_up(...) calls, copied from "
    "keyboard_up; they are checked as the keyboard_up calls they are",
}
"""Actions whose extracted examples call a different action."""

LINES_NOT_EXTRACTED = {
    "keyboard_press": (
        'page.keyboard.press("PageDown")',
        "Playwright code, not an action call: BrowserGym's docstring parser stops before it, "
        "so HighLevelActionSet leaves it out of the examples, and our parser rejects it",
    ),
}
"""Docstring example lines that BrowserGym's example extraction drops, with the reason."""

INT_WIDENED_TO_NUMBER = {
    "scroll_at": ("x", "y", "dx", "dy"),
}
"""Parameters BrowserGym annotates `int` for which we accept any number (as for every other
coordinate), so an int-only agent is served and a float coordinate is not refused."""


NARROWED = {
    ("noop", "wait_ms"): (
        "between 0 and 10000",
        "a wait is bounded to MAX_WAIT_MS and never negative, so one step cannot stall a run",
    ),
}
"""Parameters where we refuse some values BrowserGym's annotation admits, and why. Element ids
(`*bid`) must also be non-empty, as BrowserGym's own element lookup requires."""


def browsergym_functions() -> dict[str, Any]:
    """Every action function of BrowserGym's functions module, by name, in source order."""
    found = [
        fn
        for _, fn in inspect.getmembers(functions, inspect.isfunction)
        if fn.__module__ == functions.__name__
    ]
    found.sort(key=lambda fn: fn.__code__.co_firstlineno)
    return {fn.__name__: fn for fn in found}


def browsergym_action_set() -> dict[str, Any]:
    """BrowserGym's `HighLevelAction` for every function: every subset it defines, plus the
    functions no subset lists (as a custom subset, so BrowserGym extracts their examples)."""
    subsets = list(highlevel.ACTION_SUBSETS)
    action_set = dict(highlevel.HighLevelActionSet(subsets=subsets).action_set)
    rest = [fn for name, fn in browsergym_functions().items() if name not in action_set]
    if rest:
        extra = highlevel.HighLevelActionSet(subsets=["custom"], custom_actions=rest)
        action_set.update({n: a for n, a in extra.action_set.items() if n not in action_set})
    return action_set


ACTIONS = browsergym_action_set()
FUNCTIONS = browsergym_functions()
NAMES = list(FUNCTIONS)


def canonical(value: Any) -> Any:
    """Lists and tuples alike, so `[]` and `()` compare equal."""
    if isinstance(value, list | tuple):
        return tuple(canonical(item) for item in value)
    return value


def browsergym_parse(text: str) -> tuple[str, dict[str, Any]]:
    """The action name and bound arguments (defaults filled) that BrowserGym reads in `text`."""
    ((name, args),) = parsers.highlevel_action_parser.parse_string(text, parse_all=True).as_list()
    positional = [arg for arg in args if not isinstance(arg, parsers.NamedArgument)]
    named = {arg.name: arg.value for arg in args if isinstance(arg, parsers.NamedArgument)}
    bound = inspect.signature(FUNCTIONS[name]).bind(*positional, **named)
    bound.apply_defaults()
    return name, {key: canonical(value) for key, value in bound.arguments.items()}


def our_parse(text: str) -> tuple[str, dict[str, Any]]:
    (action,) = parse_action(text)
    assert isinstance(action, Action)
    return action.name, {key: canonical(value) for key, value in action.args}


def docstring_example_lines(name: str) -> list[str]:
    """The non-empty lines under `Examples:` in the function's docstring."""
    doc = inspect.getdoc(FUNCTIONS[name]) or ""
    _, _, examples = doc.partition("Examples:")
    return [line.strip() for line in examples.splitlines() if line.strip()]


def samples(annotation: Any) -> list[Any]:
    """Values the annotation admits, a few of each kind, to try against our checks."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is str:
        return ["a51", "Hello world!", ""]
    if annotation is bool:
        return [True, False]
    if annotation is int:
        return [0, 2, 812]
    if annotation is float:
        return [0, 65.2, -50.2, 1000]
    if origin is typing.Literal:
        return list(args)
    if origin is list:
        (item,) = args
        return [[], samples(item)[:1], samples(item)]
    if origin in (typing.Union, UnionType):
        return [value for arg in args for value in samples(arg)]
    raise AssertionError(f"no samples for the annotation {annotation!r}")


def refusal(name: str, param: Param) -> str | None:
    """What our check says when it refuses a value BrowserGym's annotation admits on purpose."""
    if param.type.hint == "str" and param.name.endswith("bid"):
        return "non-empty element id"
    return NARROWED.get((name, param.name), (None, ""))[0]


# --- the action set ---


def test_every_subset_action_is_a_function_of_the_functions_module() -> None:
    subset_names = {fn.__name__ for subset in highlevel.ACTION_SUBSETS.values() for fn in subset}
    assert subset_names <= set(FUNCTIONS)
    assert set(ACTIONS) == set(FUNCTIONS)


def test_we_offer_every_browsergym_action() -> None:
    missing = [name for name in NAMES if name not in SPECS]
    assert missing == []


@pytest.mark.parametrize("name", NAMES)
def test_parameter_names_order_and_defaults_are_browsergyms(name: str) -> None:
    theirs = [
        (p.name, REQUIRED if p.default is inspect.Parameter.empty else canonical(p.default))
        for p in inspect.signature(FUNCTIONS[name]).parameters.values()
    ]
    ours = [(p.name, REQUIRED if p.required else canonical(p.default)) for p in SPECS[name].params]
    assert ours == theirs


@pytest.mark.parametrize("name", NAMES)
def test_every_value_browsergyms_annotation_admits_is_accepted(name: str) -> None:
    hints = typing.get_type_hints(FUNCTIONS[name])
    for param in SPECS[name].params:
        for value in samples(hints[param.name]):
            try:
                checked = param.check(name, value)
            except ActionParseError as error:
                reason = refusal(name, param)
                assert reason is not None and reason in str(error), (param.name, value, error)
                continue
            assert canonical(checked) == canonical(value), (param.name, value)


@pytest.mark.parametrize("name", NAMES)
def test_int_parameters_take_only_ints_unless_widened_by_name(name: str) -> None:
    hints = typing.get_type_hints(FUNCTIONS[name])
    widened = []
    for param in SPECS[name].params:
        if hints[param.name] is not int:
            continue
        try:
            param.check(name, 2.5)
        except ActionParseError:
            continue
        widened.append(param.name)
    assert tuple(widened) == INT_WIDENED_TO_NUMBER.get(name, ())


# --- the documented examples ---


@pytest.mark.parametrize("name", NAMES)
def test_every_browsergym_example_parses_as_browsergym_parses_it(name: str) -> None:
    examples = ACTIONS[name].examples
    assert examples, f"BrowserGym extracts no example for {name}"
    for example in examples:
        theirs = browsergym_parse(example)
        if theirs[0] != name:
            assert name in EXAMPLES_OF_ANOTHER_ACTION, (example, theirs[0])
        assert our_parse(example) == theirs, example


@pytest.mark.parametrize("name", NAMES)
def test_docstring_lines_are_extracted_or_excluded_by_name(name: str) -> None:
    lines = docstring_example_lines(name)
    dropped = []
    for line in lines:
        try:
            parsers.highlevel_action_parser.parse_string(line, parse_all=True)
        except Exception:  # pyparsing's ParseException: not an action call
            dropped.append(line)
    expected = [LINES_NOT_EXTRACTED[name][0]] if name in LINES_NOT_EXTRACTED else []
    assert dropped == expected
    assert len(ACTIONS[name].examples) == len(lines) - len(dropped)
    for line in dropped:
        with pytest.raises(ActionParseError, match="attribute access is not allowed"):
            parse_action(line)


def test_the_named_exclusions_are_all_still_needed() -> None:
    other = {
        name
        for name in NAMES
        if any(browsergym_parse(e)[0] != name for e in ACTIONS[name].examples)
    }
    assert other == set(EXAMPLES_OF_ANOTHER_ACTION)
    assert set(LINES_NOT_EXTRACTED) <= set(NAMES)


def test_report_of_actions_examples_and_parses() -> None:
    """The table `-s` shows: per action its examples, how many we parse like BrowserGym, and
    what is handled by name."""
    rows = []
    total = parsed = 0
    for name in NAMES:
        examples = ACTIONS[name].examples
        same = sum(our_parse(e) == browsergym_parse(e) for e in examples)
        notes = []
        if name in EXAMPLES_OF_ANOTHER_ACTION:
            notes.append("examples call keyboard_up (upstream docstring)")
        if name in LINES_NOT_EXTRACTED:
            notes.append(f"docstring line not extracted: {LINES_NOT_EXTRACTED[name][0]}")
        if name in INT_WIDENED_TO_NUMBER:
            notes.append("int coordinates widened to numbers")
        notes += [
            f"{param} narrowed: {why}"
            for (action, param), (_, why) in NARROWED.items()
            if action == name
        ]
        rows.append((name, len(examples), same, "; ".join(notes)))
        total += len(examples)
        parsed += same
    width = max(len(row[0]) for row in rows)
    print()
    print(f"{'action':<{width}}  examples  parsed  note")
    for name, count, same, note in rows:
        print(f"{name:<{width}}  {count:>8}  {same:>6}  {note}")
    extras = [name for name in SPECS if name not in FUNCTIONS]
    print(
        f"{len(rows)} BrowserGym actions ({len(highlevel.ACTION_SUBSETS)} subsets), "
        f"{parsed}/{total} examples parsed alike; our extra actions: {extras or 'none'}"
    )
    assert parsed == total
