"""The OpenAPI 3.1 document of the chat JSON API (api.py), written by hand."""

from __future__ import annotations

from typing import Any

from .api import CSRF_HEADER, CSRF_HEADER_VALUE

PREFIX = "/chat/api"


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _list(name: str) -> dict:
    return {"type": "array", "items": _ref(name)}


def _obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    return schema


_STR = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_TIME = {"type": "string", "format": "date-time"}
_NTIME = {"type": ["string", "null"], "format": "date-time"}
_NINT = {"type": ["integer", "null"]}
_IDS = {"type": "array", "items": _INT}

SCHEMAS: dict[str, dict] = {
    "Error": _obj(
        {
            "error": _obj(
                {"status": _INT, "title": _STR, "message": _STR, "field": _STR},
                ("status", "title", "message"),
            )
        },
        ("error",),
    ),
    "EmployeeRef": _obj(
        {
            "id": _INT,
            "display_name": _STR,
            "title": _STR,
            "avatar_color": _STR,
            "email": _STR,
            "is_active": _BOOL,
        }
    ),
    "ChannelItem": _obj(
        {
            "id": _INT,
            "name": _STR,
            "label": _STR,
            "kind": {"enum": ["channel", "dm", "group_dm"]},
            "is_private": _BOOL,
            "is_archived": _BOOL,
            "unread": _INT,
            "mentions": _INT,
        }
    ),
    "ChannelDetail": _obj(
        {
            "id": _INT,
            "name": _STR,
            "label": _STR,
            "kind": {"enum": ["channel", "dm", "group_dm"]},
            "is_private": _BOOL,
            "is_archived": _BOOL,
            "topic": _STR,
            "description": _STR,
            "created_by": _ref("EmployeeRef"),
            "created_at": _TIME,
            "member_count": _INT,
            "is_member": _BOOL,
            "can_post": _BOOL,
        }
    ),
    "Reaction": _obj(
        {
            "emoji": _STR,
            "count": _INT,
            "reacted_by_me": _BOOL,
            "names": {"type": "array", "items": _STR},
        }
    ),
    "Attachment": _obj({"id": _INT, "filename": _STR, "content_type": _STR, "size": _INT}),
    "Message": _obj(
        {
            "id": _INT,
            "channel_id": _INT,
            "author": _ref("EmployeeRef"),
            "body": _STR,
            "html": {"type": "string", "description": "sanitised HTML of the markdown body"},
            "created_at": _TIME,
            "edited_at": _NTIME,
            "deleted": _BOOL,
            "thread_parent_id": _NINT,
            "also_in_channel": _BOOL,
            "reply_count": _INT,
            "last_reply_at": _NTIME,
            "reply_authors": _list("EmployeeRef"),
            "reactions": _list("Reaction"),
            "attachments": _list("Attachment"),
            "pinned": _BOOL,
            "saved": _BOOL,
            "is_mine": _BOOL,
        }
    ),
    "Sidebar": _obj({"channels": _list("ChannelItem"), "dms": _list("ChannelItem")}),
    "HistoryPage": _obj(
        {
            "messages": _list("Message"),
            "has_older": _BOOL,
            "oldest_id": _NINT,
            "has_newer": _BOOL,
        }
    ),
    "Thread": _obj(
        {"parent": _ref("Message"), "replies": _list("Message"), "channel": _ref("ChannelDetail")}
    ),
    "SearchResults": _obj(
        {
            "query": _STR,
            "total": _INT,
            "page": _INT,
            "per_page": _INT,
            "hits": {
                "type": "array",
                "items": _obj(
                    {
                        "message": _ref("Message"),
                        "channel": _ref("ChannelItem"),
                        "snippet_html": _STR,
                    }
                ),
            },
            "filters": {"type": "object"},
            "errors": {"type": "array", "items": _STR},
        }
    ),
    "Profile": _obj(
        {
            "employee": _ref("EmployeeRef"),
            "team": _STR,
            "department": _STR,
            "manager": {"oneOf": [_ref("EmployeeRef"), {"type": "null"}]},
            "office": _STR,
            "office_city": _STR,
            "timezone": _STR,
            "local_time": _STR,
            "phone": {"type": ["string", "null"]},
            "status_emoji": _STR,
            "status_text": _STR,
            "reports": _list("EmployeeRef"),
        }
    ),
    "Permalink": _obj({"channel_id": _INT, "message_id": _INT, "thread_parent_id": _NINT}),
    "ReactionResult": _obj({"added": _BOOL, "message": _ref("Message")}),
}

