"""Chat's JSON API: the same reads and writes as the pages, as JSON under `/chat/api`.

Built on the kit's `api_blueprint` (see `officegym.apps.web.jsonapi`): the session cookie
authenticates (every route answers 401 without it), writes need the header
`X-Requested-With: officegym` (CSRF defence), and a refusal from the service layer becomes
`{"error": {"status", "title", "message", "field"?, "fields"?}}` with 400/401/403/404/409/422.

`GET /chat/api/openapi.json` describes every route (OpenAPI 3.1, see `openapi`).
"""

from __future__ import annotations

import io

from flask import jsonify, request, send_file

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import ValidationError
from officegym.apps.web.jsonapi import (
    api_blueprint,
    arg_int,
    field,
    flag,
    json_body,
    ok,
)

from . import reads, service
from .openapi import document as openapi_document

api_bp = api_blueprint("chat_api", __name__)


def _int_list(data: dict, name: str) -> list[int]:
    value = data.get(name)
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise ValidationError(f"'{name}' must be a list of employee ids.", name)
    return value


def _actor():
    return current_user()


# -- channels ------------------------------------------------------------------------------


@api_bp.get("/sidebar")
@login_required
def sidebar():
    return ok(reads.sidebar(get_db(), _actor()))


@api_bp.get("/channels")
@login_required
def browse_channels():
    found = reads.browse_channels(
        get_db(), _actor(), request.args.get("q", ""), include_archived=flag("include_archived")
    )
    return ok(found)


@api_bp.post("/channels")
@login_required
def create_channel():
    data = json_body()
    created = service.create_channel(
        get_db(),
        _actor(),
        field(data, "name", str, required=True),
        is_private=field(data, "is_private", bool, False),
        topic=field(data, "topic", str, ""),
        description=field(data, "description", str, ""),
        member_ids=_int_list(data, "member_ids") if "member_ids" in data else (),
    )
    return ok(created, 201)


@api_bp.get("/channels/<int:channel_id>")
@login_required
def channel(channel_id: int):
    return ok(reads.channel(get_db(), _actor(), channel_id))


@api_bp.get("/channels/by-name/<name>")
@login_required
def channel_by_name(name: str):
    return ok(reads.channel_by_name(get_db(), _actor(), name))


@api_bp.patch("/channels/<int:channel_id>")
@login_required
def update_channel(channel_id: int):
    data = json_body()
    if "topic" not in data and "description" not in data:
        raise ValidationError("Send a 'topic' or a 'description' to change.")
    db, actor = get_db(), _actor()
    result = None
    if "topic" in data:
        result = service.set_topic(db, actor, channel_id, field(data, "topic", str, ""))
    if "description" in data:
        description = field(data, "description", str, "")
        result = service.set_description(db, actor, channel_id, description)
    return ok(result)


@api_bp.post("/channels/<int:channel_id>/join")
@login_required
def join_channel(channel_id: int):
    return ok(service.join_channel(get_db(), _actor(), channel_id))


@api_bp.post("/channels/<int:channel_id>/leave")
@login_required
def leave_channel(channel_id: int):
    service.leave_channel(get_db(), _actor(), channel_id)
    return "", 204


@api_bp.post("/channels/<int:channel_id>/archive")
@login_required
def archive_channel(channel_id: int):
    return ok(service.archive_channel(get_db(), _actor(), channel_id))


@api_bp.post("/channels/<int:channel_id>/unarchive")
@login_required
def unarchive_channel(channel_id: int):
    return ok(service.unarchive_channel(get_db(), _actor(), channel_id))


@api_bp.get("/channels/<int:channel_id>/members")
@login_required
def members(channel_id: int):
    return ok(reads.members(get_db(), _actor(), channel_id))


@api_bp.post("/channels/<int:channel_id>/members")
@login_required
def invite(channel_id: int):
    data = json_body()
    added = service.invite(get_db(), _actor(), channel_id, _int_list(data, "employee_ids"))
    return ok(added, 201)


@api_bp.get("/channels/<int:channel_id>/messages")
@login_required
def history(channel_id: int):
    page = reads.history(
        get_db(),
        _actor(),
        channel_id,
        before_id=arg_int("before_id"),
        limit=arg_int("limit", 50),
        around_id=arg_int("around_id"),
    )
    return ok(page)


def _uploaded_files() -> list[service.UploadedFile]:
    return [
        service.UploadedFile(f.filename or "", f.mimetype or "", f.read())
        for f in request.files.getlist("files")
        if f.filename
    ]


@api_bp.post("/channels/<int:channel_id>/messages")
@login_required
def post_message(channel_id: int):
    """JSON `{body, thread_parent_id?, also_in_channel?}`, or multipart with `files`."""
    if request.mimetype == "multipart/form-data":
        form = request.form
        parent = form.get("thread_parent_id") or None
        try:
            parent_id = int(parent) if parent is not None else None
        except ValueError:
            raise ValidationError(
                "'thread_parent_id' must be an integer.", "thread_parent_id"
            ) from None
        body, also, files = (
            form.get("body", ""),
            form.get("also_in_channel") in ("1", "true", "on"),
            _uploaded_files(),
        )
    else:
        data = json_body()
        body = field(data, "body", str, "")
        parent_id = field(data, "thread_parent_id", int)
        also = field(data, "also_in_channel", bool, False)
        files = []
    posted = service.post_message(
        get_db(),
        _actor(),
        channel_id,
        body,
        thread_parent_id=parent_id,
        also_in_channel=also,
        files=files,
    )
    return ok(posted, 201)


