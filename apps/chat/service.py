"""Chat's domain operations: the only code that writes chat tables.

Every function takes the caller's session `db` and works inside its transaction (the web kit
commits on success and rolls back on error); nothing here commits. `actor` is the signed-in
employee. Private channels and DMs do not exist for non-members: every lookup of one raises
NotFound, exactly as for an id that was never used, so names and counts never leak.

Errors: ValidationError (bad input, nothing written), NotFound (missing or invisible),
Forbidden (visible but not allowed), Conflict (clashes with current state).
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from officegym.seed_data.clock import now as world_now
from officegym.seed_data.clock import stamp
from officegym.seed_data.schema import Employee, Office, Team
from officegym.seed_data.schema.chat import (
    Attachment,
    Channel,
    Membership,
    Mention,
    Message,
    Pin,
    Reaction,
    SavedItem,
)

from . import markdown

MAX_MESSAGE_CHARS = 40_000
MAX_TOPIC_CHARS = 250
MAX_DESCRIPTION_CHARS = 1_000
MAX_CHANNEL_NAME = 80
MAX_STATUS_TEXT = 100
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_FILES = 10
MAX_GROUP_DM_OTHERS = 8
GENERAL = "general"
DELETED_TEXT = "This message was deleted."

# The reactions people can add: Slack short names.
REACTION_EMOJI: tuple[str, ...] = (
    "thumbsup", "thumbsdown", "heart", "tada", "eyes", "white_check_mark", "raised_hands",
    "rocket", "pray", "joy", "fire", "100", "clap", "smile", "grinning", "laughing", "wink",
    "slightly_smiling_face", "thinking_face", "sweat_smile", "sob", "cry", "heart_eyes",
    "sunglasses", "ok_hand", "muscle", "wave", "point_up", "star", "sparkles", "bulb", "warning",
    "x", "heavy_check_mark", "question", "exclamation", "coffee", "memo", "calendar",
    "chart_with_upwards_trend", "moneybag", "handshake", "party_popper", "see_no_evil",
)  # fmt: skip

# Status emoji: the reaction set plus the usual "where am I" ones.
STATUS_EMOJI: tuple[str, ...] = REACTION_EMOJI + (
    "palm_tree", "house", "airplane", "spiral_calendar", "headphones", "thermometer", "train",
    "baby", "books", "car", "hospital", "red_circle", "green_circle", "no_entry",
)  # fmt: skip

_CHANNEL_NAME = re.compile(r"[a-z0-9_-]+")
_DM_NAME = re.compile(r"(dm|mpdm)-[0-9-]+")

# Declared type, extensions, and a sniff of the first bytes (None: must be UTF-8 text).
_FILE_TYPES: dict[str, tuple[tuple[str, ...], tuple[bytes, ...] | None]] = {
    "image/png": ((".png",), (b"\x89PNG\r\n\x1a\n",)),
    "image/jpeg": ((".jpg", ".jpeg"), (b"\xff\xd8\xff",)),
    "image/gif": ((".gif",), (b"GIF87a", b"GIF89a")),
    "image/webp": ((".webp",), (b"RIFF",)),
    "application/pdf": ((".pdf",), (b"%PDF-",)),
    "text/plain": ((".txt", ".log", ".md"), None),
    "text/csv": ((".csv",), None),
    "application/json": ((".json",), None),
    "application/zip": ((".zip",), (b"PK\x03\x04", b"PK\x05\x06")),
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": (
        (".docx",),
        (b"PK\x03\x04",),
    ),
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": (
        (".xlsx",),
        (b"PK\x03\x04",),
    ),
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": (
        (".pptx",),
        (b"PK\x03\x04",),
    ),
}
_TYPE_OF_EXTENSION = {ext: ctype for ctype, (exts, _) in _FILE_TYPES.items() for ext in exts}
# What browsers and tools commonly declare instead of the canonical type.
_TYPE_ALIASES = {
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "application/csv": "text/csv",
    "text/comma-separated-values": "text/csv",
    "application/vnd.ms-excel": "text/csv",
    "text/markdown": "text/plain",
    "text/x-log": "text/plain",
    "text/json": "application/json",
    "application/x-zip-compressed": "application/zip",
    "application/x-zip": "application/zip",
}
_GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})


# -- errors --------------------------------------------------------------------------------


class ChatError(Exception):
    """Base of chat's errors: `message` is for people; `field` names the input at fault."""

    status = 400

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class ValidationError(ChatError):
    status = 422


class NotFound(ChatError):
    status = 404


class Forbidden(ChatError):
    status = 403


class Conflict(ChatError):
    status = 409


# -- read models ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EmployeeRef:
    id: int
    display_name: str
    title: str
    avatar_color: str
    email: str
    is_active: bool


@dataclass(frozen=True)
class ChannelItem:
    id: int
    name: str
    label: str
    kind: str
    is_private: bool
    is_archived: bool
    unread: int
    mentions: int


@dataclass(frozen=True)
class ChannelDetail:
    id: int
    name: str
    label: str
    kind: str
    is_private: bool
    is_archived: bool
    topic: str
    description: str
    created_by: EmployeeRef
    created_at: datetime
    member_count: int
    is_member: bool
    can_post: bool


@dataclass(frozen=True)
class ReactionView:
    emoji: str
    count: int
    reacted_by_me: bool
    names: tuple[str, ...]


@dataclass(frozen=True)
class AttachmentView:
    id: int
    filename: str
    content_type: str
    size: int


@dataclass(frozen=True)
class MessageView:
    id: int
    channel_id: int
    author: EmployeeRef
    body: str
    html: str
    created_at: datetime
    edited_at: datetime | None
    deleted: bool
    thread_parent_id: int | None
    also_in_channel: bool
    reply_count: int
    last_reply_at: datetime | None
    reply_authors: tuple[EmployeeRef, ...]
    reactions: tuple[ReactionView, ...]
    attachments: tuple[AttachmentView, ...]
    pinned: bool
    saved: bool
    is_mine: bool


@dataclass(frozen=True)
class Sidebar:
    channels: list[ChannelItem]
    dms: list[ChannelItem]


@dataclass(frozen=True)
class HistoryPage:
    messages: list[MessageView]
    has_older: bool
    oldest_id: int | None
    has_newer: bool = False


@dataclass(frozen=True)
class ThreadView:
    parent: MessageView
    replies: list[MessageView]
    channel: ChannelDetail


@dataclass(frozen=True)
class SearchHit:
    message: MessageView
    channel: ChannelItem
    snippet_html: str


