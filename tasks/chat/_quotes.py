"""Messages a goal can quote: text read off the page verbatim, and how often the message
search finds a phrase (a quote that occurs once names one message)."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Sequence

from officegym.seed_data.search_index import FTS_TABLE

from .ui import phrase

# Quotes are read off the page verbatim: no markdown, mentions, emoji codes, links or phones.
UNQUOTABLE = re.compile(r'[@*_`~"\n\[\]<>#]|:\w+:|https?:|www\.|\+\d')


def said_times(world: sqlite3.Connection, text: str) -> int:
    """How many messages (any channel, deleted ones too) the phrase search for `text` finds."""
    return world.execute(
        f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?", (phrase(text),)
    ).fetchone()[0]


def pick_others(
    rng: random.Random, names: Sequence[str], exclude: Sequence[str], k: int
) -> list[str]:
    """Up to `k` distinct `names` that are not in `exclude`, chosen by `rng`."""
    pool = sorted({n for n in names if n not in exclude})
    return rng.sample(pool, min(k, len(pool)))


__all__ = ["UNQUOTABLE", "pick_others", "said_times"]
