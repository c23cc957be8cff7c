"""The declarative base every world table hangs off, and the schema version."""

from __future__ import annotations

from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

# Bump whenever a table or column changes: golden worlds are cached per version.
SCHEMA_VERSION = 3

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """One base for all domains; every table has an integer primary key `id`."""

    metadata = MetaData(naming_convention=NAMING)