@dataclass(frozen=True)
class SearchResults:
    query: str
    total: int
    page: int
    per_page: int
    hits: list[SearchHit]
    filters: dict
    errors: list[str]


@dataclass(frozen=True)
class Profile:
    employee: EmployeeRef
    team: str
    department: str
    manager: EmployeeRef | None
    office: str
    office_city: str
    timezone: str
    local_time: str
    phone: str | None
    status_emoji: str
    status_text: str
    reports: list[EmployeeRef]


@dataclass(frozen=True)
class UploadedFile:
    """A file as posted: the name and type the client claimed, and the bytes."""

    filename: str
    content_type: str
    data: bytes = field(repr=False)


# -- lookups and permissions ---------------------------------------------------------------


def ref(employee: Employee) -> EmployeeRef:
    return EmployeeRef(
        employee.id,
        employee.display_name,
        employee.title,
        employee.avatar_color,
        employee.email,
        employee.is_active,
    )


def _refs(db: Session, ids: Iterable[int]) -> dict[int, EmployeeRef]:
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = db.scalars(select(Employee).where(Employee.id.in_(wanted)))
    return {e.id: ref(e) for e in rows}


def _is_member(db: Session, channel_id: int, employee_id: int) -> bool:
    return _membership(db, channel_id, employee_id) is not None


def _membership(db: Session, channel_id: int, employee_id: int) -> Membership | None:
    return db.scalars(
        select(Membership).where(
            Membership.channel_id == channel_id, Membership.employee_id == employee_id
        )
    ).first()


def _channel_not_found() -> NotFound:
    return NotFound("That channel doesn't exist or you don't have access to it.")


def _message_not_found() -> NotFound:
    return NotFound("That message doesn't exist or you don't have access to it.")


def _visible_channel(db: Session, actor: Employee, channel_id: int) -> Channel:
    """The channel if the actor may see it (public, or a member); else NotFound."""
    channel = db.get(Channel, channel_id) if isinstance(channel_id, int) else None
    if channel is None:
        raise _channel_not_found()
    if (channel.is_private or channel.kind != "channel") and not _is_member(
        db, channel.id, actor.id
    ):
        raise _channel_not_found()
    return channel


def _visible_message(db: Session, actor: Employee, message_id: int) -> tuple[Message, Channel]:
    message = db.get(Message, message_id) if isinstance(message_id, int) else None
    if message is None:
        raise _message_not_found()
    try:
        channel = _visible_channel(db, actor, message.channel_id)
    except NotFound:
        raise _message_not_found() from None
    return message, channel


def _writable_channel(db: Session, actor: Employee, channel_id: int) -> Channel:
    """A channel the actor may change: visible, a member, not archived."""
    channel = _visible_channel(db, actor, channel_id)
    if channel.archived_at is not None:
        raise Forbidden(f"{_label_of(db, actor, channel)} is archived; it is read-only.")
    if not _is_member(db, channel.id, actor.id):
        raise Forbidden(f"Join {_label_of(db, actor, channel)} to do that.")
    return channel


def visible_channel_ids(actor: Employee):
    """A SELECT of the ids of every channel the actor may see (public ones and their own)."""
    mine = select(Membership.channel_id).where(Membership.employee_id == actor.id)
    return select(Channel.id).where(
        or_(and_(Channel.kind == "channel", Channel.is_private.is_(False)), Channel.id.in_(mine))
    )


def _member_names(db: Session, channel_ids: Iterable[int]) -> dict[int, list[tuple[int, str]]]:
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


def _label(channel: Channel, actor_id: int, members: list[tuple[int, str]]) -> str:
    if channel.kind == "channel":
        return f"#{channel.name}"
    others = [name for emp_id, name in members if emp_id != actor_id]
    return ", ".join(others) if others else "You"


def _label_of(db: Session, actor: Employee, channel: Channel) -> str:
    if channel.kind == "channel":
        return f"#{channel.name}"
    return _label(channel, actor.id, _member_names(db, [channel.id])[channel.id])


def _item(channel: Channel, label: str, unread: int = 0, mentions: int = 0) -> ChannelItem:
    return ChannelItem(
        channel.id,
        channel.name,
        label,
        channel.kind,
        channel.is_private,
        channel.archived_at is not None,
        unread,
        mentions,
    )


def _details(db: Session, actor: Employee, channels: Sequence[Channel]) -> list[ChannelDetail]:
    ids = [c.id for c in channels]
    if not ids:
        return []
    counts = dict(
        db.execute(
            select(Membership.channel_id, func.count())
            .where(Membership.channel_id.in_(ids))
            .group_by(Membership.channel_id)
        ).all()
    )
    mine = set(
        db.scalars(
            select(Membership.channel_id).where(
                Membership.channel_id.in_(ids), Membership.employee_id == actor.id
            )
        )
    )
    direct = [c.id for c in channels if c.kind != "channel"]
    names = _member_names(db, direct)
    creators = _refs(db, (c.created_by_id for c in channels))
    out = []
    for c in channels:
        is_member = c.id in mine
        out.append(
            ChannelDetail(
                id=c.id,
                name=c.name,
                label=_label(c, actor.id, names.get(c.id, [])),
                kind=c.kind,
                is_private=c.is_private,
                is_archived=c.archived_at is not None,
                topic=c.topic,
                description=c.description,
                created_by=creators[c.created_by_id],
                created_at=c.created_at,
                member_count=counts.get(c.id, 0),
                is_member=is_member,
                can_post=is_member and c.archived_at is None,
            )
        )
    return out


def _detail(db: Session, actor: Employee, channel: Channel) -> ChannelDetail:
    return _details(db, actor, [channel])[0]


def _in_channel_view():
    """Messages that show in a channel's history: top-level ones and also-sent replies."""
    return or_(Message.thread_parent_id.is_(None), Message.also_in_channel.is_(True))


# -- message views -------------------------------------------------------------------------


def _visible_channel_names(db: Session, actor: Employee) -> dict[str, int]:
    rows = db.execute(
        select(Channel.name, Channel.id).where(
            Channel.kind == "channel", Channel.id.in_(visible_channel_ids(actor))
        )
    )
    return dict(rows.all())


