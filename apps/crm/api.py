"""The CRM's JSON API: the same functions as the pages (`reads` and `service`), as JSON under
`/crm/api`, on the web kit's API blueprint (`officegym.apps.web.jsonapi`).

Auth is the web session cookie (sign in through `/login`); without it every route answers 401.
Errors are `{"error": {"status", "title", "message", "field"?, "fields"?, "duplicates"?}}`
where `fields` maps each bad field to its message (400/401/403/404/409/422) and `duplicates`
lists the records a refused likely duplicate resembles.

CSRF: every unsafe request (POST, PATCH, DELETE) must carry the header
`X-Requested-With: officegym` (or a valid `X-CSRFToken`); see the kit.

Record values are stored values: dates as ISO strings, amounts as whole numbers, references as
ids. Writes accept the same (references also by name: an account's name, an owner's email).
`GET /crm/api/openapi.json` describes every route (OpenAPI 3.1).
"""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.errors import ValidationError
from officegym.apps.web.jsonapi import api_blueprint, field, json_body, ok, plain

from . import csvio, duplicates, listing, reads, reports, service
from .fields import OBJECTS
from .openapi import document

api_bp = api_blueprint("crm_api", __name__)

LIST_KEYS = "any(accounts,contacts,leads,opportunities,activities)"
RECORD_KEYS = "any(accounts,contacts,leads,opportunities,activities,notes)"


def _actor():
    return current_user()


def _record_json(record: reads.Record, *, full: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "object": record.key,
        "id": record.id,
        "title": record.title,
        "owner": plain(record.owner),
        "values": plain(dict(record.values)),
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat() if record.updated_at else None,
        "can_edit": record.can_edit,
    }
    if full:
        out["related"] = [
            {"object": r.key, "title": r.title, "total": r.total, "rows": plain(list(r.rows))}
            for r in record.related
        ]
        out["open_activities"] = plain(list(record.open_activities))
        out["past_activities"] = plain(list(record.past_activities))
        out["notes"] = plain(list(record.notes))
        out["history"] = plain(list(record.history))
        out["converted"] = plain(dict(record.converted))
    return out


def _list_json(page: listing.ListPage) -> dict[str, Any]:
    rows = []
    for row in page.rows:
        rows.append({k: plain(v) for k, v in row.items()})
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
    return ok(out)


@api_bp.get(f"/<{LIST_KEYS}:key>")
@login_required
def list_records(key: str):
    page = listing.list_records(get_db(), _actor(), key, request.args)
    return ok(_list_json(listing.check(page)))


@api_bp.post(f"/<{RECORD_KEYS}:key>")
@login_required
def create(key: str):
    data = json_body()
    allow = bool(data.pop("allow_duplicate", False))
    db = get_db()
    record_id = service.create(db, _actor(), key, data, allow_duplicate=allow)
    return ok(_record_json(reads.record(db, _actor(), key, record_id, related=False)), 201)


@api_bp.get(f"/<{RECORD_KEYS}:key>/<int:record_id>")
@login_required
def record(key: str, record_id: int):
    return ok(_record_json(reads.record(get_db(), _actor(), key, record_id), full=True))


@api_bp.patch(f"/<{RECORD_KEYS}:key>/<int:record_id>")
@login_required
def update(key: str, record_id: int):
    data = json_body()
    if not data:
        raise ValidationError("Send the fields to change as a JSON object.")
    db = get_db()
    changes = service.update(db, _actor(), key, record_id, data)
    out = _record_json(reads.record(db, _actor(), key, record_id, related=False))
    out["changed"] = [c.field for c in changes]
    return ok(out)


@api_bp.delete(f"/<{RECORD_KEYS}:key>/<int:record_id>")
@login_required
def delete(key: str, record_id: int):
    service.delete(get_db(), _actor(), key, record_id)
    return Response(status=204)


@api_bp.get(f"/<{RECORD_KEYS}:key>/<int:record_id>/history")
@login_required
def history(key: str, record_id: int):
    return ok(list(reads.history(get_db(), key, record_id)))


@api_bp.post(f"/<{LIST_KEYS}:key>/bulk")
@login_required
def bulk(key: str):
    data = json_body()
    ids = data.get("ids")
    if not isinstance(ids, list):
        raise ValidationError("'ids' must be a list of record ids.", "ids")
    name = data.get("field")
    if not isinstance(name, str):
        raise ValidationError("'field' must name the field to set.", "field")
    changed = service.bulk_update(get_db(), _actor(), key, ids, name, data.get("value"))
    return ok({"changed": changed})


@api_bp.post("/opportunities/<int:record_id>/stage")
@login_required
def move_stage(record_id: int):
    data = json_body()
    db = get_db()
    service.move_stage(db, _actor(), record_id, data.get("stage"))
    return ok(_record_json(reads.record(db, _actor(), "opportunities", record_id, related=False)))


@api_bp.post("/activities/<int:record_id>/complete")
@login_required
def complete(record_id: int):
    db = get_db()
    service.complete_activity(db, _actor(), record_id)
    return ok(_record_json(reads.record(db, _actor(), "activities", record_id, related=False)))


@api_bp.get("/leads/<int:lead_id>/conversion-candidates")
@login_required
def conversion_candidates(lead_id: int):
    _, accounts, contacts = reads.conversion_candidates(get_db(), _actor(), lead_id)
    return ok({"accounts": accounts, "contacts": contacts})


@api_bp.post("/leads/<int:lead_id>/convert")
@login_required
def convert(lead_id: int):
    data = json_body()
    result = service.convert_lead(
        get_db(),
        _actor(),
        lead_id,
        account_id=field(data, "account_id", int),
        account_name=data.get("account_name")
        if isinstance(data.get("account_name"), str)
        else None,
        contact_id=field(data, "contact_id", int),
        create_opportunity=bool(data.get("create_opportunity", True)),
        opportunity_name=data.get("opportunity_name")
        if isinstance(data.get("opportunity_name"), str)
        else None,
        owner_id=data.get("owner_id"),
        allow_duplicate=bool(data.get("allow_duplicate", False)),
    )
    return ok(result, 201)


@api_bp.get("/duplicates/<any(accounts,contacts,leads):key>")
@login_required
def duplicate_groups(key: str):
    return ok(duplicates.duplicate_groups(get_db(), key))


@api_bp.post("/<any(accounts,contacts,leads):key>/merge")
@login_required
def merge(key: str):
    data = json_body()
    picks = data.get("picks") or {}
    if not isinstance(picks, dict):
        raise ValidationError("'picks' must map field names to record ids.", "picks")
    db = get_db()
    kept = service.merge(
        db, _actor(), key, data.get("ids") or [], field(data, "master_id", int), picks
    )
    return ok(_record_json(reads.record(db, _actor(), key, kept, related=False)))


@api_bp.post("/contacts/import")
@login_required
def import_contacts():
    """Import contacts from CSV text; `mapping` maps header names to fields (default: guessed
    from the headers); `dry_run` checks every row without writing."""
    data = json_body()
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
        return ok({"valid": len(results) - len(rejected), "rejected": rejected, "imported": 0})
    report = service.import_contacts(db, _actor(), table, mapping)
    return ok(
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
    out = plain(data)
    out["win_rate"] = data.win_rate
    return ok(out)


@api_bp.get("/openapi.json")
def openapi():
    """The OpenAPI 3.1 document for this API (public: it holds no world data)."""
    return jsonify(document())


__all__ = ["api_bp"]
