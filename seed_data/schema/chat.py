"""Chat: channels (public, private, direct messages), messages with threads, and their extras."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base


class Channel(Base):
    """`kind` is channel, dm or group_dm. DMs are always private."""

    __tablename__ = "chat_channel"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    kind: Mapped[str] = mapped_column(String(16), default="channel")
    is_private: Mapped[bool] = mapped_column(default=False)
    topic: Mapped[str] = mapped_column(String(250), default="")
    description: Mapped[str] = mapped_column(Text, default="")
    created_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    archived_at: Mapped[datetime | None] = mapped_column()


class Membership(Base):
    __tablename__ = "chat_membership"
    __table_args__ = (UniqueConstraint("channel_id", "employee_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("chat_channel.id"))
    employee_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    joined_at: Mapped[datetime] = mapped_column()
    # The newest message this member has seen; later ones count as unread.
    last_read_message_id: Mapped[int | None] = mapped_column()


class Message(Base):
    """A post. Replies carry `thread_parent_id`; `also_in_channel` replies show in both places."""

    __tablename__ = "chat_message"
    __table_args__ = (Index("ix_chat_message_channel_created", "channel_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("chat_channel.id"))
    author_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column()
    edited_at: Mapped[datetime | None] = mapped_column()
    thread_parent_id: Mapped[int | None] = mapped_column(ForeignKey("chat_message.id"), index=True)
    also_in_channel: Mapped[bool] = mapped_column(default=False)
    # Set when a thread parent with replies is deleted: it stays as a tombstone.
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class Reaction(Base):
    __tablename__ = "chat_reaction"
    __table_args__ = (UniqueConstraint("message_id", "employee_id", "emoji"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_message.id"))
    employee_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    emoji: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column()


class Mention(Base):
    __tablename__ = "chat_mention"
    __table_args__ = (UniqueConstraint("message_id", "employee_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_message.id"))
    employee_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)


class Pin(Base):
    __tablename__ = "chat_pin"

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_message.id"), unique=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("chat_channel.id"), index=True)
    pinned_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    pinned_at: Mapped[datetime] = mapped_column()


class SavedItem(Base):
    __tablename__ = "chat_saved"
    __table_args__ = (UniqueConstraint("message_id", "employee_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_message.id"))
    employee_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    saved_at: Mapped[datetime] = mapped_column()


class Attachment(Base):
    """A file posted with a message; the bytes live in the world so resets restore them."""

    __tablename__ = "chat_attachment"

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_message.id"), index=True)
    filename: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(100))
    size: Mapped[int] = mapped_column()
    data: Mapped[bytes] = mapped_column(LargeBinary)
    uploaded_by_id: Mapped[int] = mapped_column(ForeignKey("people_employee.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
