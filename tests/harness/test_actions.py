"""The action language: parse agent text safely, bind and validate, and round-trip."""

from __future__ import annotations

import ast
import builtins
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from officegym.harness.actions import (
    MAX_ACTION_CHARS,
    MAX_ACTIONS_PER_STEP,
    Action,
    ActionParseError,
    format_action,
    make_action,
    parse_action,
)
from officegym.harness.actionspec import (
    ACTION_NAMES,
    BUTTONS,
    MAX_STRING_CHARS,
    MODIFIERS,
    SPECS,
)


def parse_one(text: str) -> Action:
    actions = parse_action(text)
    assert len(actions) == 1
    return actions[0]


def rejection(text: str) -> str:
    with pytest.raises(ActionParseError) as info:
        parse_action(text)
    return str(info.value)


# --- binding ---


def test_defaults_are_filled_in_signature_order() -> None:
    assert parse_one('click("12")').args == (("bid", "12"), ("button", "left"), ("modifiers", ()))


def test_noop_waits_one_second_by_default() -> None:
    assert parse_one("noop()").arg("wait_ms") == 1000


def test_int_bid_is_accepted_as_a_string() -> None:
    assert parse_one("click(12)") == parse_one('click("12")')


def test_int_bids_of_drag_and_drop_are_accepted_as_strings() -> None:
    assert parse_one("drag_and_drop(3, 4)").kwargs == {"from_bid": "3", "to_bid": "4"}


def test_keyword_arguments_bind_like_positional_ones() -> None:
    assert parse_one('fill(value="x", bid="7")') == parse_one('fill("7", "x")')


def test_arg_reads_a_bound_value_and_rejects_unknown_names() -> None:
    action = parse_one('press("7", "Enter")')
    assert action.arg("key_comb") == "Enter"
    with pytest.raises(KeyError):
        action.arg("key")


def test_lists_are_stored_as_tuples_so_actions_are_hashable() -> None:
    action = parse_one('click("1", modifiers=["Shift", "Alt"])')
    assert action.arg("modifiers") == ("Shift", "Alt")
    assert hash(action) == hash(parse_one('click("1", modifiers=["Shift", "Alt"])'))


def test_a_tuple_literal_is_accepted_where_a_list_is() -> None:
    assert parse_one('select_option("9", ("a", "b"))') == parse_one(
        'select_option("9", ["a", "b"])'
    )


def test_select_option_takes_one_string_or_a_list() -> None:
    assert parse_one('select_option("9", "red")').arg("options") == "red"
    assert parse_one('select_option("9", [])').arg("options") == ()


def test_negative_and_signed_numbers_are_accepted() -> None:
    assert parse_one("scroll(-50.2, +100)").kwargs == {"delta_x": -50.2, "delta_y": 100}


def test_single_quoted_strings_with_escapes_are_accepted() -> None:
    assert parse_one("fill('1', 'it\\'s \"x\"\\n')").arg("value") == 'it\'s "x"\n'


def test_a_trailing_comment_is_ignored() -> None:
    assert parse_one('click("5")  # the Save button') == parse_one('click("5")')


def test_an_indented_action_is_accepted() -> None:
    assert parse_action('    click("1")\n    noop()\n') == parse_action('click("1")\nnoop()')


# --- canonical text ---


def test_str_writes_required_arguments_positionally_and_changed_options_by_keyword() -> None:
    assert str(parse_one("click(bid=12, button='right')")) == 'click("12", button="right")'


def test_str_leaves_out_optional_arguments_at_their_default() -> None:
    assert str(parse_one('click("1", "left", [])')) == 'click("1")'


def test_str_writes_lists_with_double_quoted_strings() -> None:
    text = "click('1', modifiers=['Control', 'Shift'])"
    assert str(parse_one(text)) == 'click("1", modifiers=["Control", "Shift"])'


def test_noop_with_a_wait_names_it() -> None:
    assert str(parse_one("noop(500)")) == "noop(wait_ms=500)"


