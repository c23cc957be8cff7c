"""The template registry: ids, metadata and complete templates only."""

from __future__ import annotations

import pytest

from officegym.tasks.protocol import TaskError
from officegym.tasks.registry import Template, UnknownTask, get, register, templates


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
