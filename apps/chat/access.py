"""Who may see and change what in chat.

Public channels are visible to everyone; private channels and DMs only to their members, and
to anyone else they do not exist: every lookup of one raises NotFound with the same message as
for an id that was never used, so names and counts never leak. Only members post, and an
archived channel is read-only. Reads and writes both ask here before they touch a row.
"""

from __future__ import annotations

from sqlalchemy import Select, and_, or_, select
from sqlalchemy.orm import Session

from officegym.apps.web.errors import Forbidden, NotFound
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.chat import Channel, Membership, Message

from .labels import label_of


def channel_not_found() -> NotFound:
    """The refusal for a channel that is missing or invisible (the two read the same)."""
    return NotFound("That channel doesn't exist or you don't have access to it.")


def message_not_found() -> NotFound:
    """The refusal for a message that is missing or in an invisible channel."""
    return NotFound("That message doesn't exist or you don't have access to it.")


def membership(db: Session, channel_id: int, employee_id: int) -> Membership | None:
    """The employee's membership row in the channel, if any."""
    return db.scalars(
        select(Membership).where(
            Membership.channel_id == channel_id, Membership.employee_id == employee_id
        )
    ).first()


def is_member(db: Session, channel_id: int, employee_id: int) -> bool:
    return membership(db, channel_id, employee_id) is not None


def visible_channel(db: Session, actor: Employee, channel_id: int) -> Channel:
    """The channel if the actor may see it (public, or a member); else NotFound."""
    channel = db.get(Channel, channel_id) if isinstance(channel_id, int) else None
    if channel is None:
        raise channel_not_found()
    if (channel.is_private or channel.kind != "channel") and not is_member(
        db, channel.id, actor.id
    ):
        raise channel_not_found()
    return channel


def visible_message(db: Session, actor: Employee, message_id: int) -> tuple[Message, Channel]:
    """The message and its channel if the actor may see the channel; else NotFound."""
    message = db.get(Message, message_id) if isinstance(message_id, int) else None
    if message is None:
        raise message_not_found()
    try:
        channel = visible_channel(db, actor, message.channel_id)
    except NotFound:
        raise message_not_found() from None
    return message, channel


def writable_channel(db: Session, actor: Employee, channel_id: int) -> Channel:
    """A channel the actor may change: visible, a member, not archived (else Forbidden)."""
    channel = visible_channel(db, actor, channel_id)
    if channel.archived_at is not None:
        raise Forbidden(f"{label_of(db, actor, channel)} is archived; it is read-only.")
    if not is_member(db, channel.id, actor.id):
        raise Forbidden(f"Join {label_of(db, actor, channel)} to do that.")
    return channel


def visible_channel_ids(actor: Employee) -> Select:
    """A SELECT of the ids of every channel the actor may see (public ones and their own)."""
    mine = select(Membership.channel_id).where(Membership.employee_id == actor.id)
    return select(Channel.id).where(
        or_(and_(Channel.kind == "channel", Channel.is_private.is_(False)), Channel.id.in_(mine))
    )


def dm_name(employee_ids: set[int]) -> str:
    """The name of the one conversation among exactly these people (two: a DM, more: a group
    DM); it is how a DM is found, and nobody else may open it."""
    ids = sorted(employee_ids)
    if len(ids) == 2:
        return f"dm-{ids[0]}-{ids[1]}"
    return "mpdm-" + "-".join(map(str, ids))


__all__ = [
    "channel_not_found",
    "dm_name",
    "is_member",
    "membership",
    "message_not_found",
    "visible_channel",
    "visible_channel_ids",
    "visible_message",
    "writable_channel",
]
