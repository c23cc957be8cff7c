"""Chat's JSON API: the same service functions as the pages, as JSON under `/chat/api`.

Auth is the web session cookie (sign in through `/login`); without it every route answers 401.
Errors are `{"error": {"status", "title", "message", "field"?}}` with 400/401/403/404/409/422.

CSRF: the API is exempt from the form token check, and instead every unsafe request (POST, PUT,
PATCH, DELETE) must carry the header `X-Requested-With: officegym` (or a valid `X-CSRFToken`).
A page on another site cannot send a custom header cross-origin without a CORS preflight,
which this server never grants, so a forged request from a browser never gets through.

`GET /chat/api/openapi.json` describes every route (OpenAPI 3.1).
"""

from __future__ import annotations

import dataclasses
import io
from datetime import date, datetime
from typing import Any

from flask import Blueprint, Response, jsonify, request, send_file
from flask.blueprints import BlueprintSetupState
from flask_wtf.csrf import validate_csrf
from werkzeug.exceptions import BadRequest
from wtforms import ValidationError as CSRFTokenError

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import TITLES
from officegym.apps.web.world import SAFE_METHODS

from . import service

api_bp = Blueprint("chat_api", __name__)

CSRF_HEADER = "X-Requested-With"
CSRF_HEADER_VALUE = "officegym"


@api_bp.record_once
def _exempt_from_form_csrf(state: BlueprintSetupState) -> None:
    csrf = state.app.extensions.get("csrf")
    if csrf is not None:
        csrf.exempt(api_bp)


def _error(status: int, message: str, field: str | None = None) -> tuple[Response, int]:
    body: dict[str, Any] = {
        "status": status,
        "title": TITLES.get(status, "Error"),
        "message": message,
    }
    if field:
        body["field"] = field
    return jsonify(error=body), status


@api_bp.before_request
def _require_api_header():
    if request.method in SAFE_METHODS:
        return None
    if request.headers.get(CSRF_HEADER) == CSRF_HEADER_VALUE:
        return None
    token = request.headers.get("X-CSRFToken") or request.headers.get("X-CSRF-Token")
    if token:
        try:
            validate_csrf(token)
            return None
        except CSRFTokenError:
            pass
    return _error(
        403,
        f"Send the header '{CSRF_HEADER}: {CSRF_HEADER_VALUE}' with requests that change data.",
    )


@api_bp.errorhandler(service.ChatError)
def _chat_error(error: service.ChatError):
    return _error(error.status, error.message, error.field)


