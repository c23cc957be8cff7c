"""The company a world belongs to, and the marks drawn from names (logo, avatars)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from flask import g
from sqlalchemy import select

from officegym.seed_data.schema import WorldMeta

from .world import get_db, world_id

# Dark enough for white initials to pass WCAG AA (4.5:1) on every colour.
MARK_COLORS = (
    "#1d4ed8",
    "#0f766e",
    "#7e22ce",
    "#be123c",
    "#b45309",
    "#15803d",
    "#4338ca",
    "#0e7490",
    "#a21caf",
    "#9a3412",
)


@dataclass(frozen=True)
class Company:
    name: str
    domain: str


def current_company() -> Company | None:
    """The company of this request's world (None when the request has no world)."""
    if "company" not in g:
        g.company = None
        if world_id() is not None:
            row = (
                get_db()
                .execute(
                    select(WorldMeta.company_name, WorldMeta.company_domain).where(
                        WorldMeta.id == 1
                    )
                )
                .first()
            )
            if row is not None:
                g.company = Company(name=row[0], domain=row[1])
    return g.company


def initials(name: str, letters: int = 2) -> str:
    """`Ridgeline Analytics` -> `RA`; one word gives its first letters (`Acme` -> `AC`)."""
    words = re.findall(r"[^\W_]+", name or "")
    if not words:
        return "?"
    if len(words) == 1:
        return words[0][:letters].upper()
    return "".join(word[0] for word in words[:letters]).upper()


def mark_color(name: str) -> str:
    """A stable colour for a name (same name, same colour, in every process)."""
    digest = hashlib.sha256((name or "").encode()).digest()
    return MARK_COLORS[digest[0] % len(MARK_COLORS)]


__all__ = ["MARK_COLORS", "Company", "current_company", "initials", "mark_color"]
