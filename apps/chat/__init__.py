"""Chat: a Slack-like app of channels, direct messages and threads, mounted at `/chat`."""

from officegym.apps.registry import AppEntry, Child

ICON = (
    '<svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" '
    'stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">'
    '<path d="M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.4-4.9A8 8 0 1 1 21 12z"/>'
    '<path d="M9 10.5h6M9 13.5h4"/></svg>'
)

APP = AppEntry(
    slug="chat",
    name="Chat",
    description="Channels, direct messages and threads",
    icon_svg=ICON,
    endpoint="chat.index",
    blueprint="officegym.apps.chat.blueprint:bp",
    service="officegym.apps.chat.service",
    pages="officegym.apps.chat.pages:main_pages",
    stamps={"chat_message": frozenset({"edited_at"})},
    children={
        # Mentions are re-read from a message's text on every write of it.
        "chat_mention": Child("message_id", "chat_message", "derived"),
        # Files attached in the composer are made with their message.
        "chat_attachment": Child("message_id", "chat_message", "with_parent"),
        # Pins, reactions and bookmarks are separate acts, removed with their message.
        "chat_reaction": Child("message_id", "chat_message", "cascade"),
        "chat_pin": Child("message_id", "chat_message", "cascade"),
        "chat_saved": Child("message_id", "chat_message", "cascade"),
    },
    blanks={
        "chat_message": {
            "thread_parent_id": None,
            "also_in_channel": False,
            "edited_at": None,
            "deleted_at": None,
        },
        "chat_channel": {"is_private": False, "topic": "", "description": "", "archived_at": None},
    },
    # Reading a channel moves the reader's last-read marker.
    honest_variance={"chat_membership": frozenset({"last_read_message_id"})},
)

__all__ = ["APP"]