_ERRORS = {
    "400": "Malformed request",
    "401": "Not signed in",
    "403": f"Not allowed (or the {CSRF_HEADER} header is missing on a write)",
    "404": "No such thing, or you may not see it",
    "409": "Conflicts with the current state",
    "422": "Invalid input",
}


def _param(name: str, where: str = "path", schema: dict | None = None) -> dict:
    return {
        "name": name,
        "in": where,
        "required": where == "path",
        "schema": schema or (_INT if where == "path" else _STR),
    }


def _op(
    summary: str,
    ok: dict | None,
    *,
    status: str = "200",
    params: tuple[dict, ...] = (),
    body: dict | None = None,
    write: bool = False,
) -> dict:
    responses: dict[str, Any] = {}
    if ok is None:
        responses[status] = {"description": "Done"}
    else:
        responses[status] = {"description": "OK", "content": {"application/json": {"schema": ok}}}
    for code, text in _ERRORS.items():
        if code == "409" and not write:
            continue
        responses[code] = {
            "description": text,
            "content": {"application/json": {"schema": _ref("Error")}},
        }
    op: dict[str, Any] = {"summary": summary, "responses": responses}
    params_all = list(params)
    if write:
        params_all.append(
            {
                "name": CSRF_HEADER,
                "in": "header",
                "required": True,
                "schema": {"const": CSRF_HEADER_VALUE},
            }
        )
    if params_all:
        op["parameters"] = params_all
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return op


_CID = _param("channel_id")
_MID = _param("message_id")