@pytest.mark.parametrize(
    "value",
    [
        'say "hi"',
        "back\\slash",
        "two\nlines\r\n",
        "tab\tnul\x00bell\x07",
        "emoji 🎉 ñ 中文",
        "\u2028\x85",
    ],
)
def test_tricky_strings_round_trip(value: str) -> None:
    action = make_action("fill", "1", value)
    assert parse_action(str(action)) == [action]


_TEXT_ARG = st.text(max_size=50)
_ARGS: dict[str, st.SearchStrategy[Any]] = {
    "bid": st.one_of(st.text(min_size=1, max_size=8).filter(str.strip), st.integers(0, 10**6)),
    "value": _TEXT_ARG,
    "key_comb": _TEXT_ARG,
    "url": _TEXT_ARG,
    "text": _TEXT_ARG,
    "key": _TEXT_ARG,
    "reason": _TEXT_ARG,
    "options": st.one_of(_TEXT_ARG, st.lists(_TEXT_ARG, max_size=4)),
    "file": st.one_of(_TEXT_ARG, st.lists(_TEXT_ARG, max_size=4)),
    "delta_x": st.one_of(
        st.floats(allow_nan=False, allow_infinity=False), st.integers(-5000, 5000)
    ),
    "index": st.integers(0, 50),
    "wait_ms": st.one_of(st.integers(0, 10_000), st.floats(0, 10_000)),
    "button": st.sampled_from(BUTTONS),
    "modifiers": st.lists(st.sampled_from(MODIFIERS), max_size=3),
    "enable_autocomplete_menu": st.booleans(),
}
_ARGS["from_bid"] = _ARGS["to_bid"] = _ARGS["bid"]
for _coordinate in ("delta_y", "x", "y", "dx", "dy", "from_x", "from_y", "to_x", "to_y"):
    _ARGS[_coordinate] = _ARGS["delta_x"]


def _parameters(name: str) -> list[str]:
    return [param.name for param in SPECS[name].params]


