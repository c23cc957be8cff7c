"""World-level tables: the frozen clock and company facts, planted oddities, text references."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base


class WorldMeta(Base):
    """One row: what this world is and what time it is in it."""

    __tablename__ = "world_meta"

    id: Mapped[int] = mapped_column(primary_key=True)
    schema_version: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    scale: Mapped[str] = mapped_column(String(16))
    now: Mapped[datetime] = mapped_column()
    # Each timestamp handed to a new row advances this many seconds past `now`.
    clock_ticks: Mapped[int] = mapped_column(Integer, default=0)
    company_name: Mapped[str] = mapped_column(String(120))
    company_domain: Mapped[str] = mapped_column(String(120))
    timezone: Mapped[str] = mapped_column(String(64))
    currency: Mapped[str] = mapped_column(String(3), default="USD")


class WorldOddity(Base):
    """A deliberate piece of real-world mess, recorded so tasks can find and grade it.

    `kind` is one of: duplicate_contact, duplicate_account, duplicate_lead, phone_conflict,
    stale_deal, incomplete_record, sheet_text_number (digits typed as text, which totals leave
    out), sheet_duplicate_row (a row pasted twice; `other` is the original's first cell) and
    sheet_ref_error (a formula whose reference was deleted), double_listing (a host's home
    listed twice under two names; `other` is the first listing), stale_approval (a pending
    approval whose check-in date has passed), departed_guest (a confirmed stay of someone who
    has left) and departed_organizer (a room booking organized by someone who has left).
    `row_table`/`row_id` is the messy row; `other_table`/`other_id` the row it conflicts with
    or duplicates, if any; `detail` is JSON with the specifics (for a duplicate, the
    `variants` it was entered with: nickname, typo, formatting, transposed_digits,
    stale_copy).
    """

    __tablename__ = "world_oddity"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), index=True)
    row_table: Mapped[str] = mapped_column(String(64))
    row_id: Mapped[int] = mapped_column(Integer)
    other_table: Mapped[str | None] = mapped_column(String(64))
    other_id: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str] = mapped_column(Text, default="{}")
    description: Mapped[str] = mapped_column(Text)


class WorldTextRef(Base):
    """A mention of a world entity inside generated text.

    `surface` is the exact string that appears in `source_table.source_column` of row
    `source_id` and names row `target_id` of `target_table`.
    """

    __tablename__ = "world_textref"

    id: Mapped[int] = mapped_column(primary_key=True)
    source_table: Mapped[str] = mapped_column(String(64))
    source_id: Mapped[int] = mapped_column(Integer, index=True)
    source_column: Mapped[str] = mapped_column(String(64))
    target_table: Mapped[str] = mapped_column(String(64))
    target_id: Mapped[int] = mapped_column(Integer, index=True)
    surface: Mapped[str] = mapped_column(Text)
