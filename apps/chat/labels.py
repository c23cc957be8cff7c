"""How a conversation is named for one reader: `#name` for a channel, the other members'
names for a DM ("You" in a DM with oneself)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

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


__all__ = ["label", "label_of", "member_names"]
