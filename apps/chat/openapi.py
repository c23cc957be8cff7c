"""The OpenAPI 3.1 document of the chat JSON API (api.py), written by hand on the kit's
scaffold (`officegym.apps.web.openapi`): chat's schemas and paths; the error envelope, the
session cookie and the CSRF header come from the kit."""

from __future__ import annotations

from officegym.apps.web.openapi import (
    BOOL,
    ERRORS,
    IDS,
    INT,
    NULL_INT,
    NULL_TIME,
    STR,
    TIME,
    list_of,
    obj,
    operation,
    param,
    ref,
)
from officegym.apps.web.openapi import document as kit_document

PREFIX = "/chat/api"
DESCRIPTION = "JSON over the chat app's service layer."

SCHEMAS: dict[str, dict] = {
    "EmployeeRef": obj(
        {
            "id": INT,
            "display_name": STR,
            "title": STR,
            "avatar_color": STR,
            "email": STR,
            "is_active": BOOL,
        }
    ),
    "ChannelItem": obj(
        {
            "id": INT,
            "name": STR,
            "label": STR,
            "kind": {"enum": ["channel", "dm", "group_dm"]},
            "is_private": BOOL,
            "is_archived": BOOL,
            "unread": INT,
            "mentions": INT,
        }
    ),
    "ChannelDetail": obj(
        {
            "id": INT,
            "name": STR,
            "label": STR,
            "kind": {"enum": ["channel", "dm", "group_dm"]},
            "is_private": BOOL,
            "is_archived": BOOL,
            "topic": STR,
            "description": STR,
            "created_by": ref("EmployeeRef"),
            "created_at": TIME,
            "member_count": INT,
            "is_member": BOOL,
            "can_post": BOOL,
        }
    ),
    "Reaction": obj(
        {
            "emoji": STR,
            "count": INT,
            "reacted_by_me": BOOL,
            "names": {"type": "array", "items": STR},
        }
    ),
    "Attachment": obj({"id": INT, "filename": STR, "content_type": STR, "size": INT}),
    "Message": obj(
        {
            "id": INT,
            "channel_id": INT,
            "author": ref("EmployeeRef"),
            "body": STR,
            "html": {"type": "string", "description": "sanitised HTML of the markdown body"},
            "created_at": TIME,
            "edited_at": NULL_TIME,
            "deleted": BOOL,
            "thread_parent_id": NULL_INT,
            "also_in_channel": BOOL,
            "reply_count": INT,
            "last_reply_at": NULL_TIME,
            "reply_authors": list_of("EmployeeRef"),
            "reactions": list_of("Reaction"),
            "attachments": list_of("Attachment"),
            "pinned": BOOL,
            "saved": BOOL,
            "is_mine": BOOL,
        }
    ),
    "Sidebar": obj({"channels": list_of("ChannelItem"), "dms": list_of("ChannelItem")}),
    "HistoryPage": obj(
        {
            "messages": list_of("Message"),
            "has_older": BOOL,
            "oldest_id": NULL_INT,
            "has_newer": BOOL,
        }
    ),
    "Thread": obj(
        {"parent": ref("Message"), "replies": list_of("Message"), "channel": ref("ChannelDetail")}
    ),
    "SearchResults": obj(
        {
            "query": STR,
            "total": INT,
            "page": INT,
            "per_page": INT,
            "hits": {
                "type": "array",
                "items": obj(
                    {
                        "message": ref("Message"),
                        "channel": ref("ChannelItem"),
                        "snippet_html": STR,
                    }
                ),
            },
            "filters": {"type": "object"},
            "errors": {"type": "array", "items": STR},
        }
    ),
    "Profile": obj(
        {
            "employee": ref("EmployeeRef"),
            "team": STR,
            "department": STR,
            "manager": {"oneOf": [ref("EmployeeRef"), {"type": "null"}]},
            "office": STR,
            "office_city": STR,
            "timezone": STR,
            "local_time": STR,
            "phone": {"type": ["string", "null"]},
            "status_emoji": STR,
            "status_text": STR,
            "reports": list_of("EmployeeRef"),
        }
    ),
    "Permalink": obj({"channel_id": INT, "message_id": INT, "thread_parent_id": NULL_INT}),
    "ReactionResult": obj({"added": BOOL, "message": ref("Message")}),
}


_CID = param("channel_id")
_MID = param("message_id")


