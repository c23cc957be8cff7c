"""The CRM's JSON API: the same service functions as the pages, as JSON under `/crm/api`.

Auth is the web session cookie (sign in through `/login`); without it every route answers 401.
Errors are `{"error": {"status", "title", "message", "field"?, "fields"?}}` where `fields` maps
each bad field to its message (400/401/403/404/409/422).

CSRF: the API is exempt from the form token check; instead every unsafe request (POST, PATCH,
DELETE) must carry the header `X-Requested-With: officegym` (or a valid `X-CSRFToken`), which a
page on another site can't send without a CORS preflight this server never grants.

Record values are stored values: dates as ISO strings, amounts as whole numbers, references as
ids. Writes accept the same (references also by name: an account's name, an owner's email).
`GET /crm/api/openapi.json` describes every route (OpenAPI 3.1).
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from typing import Any

from flask import Blueprint, Response, jsonify, request
from flask.blueprints import BlueprintSetupState
from flask_wtf.csrf import validate_csrf
from werkzeug.exceptions import BadRequest
from wtforms import ValidationError as CSRFTokenError

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import TITLES
from officegym.apps.web.world import SAFE_METHODS

from . import csvio, duplicates, listing, reports, service
from .errors import CrmError, ValidationError
from .fields import OBJECTS

api_bp = Blueprint("crm_api", __name__)

CSRF_HEADER = "X-Requested-With"
CSRF_HEADER_VALUE = "officegym"
LIST_KEYS = "any(accounts,contacts,leads,opportunities,activities)"
RECORD_KEYS = "any(accounts,contacts,leads,opportunities,activities,notes)"


@api_bp.record_once
def _exempt_from_form_csrf(state: BlueprintSetupState) -> None:
    csrf = state.app.extensions.get("csrf")
    if csrf is not None:
        csrf.exempt(api_bp)


def _error(status: int, message: str, field: str | None = None, fields=None):
    body: dict[str, Any] = {
        "status": status,
        "title": TITLES.get(status, "Error"),
        "message": message,
    }
    if field:
        body["field"] = field
    if fields:
        body["fields"] = dict(fields)
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


@api_bp.errorhandler(CrmError)
def _crm_error(error: CrmError):
    fields = error.errors if isinstance(error, ValidationError) else None
    response, status = _error(error.status, error.message, error.field, fields)
    if getattr(error, "duplicates", ()):
        body = response.get_json()
        body["error"]["duplicates"] = _plain(list(error.duplicates))
        response = jsonify(body)
    return response, status


def _plain(value: Any) -> Any:
    """Read models as JSON-ready values (dates as ISO 8601, tuples as lists)."""
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


def _actor():
    return current_user()


def _record_json(record: service.Record, *, full: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "object": record.key,
        "id": record.id,
        "title": record.title,
        "owner": _plain(record.owner),
        "values": _plain(dict(record.values)),
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat() if record.updated_at else None,
        "can_edit": record.can_edit,
    }
    if full:
        out["related"] = [
            {"object": r.key, "title": r.title, "total": r.total, "rows": _plain(list(r.rows))}
            for r in record.related
        ]
        out["open_activities"] = _plain(list(record.open_activities))
        out["past_activities"] = _plain(list(record.past_activities))
        out["notes"] = _plain(list(record.notes))
        out["history"] = _plain(list(record.history))
        out["converted"] = _plain(dict(record.converted))
    return out


def _list_json(page: listing.ListPage) -> dict[str, Any]:
    rows = []
    for row in page.rows:
        rows.append({k: _plain(v) for k, v in row.items()})
    return {
        "object": page.key,
        "total": page.total,
        "page": page.page,
        "per_page": page.per_page,
        "pages": page.pages,
        "sort": page.sort,
        "dir": page.direction,
        "view": page.view.key if page.view else None,
        "params": dict(page.params),
        "rows": rows,
    }


# -- objects and lists --------------------------------------------------------------------


@api_bp.get("/objects")
@login_required
def objects():
    """Every object type with its fields, picklists, list views and filters."""
    out = []
    for spec in OBJECTS.values():
        out.append(
            {
                "object": spec.key,
                "singular": spec.singular,
                "plural": spec.plural,
                "fields": [
                    {
                        "name": f.name,
                        "label": f.label,
                        "kind": f.kind,
                        "required": f.required,
                        "choices": list(f.choices),
                        "max_length": f.max_length,
                        "editable": f.form,
                    }
                    for f in spec.fields
                ],
                "views": [
                    {"key": v.key, "label": v.label, "params": dict(v.params)}
                    for v in listing.VIEWS.get(spec.key, ())
                ],
                "bulk_fields": list(service.BULK_FIELDS.get(spec.key, ())),
            }
        )
    return _ok(out)


@api_bp.get(f"/<{LIST_KEYS}:key>")
@login_required
def list_records(key: str):
    page = listing.list_records(get_db(), _actor(), key, request.args)
    return _ok(_list_json(listing.check(page)))


@api_bp.post(f"/<{RECORD_KEYS}:key>")
@login_required
def create(key: str):
    data = _json()
    allow = bool(data.pop("allow_duplicate", False))
    db = get_db()
    record_id = service.create(db, _actor(), key, data, allow_duplicate=allow)
    return _ok(_record_json(service.record(db, _actor(), key, record_id, related=False)), 201)


@api_bp.get(f"/<{RECORD_KEYS}:key>/<int:record_id>")
@login_required
def record(key: str, record_id: int):
    return _ok(_record_json(service.record(get_db(), _actor(), key, record_id), full=True))


@api_bp.patch(f"/<{RECORD_KEYS}:key>/<int:record_id>")
@login_required
def update(key: str, record_id: int):
    data = _json()
    if not data:
        raise ValidationError("Send the fields to change as a JSON object.")
    db = get_db()
    changes = service.update(db, _actor(), key, record_id, data)
    out = _record_json(service.record(db, _actor(), key, record_id, related=False))
    out["changed"] = [c.field for c in changes]
    return _ok(out)


@api_bp.delete(f"/<{RECORD_KEYS}:key>/<int:record_id>")
@login_required
def delete(key: str, record_id: int):
    service.delete(get_db(), _actor(), key, record_id)
    return Response(status=204)


@api_bp.get(f"/<{RECORD_KEYS}:key>/<int:record_id>/history")
@login_required
def history(key: str, record_id: int):
    return _ok(list(service.history(get_db(), key, record_id)))


@api_bp.post(f"/<{LIST_KEYS}:key>/bulk")
@login_required
def bulk(key: str):
    data = _json()
    ids = data.get("ids")
    if not isinstance(ids, list):
        raise ValidationError("'ids' must be a list of record ids.", "ids")
    field = data.get("field")
    if not isinstance(field, str):
        raise ValidationError("'field' must name the field to set.", "field")
    changed = service.bulk_update(get_db(), _actor(), key, ids, field, data.get("value"))
    return _ok({"changed": changed})


@api_bp.post("/opportunities/<int:record_id>/stage")
@login_required
def move_stage(record_id: int):
    data = _json()
    db = get_db()
    service.move_stage(db, _actor(), record_id, data.get("stage"))
    return _ok(
        _record_json(service.record(db, _actor(), "opportunities", record_id, related=False))
    )


@api_bp.post("/activities/<int:record_id>/complete")
@login_required
def complete(record_id: int):
    db = get_db()
    service.complete_activity(db, _actor(), record_id)
    return _ok(_record_json(service.record(db, _actor(), "activities", record_id, related=False)))


@api_bp.get("/leads/<int:lead_id>/conversion-candidates")
@login_required
def conversion_candidates(lead_id: int):
    _, accounts, contacts = service.conversion_candidates(get_db(), _actor(), lead_id)
    return _ok({"accounts": accounts, "contacts": contacts})


def _opt_int(data: dict, name: str) -> int | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(f"'{name}' must be an id.", name)
    return value


@api_bp.post("/leads/<int:lead_id>/convert")
@login_required
def convert(lead_id: int):
    data = _json()
    result = service.convert_lead(
        get_db(),
        _actor(),
        lead_id,
        account_id=_opt_int(data, "account_id"),
        account_name=data.get("account_name")
        if isinstance(data.get("account_name"), str)
        else None,
        contact_id=_opt_int(data, "contact_id"),
        create_opportunity=bool(data.get("create_opportunity", True)),
        opportunity_name=data.get("opportunity_name")
        if isinstance(data.get("opportunity_name"), str)
        else None,
        owner_id=data.get("owner_id"),
        allow_duplicate=bool(data.get("allow_duplicate", False)),
    )
    return _ok(result, 201)


@api_bp.get("/duplicates/<any(accounts,contacts,leads):key>")
@login_required
def duplicate_groups(key: str):
    return _ok(duplicates.duplicate_groups(get_db(), key))


@api_bp.post("/<any(accounts,contacts,leads):key>/merge")
@login_required
def merge(key: str):
    data = _json()
    picks = data.get("picks") or {}
    if not isinstance(picks, dict):
        raise ValidationError("'picks' must map field names to record ids.", "picks")
    db = get_db()
    kept = service.merge(
        db, _actor(), key, data.get("ids") or [], _opt_int(data, "master_id"), picks
    )
    return _ok(_record_json(service.record(db, _actor(), key, kept, related=False)))


@api_bp.post("/contacts/import")
@login_required
def import_contacts():
    """Import contacts from CSV text; `mapping` maps header names to fields (default: guessed
    from the headers); `dry_run` checks every row without writing."""
    data = _json()
    text = data.get("csv")
    if not isinstance(text, str):
        raise ValidationError("'csv' must hold the file's text.", "csv")
    table = csvio.read(text)
    raw_mapping = data.get("mapping")
    if raw_mapping is None:
        mapping = csvio.guess_mapping(table.headers)
    elif isinstance(raw_mapping, dict):
        mapping = {}
        for header, name in raw_mapping.items():
            if header not in table.headers:
                raise ValidationError(f"The file has no column named “{header}”.", "mapping")
            mapping[table.headers.index(header)] = name
    else:
        raise ValidationError("'mapping' must map column headers to field names.", "mapping")
    db = get_db()
    if data.get("dry_run"):
        results = service.plan_import(db, _actor(), table, mapping)
        rejected = [r for r in results if not r.ok]
        return _ok({"valid": len(results) - len(rejected), "rejected": rejected, "imported": 0})
    report = service.import_contacts(db, _actor(), table, mapping)
    return _ok(
        {
            "imported": report.imported,
            "contact_ids": report.contact_ids,
            "rejected": report.rejected,
            "total_rows": report.total_rows,
        },
        201 if report.imported else 200,
    )


@api_bp.get("/reports/pipeline")
@login_required
def pipeline_report():
    data = reports.pipeline(
        get_db(), _actor(), request.args.get("scope", ""), request.args.get("close", "")
    )
    out = _plain(data)
    out["win_rate"] = data.win_rate
    return _ok(out)


@api_bp.get("/openapi.json")
def openapi():
    """The OpenAPI 3.1 document for this API (public: it holds no world data)."""
    from .openapi import document

    return jsonify(document())


__all__ = ["CSRF_HEADER", "CSRF_HEADER_VALUE", "api_bp"]
