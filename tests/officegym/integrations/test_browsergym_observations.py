"""Observation parity with BrowserGym: on the same page of our apps, browsergym-core's own
`BrowserEnv` and our env return the same BrowserGym keys, with the same nested types and the
same array shapes, and BrowserGym's own text renderings of our page objects show bids that our
actions accept.

The BrowserGym side is its own env (an open-ended task that signs in and opens our page, in a
context sending our world header), launched with `/usr/bin/chromium`: BrowserGym's chat window
launches a second browser without `executable_path`, so this module makes the global
Playwright's `chromium.launch` default to it. Run with `-s` to see the conformance table.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import officegym
from officegym.apps.web import WORLD_HEADER
from officegym.harness.runtime import CHROMIUM
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore
from officegym.tasks.protocol import Task
from officegym.tasks.verdict import Verdict
from tests.harness.envs import TINY, first_member
from tests.officegym.integrations.conftest import browsergym_module

pytestmark = pytest.mark.browsergym

core = browsergym_module("browsergym.core")
bg_env = browsergym_module("browsergym.core.env")
bg_task = browsergym_module("browsergym.core.task")
bg_obs = browsergym_module("browsergym.utils.obs")

GOAL = "Look around."
BID_LINE = re.compile(r"^\s*\[(\w+)\] (\S+)")
MAPPINGS = ("extra_element_properties",)
"""Keys whose dicts are keyed by data (bids), not by field names: their values are compared."""

ONLY_OURS = {
    "axtree_object.nodes[].description": (
        "CDP's optional AXNode description (e.g. from a title attribute): BrowserGym's marking "
        "writes every element's aria-description, which hides that description, then deletes "
        "the emptied field; we keep Chromium's tree as it is"
    ),
}
"""Nested fields only our objects can hold (optional in CDP's schema), with the reason."""


class SignedInPage(bg_task.AbstractBrowserTask):
    """BrowserGym's open-ended task, signed in to our suite first."""

    @classmethod
    def get_task_id(cls) -> str:
        return "officegym-observation-parity"

    def __init__(self, seed: int, origin: str, path: str, email: str) -> None:
        super().__init__(seed)
        self.origin, self.path, self.email = origin, path, email
        self.slow_mo = 0

    def setup(self, page) -> tuple[str, dict]:
        form = page.context.request.get(f"{self.origin}/login").text()
        token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
        page.context.request.post(
            f"{self.origin}/login",
            form={"email": self.email, "password": DEMO_PASSWORD, "csrf_token": token},
        )
        page.goto(self.origin + self.path)
        return GOAL, {}

    def validate(self, page, chat_messages) -> tuple[float, bool, str, dict]:
        return 0.0, False, "", {}

    def teardown(self) -> None:
        pass


@pytest.fixture(scope="module")
def system_chromium() -> Iterator[None]:
    """BrowserGym's global Playwright launches `/usr/bin/chromium` unless told otherwise."""
    chromium = core._get_global_playwright().chromium
    launch = chromium.launch

    def launch_system_chromium(**kwargs: Any) -> Any:
        kwargs.setdefault("executable_path", str(CHROMIUM))
        return launch(**kwargs)

    chromium.launch = launch_system_chromium
    yield
    chromium.launch = launch


@pytest.fixture(scope="module")
def ours(store: WorldStore) -> Iterator[Any]:
    """Our env with BrowserGym's page objects and the screenshot, reset at the CRM contacts."""
    email, _, _ = first_member(store.golden(0, "tiny"))
    task = Task(
        goal=GOAL,
        user=email,
        start_url="/crm/contacts",
        verify=lambda ctx: Verdict(),
        world=TINY,
        apps=("crm", "chat"),
    )
    env = officegym.make(task, home=store.home, observation={"objects": True, "screenshot": True})
    env.reset(seed=0)
    yield env
    env.close()


def pages(store: WorldStore) -> dict[str, str]:
    _, channel_id, _ = first_member(store.golden(0, "tiny"))
    return {"crm list": "/crm/contacts", "chat channel": f"/chat/c/{channel_id}"}


@pytest.fixture(scope="module", params=["crm list", "chat channel"])
def both(request, store, ours, system_chromium) -> Iterator[tuple[str, dict, dict]]:
    """(page name, BrowserGym's observation, ours) of one page, BrowserGym's env closed after."""
    path = pages(store)[request.param]
    obs, _, _, _, info = ours.step(f'goto("{path}")')
    assert obs["last_action_error"] == "", obs["last_action_error"]
    email, _, _ = first_member(store.golden(0, "tiny"))
    width, height = obs["screenshot"].shape[1], obs["screenshot"].shape[0]
    env = bg_env.BrowserEnv(
        task_entrypoint=SignedInPage,
        task_kwargs={"origin": ours.server_url, "path": path, "email": email},
        viewport={"width": width, "height": height},
        headless=True,
        pw_chromium_kwargs={"executable_path": str(CHROMIUM)},
        pw_context_kwargs={"extra_http_headers": {WORLD_HEADER: ours.world_id}},
    )
    try:
        theirs, _ = env.reset(seed=0)
        assert theirs["url"] == obs["url"]
        yield request.param, theirs, obs
    finally:
        env.close()


def shape(value: Any, path: str = "", mapping: bool = False) -> set[tuple[str, str]]:
    """Every (path, type) of a nested value: list items share `path[]`, the values of a mapping
    share `path{}`; ints and floats are both `number` (JSON numbers), bools stay `bool`."""
    if isinstance(value, np.ndarray):
        return {(path, f"ndarray {value.dtype} ndim={value.ndim}")}
    if isinstance(value, dict):
        found = {(path, "dict")}
        for key, item in value.items():
            found |= shape(item, f"{path}{{}}" if mapping else f"{path}.{key}")
        return found
    if isinstance(value, list | tuple):
        found = {(path, type(value).__name__)}
        for item in value:
            found |= shape(item, f"{path}[]")
        return found
    if isinstance(value, int | float) and not isinstance(value, bool):
        return {(path, "number")}
    return {(path, type(value).__name__)}


def summary(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"ndarray {value.dtype} {value.shape}"
    if isinstance(value, dict):
        return f"dict, {len(value)} keys"
    if isinstance(value, list | tuple):
        return f"{type(value).__name__} of {len(value)}"
    return type(value).__name__


def test_browsergym_keys_are_all_in_our_observation(both):
    name, theirs, ours = both
    print(f"\n{name}: {'key':<26} {'BrowserGym':<28} ours")
    for key in theirs:
        mine = summary(ours[key]) if key in ours else "MISSING"
        print(f"{name}: {key:<26} {summary(theirs[key]):<28} {mine}")
    print(f"{name}: only ours: {sorted(set(ours) - set(theirs))}")
    assert set(theirs) <= set(ours)


def test_every_key_has_browsergyms_nested_types(both):
    _, theirs, ours = both
    for key in theirs:
        mapping = key in MAPPINGS
        mine, upstream = shape(ours[key], key, mapping), shape(theirs[key], key, mapping)
        assert upstream <= mine, key
        extra = {path for path, _ in mine - upstream}
        assert {p for p in extra if not p.startswith(tuple(ONLY_OURS))} == set(), key


def test_arrays_have_browsergyms_shapes_and_dtypes(both):
    _, theirs, ours = both
    arrays = [key for key, value in theirs.items() if isinstance(value, np.ndarray)]
    assert {"active_page_index", "elapsed_time", "screenshot"} <= set(arrays)
    for key in arrays:
        assert (ours[key].shape, ours[key].dtype) == (theirs[key].shape, theirs[key].dtype), key


def test_the_goal_and_chat_read_as_browsergyms(both):
    _, theirs, ours = both
    assert ours["goal_object"] == theirs["goal_object"]
    roles = [(m["role"], m["message"]) for m in ours["chat_messages"]]
    assert roles == [(m["role"], m["message"]) for m in theirs["chat_messages"]]


def bid_lines(text: str) -> list[tuple[str, str]]:
    return [m.groups() for line in text.splitlines() if (m := BID_LINE.match(line))]


def test_browsergyms_axtree_text_of_our_object_shows_our_bids_and_roles(both):
    _, _, ours = both
    flattened = bid_lines(bg_obs.flatten_axtree_to_str(ours["axtree_object"]))
    assert flattened
    assert set(flattened) <= set(bid_lines(ours["axtree_txt"]))


def test_browsergyms_dom_text_of_our_object_shows_our_bids(both):
    _, _, ours = both
    text = bg_obs.flatten_dom_to_str(ours["dom_object"], ours["extra_element_properties"])
    bids = set(re.findall(r'\bbid="(\w+)"', text))
    assert bids and bids <= set(ours["extra_element_properties"])
    assert set(re.findall(r'\bbid="(\w+)"', ours["dom_txt"])) <= bids


def test_a_textbox_bid_from_browsergyms_axtree_text_works_with_our_fill(both, ours):
    _, _, obs = both
    text = bg_obs.flatten_axtree_to_str(obs["axtree_object"])
    bid = next(b for b, role in bid_lines(text) if role in ("textbox", "searchbox"))
    after, *_ = ours.step(f'fill("{bid}", "typed through a BrowserGym bid")')
    assert after["last_action_error"] == ""
    assert f"[{bid}] " in after["axtree_txt"]
    assert "value='typed through a BrowserGym bid'" in next(
        line for line in after["axtree_txt"].splitlines() if f"[{bid}] " in line
    )


def test_an_input_bid_from_browsergyms_dom_text_works_with_our_fill(both, ours):
    _, _, obs = both
    text = bg_obs.flatten_dom_to_str(obs["dom_object"], obs["extra_element_properties"])
    bid = next(
        re.search(r'\bbid="(\w+)"', tag).group(1)
        for tag in re.findall(r"<(?:textarea|input)\b[^>]*>", text)
        if re.search(r'\btype="(?:text|search)"', tag) or tag.startswith("<textarea")
    )
    after, *_ = ours.step(f'fill("{bid}", "typed through a DOM bid")')
    assert after["last_action_error"] == ""
    assert "typed through a DOM bid" in after["dom_txt"]
