"""Where templates live, found from module names alone (nothing is imported to list them).

Templates of an app live in `officegym.tasks.<app>` for each app declared in
`officegym.apps` (and cross-app ones in `officegym.tasks.cross`). Every module there whose
name does not start with `_` and is not a support module (`base`, `ui`) holds one template,
whose id is `<package>.<module>`: `tasks/crm/move_deal_stage.py` is `crm.move_deal_stage`.
Listing ids this way lets the harness register every template with Gymnasium without loading
any of them; `tasks.registry` imports a template's module the first time it is asked for.
"""

from __future__ import annotations

import importlib.util
import pkgutil
from functools import cache

from officegym.apps import registry as apps

PACKAGE = "officegym.tasks"
CROSS = "cross"
SUPPORT_MODULES = frozenset({"base", "ui"})


def _packages() -> list[str]:
    return [app.slug.replace("-", "_") for app in apps.entries()] + [CROSS]


@cache
def template_ids() -> tuple[str, ...]:
    """The ids of every built-in template, sorted."""
    found = []
    for package in _packages():
        spec = importlib.util.find_spec(f"{PACKAGE}.{package}")
        if spec is None or not spec.submodule_search_locations:
            continue
        for module in pkgutil.iter_modules(spec.submodule_search_locations):
            name = module.name
            if module.ispkg or name.startswith("_") or name in SUPPORT_MODULES:
                continue
            found.append(f"{package}.{name}")
    return tuple(sorted(found))


def module_of(template_id: str) -> str | None:
    """The module that holds the built-in template `template_id`, or None."""
    if template_id not in template_ids():
        return None
    return f"{PACKAGE}.{template_id}"


__all__ = ["CROSS", "PACKAGE", "SUPPORT_MODULES", "module_of", "template_ids"]
