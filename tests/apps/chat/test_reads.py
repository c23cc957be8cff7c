"""Chat's reads: what each page and API read shows, on a fresh tiny world."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.chat import reads, service
from officegym.apps.chat.service import UploadedFile
from officegym.apps.web.errors import NotFound
from officegym.seed_data.clock import now
from officegym.seed_data.schema.chat import Membership

from .conftest import ChatFacts, employee

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def count(db: Session, model, *where) -> int:
    return db.scalar(select(func.count()).select_from(model).where(*where))


def test_sidebar_lists_the_actors_channels_and_dms_with_labels(db, facts: ChatFacts):
    actor = employee(db, facts.dm_a)
    bar = reads.sidebar(db, actor)
    channel_ids = {c.id for c in bar.channels}
    mine = set(db.scalars(select(Membership.channel_id).where(Membership.employee_id == actor.id)))
    assert channel_ids | {d.id for d in bar.dms} <= mine
    dm = next(d for d in bar.dms if d.id == facts.dm_id)
    assert dm.label == facts.dm_b.name
    assert all(c.label == f"#{c.name}" for c in bar.channels)
    assert [c.name for c in bar.channels] == sorted(c.name for c in bar.channels)


def test_sidebar_leaves_out_archived_channels(db, facts: ChatFacts):
    actor = employee(db, facts.archived_member)
    assert facts.archived_id not in {c.id for c in reads.sidebar(db, actor).channels}


def test_sidebar_counts_unread_messages_and_mentions(db, facts: ChatFacts):
    reader = employee(db, facts.public_member)
    writer = next(
        e for e in reads.members(db, reader, facts.public_id) if e.id != reader.id and e.is_active
    )
    service.mark_read(db, reader, facts.public_id)
    before = next(c for c in reads.sidebar(db, reader).channels if c.id == facts.public_id)
    assert (before.unread, before.mentions) == (0, 0)
    author = employee(db, writer.id)
    service.post_message(db, author, facts.public_id, "plain update")
    service.post_message(db, author, facts.public_id, f"hey @{reader.display_name} look")
    after = next(c for c in reads.sidebar(db, reader).channels if c.id == facts.public_id)
    assert (after.unread, after.mentions) == (2, 1)


def test_group_dm_label_joins_the_other_names(db, facts: ChatFacts):
    actor = employee(db, facts.dm_a)
    others = [facts.dm_b.id, facts.public_non_member.id]
    detail = service.open_dm(db, actor, others)
    names = sorted(employee(db, i).display_name for i in others)
    assert detail.kind == "group_dm"
    assert detail.label == ", ".join(names)


def test_browse_lists_public_channels_only(db, facts: ChatFacts):
    actor = employee(db, facts.private_member)
    found = reads.browse_channels(db, actor)
    assert all(not c.is_private and c.kind == "channel" and not c.is_archived for c in found)
    assert facts.private_id not in {c.id for c in found}
    assert facts.archived_id in {
        c.id for c in reads.browse_channels(db, actor, include_archived=True)
    }


def test_browse_filters_by_query(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    found = reads.browse_channels(db, actor, facts.public_name)
    assert facts.public_id in {c.id for c in found}
    assert reads.browse_channels(db, actor, "zzz-no-such-thing") == []


def test_channel_detail_reports_membership_and_can_post(db, facts: ChatFacts):
    member = reads.channel(db, employee(db, facts.public_member), facts.public_id)
    outsider = reads.channel(db, employee(db, facts.public_non_member), facts.public_id)
    assert (member.is_member, member.can_post) == (True, True)
    assert (outsider.is_member, outsider.can_post) == (False, False)
    assert member.member_count == count(db, Membership, Membership.channel_id == facts.public_id)
    archived = reads.channel(db, employee(db, facts.archived_member), facts.archived_id)
    assert archived.is_archived and not archived.can_post


def test_channel_by_name_finds_visible_channels(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    assert reads.channel_by_name(db, actor, f"#{facts.public_name}").id == facts.public_id
    with pytest.raises(NotFound):
        reads.channel_by_name(db, employee(db, facts.private_non_member), facts.private_name)


def test_history_pages_backwards_oldest_first(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    page = reads.history(db, actor, facts.public_id, limit=3)
    ids = [m.id for m in page.messages]
    assert ids == sorted(ids) and len(ids) == 3 and page.has_older
    older = reads.history(db, actor, facts.public_id, before_id=page.oldest_id, limit=3)
    assert max(m.id for m in older.messages) < page.oldest_id
    everything = reads.history(db, actor, facts.public_id, limit=200)
    assert not everything.has_older
    assert all(m.thread_parent_id is None or m.also_in_channel for m in everything.messages)


def test_history_around_a_message_for_permalinks(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    everything = [m.id for m in reads.history(db, actor, facts.public_id, limit=200).messages]
    target = everything[len(everything) // 2]
    page = reads.history(db, actor, facts.public_id, limit=6, around_id=target)
    ids = [m.id for m in page.messages]
    at = everything.index(target)
    assert ids == everything[at - 3 : at + 3]
    assert page.has_older and page.has_newer and page.oldest_id == ids[0]
    newest = reads.history(db, actor, facts.public_id, limit=6, around_id=everything[-1])
    assert newest.messages[-1].id == everything[-1] and not newest.has_newer


def test_thread_lists_replies_in_order(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    parent = service.post_message(db, actor, facts.public_id, "parent")
    first = service.post_message(db, actor, facts.public_id, "one", thread_parent_id=parent.id)
    second = service.post_message(db, actor, facts.public_id, "two", thread_parent_id=parent.id)
    view = reads.thread(db, actor, parent.id)
    assert [r.id for r in view.replies] == [first.id, second.id]
    assert view.parent.reply_count == 2
    assert view.parent.reply_authors[0].id == actor.id
    assert reads.thread(db, actor, first.id).parent.id == parent.id
    assert first.id not in {m.id for m in reads.history(db, actor, facts.public_id).messages}


def test_also_in_channel_reply_shows_in_history(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    parent = service.post_message(db, actor, facts.public_id, "parent")
    reply = service.post_message(
        db, actor, facts.public_id, "shared", thread_parent_id=parent.id, also_in_channel=True
    )
    assert reply.id in {m.id for m in reads.history(db, actor, facts.public_id).messages}


def test_members_lists_channel_members(db, facts: ChatFacts):
    found = reads.members(db, employee(db, facts.public_member), facts.public_id)
    assert len(found) == count(db, Membership, Membership.channel_id == facts.public_id)


def test_people_and_profile(db, facts: ChatFacts):
    found = reads.people(db, facts.public_member.name.split()[0])
    assert facts.public_member.id in {p.id for p in found}
    assert facts.inactive.id not in {p.id for p in reads.people(db, limit=500)}
    profile = reads.profile(db, facts.public_member.id)
    person = employee(db, facts.public_member)
    assert profile.employee.email == person.email
    assert profile.timezone == person.timezone
    assert profile.local_time.endswith(("AM", "PM"))
    with pytest.raises(NotFound):
        reads.profile(db, 999_999)


def test_profile_local_time_follows_the_world_clock(db, facts: ChatFacts):
    person = employee(db, facts.public_member)
    expected = reads.local_time(now(db), person.timezone)
    assert reads.profile(db, person.id).local_time == expected


def test_mention_candidates_match_name_word_prefixes(db, facts: ChatFacts):
    last = facts.public_member.name.split()[-1]
    found = reads.mention_candidates(db, last[:3].lower())
    assert facts.public_member.id in {p.id for p in found}
    assert all(p.is_active for p in found)


def test_channel_candidates_exclude_invisible_channels(db, facts: ChatFacts):
    outsider = employee(db, facts.private_non_member)
    names = {c.name for c in reads.channel_candidates(db, outsider, "", limit=100)}
    assert facts.private_name not in names and facts.public_name in names
    assert not any(n.startswith(("dm-", "mpdm-")) for n in names)


def test_permalink_gives_channel_and_thread(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    parent = service.post_message(db, actor, facts.public_id, "p")
    reply = service.post_message(db, actor, facts.public_id, "r", thread_parent_id=parent.id)
    assert reads.permalink(db, actor, reply.id) == (facts.public_id, reply.id, parent.id)


def test_attachment_returns_the_bytes(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(
        db, actor, facts.public_id, "", files=[UploadedFile("a.png", "image/png", PNG)]
    )
    row = reads.attachment(db, actor, posted.attachments[0].id)
    assert row.data == PNG and row.content_type == "image/png"
