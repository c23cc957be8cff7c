"""The world being generated: rows per table, the clock, the company, and seeded streams.

Every domain module receives one `World`, reads what earlier domains made and appends its own
rows. Rows are plain dicts keyed by column name with explicit ids (1, 2, 3 … per table), so
later domains can refer to them before anything touches the database.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from faker import Faker

from .scales import Scale

Row = dict[str, Any]


@dataclass(frozen=True)
class Ref:
    """An entity named in generated text: `surface` is exactly the name written."""

    table: str
    id: int
    surface: str


def _contact_name(row: Row) -> str:
    return f"{row['first_name']} {row['last_name']}"


# How each table that generated text may name is named: the textref `surface` equals this.
NAMING = {
    "people_employee": lambda row: row["display_name"],
    "people_office": lambda row: row["name"],
    "people_team": lambda row: row["name"],
    "crm_account": lambda row: row["name"],
    "crm_contact": _contact_name,
    "crm_lead": _contact_name,
    "crm_opportunity": lambda row: row["name"],
    "booking_property": lambda row: row["name"],
    "booking_resource": lambda row: row["name"],
    "sheets_workbook": lambda row: row["name"],
}

_FORMATTER = string.Formatter()


def render(template: str, **slots: object) -> tuple[str, list[Ref]]:
    """Fill `template` ({name} placeholders); slots holding a Ref are written by their surface.

    Returns the text and the refs it actually uses, in order of first appearance.
    """
    values: dict[str, object] = {}
    refs: list[Ref] = []
    for _, field_name, _, _ in _FORMATTER.parse(template):
        if field_name is None or field_name in values:
            continue
        value = slots[field_name]
        if isinstance(value, Ref):
            if value not in refs:
                refs.append(value)
            values[field_name] = value.surface
        else:
            values[field_name] = value
    return template.format(**values), refs


@dataclass(frozen=True)
class PhoneStatement:
    """A chat message that states a CRM contact's phone number (`phone`, as written)."""

    message: Row
    contact: Row
    phone: str


@dataclass
class World:
    """Generation state shared by the domain modules."""

    seed: int
    scale: Scale
    now: datetime
    company_name: str
    company_domain: str
    tables: dict[str, list[Row]] = field(default_factory=dict)
    phone_statements: list[PhoneStatement] = field(default_factory=list)
    _rngs: dict[str, random.Random] = field(default_factory=dict)
    _fakers: dict[str, Faker] = field(default_factory=dict)

    def rng(self, domain: str) -> random.Random:
        """The random stream of `domain`, seeded from (seed, domain) on first use."""
        if domain not in self._rngs:
            self._rngs[domain] = random.Random(f"{self.seed}:{domain}")
        return self._rngs[domain]

    def faker(self, domain: str) -> Faker:
        """The en_US Faker of `domain`, seeded from (seed, domain) on first use."""
        if domain not in self._fakers:
            fake = Faker("en_US")
            fake.seed_instance(f"{self.seed}:{domain}")
            self._fakers[domain] = fake
        return self._fakers[domain]

    def rows(self, table: str) -> list[Row]:
        return self.tables.setdefault(table, [])

    def add(self, table: str, **values: Any) -> Row:
        """Append a row to `table` with the next id and return it."""
        rows = self.rows(table)
        row: Row = {"id": len(rows) + 1, **values}
        rows.append(row)
        return row

    def get(self, table: str, row_id: int) -> Row:
        return self.tables[table][row_id - 1]

    def ref(self, table: str, row: Row) -> Ref:
        """A Ref naming `row` of `table` the way textrefs require."""
        return Ref(table, row["id"], NAMING[table](row))

    def say(
        self, source_table: str, source: Row, column: str, template: str, **slots: object
    ) -> str:
        """Render `template` into `source[column]` and record a textref for each entity named."""
        text, refs = render(template, **slots)
        source[column] = text
        self.cite(source_table, source["id"], column, refs)
        return text

    def cite(self, source_table: str, source_id: int, column: str, refs: list[Ref]) -> None:
        """Record that text in `source_table.column` of row `source_id` names `refs`."""
        for ref in refs:
            self.add(
                "world_textref",
                source_table=source_table,
                source_id=source_id,
                source_column=column,
                target_table=ref.table,
                target_id=ref.id,
                surface=ref.surface,
            )

    def oddity(
        self,
        kind: str,
        row_table: str,
        row_id: int,
        description: str,
        detail: str = "{}",
        other_table: str | None = None,
        other_id: int | None = None,
    ) -> None:
        """Record a deliberate piece of mess (see schema.meta.WorldOddity)."""
        self.add(
            "world_oddity",
            kind=kind,
            row_table=row_table,
            row_id=row_id,
            other_table=other_table,
            other_id=other_id,
            detail=detail,
            description=description,
        )
