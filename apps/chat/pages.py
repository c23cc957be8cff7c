"""Chat's main pages in a world, as its most connected member sees them: the busiest channel,
its longest thread, a direct message, search, people, and the forms people open every day."""

from __future__ import annotations

import re
from pathlib import Path

from officegym.apps.registry import MainPage
from officegym.seed_data.connect import connect

_WORD = re.compile(r"[A-Za-z]{6,}")


def main_pages(world: Path) -> list[MainPage]:
    conn = connect(world, read_only=True)
    try:
        (channel,) = conn.execute(
            "SELECT c.id FROM chat_channel c JOIN chat_message m ON m.channel_id = c.id "
            "WHERE c.kind = 'channel' AND c.archived_at IS NULL AND m.thread_parent_id IS NULL "
            "GROUP BY c.id ORDER BY count(*) DESC, c.id LIMIT 1"
        ).fetchone()
        (user_id, email) = conn.execute(
            "SELECT e.id, e.email FROM chat_membership m JOIN people_employee e "
            "ON e.id = m.employee_id WHERE m.channel_id = ? AND e.is_active "
            "ORDER BY (SELECT count(*) FROM chat_membership o WHERE o.employee_id = e.id) DESC, "
            "e.id LIMIT 1",
            (channel,),
        ).fetchone()
        (thread,) = conn.execute(
            "SELECT r.thread_parent_id FROM chat_message r JOIN chat_message p "
            "ON p.id = r.thread_parent_id WHERE p.channel_id = ? "
            "GROUP BY r.thread_parent_id ORDER BY count(*) DESC, r.thread_parent_id LIMIT 1",
            (channel,),
        ).fetchone()
        dm = conn.execute(
            "SELECT c.id FROM chat_channel c JOIN chat_membership m ON m.channel_id = c.id "
            "WHERE c.kind = 'dm' AND m.employee_id = ? ORDER BY "
            "(SELECT count(*) FROM chat_message x WHERE x.channel_id = c.id) DESC, c.id LIMIT 1",
            (user_id,),
        ).fetchone()
        own = conn.execute(
            "SELECT id FROM chat_message WHERE author_id = ? AND deleted_at IS NULL "
            "ORDER BY created_at DESC, id DESC LIMIT 1",
            (user_id,),
        ).fetchone()
        (colleague,) = conn.execute(
            "SELECT author_id FROM chat_message WHERE channel_id = ? AND author_id != ? "
            "GROUP BY author_id ORDER BY count(*) DESC, author_id LIMIT 1",
            (channel, user_id),
        ).fetchone()
        (latest,) = conn.execute(
            "SELECT body FROM chat_message WHERE channel_id = ? AND deleted_at IS NULL "
            "ORDER BY created_at DESC, id DESC LIMIT 1",
            (channel,),
        ).fetchone()
    finally:
        conn.close()
    word = max(_WORD.findall(latest) or ["update"], key=len)
    paths = {
        "channel": f"/chat/c/{channel}",
        "thread": f"/chat/t/{thread}",
        "channel details": f"/chat/c/{channel}/details",
        "pinned": f"/chat/c/{channel}/pins",
        "search": f"/chat/search?q={word}",
        "people": "/chat/people",
        "profile": f"/chat/people/{colleague}",
        "browse channels": "/chat/browse",
        "activity": "/chat/activity",
        "saved": "/chat/saved",
        "new channel": "/chat/new",
        "new message": "/chat/dm/new",
        "status": "/chat/status",
    }
    if dm is not None:
        paths["direct message"] = f"/chat/c/{dm[0]}"
    if own is not None:
        paths["edit message"] = f"/chat/m/{own[0]}/edit"
        paths["react"] = f"/chat/m/{own[0]}/react"
    return [MainPage("chat", name, path, email) for name, path in paths.items()]