@api_bp.post("/channels/<int:channel_id>/read")
@login_required
def mark_read(channel_id: int):
    data = json_body()
    service.mark_read(get_db(), _actor(), channel_id, field(data, "message_id", int))
    return "", 204


@api_bp.get("/channels/<int:channel_id>/pins")
@login_required
def pinned(channel_id: int):
    return ok(reads.pinned(get_db(), _actor(), channel_id))


# -- messages ------------------------------------------------------------------------------


@api_bp.get("/messages/<int:message_id>")
@login_required
def message(message_id: int):
    return ok(reads.message(get_db(), _actor(), message_id))


@api_bp.patch("/messages/<int:message_id>")
@login_required
def edit_message(message_id: int):
    data = json_body()
    body = field(data, "body", str, required=True)
    return ok(service.edit_message(get_db(), _actor(), message_id, body))


@api_bp.delete("/messages/<int:message_id>")
@login_required
def delete_message(message_id: int):
    service.delete_message(get_db(), _actor(), message_id)
    return "", 204


@api_bp.get("/messages/<int:message_id>/thread")
@login_required
def thread(message_id: int):
    return ok(reads.thread(get_db(), _actor(), message_id))


@api_bp.post("/messages/<int:message_id>/replies")
@login_required
def reply(message_id: int):
    data = json_body()
    db, actor = get_db(), _actor()
    channel_id, _, _ = reads.permalink(db, actor, message_id)
    posted = service.post_message(
        db,
        actor,
        channel_id,
        field(data, "body", str, ""),
        thread_parent_id=message_id,
        also_in_channel=field(data, "also_in_channel", bool, False),
    )
    return ok(posted, 201)


@api_bp.post("/messages/<int:message_id>/reactions")
@login_required
def toggle_reaction(message_id: int):
    data = json_body()
    db, actor = get_db(), _actor()
    added = service.toggle_reaction(db, actor, message_id, field(data, "emoji", str, required=True))
    return ok({"added": added, "message": reads.message(db, actor, message_id)})


@api_bp.put("/messages/<int:message_id>/pin")
@login_required
def pin(message_id: int):
    db, actor = get_db(), _actor()
    service.pin(db, actor, message_id)
    return ok(reads.message(db, actor, message_id))


@api_bp.delete("/messages/<int:message_id>/pin")
@login_required
def unpin(message_id: int):
    service.unpin(get_db(), _actor(), message_id)
    return "", 204


@api_bp.put("/messages/<int:message_id>/save")
@login_required
def save(message_id: int):
    db, actor = get_db(), _actor()
    service.save(db, actor, message_id)
    return ok(reads.message(db, actor, message_id))


@api_bp.delete("/messages/<int:message_id>/save")
@login_required
def unsave(message_id: int):
    service.unsave(get_db(), _actor(), message_id)
    return "", 204


@api_bp.get("/messages/<int:message_id>/permalink")
@login_required
def permalink(message_id: int):
    channel_id, found_id, parent_id = reads.permalink(get_db(), _actor(), message_id)
    return ok({"channel_id": channel_id, "message_id": found_id, "thread_parent_id": parent_id})


@api_bp.get("/files/<int:attachment_id>")
@login_required
def download(attachment_id: int):
    row = reads.attachment(get_db(), _actor(), attachment_id)
    return send_file(
        io.BytesIO(row.data),
        mimetype=row.content_type,
        as_attachment=True,
        download_name=row.filename,
    )


# -- me, people, search --------------------------------------------------------------------


@api_bp.get("/saved")
@login_required
def saved():
    return ok(reads.saved(get_db(), _actor()))


@api_bp.get("/mentions")
@login_required
def mentions():
    found = reads.mentions(
        get_db(), _actor(), before_id=arg_int("before_id"), limit=arg_int("limit", 50)
    )
    return ok(found)


@api_bp.put("/me/status")
@login_required
def set_status():
    data = json_body()
    updated = service.set_status(
        get_db(), _actor(), field(data, "emoji", str, ""), field(data, "text", str, "")
    )
    return ok(updated)


@api_bp.post("/dms")
@login_required
def open_dm():
    data = json_body()
    return ok(service.open_dm(get_db(), _actor(), _int_list(data, "employee_ids")))


@api_bp.get("/search")
@login_required
def search():
    results = reads.search(
        get_db(),
        _actor(),
        request.args.get("q", ""),
        page=arg_int("page", 1),
        per_page=arg_int("per_page", 20),
    )
    return ok(results)


@api_bp.get("/people")
@login_required
def people():
    found = reads.people(
        get_db(),
        request.args.get("q", ""),
        limit=arg_int("limit", 50),
        offset=arg_int("offset", 0),
    )
    return ok(found)


@api_bp.get("/people/<int:employee_id>")
@login_required
def profile(employee_id: int):
    return ok(reads.profile(get_db(), employee_id))


@api_bp.get("/autocomplete/people")
@login_required
def mention_candidates():
    found = reads.mention_candidates(
        get_db(), request.args.get("prefix", ""), limit=arg_int("limit", 8)
    )
    return ok(found)


@api_bp.get("/autocomplete/channels")
@login_required
def channel_candidates():
    found = reads.channel_candidates(
        get_db(), _actor(), request.args.get("prefix", ""), limit=arg_int("limit", 8)
    )
    return ok(found)


@api_bp.get("/openapi.json")
def openapi():
    """The OpenAPI 3.1 document for this API (public: it holds no world data)."""
    return jsonify(openapi_document())


__all__ = ["api_bp"]
