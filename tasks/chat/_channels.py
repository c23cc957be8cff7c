"""Who is in which channel and what they posted there: the world queries the chat samplers
start from."""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select

from officegym.apps.chat.access import writable_channel
from officegym.apps.web.errors import Forbidden, NotFound
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.chat import Channel, Membership
from officegym.tasks.pools import per_golden
from officegym.tasks.session import read_session


def channel_messages(world: sqlite3.Connection) -> list[tuple]:
    """Every live message in an open (not archived) channel: (id, channel id, channel name,
    author id, author name, body, thread parent id), by id."""
    return world.execute(
        """
        SELECT m.id, c.id, c.name, a.id, a.display_name, m.body, m.thread_parent_id
        FROM chat_message m
        JOIN chat_channel c ON c.id = m.channel_id
        JOIN people_employee a ON a.id = m.author_id
        WHERE c.kind = 'channel' AND c.archived_at IS NULL AND m.deleted_at IS NULL
        ORDER BY m.id
        """
    ).fetchall()


def active_members(world: sqlite3.Connection) -> dict[int, list[tuple[int, str, str]]]:
    """Channel id → its active members as (id, email, display name), by id."""
    rows = world.execute(
        """
        SELECT m.channel_id, e.id, e.email, e.display_name
        FROM chat_membership m JOIN people_employee e ON e.id = m.employee_id
        WHERE e.is_active
        ORDER BY m.channel_id, e.id
        """
    ).fetchall()
    found: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
    for channel_id, emp_id, email, name in rows:
        found[channel_id].append((emp_id, email, name))
    return found


@per_golden
def collateral_posters(world: sqlite3.Connection) -> set[int]:
    """Ids of the people who may post in #random (the app's `access.writable_channel`): the
    gate's collateral edit posts there when a task is about #general."""
    found = set()
    with read_session(world) as db:
        for channel in db.scalars(select(Channel).where(Channel.name == "random")):
            for member in db.scalars(select(Membership).where(Membership.channel_id == channel.id)):
                try:
                    writable_channel(db, db.get(Employee, member.employee_id), channel.id)
                except (Forbidden, NotFound):
                    continue
                found.add(member.employee_id)
    return found


def collateral_ok(posters: set[int], user_id: int, channel: str) -> bool:
    """Whether the gate's collateral edit can run for a task about #`channel`: it posts in
    #general, or in #random when the task is about #general (`posters` from
    `collateral_posters`)."""
    return channel != "general" or user_id in posters


@per_golden
def own_messages(world: sqlite3.Connection) -> list[tuple]:
    """Every live top-level message of an active member in a channel they can still edit in
    (in #general only when `collateral_ok`): (id, channel_id, channel, author id, email,
    display name, body), by id."""
    rows = world.execute(
        """
        SELECT m.id, m.channel_id, c.name, e.id, e.email, e.display_name, m.body
        FROM chat_message m
        JOIN chat_channel c ON c.id = m.channel_id
        JOIN people_employee e ON e.id = m.author_id
        JOIN chat_membership s ON s.channel_id = c.id AND s.employee_id = e.id
        WHERE m.deleted_at IS NULL AND m.thread_parent_id IS NULL
          AND c.kind = 'channel' AND c.archived_at IS NULL AND e.is_active
        ORDER BY m.id
        """
    ).fetchall()
    authors = {r[3] for r in rows if r[2] == "general"}
    posters = collateral_posters(world)
    allowed = {a for a in sorted(authors) if collateral_ok(posters, a, "general")}
    return [r for r in rows if r[2] != "general" or r[3] in allowed]


def own_message_params(row: Sequence[Any]) -> dict[str, Any]:
    """The params a task about the user's own message keeps of an `own_messages` row."""
    message_id, channel_id, channel, user_id, email, name, _ = row
    return {
        "message_id": message_id,
        "channel_id": channel_id,
        "channel": channel,
        "user_id": user_id,
        "user": email,
        "user_name": name,
    }


def texts_by_author(world: sqlite3.Connection) -> dict[tuple[int, int], list[str]]:
    """The bodies of every live message (replies too) by (author id, channel id)."""
    texts: dict[tuple[int, int], list[str]] = {}
    for author, channel, body in world.execute(
        "SELECT author_id, channel_id, body FROM chat_message WHERE deleted_at IS NULL ORDER BY id"
    ):
        texts.setdefault((author, channel), []).append(body)
    return texts


def other_own_message(
    candidates: Sequence[Mapping[str, Any]], target: Mapping[str, Any], rng: random.Random
) -> Mapping[str, Any] | None:
    """Another of `candidates` by the target's author, in the target's channel when there is
    one (the near miss of a task about one's own message), chosen by `rng`; None if none."""
    others = [
        c
        for c in candidates
        if c["user_id"] == target["user_id"] and c["message_id"] != target["message_id"]
    ]
    near = [c for c in others if c["channel_id"] == target["channel_id"]] or others
    return rng.choice(near) if near else None


__all__ = [
    "active_members",
    "channel_messages",
    "collateral_ok",
    "collateral_posters",
    "other_own_message",
    "own_message_params",
    "own_messages",
    "texts_by_author",
]