@pytest.mark.parametrize("name", ACTION_NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_action_round_trips_through_its_canonical_text(
    name: str, data: st.DataObject
) -> None:
    kwargs = {param: data.draw(_ARGS[param], label=param) for param in _parameters(name)}
    action = make_action(name, **kwargs)
    assert parse_action(str(action)) == [action]
    assert parse_action(format_action(name, **kwargs)) == [action]


def test_format_action_gives_canonical_text() -> None:
    assert format_action("click", 12, button="middle") == 'click("12", button="middle")'


def test_format_action_validates_like_the_parser() -> None:
    with pytest.raises(ActionParseError, match="argument 'value' must be a string, got int 3"):
        format_action("fill", "1", 3)


def test_make_action_binds_python_values_like_the_parser() -> None:
    assert make_action("click", 12, modifiers=["Shift"]) == parse_one(
        'click("12", modifiers=["Shift"])'
    )


# --- several actions per step ---


def test_actions_one_per_line_parse_in_order() -> None:
    actions = parse_action('fill("7", "hello")\npress("7", "Enter")\n')
    assert [a.name for a in actions] == ["fill", "press"]


def test_semicolons_separate_actions() -> None:
    assert [a.name for a in parse_action('click("1"); noop()')] == ["click", "noop"]


def test_a_step_holds_at_most_ten_actions() -> None:
    assert len(parse_action("noop()\n" * MAX_ACTIONS_PER_STEP)) == MAX_ACTIONS_PER_STEP
    message = rejection("noop()\n" * (MAX_ACTIONS_PER_STEP + 1))
    assert "too many actions in one step: 11 (at most 10)" in message


def test_an_error_in_a_later_action_says_which_one() -> None:
    assert rejection('click("1")\nclik("2")').startswith("action 2 of 2: unknown action 'clik'")


# --- markdown fences ---


def test_a_python_markdown_fence_is_stripped() -> None:
    assert parse_action('```python\nclick("1")\nnoop()\n```') == parse_action('click("1")\nnoop()')


def test_a_bare_markdown_fence_is_stripped() -> None:
    assert parse_action('\n```\nclick("1")\n```\n') == parse_action('click("1")')


def test_a_syntax_error_inside_a_fence_gives_the_line_of_the_original_text() -> None:
    assert rejection('```python\nnoop()\nclick("1"\n```').startswith("syntax error at line 3,")


# --- rejections ---


@pytest.mark.parametrize("text", ["", "   \n\t", "# only a comment", "```python\n\n```"])
def test_empty_text_is_rejected(text: str) -> None:
    assert rejection(text) == "empty action; send one call such as noop()"


def test_a_non_string_action_is_rejected() -> None:
    with pytest.raises(ActionParseError, match="must be a string"):
        parse_action(None)  # type: ignore[arg-type]


def test_parse_errors_are_value_errors() -> None:
    assert issubclass(ActionParseError, ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("__import__('os')", "unknown action '__import__'"),
        (
            "click(__import__('os').system('x'))",
            "only literal arguments are allowed (found a function call inside the arguments: "
            "__import__('os').system('x'))",
        ),
        ('os.system("ls")', "attribute access is not allowed (found os.system)"),
        ('click("1").x', "attribute access is not allowed"),
        ('click("1")[0]', "subscripts are not allowed"),
        ("[click(x) for x in y]", "comprehensions are not allowed"),
        ('click(f"{x}")', "f-strings are not allowed"),
        ('click("a" + "b")', "only literals are allowed"),
        ("click(*a)", "starred arguments are not allowed"),
        ("click(**k)", "keyword unpacking is not allowed"),
        ('x = click("1")', "assignments are not allowed"),
        ("import os", "import statements are not allowed"),
        ("from os import system", "import statements are not allowed"),
        ("lambda: 1", "lambda expressions are not allowed"),
        ("def f(): pass", "function definitions are not allowed"),
        ("for x in y: click(x)", "loops are not allowed"),
        ("click(a12)", 'found the name a12); put strings in quotes, e.g. "a12"'),
        ("click", 'each statement must be one action call such as click("12")'),
        ('"just text"', "each statement must be one action call"),
        ("click(b'1')", "only string, number, True/False and None literals are allowed"),
        ("click(-'1')", "only a sign directly before a number is allowed"),
        ("scroll(--1, 0)", "only a sign directly before a number is allowed"),
        ("click((x := '1'))", "assignment expressions are not allowed"),
        ('select_option("1", {"a"})', "only strings, numbers and lists are allowed"),
        ('select_option("1", [["a"]])', "nested lists are not allowed"),
        ('click("1")("2")', "the action must be a plain name"),
    ],
)
def test_anything_but_a_call_with_literal_arguments_is_rejected(text: str, message: str) -> None:
    assert message in rejection(text)


def test_parsing_never_compiles_agent_text_into_runnable_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_compile = builtins.compile

    def ast_only_compile(source: Any, filename: Any, mode: str, flags: int = 0, **kw: Any) -> Any:
        assert flags & ast.PyCF_ONLY_AST, "agent text compiled to a code object"
        return real_compile(source, filename, mode, flags, **kw)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("eval/exec called on agent text")

    monkeypatch.setattr(builtins, "compile", ast_only_compile)
    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    assert parse_action('click("1"); fill("2", "x")')[1].arg("value") == "x"
    rejection("click(__import__('os').system('echo pwned'))")


def test_unknown_action_suggests_the_closest_name_and_lists_all() -> None:
    message = rejection('clik("1")')
    assert message.startswith("unknown action 'clik'; did you mean 'click'")
    assert "Allowed: click, dblclick, hover" in message


def test_unknown_action_suggests_actions_containing_the_word() -> None:
    assert "did you mean 'keyboard_type'?" in rejection('type("hello")')


