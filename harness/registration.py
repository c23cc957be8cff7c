"""Gymnasium registration: every task template as the env id `officegym/<template-id>`.

`gymnasium.make("officegym/chat.post_update")` gives one `Env`, and
`gymnasium.make_vec("officegym/chat.post_update", num_envs=4)` an `AsyncVectorEnv` of four,
each sub-env with its own world file (the ids' vector entry point, `make_vector`, sets the two
settings below). Gymnasium's own modes work too:

    envs = gymnasium.make_vec(
        "officegym/chat.post_update",
        num_envs=4,
        vectorization_mode="async",
        vector_kwargs={"shared_memory": False, "context": "spawn"},
    )

`"async"` runs each sub-env in a worker process with its own server and Chromium.
Observations are text of any length and tuples of tabs, so they cannot live in fixed shared
memory: `shared_memory=False` is required (with the default `True`, construction fails at
once with a `TypeError` saying so). `context="spawn"` is recommended: an `Env` starts nothing
until its first `reset()`, so the env the parent builds to read the spaces starts no browser,
but `fork` copies whatever the parent already runs (another env's browser thread) into every
worker. `"sync"` steps the sub-envs one after another in this process, sharing one server
and one Chromium. World ids hold the process id and a per-process counter, so no two
sub-envs, in one process or many, share a world file. Autoreset follows Gymnasium's
`NEXT_STEP` mode: the step after an episode ends resets that sub-env to a fresh world and
returns its first observation. `close()` drops every world and stops every browser.
"""

from __future__ import annotations

import functools
import multiprocessing
from collections.abc import Iterable
from typing import Any

import gymnasium
from gymnasium.vector.utils import create_shared_memory

from officegym.tasks import discovery

from .spaces import Unicode

ENTRY_POINT = "officegym.harness.env:Env"
VECTOR_ENTRY_POINT = "officegym.harness.registration:make_vector"


def register_templates(template_ids: Iterable[str] | None = None) -> None:
    """Register templates with Gymnasium as `officegym/<template-id>` (default: every built-in
    template, listed from module names without loading one). A template registered from
    elsewhere (`officegym.tasks.registry.register`) is added with `register_templates([id])`."""
    for template_id in discovery.template_ids() if template_ids is None else template_ids:
        env_id = f"officegym/{template_id}"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=ENTRY_POINT,
                vector_entry_point=VECTOR_ENTRY_POINT,
                nondeterministic=True,
                kwargs={"task": template_id},
            )


def make_vector(num_envs: int = 1, **kwargs: Any) -> gymnasium.vector.AsyncVectorEnv:
    """`num_envs` envs, each in its own worker process (spawned, observations sent by pipe, not
    shared memory), built with `Env(**kwargs)`: what `gymnasium.make_vec(id, num_envs)` gives."""
    from .env import Env  # a worker imports it; the parent only builds one env for the spaces

    make_one = functools.partial(Env, **kwargs)
    return gymnasium.vector.AsyncVectorEnv(
        [make_one] * num_envs, shared_memory=False, context="spawn"
    )


@create_shared_memory.register(Unicode)
def _refuse_shared_memory(space: Unicode, n: int = 1, ctx=multiprocessing) -> None:
    """Text of unbounded length has no fixed-size buffer (Gymnasium's `Text` one would be
    `max_length` int32 per env, gigabytes here): fail at once, saying what to pass."""
    raise TypeError(
        "officegym observations hold text of any length, which cannot be kept in shared "
        "memory: pass vector_kwargs={'shared_memory': False} to gymnasium.make_vec "
        "(or shared_memory=False to AsyncVectorEnv)"
    )


__all__ = ["ENTRY_POINT", "VECTOR_ENTRY_POINT", "make_vector", "register_templates"]
