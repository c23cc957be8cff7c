"""Who may see and change what: the rules in `access`, and the permission matrix (member /
non-member × public / private / DM × every kind of access) that reads and writes obey.

Non-members of private channels and DMs get NotFound for everything (exactly as for ids that
don't exist), and search never returns their messages; public channels are readable by
everyone but only members post.
"""

from __future__ import annotations

import pytest

from officegym.apps.chat import access, reads, service
from officegym.apps.chat.service import UploadedFile
from officegym.apps.web.errors import Forbidden, NotFound

from .conftest import ChatFacts, employee

WORD = "xylophonic"
OK = "ok"


def _setup(db, facts: ChatFacts, kind: str):
    channel_id, member, outsider = {
        "public": (facts.public_id, facts.public_member, facts.public_non_member),
        "private": (facts.private_id, facts.private_member, facts.private_non_member),
        "dm": (facts.dm_id, facts.dm_a, facts.dm_outsider),
    }[kind]
    posted = service.post_message(
        db,
        employee(db, member),
        channel_id,
        f"{WORD} plan",
        files=[UploadedFile("plan.txt", "text/plain", b"plan")],
    )
    return channel_id, member, outsider, posted


def _read(db, actor, channel_id, message_id, _attachment_id):
    reads.channel(db, actor, channel_id)
    reads.history(db, actor, channel_id)
    reads.members(db, actor, channel_id)
    reads.pinned(db, actor, channel_id)
    reads.thread(db, actor, message_id)
    reads.message(db, actor, message_id)
    return OK


def _post(db, actor, channel_id, _message_id, _attachment_id):
    service.post_message(db, actor, channel_id, "hello")
    return OK


def _search(db, actor, _channel_id, _message_id, _attachment_id):
    return "found" if reads.search(db, actor, WORD).total else "nothing"


def _permalink(db, actor, channel_id, message_id, _attachment_id):
    assert reads.permalink(db, actor, message_id) == (channel_id, message_id, None)
    return OK


def _attachment(db, actor, _channel_id, _message_id, attachment_id):
    assert reads.attachment(db, actor, attachment_id).data == b"plan"
    return OK


ACTIONS = {
    "read": _read,
    "post": _post,
    "search": _search,
    "permalink": _permalink,
    "attachment": _attachment,
}

EXPECTED = {
    ("public", "member"): {"read": OK, "post": OK, "search": "found", "permalink": OK, "attachment": OK},
    ("public", "non-member"): {"read": OK, "post": Forbidden, "search": "found", "permalink": OK, "attachment": OK},
    ("private", "member"): {"read": OK, "post": OK, "search": "found", "permalink": OK, "attachment": OK},
    ("private", "non-member"): {"read": NotFound, "post": NotFound, "search": "nothing", "permalink": NotFound, "attachment": NotFound},
    ("dm", "member"): {"read": OK, "post": OK, "search": "found", "permalink": OK, "attachment": OK},
    ("dm", "non-member"): {"read": NotFound, "post": NotFound, "search": "nothing", "permalink": NotFound, "attachment": NotFound},
}  # fmt: skip

CASES = [
    pytest.param(kind, who, action, id=f"{kind}-{who}-{action}")
    for (kind, who), outcomes in EXPECTED.items()
    for action in outcomes
]


@pytest.mark.parametrize(("kind", "who", "action"), CASES)
def test_permission_matrix(db, facts: ChatFacts, kind: str, who: str, action: str):
    channel_id, member, outsider, posted = _setup(db, facts, kind)
    actor = employee(db, member if who == "member" else outsider)
    expected = EXPECTED[kind, who][action]
    run = ACTIONS[action]
    args = (db, actor, channel_id, posted.id, posted.attachments[0].id)
    if isinstance(expected, type):
        with pytest.raises(expected):
            run(*args)
    else:
        assert run(*args) == expected


def test_not_found_for_invisible_channels_says_the_same_as_for_missing_ones(db, facts: ChatFacts):
    outsider = employee(db, facts.private_non_member)
    with pytest.raises(NotFound) as hidden:
        reads.channel(db, outsider, facts.private_id)
    with pytest.raises(NotFound) as missing:
        reads.channel(db, outsider, 999_999)
    assert hidden.value.message == missing.value.message
    assert facts.private_name not in hidden.value.message


