"""Every app is declared once, by an `AppEntry` named `APP` in its package's `__init__`.

    # apps/crm/__init__.py
    APP = AppEntry(slug="crm", name="CRM", ..., blueprint="officegym.apps.crm.blueprint:bp",
                   service="officegym.apps.crm.service", stamps={...}, children={...})

`entries()` finds the app packages under `officegym.apps` (every subpackage but the web kit)
and reads their entries, so adding an app is adding its package. The launcher mounts the
entries' blueprints, the task registry finds templates under `officegym.tasks.<slug>`, and
the verifier DSL (`tasks.expect`) reads the stamps, child tables, blank defaults and honest
variance below. This module imports no Flask: reading the entries costs no web stack.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

# How the product makes a child row, which decides when a claimed parent claims it (see
# `officegym.tasks.expect`): "derived" (re-made from the parent on every write of it),
# "with_parent" (made in the same act as the parent) or "cascade" (a separate act of the
# user, removed with the parent).
ChildKind = Literal["derived", "with_parent", "cascade"]

_SLUG = re.compile(r"[a-z][a-z0-9-]{0,31}")
_KIT = "web"


class MainPage(NamedTuple):
    """A page people and agents spend their time on, as a signed-in user sees it: what the
    observation budget and the layout check open (`AppEntry.main_pages`)."""

    app: str
    name: str
    path: str
    user: str


class Child(NamedTuple):
    """A child table's link to its parent: the foreign-key column, the parent table, and how
    the product makes its rows."""

    fk: str
    parent: str
    kind: ChildKind


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class AppEntry:
    """One app: where it is mounted, what people see in the launcher, and what the verifier
    DSL must know about the rows it writes.

    - `slug`: the URL prefix (`/<slug>`), the table prefix (`<slug>_`) and the package of
      its task templates (`officegym.tasks.<slug>`);
    - `icon_svg`: trusted inline SVG from our own code; `endpoint`: the home page's Flask
      endpoint ("crm.index");
    - `blueprint`: the Flask blueprint, or where to import it from ("module:attribute") so
      that reading the entry does not load the web stack; `service`: the module that is
      the app's one writer;
    - `stamps`: columns the app sets on every update of a row (table -> columns);
    - `children`: child tables that follow a parent row (table -> `Child`);
    - `blanks`: what the app leaves in the columns a user may fill in when making a row;
    - `honest_variance`: columns that honest use changes on rows no task is about (reading
      a channel moves the reader's last-read marker);
    - `pages`: where to import the app's main pages from ("module:function"), a function of a
      world file that returns `MainPage`s with paths and users read from that world.
    """

    slug: str
    name: str
    description: str
    icon_svg: str
    endpoint: str
    blueprint: Any = None
    service: str = ""
    stamps: Mapping[str, frozenset[str]] = field(default_factory=dict)
    children: Mapping[str, Child] = field(default_factory=dict)
    blanks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    honest_variance: Mapping[str, frozenset[str]] = field(default_factory=dict)
    pages: str = ""

    def __post_init__(self) -> None:
        if not _SLUG.fullmatch(self.slug):
            raise ValueError(f"app slug {self.slug!r} must be lowercase letters, digits or '-'")
        for name in ("stamps", "children", "blanks", "honest_variance"):
            value = getattr(self, name)
            for table in value:
                if not table.startswith(self.table_prefix):
                    raise ValueError(f"{self.slug}: {name} names {table!r}, not one of its tables")
            object.__setattr__(self, name, _frozen(value))

    def __hash__(self) -> int:
        return hash((self.slug, self.name, self.endpoint))

    @property
    def table_prefix(self) -> str:
        return f"{self.slug.replace('-', '_')}_"

    @property
    def package(self) -> str:
        """The package holding the app's code, templates and static files (its service's)."""
        if self.service:
            return self.service.rpartition(".")[0]
        return f"{__package__}.{self.slug.replace('-', '_')}"

    @property
    def icon(self) -> Any:
        from markupsafe import Markup

        return Markup(self.icon_svg)

    def load_blueprint(self) -> Any:
        """The app's Flask blueprint (imported on first use when given as "module:attr")."""
        if isinstance(self.blueprint, str):
            module, _, attribute = self.blueprint.partition(":")
            return getattr(importlib.import_module(module), attribute)
        return self.blueprint

    def main_pages(self, world: Path) -> list[MainPage]:
        """The app's main pages in the world file `world` (none if it declares no `pages`)."""
        if not self.pages:
            return []
        module, _, attribute = self.pages.partition(":")
        return list(getattr(importlib.import_module(module), attribute)(world))

    def tables(self) -> tuple[str, ...]:
        """The world's tables this app owns (by prefix), sorted."""
        from officegym.seed_data.schema import Base

        return tuple(sorted(t for t in Base.metadata.tables if t.startswith(self.table_prefix)))


@cache
def entries() -> tuple[AppEntry, ...]:
    """The built-in apps, by slug: every package under `officegym.apps` but the web kit."""
    package = importlib.import_module(__package__)
    found = []
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not module.ispkg or module.name == _KIT:
            continue
        app = getattr(importlib.import_module(f"{__package__}.{module.name}"), "APP", None)
        if not isinstance(app, AppEntry):
            raise TypeError(f"{__package__}.{module.name} declares no APP = AppEntry(...)")
        found.append(app)
    return tuple(found)


def entry(slug: str) -> AppEntry:
    """The built-in app `slug`."""
    for app in entries():
        if app.slug == slug:
            return app
    known = ", ".join(a.slug for a in entries())
    raise LookupError(f"no app {slug!r}; the apps are {known}")


def main_pages(world: Path) -> list[MainPage]:
    """Every app's main pages in the world file `world`, app by app."""
    return [page for app in entries() for page in app.main_pages(world)]


def merged(attribute: str) -> Mapping[str, Any]:
    """One of the per-table mappings (`stamps`, `children`, `blanks`, `honest_variance`) of
    every app, as one read-only mapping."""
    out: dict[str, Any] = {}
    for app in entries():
        out.update(getattr(app, attribute))
    return MappingProxyType(out)


__all__ = ["AppEntry", "Child", "ChildKind", "MainPage", "entries", "entry", "main_pages", "merged"]