def _views(db: Session, actor: Employee, messages: Sequence[Message]) -> list[MessageView]:
    """MessageViews for `messages` (in the given order), loading their extras in bulk."""
    if not messages:
        return []
    ids = [m.id for m in messages]
    reactions: dict[int, dict[str, list[tuple[int, str]]]] = defaultdict(dict)
    reaction_rows = db.execute(
        select(Reaction.message_id, Reaction.emoji, Reaction.employee_id, Employee.display_name)
        .join(Employee, Employee.id == Reaction.employee_id)
        .where(Reaction.message_id.in_(ids))
        .order_by(Reaction.id)
    )
    for message_id, emoji, emp_id, name in reaction_rows:
        reactions[message_id].setdefault(emoji, []).append((emp_id, name))
    attachments: dict[int, list[AttachmentView]] = defaultdict(list)
    for row in db.execute(
        select(
            Attachment.message_id,
            Attachment.id,
            Attachment.filename,
            Attachment.content_type,
            Attachment.size,
        )
        .where(Attachment.message_id.in_(ids))
        .order_by(Attachment.id)
    ):
        attachments[row[0]].append(AttachmentView(row[1], row[2], row[3], row[4]))
    pinned = set(db.scalars(select(Pin.message_id).where(Pin.message_id.in_(ids))))
    saved = set(
        db.scalars(
            select(SavedItem.message_id).where(
                SavedItem.message_id.in_(ids), SavedItem.employee_id == actor.id
            )
        )
    )
    replies: dict[int, tuple[int, datetime]] = {
        parent: (count, last)
        for parent, count, last in db.execute(
            select(Message.thread_parent_id, func.count(), func.max(Message.created_at))
            .where(Message.thread_parent_id.in_(ids))
            .group_by(Message.thread_parent_id)
        )
    }
    reply_authors: dict[int, list[int]] = defaultdict(list)
    if replies:
        for parent, author in db.execute(
            select(Message.thread_parent_id, Message.author_id)
            .where(Message.thread_parent_id.in_(sorted(replies)))
            .order_by(Message.id)
        ):
            if author not in reply_authors[parent]:
                reply_authors[parent].append(author)
    mentioned: dict[int, dict[str, int]] = defaultdict(dict)
    for message_id, emp_id, name in db.execute(
        select(Mention.message_id, Employee.id, Employee.display_name)
        .join(Employee, Employee.id == Mention.employee_id)
        .where(Mention.message_id.in_(ids))
    ):
        mentioned[message_id][name] = emp_id
    people = _refs(
        db, [m.author_id for m in messages] + [a for lst in reply_authors.values() for a in lst]
    )
    channel_names = _visible_channel_names(db, actor)
    out = []
    for m in messages:
        deleted = m.deleted_at is not None
        count, last = replies.get(m.id, (0, None))
        out.append(
            MessageView(
                id=m.id,
                channel_id=m.channel_id,
                author=people[m.author_id],
                body="" if deleted else m.body,
                html=(
                    f'<p class="deleted">{DELETED_TEXT}</p>'
                    if deleted
                    else markdown.render(m.body, mentioned.get(m.id), channel_names)
                ),
                created_at=m.created_at,
                edited_at=m.edited_at,
                deleted=deleted,
                thread_parent_id=m.thread_parent_id,
                also_in_channel=m.also_in_channel,
                reply_count=count,
                last_reply_at=last,
                reply_authors=tuple(people[a] for a in reply_authors.get(m.id, [])[:5]),
                reactions=tuple(
                    ReactionView(
                        emoji,
                        len(who),
                        any(emp_id == actor.id for emp_id, _ in who),
                        tuple(name for _, name in who),
                    )
                    for emoji, who in reactions.get(m.id, {}).items()
                ),
                attachments=tuple(attachments.get(m.id, ())),
                pinned=m.id in pinned,
                saved=m.id in saved,
                is_mine=m.author_id == actor.id,
            )
        )
    return out


def _view(db: Session, actor: Employee, message: Message) -> MessageView:
    return _views(db, actor, [message])[0]


# -- reads ---------------------------------------------------------------------------------


def sidebar(db: Session, actor: Employee) -> Sidebar:
    """The actor's channels and DMs (archived ones left out) with unread and mention counts."""
    channels = list(
        db.scalars(
            select(Channel)
            .join(Membership, Membership.channel_id == Channel.id)
            .where(Membership.employee_id == actor.id, Channel.archived_at.is_(None))
        )
    )
    ids = [c.id for c in channels]
    read_upto = func.coalesce(Membership.last_read_message_id, 0)
    unread_filter = (
        Membership.employee_id == actor.id,
        Message.channel_id.in_(ids),
        _in_channel_view(),
        Message.deleted_at.is_(None),
        Message.id > read_upto,
        Message.author_id != actor.id,
    )
    joined = select(Message.channel_id, func.count()).join(
        Membership, Membership.channel_id == Message.channel_id
    )
    unread = dict(db.execute(joined.where(*unread_filter).group_by(Message.channel_id)).all())
    mentions = dict(
        db.execute(
            joined.join(Mention, Mention.message_id == Message.id)
            .where(*unread_filter, Mention.employee_id == actor.id)
            .group_by(Message.channel_id)
        ).all()
    )
    names = _member_names(db, [c.id for c in channels if c.kind != "channel"])
    items = [
        _item(
            c, _label(c, actor.id, names.get(c.id, [])), unread.get(c.id, 0), mentions.get(c.id, 0)
        )
        for c in channels
    ]
    return Sidebar(
        channels=sorted((i for i in items if i.kind == "channel"), key=lambda i: i.name),
        dms=sorted((i for i in items if i.kind != "channel"), key=lambda i: (i.label, i.id)),
    )


def browse_channels(
    db: Session, actor: Employee, query: str = "", include_archived: bool = False
) -> list[ChannelDetail]:
    """Public channels by name, optionally filtered by a word in the name, topic or purpose."""
    statement = select(Channel).where(Channel.kind == "channel", Channel.is_private.is_(False))
    if not include_archived:
        statement = statement.where(Channel.archived_at.is_(None))
    query = query.strip().lstrip("#").lower()
    if query:
        statement = statement.where(
            _contains(query, Channel.name, Channel.topic, Channel.description)
        )
    return _details(db, actor, list(db.scalars(statement.order_by(Channel.name))))


def channel(db: Session, actor: Employee, channel_id: int) -> ChannelDetail:
    return _detail(db, actor, _visible_channel(db, actor, channel_id))


def channel_by_name(db: Session, actor: Employee, name: str) -> ChannelDetail:
    found = db.scalars(select(Channel).where(Channel.name == name.strip().lstrip("#"))).first()
    if found is None:
        raise _channel_not_found()
    return channel(db, actor, found.id)


