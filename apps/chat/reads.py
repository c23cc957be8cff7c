"""Chat's read models and reads: what the pages and the API show, as frozen dataclasses.

Every function takes the caller's session `db` and only reads; permission checks come from
`access` (a private channel or DM the actor is not in reads as NotFound, like a missing id).
Message views load their reactions, files, pins, replies and mentions in bulk, and render
the body's markdown for the reader.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session

from officegym.apps.web.errors import NotFound
from officegym.apps.web.localtime import to_local
from officegym.seed_data.clock import now as world_now
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

from . import markdown, times
from . import search as search_query
from .access import (
    channel_not_found,
    visible_channel,
    visible_channel_ids,
    visible_message,
)
from .labels import label, member_names

DELETED_TEXT = "This message was deleted."


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


# -- building read models ------------------------------------------------------------------


def ref(employee: Employee) -> EmployeeRef:
    """The employee as chat shows them."""
    return EmployeeRef(
        employee.id,
        employee.display_name,
        employee.title,
        employee.avatar_color,
        employee.email,
        employee.is_active,
    )


def refs(db: Session, ids: Iterable[int]) -> dict[int, EmployeeRef]:
    """EmployeeRefs of these employees, by id, loaded at once."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = db.scalars(select(Employee).where(Employee.id.in_(wanted)))
    return {e.id: ref(e) for e in rows}


def channel_item(channel: Channel, title: str, unread: int = 0, mentions: int = 0) -> ChannelItem:
    """A sidebar entry for `channel`, labelled `title`."""
    return ChannelItem(
        channel.id,
        channel.name,
        title,
        channel.kind,
        channel.is_private,
        channel.archived_at is not None,
        unread,
        mentions,
    )