def document() -> dict:
    """The whole document (paths relative to `PREFIX`)."""
    paths: dict[str, dict] = {
        "/sidebar": {"get": operation("Your channels and DMs with unread counts", ref("Sidebar"))},
        "/channels": {
            "get": operation(
                "Browse public channels",
                list_of("ChannelDetail"),
                params=(param("q", "query"), param("include_archived", "query", BOOL)),
            ),
            "post": operation(
                "Create a channel",
                ref("ChannelDetail"),
                status="201",
                write=True,
                body=obj(
                    {
                        "name": STR,
                        "is_private": BOOL,
                        "topic": STR,
                        "description": STR,
                        "member_ids": IDS,
                    },
                    ("name",),
                ),
            ),
        },
        "/channels/{channel_id}": {
            "get": operation("A channel", ref("ChannelDetail"), params=(_CID,)),
            "patch": operation(
                "Set the topic and/or description",
                ref("ChannelDetail"),
                params=(_CID,),
                write=True,
                body=obj({"topic": STR, "description": STR}),
            ),
        },
        "/channels/by-name/{name}": {
            "get": operation(
                "A channel by name", ref("ChannelDetail"), params=(param("name", schema=STR),)
            )
        },
        "/channels/{channel_id}/join": {
            "post": operation(
                "Join a public channel", ref("ChannelDetail"), params=(_CID,), write=True
            )
        },
        "/channels/{channel_id}/leave": {
            "post": operation("Leave a channel", None, status="204", params=(_CID,), write=True)
        },
        "/channels/{channel_id}/archive": {
            "post": operation("Archive a channel", ref("ChannelDetail"), params=(_CID,), write=True)
        },
        "/channels/{channel_id}/unarchive": {
            "post": operation(
                "Unarchive a channel", ref("ChannelDetail"), params=(_CID,), write=True
            )
        },
        "/channels/{channel_id}/members": {
            "get": operation("Members", list_of("EmployeeRef"), params=(_CID,)),
            "post": operation(
                "Invite people",
                list_of("EmployeeRef"),
                status="201",
                params=(_CID,),
                write=True,
                body=obj({"employee_ids": IDS}, ("employee_ids",)),
            ),
        },
        "/channels/{channel_id}/messages": {
            "get": operation(
                "History, oldest first, paged backwards",
                ref("HistoryPage"),
                params=(
                    _CID,
                    param("before_id", "query", INT),
                    param("around_id", "query", INT),
                    param("limit", "query", INT),
                ),
            ),
            "post": operation(
                "Post a message (JSON, or multipart/form-data with body and files)",
                ref("Message"),
                status="201",
                params=(_CID,),
                write=True,
                body=obj(
                    {"body": STR, "thread_parent_id": INT, "also_in_channel": BOOL}, ("body",)
                ),
            ),
        },
        "/channels/{channel_id}/read": {
            "post": operation(
                "Mark read up to a message (default: the newest)",
                None,
                status="204",
                params=(_CID,),
                write=True,
                body=obj({"message_id": INT}),
            )
        },
        "/channels/{channel_id}/pins": {
            "get": operation("Pinned messages", list_of("Message"), params=(_CID,))
        },
        "/messages/{message_id}": {
            "get": operation("A message", ref("Message"), params=(_MID,)),
            "patch": operation(
                "Edit your message",
                ref("Message"),
                params=(_MID,),
                write=True,
                body=obj({"body": STR}, ("body",)),
            ),
            "delete": operation(
                "Delete your message", None, status="204", params=(_MID,), write=True
            ),
        },
        "/messages/{message_id}/thread": {
            "get": operation("A thread", ref("Thread"), params=(_MID,))
        },
        "/messages/{message_id}/replies": {
            "post": operation(
                "Reply in a thread",
                ref("Message"),
                status="201",
                params=(_MID,),
                write=True,
                body=obj({"body": STR, "also_in_channel": BOOL}, ("body",)),
            )
        },
        "/messages/{message_id}/reactions": {
            "post": operation(
                "Toggle your reaction",
                ref("ReactionResult"),
                params=(_MID,),
                write=True,
                body=obj({"emoji": STR}, ("emoji",)),
            )
        },
        "/messages/{message_id}/pin": {
            "put": operation("Pin", ref("Message"), params=(_MID,), write=True),
            "delete": operation("Unpin", None, status="204", params=(_MID,), write=True),
        },
        "/messages/{message_id}/save": {
            "put": operation("Save for later", ref("Message"), params=(_MID,), write=True),
            "delete": operation(
                "Remove from saved", None, status="204", params=(_MID,), write=True
            ),
        },
        "/messages/{message_id}/permalink": {
            "get": operation("Where a message lives", ref("Permalink"), params=(_MID,))
        },
        "/files/{attachment_id}": {
            "get": {
                "summary": "Download a file",
                "parameters": [param("attachment_id")],
                "responses": {
                    "200": {"description": "The file", "content": {"application/octet-stream": {}}},
                    "401": {"description": ERRORS["401"]},
                    "404": {"description": ERRORS["404"]},
                },
            }
        },
        "/saved": {"get": operation("Your saved messages", list_of("Message"))},
        "/mentions": {
            "get": operation(
                "Messages that mention you",
                list_of("Message"),
                params=(param("before_id", "query", INT), param("limit", "query", INT)),
            )
        },
        "/me/status": {
            "put": operation(
                "Set your status",
                ref("EmployeeRef"),
                write=True,
                body=obj({"emoji": STR, "text": STR}),
            )
        },
        "/dms": {
            "post": operation(
                "Open a DM (1 person) or group DM (2-8)",
                ref("ChannelDetail"),
                write=True,
                body=obj({"employee_ids": IDS}, ("employee_ids",)),
            )
        },
        "/search": {
            "get": operation(
                "Search messages (from:@person in:#channel before: after: on: has:link has:file)",
                ref("SearchResults"),
                params=(
                    param("q", "query"),
                    param("page", "query", INT),
                    param("per_page", "query", INT),
                ),
            )
        },
        "/people": {
            "get": operation(
                "The directory",
                list_of("EmployeeRef"),
                params=(
                    param("q", "query"),
                    param("limit", "query", INT),
                    param("offset", "query", INT),
                ),
            )
        },
        "/people/{employee_id}": {
            "get": operation("A profile", ref("Profile"), params=(param("employee_id"),))
        },
        "/autocomplete/people": {
            "get": operation(
                "People for @-mention autocomplete",
                list_of("EmployeeRef"),
                params=(param("prefix", "query"), param("limit", "query", INT)),
            )
        },
        "/autocomplete/channels": {
            "get": operation(
                "Channels for #-link autocomplete",
                list_of("ChannelItem"),
                params=(param("prefix", "query"), param("limit", "query", INT)),
            )
        },
    }
    return kit_document("chat", PREFIX, DESCRIPTION, SCHEMAS, paths)


__all__ = ["PREFIX", "SCHEMAS", "document"]
