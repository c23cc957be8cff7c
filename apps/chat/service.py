"""Chat's writes: the only code that changes chat tables, and the rules each change obeys.

Every function takes the caller's session `db` and works inside its transaction (the web kit
commits on success and rolls back on error); nothing here commits. `actor` is the signed-in
employee. Who may see or change a channel or message is decided in `access`; what a write
returns is a read model from `reads`.

Errors (`officegym.apps.web.errors`): ValidationError (bad input, nothing written), NotFound
(missing or invisible), Forbidden (visible but not allowed), Conflict (clashes with current
state).
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from officegym.apps.web.errors import Conflict, Forbidden, NotFound, ValidationError
from officegym.seed_data.clock import stamp
from officegym.seed_data.schema import Employee
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

from .access import (
    channel_not_found,
    dm_name,
    is_member,
    membership,
    message_not_found,
    visible_channel,
    visible_message,
    writable_channel,
)
from .labels import label_of
from .reads import (
    ChannelDetail,
    EmployeeRef,
    MessageView,
    channel_detail,
    in_channel_view,
    message_view,
    ref,
)

MAX_MESSAGE_CHARS = 40_000
MAX_TOPIC_CHARS = 250
MAX_DESCRIPTION_CHARS = 1_000
MAX_CHANNEL_NAME = 80
MAX_STATUS_TEXT = 100
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_FILES = 10
MAX_GROUP_DM_OTHERS = 8
GENERAL = "general"

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


@dataclass(frozen=True)
class UploadedFile:
    """A file as posted: the name and type the client claimed, and the bytes."""

    filename: str
    content_type: str
    data: bytes = field(repr=False)


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
    target = writable_channel(db, actor, channel_id)
    files = list(files)
    if len(files) > MAX_FILES:
        raise ValidationError(f"Attach at most {MAX_FILES} files to one message.", "files")
    text = _clean_body(body, allow_empty=bool(files))
    checked = [_check_file(f, i) for i, f in enumerate(files)]
    if thread_parent_id is not None:
        parent = db.get(Message, thread_parent_id) if isinstance(thread_parent_id, int) else None
        if parent is None or parent.channel_id != target.id:
            raise message_not_found()
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
    return message_view(db, actor, row)


def _own_message(db: Session, actor: Employee, message_id: int) -> tuple[Message, Channel]:
    found, channel_row = visible_message(db, actor, message_id)
    if found.deleted_at is not None:
        raise NotFound("That message was deleted.")
    if found.author_id != actor.id:
        raise Forbidden("You can only change your own messages.")
    if channel_row.archived_at is not None:
        raise Forbidden(f"{label_of(db, actor, channel_row)} is archived; it is read-only.")
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
    return message_view(db, actor, found)


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
    found, channel_row = visible_message(db, actor, message_id)
    writable_channel(db, actor, channel_row.id)
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
    found, _ = visible_message(db, actor, message_id)
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
    found, _ = visible_message(db, actor, message_id)
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
        select(func.max(Message.id)).where(Message.channel_id == channel_id, in_channel_view())
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
    return channel_detail(db, actor, row)


def set_topic(db: Session, actor: Employee, channel_id: int, topic: str) -> ChannelDetail:
    row = writable_channel(db, actor, channel_id)
    row.topic = _clean_topic(topic)
    db.flush()
    return channel_detail(db, actor, row)


def set_description(
    db: Session, actor: Employee, channel_id: int, description: str
) -> ChannelDetail:
    row = writable_channel(db, actor, channel_id)
    row.description = _clean_description(description)
    db.flush()
    return channel_detail(db, actor, row)


def join_channel(db: Session, actor: Employee, channel_id: int) -> ChannelDetail:
    row = visible_channel(db, actor, channel_id)
    if is_member(db, row.id, actor.id):
        raise Conflict(f"You're already in {label_of(db, actor, row)}.")
    if row.archived_at is not None:
        raise Forbidden(f"#{row.name} is archived; it is read-only.")
    _add_member(db, row.id, actor.id, stamp(db))
    db.flush()
    return channel_detail(db, actor, row)


def leave_channel(db: Session, actor: Employee, channel_id: int) -> None:
    row = visible_channel(db, actor, channel_id)
    mine = membership(db, row.id, actor.id)
    if mine is None:
        raise Conflict(f"You aren't in #{row.name}.")
    if row.kind != "channel":
        raise Forbidden("You can't leave a direct message.")
    if row.name == GENERAL:
        raise Forbidden("Everyone stays in #general.")
    if row.archived_at is not None:
        raise Forbidden(f"#{row.name} is archived; it is read-only.")
    db.delete(mine)
    db.flush()


def invite(
    db: Session, actor: Employee, channel_id: int, employee_ids: Iterable[int]
) -> list[EmployeeRef]:
    """Add people to a channel the actor is in; returns who was added."""
    row = writable_channel(db, actor, channel_id)
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
    row = visible_channel(db, actor, channel_id)
    if row.archived_at is not None:
        raise Conflict(f"#{row.name} is already archived.")
    row = writable_channel(db, actor, channel_id)
    if row.kind != "channel":
        raise Forbidden("Direct messages can't be archived.")
    if row.name == GENERAL:
        raise Forbidden("#general can't be archived.")
    row.archived_at = stamp(db)
    db.flush()
    return channel_detail(db, actor, row)


def unarchive_channel(db: Session, actor: Employee, channel_id: int) -> ChannelDetail:
    row = visible_channel(db, actor, channel_id)
    if row.archived_at is None:
        raise Conflict(f"#{row.name} isn't archived.")
    if not is_member(db, row.id, actor.id):
        raise Forbidden(f"Only members of #{row.name} can unarchive it.")
    row.archived_at = None
    db.flush()
    return channel_detail(db, actor, row)


# -- writes: DMs, read markers, status -----------------------------------------------------


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
    name = dm_name(set(ids))
    existing = db.scalars(select(Channel).where(Channel.name == name)).first()
    if existing is not None:
        if not is_member(db, existing.id, actor.id):
            raise channel_not_found()
        return channel_detail(db, actor, existing)
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
    return channel_detail(db, actor, row)


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
    row = visible_channel(db, actor, channel_id)
    if message_id is None:
        message_id = db.scalar(
            select(func.max(Message.id)).where(Message.channel_id == row.id, in_channel_view())
        )
        if message_id is None:
            return
    else:
        target = db.get(Message, message_id) if isinstance(message_id, int) else None
        if target is None or target.channel_id != row.id:
            raise message_not_found()
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


__all__ = [
    "GENERAL",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_MESSAGE_CHARS",
    "REACTION_EMOJI",
    "STATUS_EMOJI",
    "UploadedFile",
    "archive_channel",
    "clean_filename",
    "create_channel",
    "delete_message",
    "edit_message",
    "invite",
    "join_channel",
    "leave_channel",
    "mark_read",
    "mentioned_ids",
    "open_dm",
    "pin",
    "post_message",
    "save",
    "set_description",
    "set_status",
    "set_topic",
    "toggle_reaction",
    "unarchive_channel",
    "unpin",
    "unsave",
    "validate_channel_name",
]
