"""PageActions: one method per action spec, and the finders over the accessibility tree."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import pytest

from officegym.harness.actions import ActionParseError, make_action, parse_action
from officegym.harness.actionspec import ACTION_NAMES, SPECS
from officegym.harness.page_actions import ElementNotFound, PageActions

EXAMPLES = {name: spec.example for name, spec in SPECS.items()}
FINDERS = {"find", "find_all", "exists", "last", "nodes"}


def parse_one(text: str):
    (action,) = parse_action(text)
    return action


def _methods() -> set[str]:
    return {name for name in vars(PageActions) if not name.startswith("_")}


def test_every_spec_has_a_method_and_every_action_method_has_a_spec() -> None:
    assert _methods() - FINDERS == set(SPECS)


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_each_method_has_the_specs_signature(name: str) -> None:
    parameters = list(inspect.signature(getattr(PageActions, name)).parameters.values())[1:]
    expected = [(p.name, p.required, None if p.required else p.default) for p in SPECS[name].params]
    assert [
        (
            p.name,
            p.default is inspect.Parameter.empty,
            None if p.default is inspect.Parameter.empty else p.default,
        )
        for p in parameters
    ] == expected
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in parameters)


@dataclass(frozen=True)
class Node:
    bid: str | None
    role: str
    name: str
    depth: int
    value: str | None = None
    states: tuple[str, ...] = ()


PAGE = [
    Node("1", "main", "Deals", 0),
    Node("2", "form", "New deal", 1),
    Node("3", "textbox", "Deal name", 2),
    Node("4", "textbox", "Amount", 2),
    Node("5", "button", "Save", 2),
    Node("6", "form", "Filters", 1),
    Node("7", "textbox", "Search\n   deals", 2),
    Node("8", "button", "Save filter", 2),
    Node("9", "button", "Save hidden", 1, states=("hidden",)),
    Node(None, "button", "Save unlabelled", 1),
    Node("10", "link", "Saved views", 1),
]


class Recorder:
    """A fake environment step: records the action strings it is given."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def __call__(self, text: str) -> str:
        self.sent.append(text)
        return f"result {len(self.sent)}"


@pytest.fixture
def step() -> Recorder:
    return Recorder()


@pytest.fixture
def page(step: Recorder) -> PageActions:
    return PageActions(step, lambda: PAGE)


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_each_method_sends_the_canonical_action_string(
    name: str, page: PageActions, step: Recorder
) -> None:
    action = parse_one(EXAMPLES[name])
    getattr(page, name)(**action.kwargs)
    assert step.sent == [EXAMPLES[name]]


@pytest.mark.parametrize("name", ACTION_NAMES)
def test_each_method_has_the_actions_parameters_and_defaults(name: str) -> None:
    parameters = list(inspect.signature(getattr(PageActions, name)).parameters.values())[1:]
    example = parse_one(EXAMPLES[name])
    assert [p.name for p in parameters] == [key for key, _ in example.args]
    optional = [p for p in parameters if p.default is not inspect.Parameter.empty]
    required = {p.name: example.arg(p.name) for p in parameters if p not in optional}
    bound = make_action(name, **required)
    assert {p.name: bound.arg(p.name) for p in optional} == {p.name: p.default for p in optional}


def test_a_method_passes_a_changed_option_by_keyword(page: PageActions, step: Recorder) -> None:
    page.click(12, button="right", modifiers=["Shift"])
    assert step.sent == ['click("12", button="right", modifiers=["Shift"])']


def test_a_method_returns_what_step_returns_and_keeps_it_as_last(page: PageActions) -> None:
    assert page.last is None
    assert page.fill("3", "Renewal") == "result 1"
    assert page.noop() == "result 2"
    assert page.last == "result 2"


def test_a_method_with_invalid_arguments_raises_before_stepping(
    page: PageActions, step: Recorder
) -> None:
    with pytest.raises(ActionParseError):
        page.noop(60_000)
    assert step.sent == []


def test_find_matches_role_exactly_and_name_as_a_case_insensitive_substring(
    page: PageActions,
) -> None:
    assert page.find("button", "save") == "5"
    assert page.find("BUTTON", "FILTER") == "8"


def test_find_role_alone_gives_the_first_node_of_that_role(page: PageActions) -> None:
    assert page.find("textbox") == "3"


def test_find_name_alone_searches_every_role(page: PageActions) -> None:
    assert page.find(name="saved") == "10"


def test_find_normalises_whitespace_in_names(page: PageActions) -> None:
    assert page.find("textbox", "  search deals ") == "7"


def test_find_exact_matches_the_whole_name_with_case(page: PageActions) -> None:
    assert page.find_all("button", "Save", exact=True) == ["5"]
    assert not page.exists("button", "save", exact=True)


def test_find_nth_counts_from_zero_and_from_the_end(page: PageActions) -> None:
    assert page.find("button", "Save", nth=1) == "8"
    assert page.find("button", "Save", nth=-1) == "8"


def test_find_nth_past_the_matches_says_how_many_there_are(page: PageActions) -> None:
    with pytest.raises(
        ElementNotFound, match=r'2 elements with role="button" name="Save" \("5", "8"\)'
    ):
        page.find("button", "Save", nth=2)


def test_find_within_searches_only_descendants(page: PageActions) -> None:
    assert page.find("button", "save", within="6") == "8"
    assert page.find_all("textbox", within=2) == ["3", "4"]


def test_find_within_an_unknown_bid_says_so(page: PageActions) -> None:
    with pytest.raises(ElementNotFound, match='no element with bid "99" to search within'):
        page.find("button", within="99")


def test_find_skips_hidden_nodes_unless_asked(page: PageActions) -> None:
    assert page.find_all("button", "hidden") == []
    assert page.find_all("button", "hidden", include_hidden=True) == ["9"]


def test_find_skips_nodes_without_a_bid(page: PageActions) -> None:
    assert not page.exists("button", "unlabelled")


def test_find_all_lists_matches_in_page_order(page: PageActions) -> None:
    assert page.find_all(name="save") == ["5", "8", "10"]


def test_exists_says_whether_anything_matches(page: PageActions) -> None:
    assert page.exists("link", "Saved views")
    assert not page.exists("link", "Deleted views")


def test_find_without_a_match_names_the_closest_candidates(page: PageActions) -> None:
    with pytest.raises(ElementNotFound) as info:
        page.find("button", "Sav changes")
    message = str(info.value)
    assert message.startswith('no element with role="button" name="Sav changes"; closest: ')
    assert 'button "Save" (bid "5")' in message


def test_find_reads_the_page_afresh_each_time(step: Recorder) -> None:
    pages = [PAGE[:3], PAGE]
    actions = PageActions(step, lambda: pages.pop(0))
    assert not actions.exists("button")
    assert actions.find("button") == "5"


def test_element_not_found_is_a_lookup_error() -> None:
    assert issubclass(ElementNotFound, LookupError)
