"""Chat's writes: every operation and rule, on a fresh tiny world, asserting on stored state."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.chat import reads, service
from officegym.apps.chat.markdown import emoji_char
from officegym.apps.chat.service import UploadedFile
from officegym.apps.web.errors import Conflict, Forbidden, NotFound, ValidationError
from officegym.seed_data.clock import now
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

from .conftest import ChatFacts, employee

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def count(db: Session, model, *where) -> int:
    return db.scalar(select(func.count()).select_from(model).where(*where))


def is_member(db: Session, channel_id: int, employee_id: int) -> bool:
    return (
        count(
            db,
            Membership,
            Membership.channel_id == channel_id,
            Membership.employee_id == employee_id,
        )
        == 1
    )


# -- posting -------------------------------------------------------------------------------


def test_post_message_stores_the_message_with_the_world_clock(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    world_time = now(db)
    posted = service.post_message(db, actor, facts.public_id, "  hello world  ")
    row = db.get(Message, posted.id)
    assert row.body == "hello world"
    assert row.author_id == actor.id and row.channel_id == facts.public_id
    assert row.created_at > world_time
    assert posted.is_mine and posted.html == "<p>hello world</p>"


def test_post_message_ids_and_times_are_deterministic(store, facts: ChatFacts):
    from officegym.seed_data.connect import make_engine, writer

    from ...conftest import new_world_id

    results = []
    for _ in range(2):
        world_id = new_world_id("det")
        store.create(world_id, 0, "tiny")
        engine = make_engine(store.world_path(world_id))
        try:
            with Session(writer(engine)) as db:
                actor = employee(db, facts.public_member)
                posted = service.post_message(db, actor, facts.public_id, "same")
                results.append((posted.id, posted.created_at))
        finally:
            engine.dispose()
            store.drop(world_id)
    assert results[0] == results[1]


def test_post_marks_the_posters_channel_read(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, "mine")
    membership = db.scalars(
        select(Membership).where(
            Membership.channel_id == facts.public_id, Membership.employee_id == actor.id
        )
    ).one()
    assert membership.last_read_message_id == posted.id


@pytest.mark.parametrize("body", ["", "   \n\t ", "x" * 40_001])
def test_post_rejects_empty_or_too_long_bodies_and_writes_nothing(db, facts, body):
    actor = employee(db, facts.public_member)
    before = count(db, Message)
    with pytest.raises(ValidationError) as caught:
        service.post_message(db, actor, facts.public_id, body)
    assert caught.value.field == "body"
    assert count(db, Message) == before


def test_post_accepts_exactly_40000_characters(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, "y" * 40_000)
    assert len(db.get(Message, posted.id).body) == 40_000


def test_post_to_unknown_channel_is_not_found(db, facts: ChatFacts):
    with pytest.raises(NotFound):
        service.post_message(db, employee(db, facts.public_member), 999_999, "hi")


def test_post_in_public_channel_by_non_member_is_forbidden(db, facts: ChatFacts):
    before = count(db, Message)
    with pytest.raises(Forbidden):
        service.post_message(db, employee(db, facts.public_non_member), facts.public_id, "hi")
    assert count(db, Message) == before


def test_post_in_private_channel_by_non_member_is_not_found(db, facts: ChatFacts):
    with pytest.raises(NotFound):
        service.post_message(db, employee(db, facts.private_non_member), facts.private_id, "hi")


def test_post_in_archived_channel_is_forbidden(db, facts: ChatFacts):
    with pytest.raises(Forbidden, match="archived"):
        service.post_message(db, employee(db, facts.archived_member), facts.archived_id, "hi")


def test_post_records_mentions_of_active_people(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    target = facts.public_non_member
    inactive = facts.inactive
    posted = service.post_message(
        db, actor, facts.public_id, f"@{target.name}, see @{inactive.name} and @{target.name}"
    )
    mentioned = set(db.scalars(select(Mention.employee_id).where(Mention.message_id == posted.id)))
    assert mentioned == {target.id}
    assert 'class="mention"' in posted.html


def test_mention_needs_a_word_boundary(db, facts: ChatFacts):
    name = facts.public_non_member.name
    assert service.mentioned_ids(db, f"mail@{name}") == []
    assert service.mentioned_ids(db, f"@{name}x") == []
    assert service.mentioned_ids(db, f"(@{name})") == [facts.public_non_member.id]


def test_reply_must_target_a_top_level_message_in_the_channel(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    parent = service.post_message(db, actor, facts.public_id, "p")
    reply = service.post_message(db, actor, facts.public_id, "r", thread_parent_id=parent.id)
    with pytest.raises(ValidationError):
        service.post_message(db, actor, facts.public_id, "x", thread_parent_id=reply.id)
    with pytest.raises(NotFound):
        service.post_message(db, actor, facts.general_id, "x", thread_parent_id=parent.id)


def test_also_in_channel_is_ignored_without_a_thread(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, "top", also_in_channel=True)
    assert db.get(Message, posted.id).also_in_channel is False


# -- files ---------------------------------------------------------------------------------


def test_files_are_stored_with_sanitised_names(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(
        db,
        actor,
        facts.public_id,
        "files",
        files=[
            UploadedFile("../../etc/<img src=x>.png", "image/png", PNG),
            UploadedFile("notes.csv", "application/octet-stream", b"a,b\n1,2\n"),
        ],
    )
    rows = db.scalars(select(Attachment).where(Attachment.message_id == posted.id)).all()
    assert [r.filename for r in rows] == ["_img src_x_.png", "notes.csv"]
    assert [r.content_type for r in rows] == ["image/png", "text/csv"]
    assert rows[0].size == len(PNG) and rows[0].uploaded_by_id == actor.id


def test_message_with_only_files_may_have_no_text(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(
        db, actor, facts.public_id, "", files=[UploadedFile("a.txt", "text/plain", b"hi")]
    )
    assert posted.body == "" and len(posted.attachments) == 1


@pytest.mark.parametrize(
    ("upload", "message"),
    [
        (UploadedFile("big.png", "image/png", PNG + b"\x00" * (5 * 1024 * 1024)), "5 MB"),
        (UploadedFile("run.exe", "application/octet-stream", b"MZ\x90"), "can't be shared"),
        (UploadedFile("page.html", "text/html", b"<script>"), "can't be shared"),
        (UploadedFile("fake.png", "image/png", b"<svg onload=alert(1)>"), "don't match"),
        (UploadedFile("a.png", "application/pdf", PNG), "doesn't match"),
        (UploadedFile("bin.txt", "text/plain", b"\xff\xfe\x00"), "UTF-8"),
        (UploadedFile("empty.txt", "text/plain", b""), "empty"),
        (UploadedFile("...", "text/plain", b"x"), "no usable name"),
    ],
)
def test_bad_files_are_refused_and_nothing_is_written(db, facts, upload, message):
    actor = employee(db, facts.public_member)
    before = (count(db, Message), count(db, Attachment))
    with pytest.raises(ValidationError, match=message) as caught:
        service.post_message(db, actor, facts.public_id, "with file", files=[upload])
    assert caught.value.field == "files"
    assert (count(db, Message), count(db, Attachment)) == before


def test_at_most_ten_files(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    files = [UploadedFile(f"f{i}.txt", "text/plain", b"x") for i in range(11)]
    with pytest.raises(ValidationError, match="at most 10"):
        service.post_message(db, actor, facts.public_id, "many", files=files)


@pytest.mark.parametrize(
    ("name", "ctype", "data"),
    [
        ("a.jpg", "image/jpeg", b"\xff\xd8\xff\xe0rest"),
        ("a.gif", "image/gif", b"GIF89a...."),
        ("a.webp", "image/webp", b"RIFF\x00\x00\x00\x00WEBPVP8 "),
        ("a.pdf", "application/pdf", b"%PDF-1.7\n"),
        ("a.json", "application/json", b'{"a": 1}'),
        ("a.zip", "application/zip", b"PK\x03\x04rest"),
        ("a.docx", "", b"PK\x03\x04rest"),
        (
            "a.xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            b"PK\x03\x04",
        ),
        ("a.pptx", "application/octet-stream", b"PK\x03\x04"),
    ],
)
def test_allowed_file_types_are_accepted(db, facts, name, ctype, data):
    actor = employee(db, facts.public_member)
    posted = service.post_message(
        db, actor, facts.public_id, "f", files=[UploadedFile(name, ctype, data)]
    )
    assert posted.attachments[0].filename == name


# -- editing and deleting ------------------------------------------------------------------


def test_edit_own_message_sets_edited_at_and_reparses_mentions(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    first, second = facts.public_non_member, facts.private_non_member
    other = next(
        p for p in reads.people(db, limit=500) if p.id not in (actor.id, first.id, second.id)
    )
    posted = service.post_message(db, actor, facts.public_id, f"hi @{first.name}")
    edited = service.edit_message(db, actor, posted.id, f"hi @{other.display_name}")
    row = db.get(Message, posted.id)
    assert row.body == f"hi @{other.display_name}" and row.edited_at is not None
    assert edited.edited_at == row.edited_at
    mentioned = set(db.scalars(select(Mention.employee_id).where(Mention.message_id == posted.id)))
    assert mentioned == {other.id}


def test_edit_of_someone_elses_message_is_forbidden(db, facts: ChatFacts):
    author = employee(db, facts.public_member)
    posted = service.post_message(db, author, facts.public_id, "mine")
    other = employee(db, facts.public_non_member)
    service.join_channel(db, other, facts.public_id)
    with pytest.raises(Forbidden):
        service.edit_message(db, other, posted.id, "yours now")
    with pytest.raises(Forbidden):
        service.delete_message(db, other, posted.id)
    assert db.get(Message, posted.id).body == "mine"


def test_edit_to_empty_is_refused(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, "text")
    with pytest.raises(ValidationError):
        service.edit_message(db, actor, posted.id, "   ")
    assert db.get(Message, posted.id).edited_at is None


def test_delete_removes_message_and_its_extras(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(
        db,
        actor,
        facts.public_id,
        f"bye @{facts.public_non_member.name}",
        files=[UploadedFile("a.txt", "text/plain", b"x")],
    )
    service.toggle_reaction(db, actor, posted.id, "tada")
    service.pin(db, actor, posted.id)
    service.save(db, actor, posted.id)
    service.delete_message(db, actor, posted.id)
    assert db.get(Message, posted.id) is None
    for model in (Reaction, Mention, Pin, SavedItem, Attachment):
        assert count(db, model, model.message_id == posted.id) == 0


def test_deleting_a_thread_parent_with_replies_leaves_a_tombstone(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    parent = service.post_message(db, actor, facts.public_id, "secret plan")
    reply = service.post_message(db, actor, facts.public_id, "ok", thread_parent_id=parent.id)
    service.toggle_reaction(db, actor, parent.id, "eyes")
    service.delete_message(db, actor, parent.id)
    row = db.get(Message, parent.id)
    assert row.deleted_at is not None and row.body == ""
    assert count(db, Reaction, Reaction.message_id == parent.id) == 0
    view = reads.thread(db, actor, parent.id)
    assert view.parent.deleted and reads.DELETED_TEXT in view.parent.html
    assert "secret" not in view.parent.html
    assert [r.id for r in view.replies] == [reply.id]
    assert reads.search(db, actor, "secret").total == 0
    # The tombstone goes once its last reply does.
    service.delete_message(db, actor, reply.id)
    assert db.get(Message, parent.id) is None


def test_deleted_message_cannot_be_edited_or_replied_to(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    parent = service.post_message(db, actor, facts.public_id, "p")
    service.post_message(db, actor, facts.public_id, "r", thread_parent_id=parent.id)
    service.delete_message(db, actor, parent.id)
    with pytest.raises(NotFound):
        service.edit_message(db, actor, parent.id, "back")
    with pytest.raises(ValidationError):
        service.post_message(db, actor, facts.public_id, "r2", thread_parent_id=parent.id)


# -- reactions, pins, saved ----------------------------------------------------------------


def test_toggle_reaction_adds_then_removes(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    mid = facts.public_message_id
    where = (Reaction.message_id == mid, Reaction.employee_id == actor.id, Reaction.emoji == "tada")
    assert service.toggle_reaction(db, actor, mid, ":tada:") is True
    assert count(db, Reaction, *where) == 1
    view = reads.message(db, actor, mid)
    tada = next(r for r in view.reactions if r.emoji == "tada")
    assert tada.reacted_by_me and actor.display_name in tada.names
    assert service.toggle_reaction(db, actor, mid, "tada") is False
    assert count(db, Reaction, *where) == 0


def test_unknown_reaction_is_refused(db, facts: ChatFacts):
    with pytest.raises(ValidationError):
        service.toggle_reaction(
            db, employee(db, facts.public_member), facts.public_message_id, "<script>"
        )


def test_every_reaction_and_status_emoji_renders():
    assert all(emoji_char(name) for name in service.STATUS_EMOJI)
    assert 30 <= len(service.REACTION_EMOJI) <= 50


def test_reacting_needs_membership(db, facts: ChatFacts):
    with pytest.raises(Forbidden):
        service.toggle_reaction(
            db, employee(db, facts.public_non_member), facts.public_message_id, "tada"
        )


def test_pin_and_unpin(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, "pin me")
    service.pin(db, actor, posted.id)
    assert posted.id in [m.id for m in reads.pinned(db, actor, facts.public_id)]
    assert db.scalars(select(Pin).where(Pin.message_id == posted.id)).one().pinned_by_id == actor.id
    with pytest.raises(Conflict):
        service.pin(db, actor, posted.id)
    service.unpin(db, actor, posted.id)
    assert posted.id not in [m.id for m in reads.pinned(db, actor, facts.public_id)]
    with pytest.raises(Conflict):
        service.unpin(db, actor, posted.id)


def test_save_and_unsave(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    mid = facts.public_message_id
    if reads.message(db, actor, mid).saved:
        service.unsave(db, actor, mid)
    service.save(db, actor, mid)
    assert mid in [m.id for m in reads.saved(db, actor)]
    assert reads.message(db, actor, mid).saved
    with pytest.raises(Conflict):
        service.save(db, actor, mid)
    service.unsave(db, actor, mid)
    assert mid not in [m.id for m in reads.saved(db, actor)]


def test_saved_hides_messages_of_channels_the_actor_left(db, facts: ChatFacts):
    actor = employee(db, facts.private_member)
    service.save(db, actor, facts.private_message_id)
    db.execute(
        Membership.__table__.delete().where(
            Membership.channel_id == facts.private_id, Membership.employee_id == actor.id
        )
    )
    assert facts.private_message_id not in [m.id for m in reads.saved(db, actor)]


def test_mentions_lists_messages_mentioning_the_actor(db, facts: ChatFacts):
    author = employee(db, facts.public_member)
    target = employee(db, facts.public_non_member)
    posted = service.post_message(db, author, facts.public_id, f"ping @{target.display_name}")
    found = reads.mentions(db, target)
    assert found[0].id == posted.id
    older = reads.mentions(db, target, before_id=posted.id)
    assert posted.id not in [m.id for m in older]


# -- channels ------------------------------------------------------------------------------


def test_create_channel_makes_the_creator_and_invitees_members(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    invitee = facts.public_non_member
    detail = service.create_channel(
        db,
        actor,
        "q3-planning",
        is_private=True,
        topic="Plans",
        description="All about Q3",
        member_ids=[invitee.id],
    )
    row = db.get(Channel, detail.id)
    assert (row.name, row.is_private, row.kind, row.topic) == (
        "q3-planning",
        True,
        "channel",
        "Plans",
    )
    assert row.created_by_id == actor.id
    assert is_member(db, row.id, actor.id) and is_member(db, row.id, invitee.id)
    assert detail.member_count == 2 and detail.can_post


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Give the channel a name"),
        ("Q3-Planning", "lowercase"),
        ("q3 planning", "spaces"),
        ("q3.planning!", "only contain"),
        ("x" * 81, "at most 80"),
        ("dm-1-2", "reserved"),
    ],
)
def test_bad_channel_names_get_a_clear_message(db, facts, name, message):
    before = count(db, Channel)
    with pytest.raises(ValidationError, match=message) as caught:
        service.create_channel(db, employee(db, facts.public_member), name)
    assert caught.value.field == "name"
    assert count(db, Channel) == before


def test_duplicate_channel_name_conflicts_even_with_private_names(db, facts: ChatFacts):
    actor = employee(db, facts.private_non_member)
    with pytest.raises(Conflict):
        service.create_channel(db, actor, facts.public_name)
    with pytest.raises(Conflict):
        service.create_channel(db, actor, facts.private_name)


def test_channel_name_of_exactly_80_characters_is_fine(db, facts: ChatFacts):
    detail = service.create_channel(db, employee(db, facts.public_member), "a" * 80)
    assert detail.name == "a" * 80


def test_create_channel_refuses_inactive_invitees(db, facts: ChatFacts):
    with pytest.raises(ValidationError, match="deactivated"):
        service.create_channel(
            db, employee(db, facts.public_member), "new-one", member_ids=[facts.inactive.id]
        )


def test_set_topic_and_description(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.set_topic(db, actor, facts.public_id, "  New\ntopic ")
    service.set_description(db, actor, facts.public_id, "Purpose")
    row = db.get(Channel, facts.public_id)
    assert (row.topic, row.description) == ("New topic", "Purpose")
    with pytest.raises(ValidationError):
        service.set_topic(db, actor, facts.public_id, "x" * 251)


def test_set_topic_needs_membership(db, facts: ChatFacts):
    with pytest.raises(Forbidden):
        service.set_topic(db, employee(db, facts.public_non_member), facts.public_id, "mine")


def test_join_public_channel(db, facts: ChatFacts):
    actor = employee(db, facts.public_non_member)
    detail = service.join_channel(db, actor, facts.public_id)
    assert detail.is_member and is_member(db, facts.public_id, actor.id)
    with pytest.raises(Conflict):
        service.join_channel(db, actor, facts.public_id)


def test_joining_a_private_channel_is_not_found(db, facts: ChatFacts):
    with pytest.raises(NotFound):
        service.join_channel(db, employee(db, facts.private_non_member), facts.private_id)


def test_leave_channel(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.leave_channel(db, actor, facts.public_id)
    assert not is_member(db, facts.public_id, actor.id)
    with pytest.raises(Conflict):
        service.leave_channel(db, actor, facts.public_id)


def test_nobody_leaves_general_or_a_dm(db, facts: ChatFacts):
    with pytest.raises(Forbidden):
        service.leave_channel(db, employee(db, facts.public_member), facts.general_id)
    with pytest.raises(Forbidden):
        service.leave_channel(db, employee(db, facts.dm_a), facts.dm_id)


def test_invite_adds_active_people(db, facts: ChatFacts):
    actor = employee(db, facts.private_member)
    added = service.invite(db, actor, facts.private_id, [facts.private_non_member.id])
    assert [p.id for p in added] == [facts.private_non_member.id]
    assert is_member(db, facts.private_id, facts.private_non_member.id)
    with pytest.raises(Conflict):
        service.invite(db, actor, facts.private_id, [facts.private_non_member.id])


def test_invite_refuses_inactive_people_and_writes_nothing(db, facts: ChatFacts):
    actor = employee(db, facts.private_member)
    before = count(db, Membership)
    with pytest.raises(ValidationError, match="deactivated"):
        service.invite(
            db, actor, facts.private_id, [facts.private_non_member.id, facts.inactive.id]
        )
    assert count(db, Membership) == before


def test_invite_needs_membership(db, facts: ChatFacts):
    with pytest.raises(Forbidden):
        service.invite(
            db, employee(db, facts.public_non_member), facts.public_id, [facts.inactive.id]
        )


def test_archive_and_unarchive(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.archive_channel(db, actor, facts.public_id)
    assert db.get(Channel, facts.public_id).archived_at is not None
    with pytest.raises(Forbidden):
        service.post_message(db, actor, facts.public_id, "still here?")
    with pytest.raises(Forbidden):
        service.set_topic(db, actor, facts.public_id, "t")
    with pytest.raises(Forbidden):
        service.toggle_reaction(db, actor, facts.public_message_id, "tada")
    with pytest.raises(Conflict):
        service.archive_channel(db, actor, facts.public_id)
    service.unarchive_channel(db, actor, facts.public_id)
    assert db.get(Channel, facts.public_id).archived_at is None
    with pytest.raises(Conflict):
        service.unarchive_channel(db, actor, facts.public_id)


def test_general_cannot_be_archived(db, facts: ChatFacts):
    with pytest.raises(Forbidden, match="general"):
        service.archive_channel(db, employee(db, facts.public_member), facts.general_id)


def test_archive_needs_membership(db, facts: ChatFacts):
    with pytest.raises(Forbidden):
        service.archive_channel(db, employee(db, facts.public_non_member), facts.public_id)


def test_archived_channel_still_allows_personal_state(db, facts: ChatFacts):
    actor = employee(db, facts.archived_member)
    message_id = reads.history(db, actor, facts.archived_id).messages[-1].id
    service.mark_read(db, actor, facts.archived_id)
    if not reads.message(db, actor, message_id).saved:
        service.save(db, actor, message_id)
    assert reads.message(db, actor, message_id).saved


# -- DMs, read markers, status -------------------------------------------------------------


def test_open_dm_reuses_the_existing_conversation(db, facts: ChatFacts):
    actor = employee(db, facts.dm_a)
    assert service.open_dm(db, actor, [facts.dm_b.id]).id == facts.dm_id


def test_open_dm_creates_dm_and_group_dm_named_like_the_generator(db, facts: ChatFacts):
    actor = employee(db, facts.dm_a)
    other = facts.public_non_member.id
    dm = service.open_dm(db, actor, [other])
    a, b = sorted((actor.id, other))
    assert (dm.name, dm.kind, dm.is_private) == (f"dm-{a}-{b}", "dm", True)
    assert service.open_dm(db, actor, [other, actor.id]).id == dm.id
    group = service.open_dm(db, actor, [other, facts.dm_b.id])
    ids = sorted((actor.id, other, facts.dm_b.id))
    assert group.name == "mpdm-" + "-".join(map(str, ids)) and group.kind == "group_dm"
    assert group.member_count == 3


def test_open_dm_validates_people(db, facts: ChatFacts):
    actor = employee(db, facts.dm_a)
    with pytest.raises(ValidationError):
        service.open_dm(db, actor, [])
    with pytest.raises(ValidationError):
        service.open_dm(db, actor, [actor.id])
    with pytest.raises(ValidationError):
        service.open_dm(db, actor, [facts.inactive.id])
    with pytest.raises(ValidationError):
        service.open_dm(db, actor, [999_999])
    active = [p.id for p in reads.people(db, limit=500) if p.id != actor.id]
    with pytest.raises(ValidationError, match="at most 8"):
        service.open_dm(db, actor, active[:9])


def test_mark_read_never_moves_backwards(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.mark_read(db, actor, facts.public_id)
    membership = db.scalars(
        select(Membership).where(
            Membership.channel_id == facts.public_id, Membership.employee_id == actor.id
        )
    ).one()
    newest = membership.last_read_message_id
    assert newest == reads.history(db, actor, facts.public_id).messages[-1].id
    service.mark_read(db, actor, facts.public_id, facts.public_message_id)
    db.refresh(membership)
    assert membership.last_read_message_id == newest


def test_set_status(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.set_status(db, actor, ":palm_tree:", " Away  until Monday ")
    row = db.get(Employee, actor.id)
    assert (row.status_emoji, row.status_text) == ("palm_tree", "Away until Monday")
    service.set_status(db, actor, "", "")
    assert (row.status_emoji, row.status_text) == ("", "")
    with pytest.raises(ValidationError):
        service.set_status(db, actor, "not_an_emoji", "x")
    with pytest.raises(ValidationError):
        service.set_status(db, actor, "", "x" * 101)
