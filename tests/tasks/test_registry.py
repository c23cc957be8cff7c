"""The template registry: ids, metadata and complete templates only."""

from __future__ import annotations

import subprocess
import sys

import pytest

from officegym.tasks.protocol import TaskError
from officegym.tasks.registry import (
    Template,
    UnknownTask,
    get,
    register,
    template_ids,
    templates,
)


def test_a_template_missing_its_oracle_and_verifier_cannot_be_registered():
    class Half(Template):
        id = "chat.half_done"

        def sample(self, world, rng):
            return {}

        def goal(self, params, rng):
            return "do it"

    with pytest.raises(TaskError, match="does not implement solve, verify"):
        register(Half)


def test_unknown_ids_name_the_registered_ones():
    with pytest.raises(UnknownTask, match="chat.post_update"):
        get("chat.nope")


def test_builtin_templates_are_registered_by_id():
    assert "chat.post_update" in {t.id for t in templates()}


TAGS = {"navigation", "search", "form", "answer", "multi-step", "cross-app"}


@pytest.mark.parametrize("app", ["chat", "crm"])
def test_each_app_suite_has_25_templates_across_every_difficulty_and_both_splits(app):
    suite = [t for t in templates() if t.id.startswith(f"{app}.")]
    assert len(suite) >= 25
    assert {t.difficulty for t in suite} == {1, 2, 3, 4, 5}
    assert sum(t.split == "test" for t in suite) >= 5


def test_a_template_hands_the_agent_its_files_with_the_instance(store):
    class Handout(get("chat.post_update").__class__):
        id = "chat.handout_test"

        def files(self, params):
            return {"notes.txt": params["text"].encode()}

    task = Handout().instance(store.golden(0, "tiny"), 1)
    assert task.files == {"notes.txt": task.params["text"].encode()}
    assert get("chat.post_update").instance(store.golden(0, "tiny"), 1).files == {}


def test_every_template_has_complete_metadata():
    for t in templates():
        app = t.id.split(".")[0]
        assert app in t.apps, t.id
        assert t.split in ("train", "test"), t.id
        assert 1 <= t.difficulty <= 5 and len(t.difficulty_reason) > 10, t.id
        assert t.tags and set(t.tags) <= TAGS, (t.id, t.tags)
        assert 1 <= t.max_steps <= 100, t.id


def test_template_ids_are_listed_without_loading_any_template():
    code = (
        "import sys\n"
        "from officegym.tasks import registry\n"
        "ids = registry.template_ids()\n"
        "loaded = [m for m in sys.modules if m.startswith(('officegym.tasks.chat.', "
        "'officegym.tasks.crm.'))]\n"
        "print(len(ids), 'chat.post_update' in ids, loaded, 'flask' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, has_post_update, loaded, flask = out.stdout.split()
    assert int(count) >= 50 and has_post_update == "True"
    assert loaded == "[]" and flask == "False"


def test_every_listed_id_loads_the_template_of_that_id():
    assert [t.id for t in templates()] == template_ids()


def test_a_template_must_name_apps_that_exist():
    class Elsewhere(get("chat.post_update").__class__):
        id = "chat.elsewhere_test"
        apps = ("mail",)

    with pytest.raises(TaskError, match="apps must name apps of officegym.apps"):
        register(Elsewhere)
