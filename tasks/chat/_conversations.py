"""Direct messages and group DMs: the name chat gives a conversation, whether the world
already has it, and what a task ending in a direct message expects to find."""

from __future__ import annotations

import sqlite3

from officegym.apps.chat.access import dm_name
from officegym.tasks import expect
from officegym.tasks.match import Matcher


def conversation_name(people: list[int]) -> str:
    """The name chat gives the DM or group DM of `people` (the app's `access.dm_name`)."""
    return dm_name(set(people))


def existing_conversation(world: sqlite3.Connection, people: list[int]) -> int | None:
    """The id of the DM or group DM of exactly `people` if the world has it, else None."""
    row = world.execute(
        "SELECT id FROM chat_channel WHERE name = ?", (conversation_name(people),)
    ).fetchone()
    return row[0] if row else None


def dm_expectations(
    dm_channel_id: int | None, user_id: int, others: list[int], body: Matcher, what: str
) -> list[expect.Expectation]:
    """A new message by `user_id` whose body matches `body` in their conversation with
    `others`; when it did not exist (`dm_channel_id` None), also the conversation the user
    opened (a DM for one other person, a group DM for more) and everyone's membership.

    The message is the task's change; the conversation and its memberships are steps on the
    way (`core=False`): opening the DM and sending nothing earns nothing."""
    message = {"author_id": user_id, "thread_parent_id": None, "body": body}
    if dm_channel_id is not None:
        return [expect.inserted("chat_message", name=what, channel_id=dm_channel_id, **message)]
    # Chat names a conversation after its people and makes it private.
    kind = "dm" if len(others) == 1 else "group_dm"
    channel = expect.inserted(
        "chat_channel",
        name=f"{kind} opened",
        core=False,
        columns={"name": conversation_name([user_id, *others])},
        kind=kind,
        created_by_id=user_id,
        is_private=True,
    )
    members = [
        expect.inserted(
            "chat_membership",
            name=f"employee #{person} in the {kind}",
            core=False,
            channel_id=channel.pk,
            employee_id=person,
        )
        for person in (user_id, *others)
    ]
    return [
        channel,
        *members,
        expect.inserted("chat_message", name=what, channel_id=channel.pk, **message),
    ]


__all__ = ["conversation_name", "dm_expectations", "existing_conversation"]