def history(
    db: Session,
    actor: Employee,
    channel_id: int,
    before_id: int | None = None,
    limit: int = 50,
    *,
    around_id: int | None = None,
) -> HistoryPage:
    """A page of the channel's messages, oldest first, ending just before `before_id`.

    With `around_id` (a permalink jump) the page holds that message with up to half the page
    before it and the rest after it; `has_newer` says whether more follow.
    """
    _visible_channel(db, actor, channel_id)
    limit = max(1, min(int(limit), 200))
    statement = select(Message).where(Message.channel_id == channel_id, _in_channel_view())
    if around_id is not None:
        older_half = max(1, limit // 2 + 1)
        older = list(
            db.scalars(
                statement.where(Message.id <= around_id)
                .order_by(Message.id.desc())
                .limit(older_half + 1)
            )
        )
        has_older = len(older) > older_half
        older = older[:older_half][::-1]
        room = limit - len(older)
        newer = list(
            db.scalars(statement.where(Message.id > around_id).order_by(Message.id).limit(room + 1))
        )
        has_newer = len(newer) > room
        rows = older + newer[:room]
        return HistoryPage(
            _views(db, actor, rows), has_older, rows[0].id if rows else None, has_newer
        )
    if before_id is not None:
        statement = statement.where(Message.id < before_id)
    rows = list(db.scalars(statement.order_by(Message.id.desc()).limit(limit + 1)))
    has_older = len(rows) > limit
    rows = rows[:limit][::-1]
    return HistoryPage(_views(db, actor, rows), has_older, rows[0].id if rows else None)


def thread(db: Session, actor: Employee, message_id: int) -> ThreadView:
    """A thread by its parent's id (a reply's id opens its thread)."""
    message, channel_row = _visible_message(db, actor, message_id)
    if message.thread_parent_id is not None:
        message = db.get(Message, message.thread_parent_id)
    replies = list(
        db.scalars(
            select(Message).where(Message.thread_parent_id == message.id).order_by(Message.id)
        )
    )
    views = _views(db, actor, [message, *replies])
    return ThreadView(views[0], views[1:], _detail(db, actor, channel_row))


def message(db: Session, actor: Employee, message_id: int) -> MessageView:
    found, _ = _visible_message(db, actor, message_id)
    return _view(db, actor, found)


def members(db: Session, actor: Employee, channel_id: int) -> list[EmployeeRef]:
    _visible_channel(db, actor, channel_id)
    rows = db.scalars(
        select(Employee)
        .join(Membership, Membership.employee_id == Employee.id)
        .where(Membership.channel_id == channel_id)
        .order_by(Employee.display_name, Employee.id)
    )
    return [ref(e) for e in rows]


def pinned(db: Session, actor: Employee, channel_id: int) -> list[MessageView]:
    """The channel's pinned messages, most recently pinned first."""
    _visible_channel(db, actor, channel_id)
    rows = db.scalars(
        select(Message)
        .join(Pin, Pin.message_id == Message.id)
        .where(Pin.channel_id == channel_id)
        .order_by(Pin.pinned_at.desc(), Pin.id.desc())
    )
    return _views(db, actor, list(rows))


def saved(db: Session, actor: Employee) -> list[MessageView]:
    """The actor's saved messages (in channels they can still see), most recently saved first."""
    rows = db.scalars(
        select(Message)
        .join(SavedItem, SavedItem.message_id == Message.id)
        .where(
            SavedItem.employee_id == actor.id,
            Message.channel_id.in_(visible_channel_ids(actor)),
        )
        .order_by(SavedItem.saved_at.desc(), SavedItem.id.desc())
    )
    return _views(db, actor, list(rows))


def mentions(
    db: Session, actor: Employee, before_id: int | None = None, limit: int = 50
) -> list[MessageView]:
    """Messages that mention the actor, newest first, in channels they can see."""
    statement = (
        select(Message)
        .join(Mention, Mention.message_id == Message.id)
        .where(
            Mention.employee_id == actor.id,
            Message.deleted_at.is_(None),
            Message.channel_id.in_(visible_channel_ids(actor)),
        )
    )
    if before_id is not None:
        statement = statement.where(Message.id < before_id)
    limit = max(1, min(int(limit), 200))
    return _views(db, actor, list(db.scalars(statement.order_by(Message.id.desc()).limit(limit))))


def search(
    db: Session, actor: Employee, query: str, page: int = 1, per_page: int = 20
) -> SearchResults:
    """Full-text search with filters over the messages the actor may see (see search.py)."""
    from . import search as search_module

    page = max(1, int(page))
    per_page = max(1, min(int(per_page), 100))
    parsed = search_module.parse(db, actor, query)
    total, found = search_module.find(db, actor, parsed, page, per_page)
    messages = {m.id: m for m in db.scalars(select(Message).where(Message.id.in_(found)))}
    ordered = [messages[i] for i in found if i in messages]
    views = _views(db, actor, ordered)
    channel_rows = {
        c.id: c
        for c in db.scalars(select(Channel).where(Channel.id.in_({m.channel_id for m in ordered})))
    }
    names = _member_names(db, [c.id for c in channel_rows.values() if c.kind != "channel"])
    hits = []
    for view in views:
        c = channel_rows[view.channel_id]
        hits.append(
            SearchHit(
                message=view,
                channel=_item(c, _label(c, actor.id, names.get(c.id, []))),
                snippet_html=found[view.id],
            )
        )
    return SearchResults(
        query=query,
        total=total,
        page=page,
        per_page=per_page,
        hits=hits,
        filters=parsed.filters(),
        errors=list(parsed.errors),
    )


def people(db: Session, query: str = "", limit: int = 50, offset: int = 0) -> list[EmployeeRef]:
    """Active employees by name, filtered by a piece of their name, email or title."""
    statement = select(Employee).where(Employee.is_active.is_(True))
    query = query.strip().lstrip("@")
    if query:
        statement = statement.where(
            _contains(query, Employee.display_name, Employee.email, Employee.title)
        )
    statement = statement.order_by(Employee.display_name, Employee.id)
    rows = db.scalars(statement.limit(max(1, min(limit, 500))).offset(max(0, offset)))
    return [ref(e) for e in rows]


def profile(db: Session, employee_id: int) -> Profile:
    employee = db.get(Employee, employee_id) if isinstance(employee_id, int) else None
    if employee is None:
        raise NotFound("That person doesn't exist.")
    team = db.get(Team, employee.team_id)
    office = db.get(Office, employee.office_id)
    manager = db.get(Employee, employee.manager_id) if employee.manager_id else None
    reports = db.scalars(
        select(Employee)
        .where(Employee.manager_id == employee.id, Employee.is_active.is_(True))
        .order_by(Employee.display_name, Employee.id)
    )
    return Profile(
        employee=ref(employee),
        team=team.name if team else "",
        department=team.department if team else "",
        manager=ref(manager) if manager else None,
        office=office.name if office else "",
        office_city=office.city if office else "",
        timezone=employee.timezone,
        local_time=local_time(world_now(db), employee.timezone),
        phone=employee.phone,
        status_emoji=employee.status_emoji,
        status_text=employee.status_text,
        reports=[ref(e) for e in reports],
    )


def to_local(utc: datetime, timezone: str | None) -> datetime:
    """A stored (naive UTC) time as an aware time in `timezone` (UTC if unknown), for display:
    day separators and times in the reader's timezone."""
    aware = utc.replace(tzinfo=UTC)
    with contextlib.suppress(ZoneInfoNotFoundError, ValueError):
        aware = aware.astimezone(ZoneInfo(timezone)) if timezone else aware
    return aware


def local_time(utc: datetime, timezone: str | None) -> str:
    """`utc` (naive) as a wall-clock time in `timezone`, like "3:05 PM"."""
    return to_local(utc, timezone).strftime("%I:%M %p").lstrip("0")


def mention_candidates(db: Session, prefix: str, limit: int = 8) -> list[EmployeeRef]:
    """Active people whose name (any word of it) or email starts with `prefix`."""
    prefix = prefix.strip().lstrip("@")
    statement = select(Employee).where(Employee.is_active.is_(True))
    if prefix:
        start = f"{_escape_like(prefix)}%"
        statement = statement.where(
            or_(
                Employee.display_name.ilike(start, escape="\\"),
                Employee.display_name.ilike(f"% {start}", escape="\\"),
                Employee.email.ilike(start, escape="\\"),
            )
        )
    rows = db.scalars(statement.order_by(Employee.display_name, Employee.id).limit(limit))
    return [ref(e) for e in rows]


def channel_candidates(
    db: Session, actor: Employee, prefix: str, limit: int = 8
) -> list[ChannelItem]:
    """Unarchived channels the actor may see whose name starts with `prefix` (counts are 0)."""
    prefix = prefix.strip().lstrip("#").lower()
    statement = select(Channel).where(
        Channel.kind == "channel",
        Channel.archived_at.is_(None),
        Channel.id.in_(visible_channel_ids(actor)),
    )
    if prefix:
        statement = statement.where(Channel.name.like(f"{_escape_like(prefix)}%", escape="\\"))
    rows = db.scalars(statement.order_by(Channel.name).limit(limit))
    return [_item(c, f"#{c.name}") for c in rows]


def attachment(db: Session, actor: Employee, attachment_id: int) -> Attachment:
    """A file with its bytes, if the actor may see the message it was posted with."""
    row = db.get(Attachment, attachment_id) if isinstance(attachment_id, int) else None
    missing = NotFound("That file doesn't exist or you don't have access to it.")
    if row is None:
        raise missing
    try:
        _visible_message(db, actor, row.message_id)
    except NotFound:
        raise missing from None
    return row


def permalink(db: Session, actor: Employee, message_id: int) -> tuple[int, int, int | None]:
    """Where a message lives: (channel id, message id, thread parent id or None)."""
    found, _ = _visible_message(db, actor, message_id)
    return found.channel_id, found.id, found.thread_parent_id


# -- writes: messages ----------------------------------------------------------------------


def _clean_body(body: str, *, allow_empty: bool) -> str:
    if not isinstance(body, str):
        raise ValidationError("Write a message.", "body")
    text = body.strip()
    if not text and not allow_empty:
        raise ValidationError("Write a message (it can't be empty).", "body")
    if len(text) > MAX_MESSAGE_CHARS:
        raise ValidationError(
            f"Messages can be at most {MAX_MESSAGE_CHARS:,} characters "
            f"(this one has {len(text):,}).",
            "body",
        )
    return text


def mentioned_ids(db: Session, body: str) -> list[int]:
    """Ids of the active employees a body mentions as `@Display Name`, in order of appearance."""
    if "@" not in body:
        return []
    rows = db.execute(
        select(Employee.id, Employee.display_name).where(Employee.is_active.is_(True))
    ).all()
    by_name = sorted(rows, key=lambda r: (-len(r[1]), r[0]))
    found: list[int] = []
    for match in re.finditer(r"(?<!\w)@", body):
        rest = body[match.end() :]
        for emp_id, name in by_name:
            if rest.startswith(name) and not (
                len(rest) > len(name) and (rest[len(name)].isalnum() or rest[len(name)] == "_")
            ):
                if emp_id not in found:
                    found.append(emp_id)
                break
    return found


def _set_mentions(db: Session, message_id: int, wanted: list[int]) -> None:
    current = set(db.scalars(select(Mention.employee_id).where(Mention.message_id == message_id)))
    gone = sorted(current - set(wanted))
    if gone:
        db.execute(
            delete(Mention).where(Mention.message_id == message_id, Mention.employee_id.in_(gone))
        )
    for emp_id in wanted:
        if emp_id not in current:
            db.add(Mention(message_id=message_id, employee_id=emp_id))


def clean_filename(name: str) -> str:
    """A safe file name: the last path part, printable, no markup characters, ≤255 chars."""
    base = posixpath.basename((name or "").replace("\\", "/"))
    base = unicodedata.normalize("NFC", base)
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C")
    base = re.sub(r"[^\w .()+,-]", "_", base)
    base = re.sub(r"\s+", " ", base).strip(" .")
    if len(base) > 255:
        stem, ext = posixpath.splitext(base)
        base = stem[: 255 - len(ext)] + ext
    return base


def _check_file(upload: UploadedFile, index: int) -> tuple[str, str, bytes]:
    field_name = "files"
    name = clean_filename(upload.filename)
    if not name:
        raise ValidationError(f"File {index + 1} has no usable name.", field_name)
    size = len(upload.data)
    if size == 0:
        raise ValidationError(f"{name} is empty.", field_name)
    if size > MAX_FILE_BYTES:
        raise ValidationError(
            f"{name} is {size / 1024 / 1024:.1f} MB; files can be at most "
            f"{MAX_FILE_BYTES // (1024 * 1024)} MB.",
            field_name,
        )
    ext = posixpath.splitext(name)[1].lower()
    ctype = _TYPE_OF_EXTENSION.get(ext)
    if ctype is None:
        allowed = ", ".join(sorted(_TYPE_OF_EXTENSION))
        raise ValidationError(
            f"{name}: that kind of file can't be shared here. Allowed: {allowed}.", field_name
        )
    declared = (upload.content_type or "").split(";")[0].strip().lower()
    declared = _TYPE_ALIASES.get(declared, declared)
    if declared not in _GENERIC_TYPES and declared != ctype:
        raise ValidationError(
            f"{name} says it is {declared}, which doesn't match its {ext} extension.", field_name
        )
    _, magic = _FILE_TYPES[ctype]
    if magic is None:
        try:
            decoded = upload.data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValidationError(f"{name} isn't a UTF-8 text file.", field_name) from None
        if "\x00" in decoded:
            raise ValidationError(f"{name} isn't a text file.", field_name)
    elif not upload.data.startswith(magic) or (
        ctype == "image/webp" and upload.data[8:12] != b"WEBP"
    ):
        raise ValidationError(f"{name}'s contents don't match its {ext} extension.", field_name)
    return name, ctype, upload.data


def post_message(
    db: Session,
    actor: Employee,
    channel_id: int,
    body: str,
    *,
    thread_parent_id: int | None = None,
    also_in_channel: bool = False,
    files: Sequence[UploadedFile] = (),
) -> MessageView:
    """Post a message (or a thread reply) with optional files; the poster has read up to it."""
    target = _writable_channel(db, actor, channel_id)
    files = list(files)
    if len(files) > MAX_FILES:
        raise ValidationError(f"Attach at most {MAX_FILES} files to one message.", "files")
    text = _clean_body(body, allow_empty=bool(files))
    checked = [_check_file(f, i) for i, f in enumerate(files)]
    if thread_parent_id is not None:
        parent = db.get(Message, thread_parent_id) if isinstance(thread_parent_id, int) else None
        if parent is None or parent.channel_id != target.id:
            raise _message_not_found()
        if parent.thread_parent_id is not None:
            raise ValidationError("Reply to the thread's first message.", "thread_parent_id")
        if parent.deleted_at is not None:
            raise ValidationError("That message was deleted; start a new one.", "thread_parent_id")
    else:
        also_in_channel = False
    at = stamp(db)
    row = Message(
        channel_id=target.id,
        author_id=actor.id,
        body=text,
        created_at=at,
        edited_at=None,
        thread_parent_id=thread_parent_id,
        also_in_channel=bool(also_in_channel),
    )
    db.add(row)
    db.flush()
    _set_mentions(db, row.id, mentioned_ids(db, text))
    for name, ctype, data in checked:
        db.add(
            Attachment(
                message_id=row.id,
                filename=name,
                content_type=ctype,
                size=len(data),
                data=data,
                uploaded_by_id=actor.id,
                created_at=at,
            )
        )
    if thread_parent_id is None or also_in_channel:
        _advance_read(db, target.id, actor.id, row.id)
    db.flush()
    return _view(db, actor, row)


def _own_message(db: Session, actor: Employee, message_id: int) -> tuple[Message, Channel]:
    found, channel_row = _visible_message(db, actor, message_id)
    if found.deleted_at is not None:
        raise NotFound("That message was deleted.")
    if found.author_id != actor.id:
        raise Forbidden("You can only change your own messages.")
    if channel_row.archived_at is not None:
        raise Forbidden(f"{_label_of(db, actor, channel_row)} is archived; it is read-only.")
    return found, channel_row


def edit_message(db: Session, actor: Employee, message_id: int, body: str) -> MessageView:
    """Change the text of the actor's own message (marks it edited, re-reads mentions)."""
    found, _ = _own_message(db, actor, message_id)
    has_files = db.scalar(select(func.count()).where(Attachment.message_id == found.id)) > 0
    text = _clean_body(body, allow_empty=has_files)
    if text != found.body:
        found.body = text
        found.edited_at = stamp(db)
        _set_mentions(db, found.id, mentioned_ids(db, text))
        db.flush()
    return _view(db, actor, found)


def _remove_extras(db: Session, message_id: int) -> None:
    for model in (Reaction, Mention, Pin, SavedItem, Attachment):
        db.execute(delete(model).where(model.message_id == message_id))


def delete_message(db: Session, actor: Employee, message_id: int) -> None:
    """Delete the actor's own message. A thread parent with replies stays as a tombstone."""
    found, _ = _own_message(db, actor, message_id)
    _remove_extras(db, found.id)
    has_replies = db.scalar(select(func.count()).where(Message.thread_parent_id == found.id)) > 0
    if has_replies:
        found.body = ""
        found.deleted_at = stamp(db)
        db.flush()
        return
    parent_id = found.thread_parent_id
    db.execute(delete(Message).where(Message.id == found.id))
    if parent_id is not None:
        parent = db.get(Message, parent_id)
        left = db.scalar(select(func.count()).where(Message.thread_parent_id == parent_id))
        if parent is not None and parent.deleted_at is not None and left == 0:
            db.execute(delete(Message).where(Message.id == parent_id))
    db.flush()


def _reactable(db: Session, actor: Employee, message_id: int) -> Message:
    found, channel_row = _visible_message(db, actor, message_id)
    _writable_channel(db, actor, channel_row.id)
    if found.deleted_at is not None:
        raise NotFound("That message was deleted.")
    return found


def toggle_reaction(db: Session, actor: Employee, message_id: int, emoji: str) -> bool:
    """Add the actor's reaction, or take it back if it is there; True if it was added."""
    name = (emoji or "").strip().strip(":")
    if name == "+1":
        name = "thumbsup"
    if name not in REACTION_EMOJI:
        raise ValidationError(f"{emoji!r} isn't one of the available reactions.", "emoji")
    found = _reactable(db, actor, message_id)
    existing = db.scalars(
        select(Reaction).where(
            Reaction.message_id == found.id,
            Reaction.employee_id == actor.id,
            Reaction.emoji == name,
        )
    ).first()
    if existing is not None:
        db.delete(existing)
        db.flush()
        return False
    db.add(Reaction(message_id=found.id, employee_id=actor.id, emoji=name, created_at=stamp(db)))
    db.flush()
    return True


def pin(db: Session, actor: Employee, message_id: int) -> None:
    found = _reactable(db, actor, message_id)
    if db.scalars(select(Pin).where(Pin.message_id == found.id)).first() is not None:
        raise Conflict("That message is already pinned.")
    db.add(
        Pin(
            message_id=found.id,
            channel_id=found.channel_id,
            pinned_by_id=actor.id,
            pinned_at=stamp(db),
        )
    )
    db.flush()


def unpin(db: Session, actor: Employee, message_id: int) -> None:
    found = _reactable(db, actor, message_id)
    existing = db.scalars(select(Pin).where(Pin.message_id == found.id)).first()
    if existing is None:
        raise Conflict("That message isn't pinned.")
    db.delete(existing)
    db.flush()


def save(db: Session, actor: Employee, message_id: int) -> None:
    """Save a message for later (personal, so allowed in archived channels too)."""
    found, _ = _visible_message(db, actor, message_id)
    if found.deleted_at is not None:
        raise NotFound("That message was deleted.")
    existing = db.scalars(
        select(SavedItem).where(SavedItem.message_id == found.id, SavedItem.employee_id == actor.id)
    ).first()
    if existing is not None:
        raise Conflict("You already saved that message.")
    db.add(SavedItem(message_id=found.id, employee_id=actor.id, saved_at=stamp(db)))
    db.flush()


def unsave(db: Session, actor: Employee, message_id: int) -> None:
    found, _ = _visible_message(db, actor, message_id)
    existing = db.scalars(
        select(SavedItem).where(SavedItem.message_id == found.id, SavedItem.employee_id == actor.id)
    ).first()
    if existing is None:
        raise Conflict("That message isn't in your saved items.")
    db.delete(existing)
    db.flush()


# -- writes: channels ----------------------------------------------------------------------


def validate_channel_name(name: str) -> str:
    """The name as stored, or ValidationError saying which rule it breaks."""
    text = (name or "").strip()
    if text.startswith("#"):
        text = text[1:]
    if not text:
        raise ValidationError("Give the channel a name.", "name")
    if len(text) > MAX_CHANNEL_NAME:
        raise ValidationError(
            f"Channel names can be at most {MAX_CHANNEL_NAME} characters.", "name"
        )
    if text != text.lower() and _CHANNEL_NAME.fullmatch(text.lower()):
        raise ValidationError("Channel names must be lowercase.", "name")
    if " " in text:
        raise ValidationError(
            "Channel names can't contain spaces; use hyphens or underscores instead.", "name"
        )
    if not _CHANNEL_NAME.fullmatch(text):
        raise ValidationError(
            "Channel names can only contain lowercase letters, numbers, hyphens and underscores.",
            "name",
        )
    if _DM_NAME.fullmatch(text):
        raise ValidationError("That name is reserved for direct messages.", "name")
    return text


def _clean_topic(topic: str) -> str:
    text = " ".join((topic or "").split())
    if len(text) > MAX_TOPIC_CHARS:
        raise ValidationError(f"Topics can be at most {MAX_TOPIC_CHARS} characters.", "topic")
    return text


def _clean_description(description: str) -> str:
    text = (description or "").strip()
    if len(text) > MAX_DESCRIPTION_CHARS:
        raise ValidationError(
            f"Descriptions can be at most {MAX_DESCRIPTION_CHARS:,} characters.", "description"
        )
    return text


def _people_to_add(db: Session, employee_ids: Iterable[int], field_name: str) -> list[Employee]:
    ids: list[int] = []
    for value in employee_ids:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValidationError("Choose people from the directory.", field_name)
        if value not in ids:
            ids.append(value)
    found = {e.id: e for e in db.scalars(select(Employee).where(Employee.id.in_(ids)))}
    missing = [i for i in ids if i not in found]
    if missing:
        raise ValidationError("Some of those people don't exist.", field_name)
    inactive = [found[i].display_name for i in ids if not found[i].is_active]
    if inactive:
        raise ValidationError(
            f"{', '.join(inactive)} {'has' if len(inactive) == 1 else 'have'} been deactivated "
            "and can't be added.",
            field_name,
        )
    return [found[i] for i in ids]


def _add_member(db: Session, channel_id: int, employee_id: int, at: datetime) -> None:
    latest = db.scalar(
        select(func.max(Message.id)).where(Message.channel_id == channel_id, _in_channel_view())
    )
    db.add(
        Membership(
            channel_id=channel_id,
            employee_id=employee_id,
            joined_at=at,
            last_read_message_id=latest,
        )
    )


def create_channel(
    db: Session,
    actor: Employee,
    name: str,
    *,
    is_private: bool = False,
    topic: str = "",
    description: str = "",
    member_ids: Iterable[int] = (),
) -> ChannelDetail:
    """Create a channel; the creator and `member_ids` become its members."""
    clean = validate_channel_name(name)
    topic_text = _clean_topic(topic)
    description_text = _clean_description(description)
    invitees = [e for e in _people_to_add(db, member_ids, "member_ids") if e.id != actor.id]
    if db.scalars(select(Channel.id).where(Channel.name == clean)).first() is not None:
        raise Conflict(f"A channel named #{clean} already exists; choose another name.", "name")
    at = stamp(db)
    row = Channel(
        name=clean,
        kind="channel",
        is_private=bool(is_private),
        topic=topic_text,
        description=description_text,
        created_by_id=actor.id,
        created_at=at,
        archived_at=None,
    )
    db.add(row)
    db.flush()
    for emp_id in [actor.id] + [e.id for e in invitees]:
        _add_member(db, row.id, emp_id, at)
    db.flush()
    return _detail(db, actor, row)


def set_topic(db: Session, actor: Employee, channel_id: int, topic: str) -> ChannelDetail:
    row = _writable_channel(db, actor, channel_id)
    row.topic = _clean_topic(topic)
    db.flush()
    return _detail(db, actor, row)


def set_description(
    db: Session, actor: Employee, channel_id: int, description: str
) -> ChannelDetail:
    row = _writable_channel(db, actor, channel_id)
    row.description = _clean_description(description)
    db.flush()
    return _detail(db, actor, row)


def join_channel(db: Session, actor: Employee, channel_id: int) -> ChannelDetail:
    row = _visible_channel(db, actor, channel_id)
    if _is_member(db, row.id, actor.id):
        raise Conflict(f"You're already in {_label_of(db, actor, row)}.")
    if row.archived_at is not None:
        raise Forbidden(f"#{row.name} is archived; it is read-only.")
    _add_member(db, row.id, actor.id, stamp(db))
    db.flush()
    return _detail(db, actor, row)


def leave_channel(db: Session, actor: Employee, channel_id: int) -> None:
    row = _visible_channel(db, actor, channel_id)
    membership = _membership(db, row.id, actor.id)
    if membership is None:
        raise Conflict(f"You aren't in #{row.name}.")
    if row.kind != "channel":
        raise Forbidden("You can't leave a direct message.")
    if row.name == GENERAL:
        raise Forbidden("Everyone stays in #general.")
    if row.archived_at is not None:
        raise Forbidden(f"#{row.name} is archived; it is read-only.")
    db.delete(membership)
    db.flush()


def invite(
    db: Session, actor: Employee, channel_id: int, employee_ids: Iterable[int]
) -> list[EmployeeRef]:
    """Add people to a channel the actor is in; returns who was added."""
    row = _writable_channel(db, actor, channel_id)
    if row.kind != "channel":
        raise Forbidden("You can't add people to a direct message; start a new one instead.")
    people_rows = _people_to_add(db, employee_ids, "employee_ids")
    if not people_rows:
        raise ValidationError("Choose at least one person to add.", "employee_ids")
    current = set(db.scalars(select(Membership.employee_id).where(Membership.channel_id == row.id)))
    already = [e.display_name for e in people_rows if e.id in current]
    if already:
        raise Conflict(
            f"{', '.join(already)} {'is' if len(already) == 1 else 'are'} already in #{row.name}.",
            "employee_ids",
        )
    at = stamp(db)
    for e in people_rows:
        _add_member(db, row.id, e.id, at)
    db.flush()
    return [ref(e) for e in people_rows]


def archive_channel(db: Session, actor: Employee, channel_id: int) -> ChannelDetail:
    row = _visible_channel(db, actor, channel_id)
    if row.archived_at is not None:
        raise Conflict(f"#{row.name} is already archived.")
    row = _writable_channel(db, actor, channel_id)
    if row.kind != "channel":
        raise Forbidden("Direct messages can't be archived.")
    if row.name == GENERAL:
        raise Forbidden("#general can't be archived.")
    row.archived_at = stamp(db)
    db.flush()
    return _detail(db, actor, row)


def unarchive_channel(db: Session, actor: Employee, channel_id: int) -> ChannelDetail:
    row = _visible_channel(db, actor, channel_id)
    if row.archived_at is None:
        raise Conflict(f"#{row.name} isn't archived.")
    if not _is_member(db, row.id, actor.id):
        raise Forbidden(f"Only members of #{row.name} can unarchive it.")
    row.archived_at = None
    db.flush()
    return _detail(db, actor, row)


def open_dm(db: Session, actor: Employee, employee_ids: Iterable[int]) -> ChannelDetail:
    """The DM (one other person) or group DM (2–8 others) with these people, made if new."""
    others = [e for e in _people_to_add(db, employee_ids, "employee_ids") if e.id != actor.id]
    if not others:
        raise ValidationError("Choose at least one other person.", "employee_ids")
    if len(others) > MAX_GROUP_DM_OTHERS:
        raise ValidationError(
            f"A group message can include at most {MAX_GROUP_DM_OTHERS} other people.",
            "employee_ids",
        )
    ids = sorted({actor.id, *(e.id for e in others)})
    kind = "dm" if len(ids) == 2 else "group_dm"
    name = f"dm-{ids[0]}-{ids[1]}" if kind == "dm" else "mpdm-" + "-".join(map(str, ids))
    existing = db.scalars(select(Channel).where(Channel.name == name)).first()
    if existing is not None:
        if not _is_member(db, existing.id, actor.id):
            raise _channel_not_found()
        return _detail(db, actor, existing)
    at = stamp(db)
    row = Channel(
        name=name,
        kind=kind,
        is_private=True,
        topic="",
        description="",
        created_by_id=actor.id,
        created_at=at,
        archived_at=None,
    )
    db.add(row)
    db.flush()
    for emp_id in ids:
        _add_member(db, row.id, emp_id, at)
    db.flush()
    return _detail(db, actor, row)


def _advance_read(db: Session, channel_id: int, employee_id: int, message_id: int) -> None:
    db.execute(
        update(Membership)
        .where(
            Membership.channel_id == channel_id,
            Membership.employee_id == employee_id,
            or_(
                Membership.last_read_message_id.is_(None),
                Membership.last_read_message_id < message_id,
            ),
        )
        .values(last_read_message_id=message_id)
    )


def mark_read(db: Session, actor: Employee, channel_id: int, message_id: int | None = None) -> None:
    """Move the actor's read marker up to `message_id` (default: the newest); never back.

    Personal state, so archived channels allow it; for a public channel the actor isn't in it
    does nothing.
    """
    row = _visible_channel(db, actor, channel_id)
    if message_id is None:
        message_id = db.scalar(
            select(func.max(Message.id)).where(Message.channel_id == row.id, _in_channel_view())
        )
        if message_id is None:
            return
    else:
        target = db.get(Message, message_id) if isinstance(message_id, int) else None
        if target is None or target.channel_id != row.id:
            raise _message_not_found()
    _advance_read(db, row.id, actor.id, message_id)
    db.flush()


def set_status(db: Session, actor: Employee, emoji: str, text: str) -> EmployeeRef:
    """Set (or with both empty, clear) the actor's status."""
    name = (emoji or "").strip().strip(":")
    words = " ".join((text or "").split())
    if name and name not in STATUS_EMOJI:
        raise ValidationError(f"{emoji!r} isn't one of the available status emoji.", "emoji")
    if len(words) > MAX_STATUS_TEXT:
        raise ValidationError(
            f"A status can be at most {MAX_STATUS_TEXT} characters.", "status_text"
        )
    employee = db.get(Employee, actor.id)
    employee.status_emoji = name
    employee.status_text = words
    db.flush()
    return ref(employee)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _contains(text: str, *columns):
    """A case-insensitive "any of these columns contains `text`" condition (LIKE-escaped)."""
    pattern = f"%{_escape_like(text)}%"
    return or_(*(column.ilike(pattern, escape="\\") for column in columns))


__all__ = [
    "DELETED_TEXT",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_MESSAGE_CHARS",
    "REACTION_EMOJI",
    "STATUS_EMOJI",
    "AttachmentView",
    "ChannelDetail",
    "ChannelItem",
    "ChatError",
    "Conflict",
    "EmployeeRef",
    "Forbidden",
    "HistoryPage",
    "MessageView",
    "NotFound",
    "Profile",
    "ReactionView",
    "SearchHit",
    "SearchResults",
    "Sidebar",
    "ThreadView",
    "UploadedFile",
    "ValidationError",
    "archive_channel",
    "attachment",
    "browse_channels",
    "channel",
    "channel_by_name",
    "channel_candidates",
    "create_channel",
    "delete_message",
    "edit_message",
    "history",
    "invite",
    "join_channel",
    "leave_channel",
    "local_time",
    "mark_read",
    "members",
    "mention_candidates",
    "mentioned_ids",
    "mentions",
    "message",
    "open_dm",
    "people",
    "permalink",
    "pin",
    "pinned",
    "post_message",
    "profile",
    "save",
    "saved",
    "search",
    "set_description",
    "set_status",
    "set_topic",
    "sidebar",
    "thread",
    "to_local",
    "toggle_reaction",
    "unarchive_channel",
    "unpin",
    "unsave",
    "validate_channel_name",
]
