"""How a conversation or a message is named for one reader: `#name` for a channel, the other
members' names for a DM ("You" in a DM with oneself), "message from Dana Lee today at 10:42 AM"
for a message (what its controls say they act on)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.chat import Channel, Membership


def member_names(db: Session, channel_ids: Iterable[int]) -> dict[int, list[tuple[int, str]]]:
    """Each channel's members as (id, display name), by name."""
    wanted = sorted(set(channel_ids))
    out: dict[int, list[tuple[int, str]]] = defaultdict(list)
    if not wanted:
        return out
    rows = db.execute(
        select(Membership.channel_id, Employee.id, Employee.display_name)
        .join(Employee, Employee.id == Membership.employee_id)
        .where(Membership.channel_id.in_(wanted))
        .order_by(Membership.channel_id, Employee.display_name, Employee.id)
    )
    for channel_id, emp_id, name in rows:
        out[channel_id].append((emp_id, name))
    return out


def label(channel: Channel, actor_id: int, members: list[tuple[int, str]]) -> str:
    """The channel's label for `actor_id`, given its members (from `member_names`)."""
    if channel.kind == "channel":
        return f"#{channel.name}"
    others = [name for emp_id, name in members if emp_id != actor_id]
    return ", ".join(others) if others else "You"


def label_of(db: Session, actor: Employee, channel: Channel) -> str:
    """One channel's label for the actor (loads the members of a DM)."""
    if channel.kind == "channel":
        return f"#{channel.name}"
    return label(channel, actor.id, member_names(db, [channel.id])[channel.id])


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def message_labels(
    messages: Iterable[tuple[int, str, datetime]], when: Callable[[datetime], str]
) -> dict[int, str]:
    """Names for messages shown together, by id, from (id, author's name, posted at) and how
    to say a time (`when`, e.g. "today at 10:42 AM"): "message from Dana Lee today at 10:42 AM".
    A later message by the same person in the same minute is the "2nd message from ...", so
    no two messages on a page share a name."""
    seen: dict[str, int] = {}
    out: dict[int, str] = {}
    for message_id, author, posted in sorted(set(messages)):
        about = f"message from {author} {when(posted)}"
        seen[about] = count = seen.get(about, 0) + 1
        out[message_id] = about if count == 1 else f"{ordinal(count)} {about}"
    return out


__all__ = ["label", "label_of", "member_names", "message_labels", "ordinal"]