def document() -> dict:
    """The whole document (paths relative to the server root)."""
    paths: dict[str, dict] = {
        "/sidebar": {"get": _op("Your channels and DMs with unread counts", _ref("Sidebar"))},
        "/channels": {
            "get": _op(
                "Browse public channels",
                _list("ChannelDetail"),
                params=(_param("q", "query"), _param("include_archived", "query", _BOOL)),
            ),
            "post": _op(
                "Create a channel",
                _ref("ChannelDetail"),
                status="201",
                write=True,
                body=_obj(
                    {
                        "name": _STR,
                        "is_private": _BOOL,
                        "topic": _STR,
                        "description": _STR,
                        "member_ids": _IDS,
                    },
                    ("name",),
                ),
            ),
        },
        "/channels/{channel_id}": {
            "get": _op("A channel", _ref("ChannelDetail"), params=(_CID,)),
            "patch": _op(
                "Set the topic and/or description",
                _ref("ChannelDetail"),
                params=(_CID,),
                write=True,
                body=_obj({"topic": _STR, "description": _STR}),
            ),
        },
        "/channels/by-name/{name}": {
            "get": _op(
                "A channel by name", _ref("ChannelDetail"), params=(_param("name", schema=_STR),)
            )
        },
        "/channels/{channel_id}/join": {
            "post": _op("Join a public channel", _ref("ChannelDetail"), params=(_CID,), write=True)
        },
        "/channels/{channel_id}/leave": {
            "post": _op("Leave a channel", None, status="204", params=(_CID,), write=True)
        },
        "/channels/{channel_id}/archive": {
            "post": _op("Archive a channel", _ref("ChannelDetail"), params=(_CID,), write=True)
        },
        "/channels/{channel_id}/unarchive": {
            "post": _op("Unarchive a channel", _ref("ChannelDetail"), params=(_CID,), write=True)
        },
        "/channels/{channel_id}/members": {
            "get": _op("Members", _list("EmployeeRef"), params=(_CID,)),
            "post": _op(
                "Invite people",
                _list("EmployeeRef"),
                status="201",
                params=(_CID,),
                write=True,
                body=_obj({"employee_ids": _IDS}, ("employee_ids",)),
            ),
        },
        "/channels/{channel_id}/messages": {
            "get": _op(
                "History, oldest first, paged backwards",
                _ref("HistoryPage"),
                params=(
                    _CID,
                    _param("before_id", "query", _INT),
                    _param("around_id", "query", _INT),
                    _param("limit", "query", _INT),
                ),
            ),
            "post": _op(
                "Post a message (JSON, or multipart/form-data with body and files)",
                _ref("Message"),
                status="201",
                params=(_CID,),
                write=True,
                body=_obj(
                    {"body": _STR, "thread_parent_id": _INT, "also_in_channel": _BOOL}, ("body",)
                ),
            ),
        },
        "/channels/{channel_id}/read": {
            "post": _op(
                "Mark read up to a message (default: the newest)",
                None,
                status="204",
                params=(_CID,),
                write=True,
                body=_obj({"message_id": _INT}),
            )
        },
        "/channels/{channel_id}/pins": {
            "get": _op("Pinned messages", _list("Message"), params=(_CID,))
        },
        "/messages/{message_id}": {
            "get": _op("A message", _ref("Message"), params=(_MID,)),
            "patch": _op(
                "Edit your message",
                _ref("Message"),
                params=(_MID,),
                write=True,
                body=_obj({"body": _STR}, ("body",)),
            ),
            "delete": _op("Delete your message", None, status="204", params=(_MID,), write=True),
        },
        "/messages/{message_id}/thread": {"get": _op("A thread", _ref("Thread"), params=(_MID,))},
        "/messages/{message_id}/replies": {
            "post": _op(
                "Reply in a thread",
                _ref("Message"),
                status="201",
                params=(_MID,),
                write=True,
                body=_obj({"body": _STR, "also_in_channel": _BOOL}, ("body",)),
            )
        },
        "/messages/{message_id}/reactions": {
            "post": _op(
                "Toggle your reaction",
                _ref("ReactionResult"),
                params=(_MID,),
                write=True,
                body=_obj({"emoji": _STR}, ("emoji",)),
            )
        },
        "/messages/{message_id}/pin": {
            "put": _op("Pin", _ref("Message"), params=(_MID,), write=True),
            "delete": _op("Unpin", None, status="204", params=(_MID,), write=True),
        },
        "/messages/{message_id}/save": {
            "put": _op("Save for later", _ref("Message"), params=(_MID,), write=True),
            "delete": _op("Remove from saved", None, status="204", params=(_MID,), write=True),
        },
        "/messages/{message_id}/permalink": {
            "get": _op("Where a message lives", _ref("Permalink"), params=(_MID,))
        },
        "/files/{attachment_id}": {
            "get": {
                "summary": "Download a file",
                "parameters": [_param("attachment_id")],
                "responses": {
                    "200": {"description": "The file", "content": {"application/octet-stream": {}}},
                    "401": {"description": _ERRORS["401"]},
                    "404": {"description": _ERRORS["404"]},
                },
            }
        },
        "/saved": {"get": _op("Your saved messages", _list("Message"))},
        "/mentions": {
            "get": _op(
                "Messages that mention you",
                _list("Message"),
                params=(_param("before_id", "query", _INT), _param("limit", "query", _INT)),
            )
        },
        "/me/status": {
            "put": _op(
                "Set your status",
                _ref("EmployeeRef"),
                write=True,
                body=_obj({"emoji": _STR, "text": _STR}),
            )
        },
        "/dms": {
            "post": _op(
                "Open a DM (1 person) or group DM (2-8)",
                _ref("ChannelDetail"),
                write=True,
                body=_obj({"employee_ids": _IDS}, ("employee_ids",)),
            )
        },
        "/search": {
            "get": _op(
                "Search messages (from:@person in:#channel before: after: on: has:link has:file)",
                _ref("SearchResults"),
                params=(
                    _param("q", "query"),
                    _param("page", "query", _INT),
                    _param("per_page", "query", _INT),
                ),
            )
        },
        "/people": {
            "get": _op(
                "The directory",
                _list("EmployeeRef"),
                params=(
                    _param("q", "query"),
                    _param("limit", "query", _INT),
                    _param("offset", "query", _INT),
                ),
            )
        },
        "/people/{employee_id}": {
            "get": _op("A profile", _ref("Profile"), params=(_param("employee_id"),))
        },
        "/autocomplete/people": {
            "get": _op(
                "People for @-mention autocomplete",
                _list("EmployeeRef"),
                params=(_param("prefix", "query"), _param("limit", "query", _INT)),
            )
        },
        "/autocomplete/channels": {
            "get": _op(
                "Channels for #-link autocomplete",
                _list("ChannelItem"),
                params=(_param("prefix", "query"), _param("limit", "query", _INT)),
            )
        },
        "/openapi.json": {
            "get": {
                "summary": "This document",
                "security": [],
                "responses": {"200": {"description": "OpenAPI 3.1 document"}},
            }
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "officegym chat API",
            "version": "1",
            "description": (
                "JSON over the chat app's service layer. Sign in through /login; the session "
                f"cookie authenticates. Writes need the header '{CSRF_HEADER}: "
                f"{CSRF_HEADER_VALUE}' (CSRF defence)."
            ),
        },
        "servers": [{"url": PREFIX}],
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "officegym_session"}
            },
        },
        "security": [{"session": []}],
        "paths": paths,
    }


__all__ = ["PREFIX", "SCHEMAS", "document"]
