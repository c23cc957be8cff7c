"""Candidate pools read from a golden world once, not once per instance.

A sampler draws one instance from pools it reads from the golden world (every message with
one figure in it, every editor of an owner's records...). Goldens never change, so a pool is
the same for every instance seed: `per_golden` keeps it per golden file while
`Template.instance` samples (`sampling`), and gives each caller its own copy, so a sampler
may shuffle or edit what it gets. Outside sampling (a verifier reading a live world) the
function runs as written.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_golden: ContextVar[str | None] = ContextVar("officegym_sampled_golden", default=None)
_pools: dict[tuple[Any, ...], Any] = {}


@contextmanager
def sampling(golden: Path | str) -> Iterator[None]:
    """While inside, `per_golden` functions called with the golden world keep their pools."""
    token = _golden.set(str(Path(golden).resolve()))
    try:
        yield
    finally:
        _golden.reset(token)


def per_golden(func: F) -> F:
    """Keep `func(world, *args)` per golden world and arguments while sampling."""

    @functools.wraps(func)
    def pooled(world: Any, *args: Any, **kwargs: Any) -> Any:
        golden = _golden.get()
        if golden is None:
            return func(world, *args, **kwargs)
        key = (golden, func.__module__, func.__qualname__, args, tuple(sorted(kwargs.items())))
        try:
            found = _pools[key]
        except KeyError:
            found = _pools[key] = func(world, *args, **kwargs)
        return copy.deepcopy(found)

    return pooled  # type: ignore[return-value]


__all__ = ["per_golden", "sampling"]
