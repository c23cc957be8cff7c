"""Every task template is a Gymnasium env id `officegym/<template-id>`."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import gymnasium
import pytest

from officegym.harness.registration import register_templates
from officegym.tasks import registry


def test_every_template_is_registered_under_its_id() -> None:
    register_templates()
    for template in registry.templates():
        spec = gymnasium.spec(f"officegym/{template.id}")
        assert spec.entry_point == "officegym.harness.env:Env"
        assert spec.kwargs == {"task": template.id}
        assert spec.nondeterministic


def test_registering_twice_changes_nothing() -> None:
    register_templates()
    before = dict(gymnasium.registry)
    register_templates()
    assert dict(gymnasium.registry) == before


def test_importing_the_harness_registers_every_template_and_loads_nothing_else() -> None:
    code = (
        "import sys, gymnasium\n"
        "import officegym.harness\n"
        "ids = [k for k in gymnasium.registry if k.startswith('officegym/')]\n"
        "heavy = ('flask', 'sqlalchemy', 'playwright', 'faker', 'officegym.tasks.chat.post_update')\n"
        "print(len(ids), [m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, loaded = out.stdout.split(" ", 1)
    assert int(count) == len(registry.template_ids()) and loaded.strip() == "[]"


def test_the_package_hands_out_its_names_on_first_use() -> None:
    import officegym.harness as harness

    for name in harness.__all__:
        assert getattr(harness, name) is not None, name
    with pytest.raises(AttributeError):
        harness.NoSuchThing  # noqa: B018


def test_making_an_env_starts_no_thread_and_no_process_until_reset() -> None:
    code = textwrap.dedent(
        """
        import os, threading, gymnasium
        import officegym.harness

        def parent(pid):
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    return int(stat.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                return None

        env = gymnasium.make("officegym/chat.post_update")
        children = [p for p in os.listdir("/proc") if p.isdigit() and parent(p) == os.getpid()]
        print(threading.active_count(), len(children))
        env.close()
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "0"]


def test_observations_refuse_shared_memory_with_a_message_saying_what_to_pass() -> None:
    from gymnasium.vector.utils import create_shared_memory

    from officegym.harness.spaces import ObservationOptions, observation_space

    space = observation_space(ObservationOptions(), (1280, 800))
    with pytest.raises(TypeError, match=r"shared_memory': False"):
        create_shared_memory(space, n=2)