def test_unknown_keyword_suggests_the_closest_parameter() -> None:
    message = rejection('click("1", buton="right")')
    assert message.startswith(
        "click() got an unexpected keyword argument 'buton'; did you mean 'button'?"
    )


def test_duplicate_keyword_is_rejected() -> None:
    assert rejection('click(bid="1", bid="2")') == "click() got multiple values for argument 'bid'"


def test_keyword_repeating_a_positional_argument_is_rejected() -> None:
    assert "multiple values for argument 'bid'" in rejection('click("1", bid="2")')


def test_too_many_positional_arguments_are_rejected() -> None:
    assert rejection('click("1", "left", [], 4)').startswith(
        "click() takes at most 3 positional arguments but 4 were given"
    )


def test_arguments_to_an_action_without_parameters_are_rejected() -> None:
    assert rejection("go_back(1)").startswith("go_back() takes no arguments but 1 was given")


def test_missing_required_argument_is_named() -> None:
    assert rejection("click()").startswith("click() missing required argument 'bid'")


def test_wrong_argument_type_is_described() -> None:
    assert rejection('fill("1", 3)') == "fill(): argument 'value' must be a string, got int 3"


@pytest.mark.parametrize("text", ["scroll(True, 0)", "mouse_click(1, False)", "noop(True)"])
def test_bool_is_not_a_number(text: str) -> None:
    assert "must be a number, got bool" in rejection(text)


@pytest.mark.parametrize("text", ["click(True)", "click(1.5)", "click(None)", 'click("")'])
def test_bid_must_be_a_non_empty_string_or_an_int(text: str) -> None:
    assert "argument 'bid' must be" in rejection(text)


def test_button_must_be_left_middle_or_right() -> None:
    assert 'must be one of "left", "middle", "right"' in rejection('click("1", button="Left")')


def test_modifiers_must_be_a_list_of_modifier_keys() -> None:
    assert "'shift' is not a modifier key" in rejection('click("1", modifiers=["shift"])')
    assert 'such as ["Shift"], got str' in rejection('click("1", modifiers="Shift")')


def test_tab_index_must_be_a_non_negative_int() -> None:
    assert "must be an integer, got float 1.0" in rejection("tab_focus(1.0)")
    assert "must be 0 or more" in rejection("tab_focus(-1)")


def test_numbers_must_be_finite() -> None:
    assert "must be a finite number, got float inf" in rejection("scroll(1e999, 0)")


def test_noop_waits_between_zero_and_ten_seconds() -> None:
    assert parse_one("noop(0)").arg("wait_ms") == 0
    assert parse_one("noop(10000)").arg("wait_ms") == 10000
    assert "must be between 0 and 10000" in rejection("noop(10001)")
    assert "must be between 0 and 10000" in rejection("noop(-1)")


def test_strings_are_capped() -> None:
    limit = "x" * MAX_STRING_CHARS
    assert parse_one(f'fill("1", "{limit}")').arg("value") == limit
    assert f"the limit is {MAX_STRING_CHARS}" in rejection(f'fill("1", "{limit}x")')


def test_strings_inside_lists_are_capped() -> None:
    text = f'select_option("1", ["a", "{"x" * (MAX_STRING_CHARS + 1)}"])'
    assert "argument 'options[1]' is 10001 characters long" in rejection(text)


def test_action_text_is_capped() -> None:
    text = "noop()  # " + "x" * MAX_ACTION_CHARS
    assert rejection(text) == (
        f"the action text is {len(text)} characters long; the limit is {MAX_ACTION_CHARS}"
    )


def test_syntax_error_gives_line_and_column() -> None:
    assert rejection('click("1"').startswith("syntax error at line 1, column 6: ")


def test_pathological_nesting_is_rejected() -> None:
    assert (
        rejection("noop(" + "-" * 15_000 + "1)") == "the action text is nested too deeply to read"
    )


# --- the actions BrowserGym has beyond the first set: fill's third argument and more ---


