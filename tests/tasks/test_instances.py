"""Every template's instances on the default world: deterministic, JSON-safe, varied in
phrasing, sometimes impossible, and test-split goals phrased unlike any train goal."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from officegym.harness.gate import feasible_seed, impossible_seed
from officegym.tasks.registry import get, templates

pytestmark = pytest.mark.slow

SEEDS = range(12)


@pytest.fixture(scope="module")
def instances(store):
    """Instances of every template on seeds 0..11 of the small seed-0 world."""
    golden = store.golden(0, "small")
    return {t.id: [t().instance(golden, s) for s in SEEDS] for t in templates()}


def test_the_same_instance_seed_gives_the_same_goal_and_params(store, instances):
    golden = store.golden(0, "small")
    for t in templates():
        for seed in (0, 5):
            again = t().instance(golden, seed)
            first = instances[t.id][seed]
            assert (again.goal, dict(again.params)) == (first.goal, dict(first.params)), t.id


def test_params_are_json_and_goals_vary(instances):
    for template_id, tasks in instances.items():
        for task in tasks:
            json.dumps(task.describe())
            assert task.goal.strip() and "{" not in task.goal, (template_id, task.goal)
            assert "@" in task.user
        assert len({task.goal for task in tasks}) >= 6, template_id


def test_the_acting_user_is_an_active_employee_named_in_the_params(store, instances):
    golden = store.golden(0, "small")
    conn = sqlite3.connect(f"file:{golden}?mode=ro", uri=True)
    try:
        for template_id, tasks in instances.items():
            for task in tasks:
                found = conn.execute(
                    "SELECT id, is_active FROM people_employee WHERE email = ?", (task.user,)
                ).fetchone()
                assert found is not None and found[1] == 1, (template_id, task.user)
                if "user_id" in task.params:
                    assert found[0] == task.params["user_id"], (template_id, task.params)
    finally:
        conn.close()


def test_impossible_instances_exist_and_are_a_minority(instances):
    impossible = {
        template_id: sum(t.params.get("feasible", True) is False for t in tasks)
        for template_id, tasks in instances.items()
    }
    assert sum(1 for n in impossible.values() if n) >= 4, impossible
    assert all(n <= len(SEEDS) // 2 for n in impossible.values()), impossible


def _shingles(text: str, n: int = 5) -> set[tuple[str, ...]]:
    # Quoted text (message bodies) is content, not phrasing; an apostrophe inside a word
    # ("it's") is not a quote. Channel names and hyphenated words stay one token each.
    plain = re.sub(r'"[^"]*"|“[^”]*”|(?<!\w)\'[^\']*\'(?!\w)', " ", text.casefold())
    words = re.findall(r"[#\w][\w'’-]*", plain)
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_test_split_goals_share_no_five_word_phrase_with_train_goals(instances):
    split = {t.id: t.split for t in templates()}
    train: set[tuple[str, ...]] = set()
    for template_id, tasks in instances.items():
        if split[template_id] == "train":
            for task in tasks:
                train |= _shingles(task.goal)
    for template_id, tasks in instances.items():
        if split[template_id] == "test":
            for task in tasks:
                shared = _shingles(task.goal) & train
                assert not shared, (template_id, task.goal, sorted(shared)[:3])


def test_the_gate_finds_an_impossible_seed_when_the_chosen_seeds_hold_none(store, instances):
    golden = store.golden(0, "small")
    post = get("chat.post_update")
    first = next(s for s, t in enumerate(instances["chat.post_update"]) if not t.params["feasible"])
    assert impossible_seed(post, golden, [0]) == first
    assert impossible_seed(post, golden, [first]) is None
    assert impossible_seed(get("chat.set_topic"), golden, [0], search=12) is None


def test_a_template_declaring_no_impossible_instances_is_not_searched_for_one(store):
    class NeverSampled(type(get("chat.set_topic"))):
        def sample(self, world, rng):
            raise AssertionError("sampled")

    assert NeverSampled.impossible_instances is False
    assert impossible_seed(NeverSampled(), store.golden(0, "small"), [0]) is None


def test_templates_with_impossible_instances_declare_them(instances):
    for template_id, tasks in instances.items():
        if any(t.params.get("feasible", True) is False for t in tasks):
            assert get(template_id).impossible_instances, template_id


def test_the_gate_finds_a_feasible_seed_when_the_chosen_seeds_are_all_impossible(store, instances):
    golden = store.golden(0, "small")
    template = get("crm.reassign_account")
    tasks = instances["crm.reassign_account"]
    impossible = [s for s, t in enumerate(tasks) if t.params.get("feasible", True) is False]
    first = next(s for s, t in enumerate(tasks) if t.params.get("feasible", True) is not False)
    assert impossible, "the test needs an impossible seed among seeds 0-11"
    assert feasible_seed(template, golden, impossible[:1]) == first
    assert feasible_seed(template, golden, [first]) is None
