"""The contacts whose phone numbers conflict between chat and the CRM: the world plants them
(`world_oddity` rows of kind 'phone_conflict'): someone posted a contact's number in chat that
differs from the CRM record, and colleagues often posted other numbers for the same contact.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

# A phone number as people post it in chat.
PHONE = re.compile(r"\+\d[\d\s().-]{5,}\d")


def conflict_oddities(world: sqlite3.Connection) -> list[tuple]:
    """(chat message id, CRM contact id, detail JSON) of every planted phone conflict."""
    return world.execute(
        """
        SELECT o.row_id, o.other_id, o.detail FROM world_oddity o
        WHERE o.kind = 'phone_conflict' AND o.row_table = 'chat_message'
          AND o.other_table = 'crm_contact'
        ORDER BY o.id
        """
    ).fetchall()


def conflict_case(
    world: sqlite3.Connection, message_id: int, contact_id: int, detail: str
) -> dict[str, Any] | None:
    """What one conflict offers a task (poster, channel, contact, the chat and CRM numbers,
    each poster's latest number, every number seen), or None when the poster's latest number
    for the contact is not the conflicting one (then "the latest they posted" would not point
    at it) or the message is not where every user could search it."""
    row = world.execute(
        """
        SELECT m.author_id, a.display_name, c.id, c.name,
               k.first_name || ' ' || k.last_name, acc.name
        FROM chat_message m
        JOIN people_employee a ON a.id = m.author_id
        JOIN chat_channel c ON c.id = m.channel_id
        JOIN crm_contact k ON k.id = ?
        JOIN crm_account acc ON acc.id = k.account_id
        WHERE m.id = ? AND m.deleted_at IS NULL AND m.thread_parent_id IS NULL
          AND c.kind = 'channel' AND NOT c.is_private
        """,
        (contact_id, message_id),
    ).fetchone()
    if row is None:
        return None
    poster_id, poster, channel_id, channel, contact, account = row
    statements = world.execute(
        """
        SELECT m.id, a.display_name, m.body FROM chat_message m
        JOIN chat_channel c ON c.id = m.channel_id
        JOIN people_employee a ON a.id = m.author_id
        WHERE instr(m.body, ?) > 0 AND m.deleted_at IS NULL
          AND c.kind = 'channel' AND NOT c.is_private
        ORDER BY m.created_at, m.id
        """,
        (contact,),
    ).fetchall()
    latest: dict[str, str] = {}
    last_id: dict[str, int] = {}
    for statement_id, author, body in statements:
        found = PHONE.search(body)
        if found:
            latest[author] = found.group()
            last_id[author] = statement_id
    if last_id.get(poster) != message_id:
        return None
    phones = json.loads(detail)
    return {
        "message_id": message_id,
        "poster": poster,
        "poster_id": poster_id,
        "channel_id": channel_id,
        "channel": channel,
        "contact": contact,
        "account": account,
        "phone": phones["chat_phone"],
        "crm_phone": phones["crm_phone"],
        "latest": latest,
        "seen": sorted({m.group() for _, _, body in statements for m in PHONE.finditer(body)}),
    }


__all__ = ["PHONE", "conflict_case", "conflict_oddities"]
