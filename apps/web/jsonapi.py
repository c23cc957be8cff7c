"""The apps' JSON APIs share one kit: the CSRF header guard, the error envelope and replies.

    api_bp = api_blueprint("crm_api", __name__)

    @api_bp.get("/accounts/<int:account_id>")
    @login_required
    def account(account_id):
        return ok(service.record(get_db(), current_user(), "accounts", account_id))

Auth is the web session cookie; without it every route answers 401. A refusal (`AppError`)
becomes `{"error": {"status", "title", "message", "field"?, ...details}}` with its status.

CSRF: an API blueprint is exempt from the form token check; instead every unsafe request
(POST, PUT, PATCH, DELETE) must carry the header `X-Requested-With: officegym` (or a valid
`X-CSRFToken`). A page on another site cannot send a custom header cross-origin without a
CORS preflight, which this server never grants, so a forged request never gets through.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import date, datetime
from typing import Any

from flask import Blueprint, Response, jsonify, request
from flask.blueprints import BlueprintSetupState
from flask_wtf.csrf import validate_csrf
from werkzeug.exceptions import BadRequest
from wtforms import ValidationError as CSRFTokenError

from .errors import TITLES, AppError, ValidationError
from .inputs import MAX_QUERY_INT, SQLITE_INT_MAX, SQLITE_INT_MIN, parse_json_body
from .world import SAFE_METHODS

_SIGNED_DIGITS = re.compile(r"-?[0-9]+")

CSRF_HEADER = "X-Requested-With"
CSRF_HEADER_VALUE = "officegym"


def api_blueprint(name: str, import_name: str) -> Blueprint:
    """A blueprint for an app's JSON API: exempt from form CSRF, guarded by the header, and
    answering every `AppError` with the error envelope."""
    bp = Blueprint(name, import_name)

    @bp.record_once
    def _exempt_from_form_csrf(state: BlueprintSetupState) -> None:
        csrf = state.app.extensions.get("csrf")
        if csrf is not None:
            csrf.exempt(bp)

    bp.before_request(_require_api_header)
    bp.register_error_handler(AppError, _app_error)
    return bp


def error(
    status: int, message: str, field: str | None = None, **details: Any
) -> tuple[Response, int]:
    """The error envelope: `{"error": {"status", "title", "message", "field"?, **details}}`."""
    body: dict[str, Any] = {
        "status": status,
        "title": TITLES.get(status, "Error"),
        "message": message,
    }
    if field:
        body["field"] = field
    body.update(plain(details))
    return jsonify(error=body), status


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
    return error(
        403,
        f"Send the header '{CSRF_HEADER}: {CSRF_HEADER_VALUE}' with requests that change data.",
    )


def _app_error(refusal: AppError):
    return error(refusal.status, refusal.message, refusal.field, **refusal.details())


def plain(value: Any) -> Any:
    """Read models as JSON-ready values (dataclasses as objects, dates as ISO 8601, tuples as
    lists)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


def ok(value: Any, status: int = 200) -> tuple[Response, int]:
    """`value` as a JSON reply."""
    return jsonify(plain(value)), status


def json_body() -> dict[str, Any]:
    """The request's JSON object (empty without a body); anything else is a 400, and so is
    nesting deeper than `inputs.MAX_JSON_DEPTH` or a lone surrogate in a string; an integer
    outside SQLite's 64 bits is a 422 (see `inputs.parse_json_body`)."""
    raw = request.get_data(cache=True)
    if not raw:
        return {}
    if not request.is_json:
        raise BadRequest("Send a JSON object as the request body.")
    data = parse_json_body(raw)
    if not isinstance(data, dict):
        raise BadRequest("Send a JSON object as the request body.")
    return data


def field(data: dict, name: str, kind: type, default: Any = None, required: bool = False) -> Any:
    """`data[name]` checked to be a `kind` (a bool is not an int); missing or null gives
    `default`, or a 422 when `required`."""
    if name not in data or data[name] is None:
        if required:
            raise ValidationError(f"'{name}' is required.", name)
        return default
    value = data[name]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValidationError(f"'{name}' must be an integer.", name)
    if kind is int and not SQLITE_INT_MIN <= value <= SQLITE_INT_MAX:
        raise ValidationError(f"'{name}' is out of range.", name)
    if kind is not int and not isinstance(value, kind):
        raise ValidationError(f"'{name}' must be a {kind.__name__}.", name)
    return value


def arg_int(name: str, default: int | None = None) -> int | None:
    """The query argument `name` as an integer (`default` when absent), or a 422. A number
    beyond ±`inputs.MAX_QUERY_INT` counts as that bound: a cursor or id that large is past
    every row, as it would be if the database could hold it."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    text = raw.strip()
    if not _SIGNED_DIGITS.fullmatch(text):
        raise ValidationError(f"'{name}' must be an integer.", name)
    negative = text.startswith("-")
    digits = text.lstrip("-").lstrip("0") or "0"
    if len(digits) > len(str(MAX_QUERY_INT)):
        return -MAX_QUERY_INT if negative else MAX_QUERY_INT
    return max(-MAX_QUERY_INT, min(MAX_QUERY_INT, int(text)))


def flag(name: str) -> bool:
    """The query argument `name` as a yes/no switch (1, true, yes, on)."""
    return request.args.get(name, "").lower() in ("1", "true", "yes", "on")


__all__ = [
    "CSRF_HEADER",
    "CSRF_HEADER_VALUE",
    "api_blueprint",
    "arg_int",
    "error",
    "field",
    "flag",
    "json_body",
    "ok",
    "plain",
]
