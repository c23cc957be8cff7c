"""Task templates by id: a template turns (world, instance seed) into a `Task`.

A template is a class with an `id` (`chat.post_update`), metadata, and five methods:
`sample(world, rng) -> params` picks real entities from the golden world, `goal(params, rng)`
phrases the request, `user(params)` and `start_url(params)` set the scene, `solve(actions,
params)` is the oracle and `verify(ctx, params)` grades. `instance(golden, seed)` ties them
together deterministically: the same (template, world, seed) always gives the same task.

Built-in templates are found by module name (`officegym.tasks.discovery`) and imported the
first time they are asked for; `register` also takes templates from anywhere else.
"""

from __future__ import annotations

import importlib
import inspect
import random
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from officegym.apps import registry as apps
from officegym.seed_data.connect import connect

from . import discovery, pools
from .protocol import EpisodeContext, Task, TaskError, WorldSpec
from .verdict import Verdict

if TYPE_CHECKING:
    from officegym.harness.page_actions import PageActions

Split = Literal["train", "test"]


class UnknownTask(TaskError, LookupError):
    """No template is registered under that id."""


class Template(ABC):
    """Base class of task templates: subclasses set `id` and the metadata, and implement
    `sample`, `goal`, `solve` and `verify` (a template missing one cannot be registered)."""

    id: ClassVar[str]
    apps: ClassVar[tuple[str, ...]] = ()
    difficulty: ClassVar[int] = 1
    difficulty_reason: ClassVar[str] = ""
    split: ClassVar[Split] = "train"
    tags: ClassVar[tuple[str, ...]] = ()
    world: ClassVar[WorldSpec] = WorldSpec()
    max_steps: ClassVar[int] = 30
    # (number of distinct instances, why) when the world cannot give `coverage.MIN_DISTINCT`.
    cardinality: ClassVar[tuple[int, str] | None] = None
    # True when some instances ask for the impossible (their params say `feasible: False`);
    # the gate's coverage sampling holds a template to what it declares here.
    impossible_instances: ClassVar[bool] = False

    @abstractmethod
    def sample(self, world: sqlite3.Connection, rng: random.Random) -> dict[str, Any]:
        """Pick the instance's entities from the golden world (read-only) with `rng`."""

    @abstractmethod
    def goal(self, params: Mapping[str, Any], rng: random.Random) -> str:
        """The request as a colleague would phrase it (the phrasing chosen by `rng`)."""

    def user(self, params: Mapping[str, Any]) -> str:
        return str(params["user"])

    def start_url(self, params: Mapping[str, Any]) -> str:
        return "/"

    @abstractmethod
    def solve(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        """The oracle: reach the goal through the harness action API."""

    @abstractmethod
    def verify(self, ctx: EpisodeContext, params: Mapping[str, Any]) -> Verdict:
        """Grade the episode from its context (diff, answer, process)."""

    def collateral(self, actions: PageActions, params: Mapping[str, Any]) -> None:
        """An edit an honest solution would not make, in the task's app (the quality gate's
        change-everything probe adds it to the oracle's work). Apps' base classes define it."""
        raise TaskError(f"{self.id}: no collateral edit defined for apps {self.apps}")

    def files(self, params: Mapping[str, Any]) -> Mapping[str, bytes]:
        """Files the task hands the agent (name -> bytes), placed in the episode folder at reset
        for `upload_file`; none by default."""
        return {}

    def decoy(self, params: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """Parameter overrides that point the oracle at a similar but wrong record (the gate's
        wrong-record probe), or None when the task has no such near miss."""
        found = params.get("decoy")
        return dict(found) if isinstance(found, Mapping) else None

    def candidates(self, params: Mapping[str, Any]) -> list[str]:
        """Every plausible answer of an answer task (the gate checks that listing them all
        fails); empty for tasks graded on state alone."""
        return [str(c) for c in params.get("candidates", ())]

    def instance(self, golden: Path | str, seed: int) -> Task:
        """The task for instance `seed` on the golden world file `golden`."""
        rng = random.Random(f"{self.id}/{seed}")
        conn = connect(golden, read_only=True)
        try:
            with pools.sampling(golden):
                params = self.sample(conn, rng)
        finally:
            conn.close()
        goal = self.goal(params, rng)
        frozen = dict(params)
        return Task(
            goal=goal,
            user=self.user(frozen),
            start_url=self.start_url(frozen),
            verify=lambda ctx: self.verify(ctx, frozen),
            solve=lambda actions: self.solve(actions, frozen),
            world=self.world,
            id=self.id,
            apps=self.apps,
            max_steps=self.max_steps,
            params=frozen,
            instance_seed=seed,
            files=dict(self.files(frozen)),
        )


_REGISTRY: dict[str, type[Template]] = {}


def register(cls: type[Template]) -> type[Template]:
    """Class decorator: make `cls` available by its id (ids are unique)."""
    template_id = getattr(cls, "id", None)
    if not isinstance(template_id, str) or "." not in template_id:
        raise TaskError(f"{cls.__name__}.id must look like 'app.verb_object', got {template_id!r}")
    if template_id in _REGISTRY and _REGISTRY[template_id] is not cls:
        raise TaskError(f"two templates share the id {template_id!r}")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        raise TaskError(f"{template_id}: the template does not implement {missing}")
    if not 1 <= cls.difficulty <= 5:
        raise TaskError(f"{template_id}: difficulty must be 1-5, got {cls.difficulty!r}")
    known_apps = {app.slug for app in apps.entries()}
    unknown = [name for name in cls.apps if name not in known_apps]
    if unknown or not cls.apps:
        raise TaskError(
            f"{template_id}: apps must name apps of officegym.apps ({', '.join(sorted(known_apps))}),"
            f" got {cls.apps!r}"
        )
    if cls.split not in ("train", "test"):
        raise TaskError(f"{template_id}: split must be 'train' or 'test', got {cls.split!r}")
    _REGISTRY[template_id] = cls
    return cls


def _load(template_id: str) -> type[Template] | None:
    """The template registered as `template_id`, importing its built-in module if need be."""
    found = _REGISTRY.get(template_id)
    if found is not None:
        return found
    module = discovery.module_of(template_id)
    if module is None:
        return None
    importlib.import_module(module)
    found = _REGISTRY.get(template_id)
    if found is None:
        raise TaskError(f"{module} registers no template with the id {template_id!r}")
    return found


def template_ids() -> list[str]:
    """Every template id (built-in and registered), sorted, without loading any template."""
    return sorted(set(discovery.template_ids()) | set(_REGISTRY))


def get(template_id: str) -> Template:
    """A new instance of the template registered as `template_id`."""
    found = _load(template_id)
    if found is None:
        known = ", ".join(template_ids()) or "none"
        raise UnknownTask(f"no task template {template_id!r}; registered: {known}")
    return found()


def templates() -> Iterator[type[Template]]:
    """Every template class, by id (loads every built-in template)."""
    for template_id in template_ids():
        found = _load(template_id)
        if found is not None:
            yield found


__all__ = ["Split", "Template", "UnknownTask", "get", "register", "template_ids", "templates"]
