"""Shared pieces of the environment tests: an ad-hoc chat task on the tiny world."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from officegym.tasks.protocol import EpisodeContext, Task, WorldSpec
from officegym.tasks.verdict import Check, Verdict

TINY = WorldSpec(0, "tiny")
HELLO = "hello from the harness"


def first_member(golden: Path) -> tuple[str, int, str]:
    """(email, channel id, channel name) of an active member of a public, open channel."""
    conn = sqlite3.connect(f"file:{golden}?mode=ro", uri=True)
    try:
        return conn.execute(
            """
            SELECT e.email, c.id, c.name FROM chat_membership m
            JOIN chat_channel c ON c.id = m.channel_id
            JOIN people_employee e ON e.id = m.employee_id
            WHERE c.kind = 'channel' AND NOT c.is_private AND c.archived_at IS NULL
              AND e.is_active
            ORDER BY c.id, e.id LIMIT 1
            """
        ).fetchone()
    finally:
        conn.close()


def said_hello(ctx: EpisodeContext) -> Verdict:
    bodies = [row["body"] for row in ctx.diff.table("chat_message").inserted.values()]
    found = any(HELLO in body for body in bodies)
    return Verdict([Check("hello posted", found, detail=f"new messages: {bodies!r}")])


def hello_task(golden: Path, **extra) -> Task:
    email, channel_id, _ = first_member(golden)
    return Task(
        goal=f"Post '{HELLO}' in the channel.",
        user=email,
        start_url=f"/chat/c/{channel_id}",
        verify=said_hello,
        world=TINY,
        apps=("chat",),
        **extra,
    )
