"""Schema rules every world table follows."""

from __future__ import annotations

from sqlalchemy import Integer

from officegym.seed_data.schema import Base

DOMAINS = ("people_", "chat_", "crm_", "sheets_", "booking_", "world_")


def test_every_table_is_named_for_its_domain():
    for name in Base.metadata.tables:
        assert name.startswith(DOMAINS), name


def test_every_table_has_an_integer_primary_key_named_id():
    """The change log and diff key rows by rowid; `id INTEGER PRIMARY KEY` is the rowid."""
    for table in Base.metadata.tables.values():
        assert [c.name for c in table.primary_key.columns] == ["id"], table.name
        assert isinstance(table.c.id.type, Integer), table.name


def test_every_foreign_key_column_leads_an_index():
    """Without one, each delete of a parent row (reset does many) scans the child table."""
    for table in Base.metadata.tables.values():
        leading = {index.columns[0].name for index in table.indexes if index.columns}
        leading |= {
            constraint.columns[0].name
            for constraint in table.constraints
            if constraint.__class__.__name__ == "UniqueConstraint" and constraint.columns
        }
        leading |= {c.name for c in table.columns if c.unique}
        for fk in table.foreign_keys:
            assert fk.parent.name in leading, f"{table.name}.{fk.parent.name} has no index"


def test_no_foreign_key_cascades():
    """Reset deletes and re-inserts rows; a cascade would delete rows it never logged."""
    for table in Base.metadata.tables.values():
        for fk in table.foreign_keys:
            assert fk.ondelete is None and fk.onupdate is None, f"{table.name}.{fk.parent.name}"