def _plain(value: Any) -> Any:
    """Read models as JSON-ready values (datetimes as ISO 8601, tuples as lists)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


def _ok(value: Any, status: int = 200):
    return jsonify(_plain(value)), status


def _json() -> dict[str, Any]:
    if not request.data:
        return {}
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadRequest("Send a JSON object as the request body.")
    return data


def _field(data: dict, name: str, kind: type, default: Any = None, required: bool = False):
    if name not in data or data[name] is None:
        if required:
            raise service.ValidationError(f"'{name}' is required.", name)
        return default
    value = data[name]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise service.ValidationError(f"'{name}' must be an integer.", name)
    if kind is not int and not isinstance(value, kind):
        raise service.ValidationError(f"'{name}' must be a {kind.__name__}.", name)
    return value


def _int_list(data: dict, name: str) -> list[int]:
    value = data.get(name)
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise service.ValidationError(f"'{name}' must be a list of employee ids.", name)
    return value


def _arg_int(name: str, default: int | None = None) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise service.ValidationError(f"'{name}' must be an integer.", name) from None


def _flag(name: str) -> bool:
    return request.args.get(name, "").lower() in ("1", "true", "yes", "on")


def _actor():
    return current_user()


# -- channels ------------------------------------------------------------------------------


@api_bp.get("/sidebar")
@login_required
def sidebar():
    return _ok(service.sidebar(get_db(), _actor()))


@api_bp.get("/channels")
@login_required
def browse_channels():
    found = service.browse_channels(
        get_db(), _actor(), request.args.get("q", ""), include_archived=_flag("include_archived")
    )
    return _ok(found)


@api_bp.post("/channels")
@login_required
def create_channel():
    data = _json()
    created = service.create_channel(
        get_db(),
        _actor(),
        _field(data, "name", str, required=True),
        is_private=_field(data, "is_private", bool, False),
        topic=_field(data, "topic", str, ""),
        description=_field(data, "description", str, ""),
        member_ids=_int_list(data, "member_ids") if "member_ids" in data else (),
    )
    return _ok(created, 201)


@api_bp.get("/channels/<int:channel_id>")
@login_required
def channel(channel_id: int):
    return _ok(service.channel(get_db(), _actor(), channel_id))


@api_bp.get("/channels/by-name/<name>")
@login_required
def channel_by_name(name: str):
    return _ok(service.channel_by_name(get_db(), _actor(), name))


@api_bp.patch("/channels/<int:channel_id>")
@login_required
def update_channel(channel_id: int):
    data = _json()
    if "topic" not in data and "description" not in data:
        raise service.ValidationError("Send a 'topic' or a 'description' to change.")
    db, actor = get_db(), _actor()
    result = None
    if "topic" in data:
        result = service.set_topic(db, actor, channel_id, _field(data, "topic", str, ""))
    if "description" in data:
        description = _field(data, "description", str, "")
        result = service.set_description(db, actor, channel_id, description)
    return _ok(result)


@api_bp.post("/channels/<int:channel_id>/join")
@login_required
def join_channel(channel_id: int):
    return _ok(service.join_channel(get_db(), _actor(), channel_id))


@api_bp.post("/channels/<int:channel_id>/leave")
@login_required
def leave_channel(channel_id: int):
    service.leave_channel(get_db(), _actor(), channel_id)
    return "", 204


@api_bp.post("/channels/<int:channel_id>/archive")
@login_required
def archive_channel(channel_id: int):
    return _ok(service.archive_channel(get_db(), _actor(), channel_id))


@api_bp.post("/channels/<int:channel_id>/unarchive")
@login_required
def unarchive_channel(channel_id: int):
    return _ok(service.unarchive_channel(get_db(), _actor(), channel_id))


@api_bp.get("/channels/<int:channel_id>/members")
@login_required
def members(channel_id: int):
    return _ok(service.members(get_db(), _actor(), channel_id))


@api_bp.post("/channels/<int:channel_id>/members")
@login_required
def invite(channel_id: int):
    data = _json()
    added = service.invite(get_db(), _actor(), channel_id, _int_list(data, "employee_ids"))
    return _ok(added, 201)


@api_bp.get("/channels/<int:channel_id>/messages")
@login_required
def history(channel_id: int):
    page = service.history(
        get_db(),
        _actor(),
        channel_id,
        before_id=_arg_int("before_id"),
        limit=_arg_int("limit", 50),
        around_id=_arg_int("around_id"),
    )
    return _ok(page)


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
            raise service.ValidationError(
                "'thread_parent_id' must be an integer.", "thread_parent_id"
            ) from None
        body, also, files = (
            form.get("body", ""),
            form.get("also_in_channel") in ("1", "true", "on"),
            _uploaded_files(),
        )
    else:
        data = _json()
        body = _field(data, "body", str, "")
        parent_id = _field(data, "thread_parent_id", int)
        also = _field(data, "also_in_channel", bool, False)
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
    return _ok(posted, 201)


@api_bp.post("/channels/<int:channel_id>/read")
@login_required
def mark_read(channel_id: int):
    data = _json()
    service.mark_read(get_db(), _actor(), channel_id, _field(data, "message_id", int))
    return "", 204


@api_bp.get("/channels/<int:channel_id>/pins")
@login_required
def pinned(channel_id: int):
    return _ok(service.pinned(get_db(), _actor(), channel_id))


# -- messages ------------------------------------------------------------------------------


@api_bp.get("/messages/<int:message_id>")
@login_required
def message(message_id: int):
    return _ok(service.message(get_db(), _actor(), message_id))


@api_bp.patch("/messages/<int:message_id>")
@login_required
def edit_message(message_id: int):
    data = _json()
    body = _field(data, "body", str, required=True)
    return _ok(service.edit_message(get_db(), _actor(), message_id, body))


@api_bp.delete("/messages/<int:message_id>")
@login_required
def delete_message(message_id: int):
    service.delete_message(get_db(), _actor(), message_id)
    return "", 204


@api_bp.get("/messages/<int:message_id>/thread")
@login_required
def thread(message_id: int):
    return _ok(service.thread(get_db(), _actor(), message_id))


@api_bp.post("/messages/<int:message_id>/replies")
@login_required
def reply(message_id: int):
    data = _json()
    db, actor = get_db(), _actor()
    channel_id, _, _ = service.permalink(db, actor, message_id)
    posted = service.post_message(
        db,
        actor,
        channel_id,
        _field(data, "body", str, ""),
        thread_parent_id=message_id,
        also_in_channel=_field(data, "also_in_channel", bool, False),
    )
    return _ok(posted, 201)


@api_bp.post("/messages/<int:message_id>/reactions")
@login_required
def toggle_reaction(message_id: int):
    data = _json()
    db, actor = get_db(), _actor()
    added = service.toggle_reaction(
        db, actor, message_id, _field(data, "emoji", str, required=True)
    )
    return _ok({"added": added, "message": service.message(db, actor, message_id)})


@api_bp.put("/messages/<int:message_id>/pin")
@login_required
def pin(message_id: int):
    db, actor = get_db(), _actor()
    service.pin(db, actor, message_id)
    return _ok(service.message(db, actor, message_id))


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
    return _ok(service.message(db, actor, message_id))


@api_bp.delete("/messages/<int:message_id>/save")
@login_required
def unsave(message_id: int):
    service.unsave(get_db(), _actor(), message_id)
    return "", 204


@api_bp.get("/messages/<int:message_id>/permalink")
@login_required
def permalink(message_id: int):
    channel_id, found_id, parent_id = service.permalink(get_db(), _actor(), message_id)
    return _ok({"channel_id": channel_id, "message_id": found_id, "thread_parent_id": parent_id})


@api_bp.get("/files/<int:attachment_id>")
@login_required
def download(attachment_id: int):
    row = service.attachment(get_db(), _actor(), attachment_id)
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
    return _ok(service.saved(get_db(), _actor()))


@api_bp.get("/mentions")
@login_required
def mentions():
    found = service.mentions(
        get_db(), _actor(), before_id=_arg_int("before_id"), limit=_arg_int("limit", 50)
    )
    return _ok(found)


@api_bp.put("/me/status")
@login_required
def set_status():
    data = _json()
    updated = service.set_status(
        get_db(), _actor(), _field(data, "emoji", str, ""), _field(data, "text", str, "")
    )
    return _ok(updated)


@api_bp.post("/dms")
@login_required
def open_dm():
    data = _json()
    return _ok(service.open_dm(get_db(), _actor(), _int_list(data, "employee_ids")))


@api_bp.get("/search")
@login_required
def search():
    results = service.search(
        get_db(),
        _actor(),
        request.args.get("q", ""),
        page=_arg_int("page", 1),
        per_page=_arg_int("per_page", 20),
    )
    return _ok(results)


@api_bp.get("/people")
@login_required
def people():
    found = service.people(
        get_db(),
        request.args.get("q", ""),
        limit=_arg_int("limit", 50),
        offset=_arg_int("offset", 0),
    )
    return _ok(found)


@api_bp.get("/people/<int:employee_id>")
@login_required
def profile(employee_id: int):
    return _ok(service.profile(get_db(), employee_id))


@api_bp.get("/autocomplete/people")
@login_required
def mention_candidates():
    found = service.mention_candidates(
        get_db(), request.args.get("prefix", ""), limit=_arg_int("limit", 8)
    )
    return _ok(found)


@api_bp.get("/autocomplete/channels")
@login_required
def channel_candidates():
    found = service.channel_candidates(
        get_db(), _actor(), request.args.get("prefix", ""), limit=_arg_int("limit", 8)
    )
    return _ok(found)


@api_bp.get("/openapi.json")
def openapi():
    """The OpenAPI 3.1 document for this API (public: it holds no world data)."""
    from .openapi import document

    return jsonify(document())


__all__ = ["CSRF_HEADER", "CSRF_HEADER_VALUE", "api_bp"]
