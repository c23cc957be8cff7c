"""`build_world`: generate every domain in dependency order and write the world file."""

from __future__ import annotations

from pathlib import Path

from .. import search_index
from ..schema import SCHEMA_VERSION
from . import booking, chat, crm, crm_history, mess, people, sheets
from .company import choose_company
from .context import World
from .scales import SCALES
from .write import write_world


def build_world(seed: int, scale: str, path: Path) -> dict[str, int]:
    """Generate the world for (seed, scale) into a new SQLite file at `path`.

    Raises FileExistsError if `path` exists. Returns row counts per table, sorted by name.
    The same (seed, scale) always produces a byte-identical file.
    """
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}: choose one of {', '.join(SCALES)}")
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"world file already exists: {path}")
    company = choose_company(seed)
    world = World(
        seed=seed,
        scale=SCALES[scale],
        now=company.now,
        company_name=company.name,
        company_domain=company.domain,
    )
    people.build(world)
    crm.build(world)
    mess.plant_crm_mess(world)
    crm_history.build(world)
    booking.build(world)
    sheets.build(world)
    chat.build(world)
    mess.plant_phone_conflicts(world)
    world.add(
        "world_meta",
        schema_version=SCHEMA_VERSION,
        seed=seed,
        scale=scale,
        now=company.now,
        clock_ticks=0,
        company_name=company.name,
        company_domain=company.domain,
        timezone=world.get("people_office", 1)["timezone"],
        currency="USD",
    )
    return write_world(world, path, finish=search_index.install)
