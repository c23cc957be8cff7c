"""What channel messages are about: the accounts, contacts, workbooks, hotels, rooms, people
and deals their text names (the world's `world_textref` rows), and the messages a goal can
name by author and subject alone."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from officegym.tasks.pools import per_golden

from ._channels import channel_messages


def account_mentions(world: sqlite3.Connection) -> dict[int, set[str]]:
    """Message id → names of the accounts its text mentions (directly or through a deal)."""
    rows = world.execute(
        """
        SELECT t.source_id, a.name
        FROM world_textref t
        JOIN crm_account a ON t.target_table = 'crm_account' AND a.id = t.target_id
        WHERE t.source_table = 'chat_message' AND t.source_column = 'body'
        UNION
        SELECT t.source_id, a.name
        FROM world_textref t
        JOIN crm_opportunity o ON t.target_table = 'crm_opportunity' AND o.id = t.target_id
        JOIN crm_account a ON a.id = o.account_id
        WHERE t.source_table = 'chat_message' AND t.source_column = 'body'
        ORDER BY 1, 2
        """
    ).fetchall()
    found: dict[int, set[str]] = defaultdict(set)
    for message_id, name in rows:
        found[message_id].add(name)
    return found


# What a message can be "about", most natural first. A deal stands for its account (its name
# starts with the account's) unless only the full deal name is distinctive.
SUBJECT_KINDS = (
    "crm_account",
    "crm_contact",
    "sheets_workbook",
    "booking_property",
    "booking_resource",
    "people_employee",
    "crm_opportunity",
)


@per_golden
def by_author_and_subject(
    world: sqlite3.Connection,
) -> list[tuple[int, int, str, int, str, str]]:
    """Top-level messages with something they are about (an account, contact, workbook,
    hotel, room, person or deal they name) that no other message of their author in their
    channel names: (message id, channel id, channel, author id, author, subject)."""
    refs: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for source_id, table, surface in world.execute(
        """
        SELECT source_id, target_table, surface FROM world_textref
        WHERE source_table = 'chat_message' AND source_column = 'body'
        ORDER BY source_id, id
        """
    ):
        refs[source_id][table].append(surface)
    messages = channel_messages(world)
    bodies: dict[tuple[int, int], list[str]] = defaultdict(list)
    for _, channel_id, _, author_id, _, body, _ in messages:
        bodies[channel_id, author_id].append(body.casefold())
    found = []
    for message_id, channel_id, channel, author_id, author, body, parent in messages:
        if parent is not None or message_id not in refs:
            continue
        named = [
            name
            for kind in SUBJECT_KINDS
            for surface in refs[message_id].get(kind, ())
            for name in (
                (surface.split(" — ")[0], surface) if kind == "crm_opportunity" else (surface,)
            )
        ]
        subjects = [
            name
            for name in named
            if name in body
            and sum(name.casefold() in b for b in bodies[channel_id, author_id]) == 1
        ]
        if subjects:
            found.append((message_id, channel_id, channel, author_id, author, subjects[0]))
    return found


__all__ = ["SUBJECT_KINDS", "account_mentions", "by_author_and_subject"]
