"""Full-text search over chat messages: an external-content FTS5 index kept in sync by triggers.

The index table's name starts with `_`, so the change log, reset and diff ignore it (and its
shadow tables). Triggers on `chat_message` keep it right through every write, including the
store's reset and restore, which delete and re-insert message rows.
"""

from __future__ import annotations

import sqlite3

FTS_TABLE = "_chat_message_fts"

_STATEMENTS = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(body, content='chat_message', "
    "content_rowid='id', tokenize='unicode61 remove_diacritics 2')",
    f"CREATE TRIGGER _chat_message_fts_insert AFTER INSERT ON chat_message BEGIN "
    f"INSERT INTO {FTS_TABLE}(rowid, body) VALUES (new.id, new.body); END",
    f"CREATE TRIGGER _chat_message_fts_delete AFTER DELETE ON chat_message BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, body) VALUES ('delete', old.id, old.body); END",
    f"CREATE TRIGGER _chat_message_fts_update AFTER UPDATE OF body ON chat_message BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, body) VALUES ('delete', old.id, old.body); "
    f"INSERT INTO {FTS_TABLE}(rowid, body) VALUES (new.id, new.body); END",
)


def install(conn: sqlite3.Connection) -> None:
    """Create the index and its triggers, then index every existing message."""
    for statement in _STATEMENTS:
        conn.execute(statement)
    rebuild(conn)


def rebuild(conn: sqlite3.Connection) -> None:
    """Re-index every message from `chat_message` (the triggers make this rarely needed)."""
    conn.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")


__all__ = ["FTS_TABLE", "install", "rebuild"]