def test_invisible_channels_are_left_out_of_sidebar_and_browse(db, facts: ChatFacts):
    outsider = employee(db, facts.private_non_member)
    bar = reads.sidebar(db, outsider)
    listed = {c.id for c in bar.channels} | {d.id for d in bar.dms}
    assert facts.private_id not in listed and facts.dm_id not in listed
    browsed = {c.id for c in reads.browse_channels(db, outsider, include_archived=True)}
    assert facts.private_id not in browsed and facts.dm_id not in browsed


def test_outsiders_cannot_act_on_messages_in_private_channels(db, facts: ChatFacts):
    outsider = employee(db, facts.private_non_member)
    mid = facts.private_message_id
    for act in (
        lambda: service.toggle_reaction(db, outsider, mid, "tada"),
        lambda: service.pin(db, outsider, mid),
        lambda: service.save(db, outsider, mid),
        lambda: service.edit_message(db, outsider, mid, "x"),
        lambda: service.delete_message(db, outsider, mid),
        lambda: service.mark_read(db, outsider, facts.private_id),
        lambda: service.invite(db, outsider, facts.private_id, [outsider.id]),
        lambda: service.set_topic(db, outsider, facts.private_id, "x"),
        lambda: service.archive_channel(db, outsider, facts.private_id),
        lambda: service.leave_channel(db, outsider, facts.private_id),
    ):
        with pytest.raises(NotFound):
            act()


def test_mentions_in_channels_the_actor_cannot_see_are_hidden(db, facts: ChatFacts):
    member = employee(db, facts.private_member)
    outsider = employee(db, facts.private_non_member)
    posted = service.post_message(
        db, member, facts.private_id, f"@{outsider.display_name} you are not here"
    )
    assert posted.id not in {m.id for m in reads.mentions(db, outsider)}


def test_open_dm_by_name_collision_never_reveals_others_conversations(db, facts: ChatFacts):
    outsider = employee(db, facts.dm_outsider)
    detail = service.open_dm(db, outsider, [facts.dm_a.id])
    assert detail.id != facts.dm_id and detail.is_member


# -- the rules themselves ------------------------------------------------------------------


def test_is_member_follows_membership_rows(db, facts: ChatFacts):
    assert access.is_member(db, facts.private_id, facts.private_member.id)
    assert not access.is_member(db, facts.private_id, facts.private_non_member.id)


def test_visible_channel_hides_private_channels_and_dms_from_outsiders(db, facts: ChatFacts):
    outsider = employee(db, facts.dm_outsider)
    assert access.visible_channel(db, outsider, facts.public_id).id == facts.public_id
    for hidden in (facts.dm_id, 999_999):
        with pytest.raises(NotFound):
            access.visible_channel(db, outsider, hidden)
    member = employee(db, facts.dm_a)
    assert access.visible_channel(db, member, facts.dm_id).id == facts.dm_id


def test_visible_message_is_not_found_in_invisible_channels(db, facts: ChatFacts):
    member = employee(db, facts.private_member)
    message, channel = access.visible_message(db, member, facts.private_message_id)
    assert (message.id, channel.id) == (facts.private_message_id, facts.private_id)
    outsider = employee(db, facts.private_non_member)
    with pytest.raises(NotFound) as hidden:
        access.visible_message(db, outsider, facts.private_message_id)
    with pytest.raises(NotFound) as missing:
        access.visible_message(db, outsider, 999_999)
    assert hidden.value.message == missing.value.message


def test_writable_channel_needs_membership_and_an_unarchived_channel(db, facts: ChatFacts):
    member = employee(db, facts.public_member)
    assert access.writable_channel(db, member, facts.public_id).id == facts.public_id
    with pytest.raises(Forbidden, match="Join"):
        access.writable_channel(db, employee(db, facts.public_non_member), facts.public_id)
    with pytest.raises(Forbidden, match="archived"):
        access.writable_channel(db, employee(db, facts.archived_member), facts.archived_id)
    with pytest.raises(NotFound):
        access.writable_channel(db, employee(db, facts.private_non_member), facts.private_id)


def test_visible_channel_ids_are_public_channels_and_the_actors_own(db, facts: ChatFacts):
    outsider = employee(db, facts.private_non_member)
    visible = set(db.scalars(access.visible_channel_ids(outsider)))
    assert {facts.public_id, facts.general_id} <= visible
    assert facts.private_id not in visible
    member_visible = set(db.scalars(access.visible_channel_ids(employee(db, facts.dm_a))))
    assert facts.dm_id in member_visible


def test_dm_name_depends_only_on_who_is_in_it():
    assert access.dm_name({7, 3}) == access.dm_name({3, 7}) == "dm-3-7"
    assert access.dm_name({9, 2, 5}) == "mpdm-2-5-9"