def channel_details(
    db: Session, actor: Employee, channels: Sequence[Channel]
) -> list[ChannelDetail]:
    """ChannelDetails for `channels` as the actor sees them (in the given order)."""
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
    names = member_names(db, direct)
    creators = refs(db, (c.created_by_id for c in channels))
    out = []
    for c in channels:
        is_member = c.id in mine
        out.append(
            ChannelDetail(
                id=c.id,
                name=c.name,
                label=label(c, actor.id, names.get(c.id, [])),
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


def channel_detail(db: Session, actor: Employee, channel: Channel) -> ChannelDetail:
    """One channel's ChannelDetail as the actor sees it."""
    return channel_details(db, actor, [channel])[0]


def in_channel_view() -> ColumnElement[bool]:
    """Messages that show in a channel's history: top-level ones and also-sent replies."""
    return or_(Message.thread_parent_id.is_(None), Message.also_in_channel.is_(True))


def _visible_channel_names(db: Session, actor: Employee) -> dict[str, int]:
    rows = db.execute(
        select(Channel.name, Channel.id).where(
            Channel.kind == "channel", Channel.id.in_(visible_channel_ids(actor))
        )
    )
    return dict(rows.all())


def message_views(db: Session, actor: Employee, messages: Sequence[Message]) -> list[MessageView]:
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
    mentioned = _mentioned(db, ids)
    people = refs(
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


def _mentioned(db: Session, ids: Sequence[int]) -> dict[int, dict[str, int]]:
    """Who each message mentions: {message id: {display name: employee id}}."""
    mentioned: dict[int, dict[str, int]] = defaultdict(dict)
    for message_id, emp_id, name in db.execute(
        select(Mention.message_id, Employee.id, Employee.display_name)
        .join(Employee, Employee.id == Mention.employee_id)
        .where(Mention.message_id.in_(ids))
    ):
        mentioned[message_id][name] = emp_id
    return mentioned


def message_view(db: Session, actor: Employee, message: Message) -> MessageView:
    """One message's MessageView for the actor."""
    return message_views(db, actor, [message])[0]


# -- reads ---------------------------------------------------------------------------------


def sidebar(db: Session, actor: Employee, reading: int | None = None) -> Sidebar:
    """The actor's channels and DMs (archived ones left out) with unread and mention counts.

    The channel the actor is `reading` counts as read: its page marks it read as it loads.
    """
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
        in_channel_view(),
        Message.deleted_at.is_(None),
        Message.id > read_upto,
        Message.author_id != actor.id,
    )
    joined = select(Message.channel_id, func.count()).join(
        Membership, Membership.channel_id == Message.channel_id
    )
    unread = dict(db.execute(joined.where(*unread_filter).group_by(Message.channel_id)).all())
    unread.pop(reading, None)
    mentions = dict(
        db.execute(
            joined.join(Mention, Mention.message_id == Message.id)
            .where(*unread_filter, Mention.employee_id == actor.id)
            .group_by(Message.channel_id)
        ).all()
    )
    mentions.pop(reading, None)
    names = member_names(db, [c.id for c in channels if c.kind != "channel"])
    items = [
        channel_item(
            c, label(c, actor.id, names.get(c.id, [])), unread.get(c.id, 0), mentions.get(c.id, 0)
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
    return channel_details(db, actor, list(db.scalars(statement.order_by(Channel.name))))


def channel(db: Session, actor: Employee, channel_id: int) -> ChannelDetail:
    return channel_detail(db, actor, visible_channel(db, actor, channel_id))


def channel_by_name(db: Session, actor: Employee, name: str) -> ChannelDetail:
    found = db.scalars(select(Channel).where(Channel.name == name.strip().lstrip("#"))).first()
    if found is None:
        raise channel_not_found()
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
    visible_channel(db, actor, channel_id)
    limit = max(1, min(int(limit), 200))
    statement = select(Message).where(Message.channel_id == channel_id, in_channel_view())
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
            message_views(db, actor, rows), has_older, rows[0].id if rows else None, has_newer
        )
    if before_id is not None:
        statement = statement.where(Message.id < before_id)
    rows = list(db.scalars(statement.order_by(Message.id.desc()).limit(limit + 1)))
    has_older = len(rows) > limit
    rows = rows[:limit][::-1]
    return HistoryPage(message_views(db, actor, rows), has_older, rows[0].id if rows else None)


def thread(db: Session, actor: Employee, message_id: int) -> ThreadView:
    """A thread by its parent's id (a reply's id opens its thread)."""
    message, channel_row = visible_message(db, actor, message_id)
    if message.thread_parent_id is not None:
        message = db.get(Message, message.thread_parent_id)
    replies = list(
        db.scalars(
            select(Message).where(Message.thread_parent_id == message.id).order_by(Message.id)
        )
    )
    views = message_views(db, actor, [message, *replies])
    return ThreadView(views[0], views[1:], channel_detail(db, actor, channel_row))


def message(db: Session, actor: Employee, message_id: int) -> MessageView:
    found, _ = visible_message(db, actor, message_id)
    return message_view(db, actor, found)


def members(db: Session, actor: Employee, channel_id: int) -> list[EmployeeRef]:
    visible_channel(db, actor, channel_id)
    rows = db.scalars(
        select(Employee)
        .join(Membership, Membership.employee_id == Employee.id)
        .where(Membership.channel_id == channel_id)
        .order_by(Employee.display_name, Employee.id)
    )
    return [ref(e) for e in rows]


def pinned(db: Session, actor: Employee, channel_id: int) -> list[MessageView]:
    """The channel's pinned messages, most recently pinned first."""
    visible_channel(db, actor, channel_id)
    rows = db.scalars(
        select(Message)
        .join(Pin, Pin.message_id == Message.id)
        .where(Pin.channel_id == channel_id)
        .order_by(Pin.pinned_at.desc(), Pin.id.desc())
    )
    return message_views(db, actor, list(rows))


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
    return message_views(db, actor, list(rows))


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
    return message_views(
        db, actor, list(db.scalars(statement.order_by(Message.id.desc()).limit(limit)))
    )


def search(
    db: Session, actor: Employee, query: str, page: int = 1, per_page: int = 20
) -> SearchResults:
    """Full-text search with filters over the messages the actor may see (see search.py)."""
    page = max(1, int(page))
    per_page = max(1, min(int(per_page), 100))
    parsed = search_query.parse(db, actor, query)
    total, found = search_query.find(db, actor, parsed, page, per_page)
    messages = {m.id: m for m in db.scalars(select(Message).where(Message.id.in_(found)))}
    ordered = [messages[i] for i in found if i in messages]
    views = message_views(db, actor, ordered)
    channel_rows = {
        c.id: c
        for c in db.scalars(select(Channel).where(Channel.id.in_({m.channel_id for m in ordered})))
    }
    names = member_names(db, [c.id for c in channel_rows.values() if c.kind != "channel"])
    mentioned = _mentioned(db, [v.id for v in views])
    channel_names = _visible_channel_names(db, actor) if views else {}
    hits = []
    for view in views:
        c = channel_rows[view.channel_id]
        snippet = found[view.id]
        hits.append(
            SearchHit(
                message=view,
                channel=channel_item(c, label(c, actor.id, names.get(c.id, []))),
                snippet_html=markdown.render_snippet(
                    snippet.text, snippet.matched, mentioned.get(view.id), channel_names
                ),
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


def local_time(utc: datetime, timezone: str | None) -> str:
    """`utc` (naive) as a wall-clock time in `timezone`, like "3:05 PM"."""
    return times.clock(to_local(utc, timezone))


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
    return [channel_item(c, f"#{c.name}") for c in rows]


def attachment(db: Session, actor: Employee, attachment_id: int) -> Attachment:
    """A file with its bytes, if the actor may see the message it was posted with."""
    row = db.get(Attachment, attachment_id) if isinstance(attachment_id, int) else None
    missing = NotFound("That file doesn't exist or you don't have access to it.")
    if row is None:
        raise missing
    try:
        visible_message(db, actor, row.message_id)
    except NotFound:
        raise missing from None
    return row


def permalink(db: Session, actor: Employee, message_id: int) -> tuple[int, int, int | None]:
    """Where a message lives: (channel id, message id, thread parent id or None)."""
    found, _ = visible_message(db, actor, message_id)
    return found.channel_id, found.id, found.thread_parent_id


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _contains(text: str, *columns):
    """A case-insensitive "any of these columns contains `text`" condition (LIKE-escaped)."""
    pattern = f"%{_escape_like(text)}%"
    return or_(*(column.ilike(pattern, escape="\\") for column in columns))


__all__ = [
    "DELETED_TEXT",
    "AttachmentView",
    "ChannelDetail",
    "ChannelItem",
    "EmployeeRef",
    "HistoryPage",
    "MessageView",
    "Profile",
    "ReactionView",
    "SearchHit",
    "SearchResults",
    "Sidebar",
    "ThreadView",
    "attachment",
    "browse_channels",
    "channel",
    "channel_by_name",
    "channel_candidates",
    "channel_detail",
    "channel_details",
    "channel_item",
    "history",
    "in_channel_view",
    "local_time",
    "members",
    "mention_candidates",
    "mentions",
    "message",
    "message_view",
    "message_views",
    "people",
    "permalink",
    "pinned",
    "profile",
    "ref",
    "refs",
    "saved",
    "search",
    "sidebar",
    "thread",
]