def test_fill_opens_autocomplete_menus_only_when_asked() -> None:
    assert parse_one('fill("7", "Montre")').arg("enable_autocomplete_menu") is False
    positional = parse_one('fill("7", "Montre", True)')
    assert positional == parse_one('fill("7", "Montre", enable_autocomplete_menu=True)')
    assert positional.arg("enable_autocomplete_menu") is True
    assert str(positional) == 'fill("7", "Montre", enable_autocomplete_menu=True)'
    assert str(parse_one('fill("7", "x", False)')) == 'fill("7", "x")'


@pytest.mark.parametrize("flag", ['"yes"', "1", "None", "[True]"])
def test_fill_autocomplete_flag_must_be_true_or_false(flag: str) -> None:
    message = rejection(f'fill("7", "x", {flag})')
    assert message.startswith("fill(): argument 'enable_autocomplete_menu' must be True or False")


@pytest.mark.parametrize(
    ("positional", "keywords"),
    [
        ("scroll_at(50, 100, -50, -100.5)", "scroll_at(dy=-100.5, dx=-50, y=100, x=50)"),
        (
            "mouse_drag_and_drop(10.7, 325, 235.6, 24.54)",
            "mouse_drag_and_drop(from_x=10.7, from_y=325, to_x=235.6, to_y=24.54)",
        ),
        ('mouse_upload_file(132.1, 547, "a.pdf")', 'mouse_upload_file(132.1, 547, file="a.pdf")'),
        ('keyboard_insert_text("Hi!")', 'keyboard_insert_text(text="Hi!")'),
        ('keyboard_down("Shift")', 'keyboard_down(key="Shift")'),
        ('keyboard_up("Shift")', 'keyboard_up(key="Shift")'),
    ],
)
def test_new_actions_bind_positional_and_keyword_arguments_alike(
    positional: str, keywords: str
) -> None:
    action = parse_one(positional)
    assert action == parse_one(keywords)
    assert str(action) == positional.replace("'", '"')


def test_scroll_at_binds_a_point_and_a_scroll_amount() -> None:
    assert parse_one("scroll_at(50, 100, 0, 200)").kwargs == {"x": 50, "y": 100, "dx": 0, "dy": 200}


def test_mouse_upload_file_takes_one_path_a_list_or_none() -> None:
    assert parse_one('mouse_upload_file(1, 2, ["a.txt", "b.txt"])').arg("file") == (
        "a.txt",
        "b.txt",
    )
    assert parse_one("mouse_upload_file(1, 2, [])").arg("file") == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('scroll_at(1, 2, "down", 0)', "scroll_at(): argument 'dx' must be a number, got str"),
        ("scroll_at(1, 2, 3)", "scroll_at() missing required argument 'dy'. Usage: "),
        (
            "mouse_drag_and_drop(1, 2, 3)",
            "mouse_drag_and_drop() missing required argument 'to_y'. Usage: "
            "mouse_drag_and_drop(from_x, from_y, to_x, to_y)",
        ),
        ("mouse_drag_and_drop(1, True, 3, 4)", "argument 'from_y' must be a number, got bool"),
        ("mouse_upload_file(1, 2, 3)", "argument 'file' must be a string or a list of strings"),
        ("mouse_upload_file(1, 2)", "mouse_upload_file() missing required argument 'file'"),
        ('keyboard_insert_text(["a"])', "argument 'text' must be a string, got list"),
        ("keyboard_down()", "keyboard_down() missing required argument 'key'"),
        (
            'keyboard_up(key="a", code="b")',
            "keyboard_up() got an unexpected keyword argument 'code'",
        ),
        ("scroll_at(1, 2, 3, 4, 5)", "scroll_at() takes at most 4 positional arguments but 5"),
    ],
)
def test_bad_arguments_to_the_new_actions_say_what_is_wrong(text: str, message: str) -> None:
    assert message in rejection(text)
