"""Gymnasium registration: every task template as the env id `officegym/<template-id>`."""

from __future__ import annotations

from collections.abc import Iterable

import gymnasium

from officegym.tasks import discovery

ENTRY_POINT = "officegym.harness.env:Env"


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
                nondeterministic=True,
                kwargs={"task": template_id},
            )


__all__ = ["ENTRY_POINT", "register_templates"]
