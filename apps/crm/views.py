"""The CRM's pages: server-rendered HTML over `reads` and `service`, every action a plain form
or link.

Reads render pages; writes are POSTs that redirect on success (PRG) and re-render their form
with the service's messages and a 4xx on bad input, so nothing is written (the web kit rolls
the request's transaction back). Inline edit is a link that reopens the record page with one
field as a form; the pipeline board's drag and drop (crm.js) submits the same per-card stage
form a click agent uses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date, datetime
from typing import Any, NamedTuple
from urllib.parse import urlencode

from flask import Response, flash, jsonify, redirect, render_template, request, url_for

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.auth import safe_next
from officegym.apps.web.errors import (
    TITLES,
    AppError,
    Conflict,
    Forbidden,
    NotFound,
    ValidationError,
    error_response,
)
from officegym.apps.web.inputs import parse_int
from officegym.apps.web.localtime import to_local
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import Employee

from . import board, csvio, duplicates, listing, lookups, reads, reports, service
from .access import can_edit, edit_scope
from .blueprint import bp
from .duplicates import LikelyDuplicate
from .fields import (
    KIND_LABELS,
    LEADS,
    OBJECTS,
    OPEN_STAGES,
    STAGE_NAMES,
)

LIST_KEYS = "any(accounts,contacts,leads,opportunities,activities)"
LOOKUP_KINDS = ("employee", "account", "contact")
IMPORT_PREVIEW_ROWS = 10
RECORD_KEYS = "any(accounts,contacts,leads,opportunities,activities,notes)"
NEW_KEYS = RECORD_KEYS

# -- template filters -------------------------------------------------------------------------


@bp.app_template_filter("crm_money")
def money(value: Any) -> str:
    if value is None or value == "":
        return ""
    return f"${int(value):,}"


@bp.app_template_filter("crm_day")
def day(value: Any) -> str:
    """A date as people read it: "Sep 30, 2025"."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        value = date.fromisoformat(value[:10])
    return f"{value:%b} {value.day}, {value.year}"


@bp.app_template_filter("crm_when")
def when(value: datetime | None) -> str:
    """A stored (UTC) time in the viewer's timezone: "Sep 17, 2025, 2:30 PM"."""
    if value is None:
        return ""
    user = current_user()
    local = to_local(value, user.timezone if user is not None else None)
    clock = local.strftime("%I:%M %p").lstrip("0")
    return f"{local:%b} {local.day}, {local.year}, {clock}"


@bp.app_template_filter("crm_kind")
def kind_label(value: str) -> str:
    return KIND_LABELS.get(value, value)


# -- shared pieces ------------------------------------------------------------------------------


def apart(pairs: list[tuple[Any, Any]]) -> list[str]:
    """For links listed together as (name, detail) pairs: what to add to each name, unseen, so
    that no two links read the same: nothing for a name of its own, else " (<detail>)", with a
    count where that repeats too."""
    names = Counter(str(name) for name, _ in pairs)
    full = Counter((str(name), str(detail)) for name, detail in pairs)
    seen: Counter[tuple[str, str]] = Counter()
    out = []
    for name, detail in pairs:
        key = (str(name), str(detail))
        seen[key] += 1
        if names[key[0]] == 1:
            out.append("")
        elif full[key] == 1:
            out.append(f" ({detail})")
        else:
            out.append(f" ({detail}, {seen[key]})" if detail else f" ({seen[key]})")
    return out


def _actor() -> Employee:
    return current_user()


@bp.errorhandler(AppError)
def _refusal(error: AppError):
    """A service refusal no form handles ends the request with the kit's error page."""
    return error_response(error.status, TITLES.get(error.status, "Error"), error.message)


def _candidates(refusal: Conflict) -> tuple[duplicates.Candidate, ...]:
    """The records a refused likely duplicate resembles (none for other conflicts)."""
    return refusal.duplicates if isinstance(refusal, LikelyDuplicate) else ()


def _render(template: str, status: int = 200, **context: Any):
    context.setdefault("section", None)
    return render_template(template, **context), status


def _back(default: str) -> Response:
    return redirect(safe_next(request.form.get("next")) or default)


def _int(value: Any) -> int | None:
    return parse_int(value)


def _ids(name: str = "ids") -> list[int]:
    source = request.form if request.method == "POST" else request.args
    return [i for i in (_int(v) for v in source.getlist(name)) if i is not None]


def list_url(key: str, params: Mapping[str, Any] | None = None, **extra: Any) -> str:
    """The list view of `key` with these query parameters (empty ones dropped)."""
    merged = {**(params or {}), **extra}
    query = {k: v for k, v in merged.items() if v not in (None, "")}
    base = url_for("crm.list_view", key=key)
    return f"{base}?{urlencode(sorted(query.items()))}" if query else base


@bp.context_processor
def _crm_context() -> dict[str, Any]:
    # Record links are built from this prefix: url_for() per row costs a list page milliseconds.
    return {
        "crm_list_url": list_url,
        "crm_objects": OBJECTS,
        "crm_root": url_for("crm.index"),
        "crm_lookup_sources": {
            "employee": url_for("crm.lookup_owners"),
            "account": url_for("crm.lookup_accounts"),
            "contact": url_for("crm.lookup_contacts"),
        },
    }


class Chosen(NamedTuple):
    """What a lookup box shows: the chosen record's id ("" for none) and its name (or the text
    typed without choosing)."""

    id: str
    label: str


def _label(kind: str) -> Callable[[int], str | None]:
    """The name a lookup of `kind` shows for an id, for `lookups.submitted`."""
    return lambda record_id: lookups.label_of(get_db(), kind, record_id)


def _chosen(kind: str, raw: Any) -> Chosen:
    """A submitted lookup value (an id, or typed text) as its box shows it again."""
    if isinstance(raw, Chosen):
        return raw
    if isinstance(raw, int) or (isinstance(raw, str) and raw.isdecimal() and len(raw) < 12):
        label = lookups.label_of(get_db(), kind, int(raw))
        if label is not None:
            return Chosen(str(raw), label)
    return Chosen("", str(raw or ""))


def _shown(spec, values: Mapping[str, Any]) -> dict[str, Any]:
    """Form values to show again: each lookup's as its id and name."""
    shown = dict(values)
    for name, raw in values.items():
        if spec.has(name) and spec.field(name).kind in LOOKUP_KINDS:
            shown[name] = _chosen(spec.field(name).kind, raw)
    return shown


def _form_values(spec, names=None) -> dict[str, Any]:
    """The submitted values of `spec`'s form fields (a lookup's as its id or typed text)."""
    names = names or [f.name for f in spec.form_fields]
    form = request.form
    values: dict[str, Any] = {}
    for name in names:
        kind = spec.field(name).kind
        if kind in LOOKUP_KINDS and (name in form or name + lookups.TEXT_SUFFIX in form):
            values[name] = lookups.submitted(form, name, _label(kind))
        elif name in form:
            values[name] = form.get(name, "")
    return values


def _display_values(spec, record: reads.Record | None) -> dict[str, Any]:
    """What the form inputs hold for a stored record (references as their ids and names)."""
    if record is None:
        return {}
    shown: dict[str, Any] = {}
    for fv in record.fields:
        f = fv.field
        if f.kind in ("account", "contact", "opportunity"):
            shown[f.name] = Chosen(str(fv.link.id), fv.link.title) if fv.link else Chosen("", "")
        elif f.kind == "employee":
            person = fv.person
            shown[f.name] = (
                Chosen(str(person.id), person.display_name) if person else Chosen("", "")
            )
        elif fv.value is None:
            shown[f.name] = ""
        elif f.kind == "date":
            shown[f.name] = fv.value.isoformat()
        else:
            shown[f.name] = str(fv.value)
    return shown


# -- home and search ---------------------------------------------------------------------------


@bp.get("/")
@login_required
def index():
    """The CRM home: your numbers, your open activities and your deals closing soon."""
    db = get_db()
    actor = _actor()
    numbers = reports.my_numbers(db, actor)
    today = world_now(db).date()
    tasks = listing.list_records(
        db, actor, "activities", {"owner": "me", "status": "Open", "per_page": "25"}
    )
    closing = listing.list_records(
        db,
        actor,
        "opportunities",
        {"owner": "me", "stage": "open", "sort": "close_date", "dir": "asc", "per_page": "25"},
    )
    suffixes = apart(
        [(a["subject"], f"due {day(a['due_date'])}" if a["due_date"] else "") for a in tasks.rows]
    )
    return _render(
        "crm/home.html",
        section="home",
        suffixes=suffixes,
        numbers=numbers,
        tasks=tasks,
        closing=closing,
        today=today,
        quarter=listing.quarter_of(today),
    )


@bp.get("/search")
@login_required
def search():
    """Search accounts, contacts, leads and opportunities at once."""
    query = " ".join(request.args.get("q", "").split())
    results = []
    if query:
        db = get_db()
        for key in ("accounts", "contacts", "leads", "opportunities"):
            page = listing.list_records(db, _actor(), key, {"q": query, "per_page": "25"})
            results.append((OBJECTS[key], page))
    found = [
        ((spec.key, row["id"]), row[page.columns[0].name], _search_detail(spec, row))
        for spec, page in results
        for row in page.rows
    ]
    suffixes = dict(
        zip([k for k, _, _ in found], apart([(t, d) for _, t, d in found]), strict=True)
    )
    return _render("crm/search.html", section=None, query=query, results=results, suffixes=suffixes)


def _search_detail(spec, row: Mapping[str, Any]) -> str:
    """What tells a search result from another of the same name (in any section)."""
    more = row.get("account") or row.get("company") or row.get("email") or ""
    return f"{spec.singular.lower()}{f' at {more}' if more else ''}"


# -- lookups ----------------------------------------------------------------------------------


def _choices(found: list[lookups.Choice]) -> Response:
    response = jsonify(found)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/lookup/owners")
@login_required
def lookup_owners():
    """People a lookup box offers as owners while one types `q` (JSON list of `{id, label,
    detail}`): active employees; with `filter=1` (list filters) also "Me", "My team" and
    people who have left."""
    filtering = request.args.get("filter") == "1"
    q = request.args.get("q", "")
    return _choices(lookups.people(get_db(), _actor(), q, former=filtering, scopes=filtering))


@bp.get("/lookup/accounts")
@login_required
def lookup_accounts():
    """Accounts whose name holds what was typed (`q`), as JSON choices."""
    return _choices(lookups.accounts(get_db(), request.args.get("q", "")))


@bp.get("/lookup/contacts")
@login_required
def lookup_contacts():
    """Contacts whose name or email holds `q`, those of `account` first, as JSON choices."""
    account = _int(request.args.get("account"))
    return _choices(lookups.contacts(get_db(), request.args.get("q", ""), account))


# -- list views -------------------------------------------------------------------------------


_OWNER_SCOPES = {"me": "Me", "team": "My team"}
# The column that tells apart two rows of a list whose names are the same.
_ROW_DETAIL = {
    "accounts": "billing_city",
    "contacts": "account",
    "leads": "company",
    "opportunities": "account",
    "activities": "due_date",
}


def _owner_filter(args: Mapping[str, str]) -> tuple[dict[str, str], str | None, str]:
    """A list's or the board's query parameters with the owner filter's lookup read: `owner`
    as `me`, `team` or an employee id (the name typed into the box, when nothing was chosen,
    resolved to the one person of that name). Also returns the problem with a typed name, if
    any (the filter is then left out), and the text typed."""
    params = dict(args.items())
    text_name = "owner" + lookups.TEXT_SUFFIX
    if text_name not in params:
        return params, None, ""
    text = " ".join(params.pop(text_name).split())
    owner = params.get("owner", "").strip()
    if not text:
        params["owner"] = ""
        return params, None, ""
    if _owner_chosen(owner).label.casefold() == text.casefold():
        return params, None, text
    for value, label in _OWNER_SCOPES.items():
        if text.casefold() in (value, label.casefold()):
            params["owner"] = value
            return params, None, text
    found = lookups.people_named(get_db(), text)
    if len(found) == 1:
        params["owner"] = str(found[0][0])
        return params, None, text
    params["owner"] = ""
    if not found:
        return params, f"No owner named “{text}”: pick someone from the list.", text
    return params, f"Several people are named “{text}”: pick one from the list.", text


def _owner_chosen(owner: str, error: str | None = None, text: str = "") -> Chosen:
    """What the owner filter's box shows for the `owner` parameter (the typed text when it
    named no one)."""
    if error:
        return Chosen("", text)
    if owner in _OWNER_SCOPES:
        return Chosen(owner, _OWNER_SCOPES[owner])
    if _int(owner) is not None:
        label = lookups.label_of(get_db(), "employee", int(owner))
        if label is not None:
            return Chosen(owner, label)
    return Chosen("", "")


def _list_page(key: str, *, status: int = 200, bulk_error: str | None = None):
    db = get_db()
    args, owner_error, owner_text = _owner_filter(request.args)
    page = listing.list_records(db, _actor(), key, args)
    if owner_error:
        page = replace(page, errors={**page.errors, "owner": owner_error})
    filter_names = {}
    for name in ("account_id", "contact_id", "opportunity_id"):
        value = _int(page.params.get(name))
        if value is not None:
            target = {"account_id": "accounts", "contact_id": "contacts"}.get(name, "opportunities")
            filter_names[name] = reads.titles(db, target, [value]).get(value, "(not found)")
    if page.errors and status == 200:
        status = 422
    title = page.columns[0].name
    detail = _ROW_DETAIL[key]
    suffixes = apart(
        [
            (row[title], day(row[detail]) if key == "activities" else row[detail])
            for row in page.rows
        ]
    )
    return _render(
        "crm/list.html",
        status,
        section=key,
        spec=OBJECTS[key],
        page=page,
        owner_chosen=_owner_chosen(page.params.get("owner", ""), owner_error, owner_text),
        suffixes=suffixes,
        filter_names=filter_names,
        bulk_fields=service.BULK_FIELDS.get(key, ()),
        date_presets=listing.DATE_PRESETS,
        per_page_choices=listing.PER_PAGE_CHOICES,
        bulk_error=bulk_error,
        mergeable=key in reads.MERGEABLE,
        here=request.full_path.rstrip("?"),
    )


@bp.get(f"/<{LIST_KEYS}:key>")
@login_required
def list_view(key: str):
    """A list view: saved views, search, filters, sorting, pages, bulk actions, export."""
    return _list_page(key)


@bp.get(f"/<{LIST_KEYS}:key>/export.csv")
@login_required
def export(key: str):
    """Every row of the list view (all pages) as CSV, formula-like cells neutralised."""
    page = listing.check(
        listing.list_records(get_db(), _actor(), key, request.args, paginate=False)
    )
    headers, rows = listing.export_table(page)
    body = csvio.write(headers, rows)
    view = page.view.key if page.view else "list"
    filename = f"{key}-{view}.csv"
    return Response(
        "\ufeff" + body,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.post(f"/<{LIST_KEYS}:key>/bulk")
@login_required
def bulk(key: str):
    """Step 1 shows what a bulk change will do; step 2 (`confirm=yes`) applies it."""
    db = get_db()
    ids = _ids()
    name = request.form.get("field", "")
    value: Any = request.form.get("value") or request.form.get(f"value_{name}", "")
    if "value" not in request.form and name == "owner_id":
        value = lookups.submitted(request.form, "value_owner_id", _label("employee"))
    back = safe_next(request.form.get("next")) or url_for("crm.list_view", key=key)
    try:
        plan = service.bulk_plan(db, _actor(), key, ids, name, value)
    except (ValidationError, NotFound) as error:
        flash(error.message, "error")
        return redirect(back)
    if request.form.get("confirm") != "yes":
        status = 403 if plan.forbidden else 200
        return _render(
            "crm/bulk_confirm.html",
            status,
            section=key,
            spec=OBJECTS[key],
            plan=plan,
            back=back,
            rule=edit_scope(db, _actor()).rule(),
        )
    changed = service.bulk_update(db, _actor(), key, ids, name, value)
    flash(
        f"Updated {changed} {OBJECTS[key].noun if changed == 1 else OBJECTS[key].plural.lower()}: "
        f"{plan.field.label} is now {plan.value_label}.",
        "success",
    )
    return redirect(back)


# -- records ----------------------------------------------------------------------------------


def _record_page(
    key: str,
    record_id: int,
    *,
    status: int = 200,
    editing: str | None = None,
    edit_value: str | None = None,
    edit_error: str | None = None,
    composer: str | None = None,
    composer_values: Mapping[str, str] | None = None,
    composer_errors: Mapping[str, str] | None = None,
):
    db = get_db()
    actor = _actor()
    record = reads.record(db, actor, key, record_id)
    spec = OBJECTS[key]
    if editing is None:
        wanted = request.args.get("edit")
        if wanted and spec.has(wanted) and spec.field(wanted).form and record.can_edit:
            editing = wanted
    values = _display_values(spec, record)
    if editing is not None and edit_value is not None:
        values[editing] = edit_value
        values = _shown(spec, values)
    linked = [
        (("activities", a.id), a.subject, f"due {day(a.due_date)}" if a.due_date else "open")
        for a in record.open_activities
    ]
    linked += [
        (("activities", a.id), a.subject, f"completed {day(a.completed_at)}")
        for a in record.past_activities
    ]
    linked += [(("notes", n.id), n.title, f"note of {day(n.created_at)}") for n in record.notes]
    for rel in record.related:
        linked += [((rel.key, r["id"]), r["title"], _related_detail(rel.key, r)) for r in rel.rows]
    suffixes = dict(
        zip([k for k, _, _ in linked], apart([(t, d) for _, t, d in linked]), strict=True)
    )
    return _render(
        "crm/record.html",
        status,
        section=key if key not in ("notes",) else None,
        spec=spec,
        record=record,
        values=values,
        editing=editing,
        edit_error=edit_error,
        stages=STAGE_NAMES,
        composer=composer,
        composer_values=_shown(OBJECTS["activities"], composer_values or {}),
        me=Chosen(str(actor.id), actor.display_name),
        composer_errors=composer_errors or {},
        activity_parent=_ACTIVITY_PARENTS.get(key),
        today=world_now(db).date(),
        here=url_for("crm.record_view", key=key, record_id=record_id),
        suffixes=suffixes,
    )


def _related_detail(key: str, row: Mapping[str, Any]) -> str:
    """What tells a related record from another of the same name."""
    if key == "contacts":
        return row.get("email") or row.get("title_text") or ""
    if key == "opportunities":
        return f"{row['stage']}, closes {day(row['close_date'])}"
    return row.get("billing_city") or row.get("account_type") or ""


# The link column a new activity or note made on a record page gets.
_ACTIVITY_PARENTS = {
    "accounts": "account_id",
    "contacts": "contact_id",
    "opportunities": "opportunity_id",
}


@bp.get(f"/<{RECORD_KEYS}:key>/<int:record_id>")
@login_required
def record_view(key: str, record_id: int):
    """A record: details (with inline edit), related lists, activities, notes, history."""
    return _record_page(key, record_id)


@bp.post(f"/<{RECORD_KEYS}:key>/<int:record_id>/field")
@login_required
def inline_edit(key: str, record_id: int):
    """Save one field edited inline on the record page."""
    name = request.form.get("field", "")
    raw: Any = request.form.get("value", "")
    spec = OBJECTS[key]
    if spec.has(name) and spec.field(name).kind in LOOKUP_KINDS:
        raw = lookups.submitted(request.form, "value", _label(spec.field(name).kind))
    try:
        changes = service.update_field(get_db(), _actor(), key, record_id, name, raw)
    except ValidationError as error:
        return _record_page(
            key,
            record_id,
            status=error.status,
            editing=name if spec.has(name) else None,
            edit_value=raw,
            edit_error=error.errors.get(name, error.message),
        )
    label = OBJECTS[key].field(name).label
    flash(f"{label} saved." if changes else f"{label} was already set to that.", "success")
    return redirect(url_for("crm.record_view", key=key, record_id=record_id) + f"#field-{name}")


def _form_page(
    key: str,
    *,
    record: reads.Record | None,
    values: Mapping[str, Any],
    errors: Mapping[str, str] | None = None,
    status: int = 200,
    message: str | None = None,
    duplicates_found: tuple = (),
):
    spec = OBJECTS[key]
    return _render(
        "crm/edit.html",
        status,
        section=key,
        spec=spec,
        record=record,
        values=_shown(spec, values),
        errors=errors or {},
        message=message,
        duplicates=duplicates_found,
        context_links={
            n: request.values.get(n, "")
            for n in ("account_id", "contact_id", "opportunity_id")
            if _int(request.values.get(n)) is not None
        },
        me=_actor(),
    )


@bp.route(f"/<{NEW_KEYS}:key>/new", methods=("GET", "POST"))
@login_required
def new_record(key: str):
    """Create a record; from a related record's page the link fields come along."""
    db = get_db()
    spec = OBJECTS[key]
    if request.method == "GET":
        values: dict[str, Any] = {"owner_id": str(_actor().id)}
        account_id = _int(request.args.get("account_id"))
        if account_id is not None and spec.has("account_id") and spec.field("account_id").form:
            values["account_id"] = reads.titles(db, "accounts", [account_id]).get(account_id, "")
        if key == "opportunities":
            values["stage"] = "Prospecting"
        return _form_page(key, record=None, values=values)
    values = _form_values(spec)
    for name in ("account_id", "contact_id", "opportunity_id"):
        linked = _int(request.form.get(f"link_{name}"))
        if linked is not None and spec.has(name) and not spec.field(name).form:
            values[name] = linked
    try:
        record_id = service.create(
            db, _actor(), key, values, allow_duplicate=request.form.get("allow_duplicate") == "1"
        )
    except ValidationError as error:
        return _form_page(
            key,
            record=None,
            values=values,
            errors=error.errors,
            status=error.status,
            message=error.message,
        )
    except Conflict as error:
        return _form_page(
            key,
            record=None,
            values=values,
            status=error.status,
            message=error.message,
            duplicates_found=_candidates(error),
        )
    flash(f"{spec.singular} created.", "success")
    return redirect(url_for("crm.record_view", key=key, record_id=record_id))


@bp.route(f"/<{RECORD_KEYS}:key>/<int:record_id>/edit", methods=("GET", "POST"))
@login_required
def edit_record(key: str, record_id: int):
    """The full edit form: every field at once, each bad field with its own message."""
    db = get_db()
    spec = OBJECTS[key]
    record = reads.record(db, _actor(), key, record_id, related=False)
    if request.method == "GET":
        if not record.can_edit:
            raise Forbidden(f"You can't edit this {spec.noun}. {record.edit_rule}")
        return _form_page(key, record=record, values=_display_values(spec, record))
    values = _form_values(spec)
    try:
        service.update(db, _actor(), key, record_id, values)
    except ValidationError as error:
        return _form_page(
            key,
            record=record,
            values=values,
            errors=error.errors,
            status=error.status,
            message=error.message,
        )
    flash(f"{spec.singular} saved.", "success")
    return redirect(url_for("crm.record_view", key=key, record_id=record_id))


@bp.route(f"/<{RECORD_KEYS}:key>/<int:record_id>/delete", methods=("GET", "POST"))
@login_required
def delete_record(key: str, record_id: int):
    db = get_db()
    spec = OBJECTS[key]
    record = reads.record(db, _actor(), key, record_id, related=False)
    if request.method == "GET":
        if not record.can_edit:
            raise Forbidden(f"You can't delete this {spec.noun}. {record.edit_rule}")
        return _render("crm/delete.html", section=key, spec=spec, record=record, error=None)
    try:
        title = service.delete(db, _actor(), key, record_id)
    except Conflict as error:
        return _render(
            "crm/delete.html",
            error.status,
            section=key,
            spec=spec,
            record=record,
            error=error.message,
        )
    flash(f"Deleted {spec.noun} “{title}”.", "success")
    if key in listing.LIST_KEYS:
        return redirect(url_for("crm.list_view", key=key))
    return redirect(url_for("crm.index"))


@bp.post("/opportunities/<int:record_id>/stage")
@login_required
def move_stage(record_id: int):
    """Change a deal's stage (pipeline board cards and the record page's stage path)."""
    stage = request.form.get("stage", "")
    changes = service.move_stage(get_db(), _actor(), record_id, stage)
    title = reads.titles(get_db(), "opportunities", [record_id])[record_id]
    if changes:
        flash(f"Moved “{title}” to {stage}.", "success")
    return _back(url_for("crm.record_view", key="opportunities", record_id=record_id))


@bp.post("/activities/<int:record_id>/complete")
@login_required
def complete_activity(record_id: int):
    service.complete_activity(get_db(), _actor(), record_id)
    flash("Marked complete.", "success")
    return _back(url_for("crm.record_view", key="activities", record_id=record_id))


# What each composer makes; the service gives a new activity its status by kind (a logged
# call or email is done, a task or event is open), the same as through the API.
_COMPOSERS = {
    "call": ("activities", {"kind": "call"}),
    "task": ("activities", {"kind": "task"}),
    "event": ("activities", {"kind": "meeting"}),
    "email": ("activities", {"kind": "email"}),
    "note": ("notes", {}),
}


@bp.post("/<any(accounts,contacts,opportunities):key>/<int:record_id>/log/<composer>")
@login_required
def log_on_record(key: str, record_id: int, composer: str):
    """The record page's composers: log a call or email, create a task or event, add a note."""
    if composer not in _COMPOSERS:
        raise NotFound("There's no such thing to log.")
    target, fixed = _COMPOSERS[composer]
    spec = OBJECTS[target]
    names = [f.name for f in spec.form_fields if f.name not in fixed]
    values: dict[str, Any] = {**_form_values(spec, names), **fixed}
    values[_ACTIVITY_PARENTS[key]] = record_id
    if key != "contacts" and _int(request.form.get("contact_id")) is not None:
        values["contact_id"] = _int(request.form.get("contact_id"))
    reads.record(get_db(), _actor(), key, record_id, related=False)  # exists?
    try:
        service.create(get_db(), _actor(), target, values)
    except ValidationError as error:
        return _record_page(
            key,
            record_id,
            status=error.status,
            composer=composer,
            composer_values=values,
            composer_errors=error.errors,
        )
    done = {
        "call": "Call logged.",
        "email": "Email logged.",
        "task": "Task created.",
        "event": "Event created.",
        "note": "Note added.",
    }
    flash(done[composer], "success")
    anchor = "notes" if composer == "note" else "activities"
    return redirect(url_for("crm.record_view", key=key, record_id=record_id) + f"#{anchor}")


# -- pipeline board ---------------------------------------------------------------------------


@bp.get("/pipeline")
@login_required
def pipeline():
    """Opportunities as cards in stage columns, the biggest deals first and a bounded number
    per column ("Show more" asks a column for more); each card moves by drag and drop or its
    Move menu. Closed columns show deals closed this quarter."""
    db = get_db()
    args, owner_error, owner_text = _owner_filter(request.args)
    data = board.pipeline(db, _actor(), args)
    errors = dict(data.errors)
    if owner_error:
        errors["owner"] = owner_error
    limits = {board.limit_param(c.stage): c.limit for c in data.columns if c.limit > board.CARDS}
    filters = {k: v for k, v in data.params.items() if v}
    more = {
        c.stage: url_for(
            "crm.pipeline",
            **filters,
            **{**limits, board.limit_param(c.stage): c.limit + board.CARDS},
        )
        + f"#col-{c.slug}"
        for c in data.columns
        if c.hidden > 0
    }
    cards = [(c.stage, card) for c in data.columns for card in c.cards]
    shown = apart([(card.name, f"{card.account}, {stage}") for stage, card in cards])
    return _render(
        "crm/pipeline.html",
        422 if errors else 200,
        suffixes={card.id: suffix for (_, card), suffix in zip(cards, shown, strict=True)},
        section="pipeline",
        board=data,
        board_cards=board.CARDS,
        more=more,
        owner=data.params["owner"],
        owner_chosen=_owner_chosen(data.params["owner"], owner_error, owner_text),
        q=data.params["q"],
        close=data.params["close"],
        errors=errors,
        stages=STAGE_NAMES,
        date_presets=listing.DATE_PRESETS,
        here=request.full_path.rstrip("?"),
    )


# -- lead conversion --------------------------------------------------------------------------


def _convert_page(lead_id: int, status: int = 200, error: str | None = None, errors=None, **kw):
    db = get_db()
    lead, accounts, contacts = reads.conversion_candidates(db, _actor(), lead_id)
    if lead.status == "Converted":
        raise Conflict("This lead was already converted.")
    if not can_edit(db, _actor(), LEADS, lead):
        raise Forbidden(f"You can't convert this lead. {edit_scope(db, _actor()).rule()}")
    submitted = kw.get("form")
    form = {
        "account_choice": "new",
        "account_name": lead.company,
        "contact_choice": "new",
        # Ticked on a first visit; shown again as the user left it (an unticked box is not sent).
        "create_opportunity": "1" if submitted is None else "",
        "opportunity_name": f"{lead.company} — new business",
        "owner_id": str(_actor().id),
        **(submitted or {}),
    }
    return _render(
        "crm/convert.html",
        status,
        section="leads",
        lead=lead,
        accounts=accounts,
        contacts=contacts,
        form=form,
        error=error,
        errors=errors or {},
        duplicates=kw.get("duplicates", ()),
        owner=_chosen("employee", form["owner_id"]),
    )


@bp.route("/leads/<int:lead_id>/convert", methods=("GET", "POST"))
@login_required
def convert(lead_id: int):
    """Convert a lead into an account, contact and optional opportunity, with the accounts
    and contacts it may already be offered first."""
    if request.method == "GET":
        return _convert_page(lead_id)
    form: dict[str, Any] = request.form.to_dict()
    form["owner_id"] = lookups.submitted(request.form, "owner_id", _label("employee"))
    account_choice = form.get("account_choice", "new")
    contact_choice = form.get("contact_choice", "new")
    try:
        result = service.convert_lead(
            get_db(),
            _actor(),
            lead_id,
            account_id=_int(account_choice) if account_choice != "new" else None,
            account_name=form.get("account_name"),
            contact_id=_int(contact_choice) if contact_choice != "new" else None,
            create_opportunity=form.get("create_opportunity") == "1",
            opportunity_name=form.get("opportunity_name"),
            owner_id=form["owner_id"] if form["owner_id"] != "" else None,
            allow_duplicate=form.get("allow_duplicate") == "1",
        )
    except ValidationError as error:
        return _convert_page(
            lead_id, error.status, error=error.message, errors=error.errors, form=form
        )
    except Conflict as error:
        return _convert_page(
            lead_id, error.status, error=error.message, form=form, duplicates=_candidates(error)
        )
    flash("Lead converted.", "success")
    target = (
        ("opportunities", result.opportunity_id)
        if result.opportunity_id
        else (
            "accounts",
            result.account_id,
        )
    )
    return redirect(url_for("crm.record_view", key=target[0], record_id=target[1]))


# -- duplicates and merge ---------------------------------------------------------------------


@bp.get("/duplicates")
@login_required
def duplicates_view():
    """Groups of records that are probably the same company or person, with a merge link."""
    key = request.args.get("object", "contacts")
    if key not in reads.MERGEABLE:
        key = "contacts"
    groups = duplicates.duplicate_groups(get_db(), key)
    records = [r for g in groups for r in g.records]
    shown = apart([(r.title, f"created {day(r.created_at)}") for r in records])
    return _render(
        "crm/duplicates.html",
        suffixes={r.id: suffix for r, suffix in zip(records, shown, strict=True)},
        section="duplicates",
        key=key,
        spec=OBJECTS[key],
        groups=groups,
        objects=[OBJECTS[k] for k in reads.MERGEABLE],
    )


def _merge_names(view: reads.MergeView) -> dict[int, str]:
    """A name per record of a merge that tells it from the others: its title, then with its
    creation date, then with its column, as far as titles repeat."""
    titles = [r.title for r in view.records]
    with_dates = [f"{r.title} (created {day(r.created_at)})" for r in view.records]
    names = {}
    for index, record in enumerate(view.records):
        if titles.count(record.title) == 1:
            names[record.id] = record.title
        elif with_dates.count(with_dates[index]) == 1:
            names[record.id] = with_dates[index]
        else:
            names[record.id] = f"{record.title} (record {index + 1} of {len(view.records)})"
    return names


def _same_looking(view: reads.MergeView) -> set[str]:
    """Fields whose differing values read the same on two records (e.g. two people of one name):
    their radios name the record too."""
    same = set()
    for name in view.differing:
        shown = []
        for record in view.records:
            fv = next(v for v in record.fields if v.field.name == name)
            if fv.person is not None:
                shown.append(fv.person.display_name)
            elif fv.link is not None:
                shown.append(fv.link.title)
            else:
                shown.append("" if fv.value is None else str(fv.value).strip())
        if len(set(shown)) < len(shown):
            same.add(name)
    return same


def _merge_page(key: str, view: reads.MergeView, status: int = 200, **context: Any):
    return _render(
        "crm/merge.html",
        status,
        section="duplicates",
        view=view,
        spec=OBJECTS[key],
        names=_merge_names(view),
        same_looking=_same_looking(view),
        **context,
    )


@bp.route("/<any(accounts,contacts,leads):key>/merge", methods=("GET", "POST"))
@login_required
def merge(key: str):
    """Compare 2–3 records field by field, pick the value to keep for each, and merge."""
    db = get_db()
    ids = _ids()
    if request.method == "GET":
        view = reads.merge_view(db, _actor(), key, ids)
        return _merge_page(key, view, master=view.records[0].id, picks={}, error=None)
    master = _int(request.form.get("master_id"))
    picks = {
        f.name: _int(request.form.get(f"pick_{f.name}"))
        for f in OBJECTS[key].form_fields
        if request.form.get(f"pick_{f.name}")
    }
    try:
        kept = service.merge(db, _actor(), key, ids, master, picks)
    except ValidationError as error:
        view = reads.merge_view(db, _actor(), key, ids)
        return _merge_page(key, view, error.status, master=master, picks=picks, error=error.message)
    flash(f"Merged {len(ids)} {OBJECTS[key].plural.lower()} into one.", "success")
    return redirect(url_for("crm.record_view", key=key, record_id=kept))


# -- import -----------------------------------------------------------------------------------


def _import_labels() -> dict[str, str]:
    return {n: OBJECTS["contacts"].field(n).label for n in csvio.IMPORT_FIELDS}


@bp.get("/import")
@login_required
def import_start():
    return _render(
        "crm/import.html",
        section="import",
        error=None,
        encodings=csvio.ENCODINGS,
        encoding="utf-8",
        labels=_import_labels(),
    )


def _read_upload() -> str:
    """The CSV text from the upload (or the pasted text), decoded; ValidationError if bad."""
    encoding = request.form.get("encoding", "utf-8")
    if "csv_text" in request.form and request.form["csv_text"].strip():
        return request.form["csv_text"]
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        raise ValidationError("Choose a CSV file to import, or paste its contents.", "file")
    return csvio.decode(upload.read(), encoding)


def _mapping_from_form(table: csvio.Table) -> dict[int, str]:
    if not any(k.startswith("map_") for k in request.form):
        return csvio.guess_mapping(table.headers)
    mapping = {}
    for index in range(len(table.headers)):
        name = request.form.get(f"map_{index}", "")
        if name:
            mapping[index] = name
    return mapping


@bp.post("/import/preview")
@login_required
def import_preview():
    """Step 2: the columns mapped to fields, and every row checked (nothing written)."""
    try:
        text = _read_upload()
        table = csvio.read(text)
    except ValidationError as error:
        return _render(
            "crm/import.html",
            error.status,
            section="import",
            error=error.message,
            encodings=csvio.ENCODINGS,
            encoding=request.form.get("encoding", "utf-8"),
            labels=_import_labels(),
        )
    mapping = _mapping_from_form(table)
    results = None
    mapping_error = None
    status = 200
    try:
        results = service.plan_import(get_db(), _actor(), table, mapping)
    except ValidationError as error:
        mapping_error, status = error.message, error.status
    shown_ids: dict[str, set[int]] = {"account_id": set(), "owner_id": set()}
    for result in [r for r in results or () if r.ok][:IMPORT_PREVIEW_ROWS]:
        for name, ids in shown_ids.items():
            if isinstance(result.values.get(name), int):
                ids.add(result.values[name])
    names = {
        "account_id": reads.titles(get_db(), "accounts", shown_ids["account_id"]),
        "owner_id": {
            i: p.display_name for i, p in reads.people(get_db(), shown_ids["owner_id"]).items()
        },
    }
    return _render(
        "crm/import_preview.html",
        status,
        section="import",
        table=table,
        text=text,
        mapping=mapping,
        results=results,
        mapping_error=mapping_error,
        labels=_import_labels(),
        fields=csvio.IMPORT_FIELDS,
        names=names,
        preview_rows=IMPORT_PREVIEW_ROWS,
    )


@bp.post("/import/run")
@login_required
def import_run():
    """Step 3: import every valid row (one transaction) and report the rejected ones."""
    try:
        text = _read_upload()
        table = csvio.read(text)
        mapping = _mapping_from_form(table)
        report = service.import_contacts(get_db(), _actor(), table, mapping)
    except ValidationError as error:
        return _render(
            "crm/import.html",
            error.status,
            section="import",
            error=error.message,
            encodings=csvio.ENCODINGS,
            encoding="utf-8",
            labels=_import_labels(),
        )
    return _render(
        "crm/import_done.html",
        section="import",
        report=report,
        labels=_import_labels(),
        error_csv=csvio.error_report(report.rejected, _import_labels()) if report.rejected else "",
    )


# -- reports ----------------------------------------------------------------------------------


@bp.get("/reports")
@login_required
def reports_view():
    """Pipeline by stage and owner, and won/lost this quarter; every figure links to its rows."""
    data = reports.pipeline(
        get_db(), _actor(), request.args.get("scope", ""), request.args.get("close", "")
    )
    top = max([f.amount for _, f in data.stages] + [1])
    cells = [
        ((line.owner_id, stage), money(line.stages[stage].amount) or "$0", f"{line.owner}, {stage}")
        for line in data.owners
        for stage in OPEN_STAGES
        if line.stages[stage].count
    ]
    shown = apart([(amount, where) for _, amount, where in cells])
    return _render(
        "crm/reports.html",
        section="reports",
        suffixes={key: suffix for (key, _, _), suffix in zip(cells, shown, strict=True)},
        data=data,
        top=top,
        scopes=reports.SCOPES,
        date_presets=listing.DATE_PRESETS,
        stages=OPEN_STAGES,
    )


__all__ = ["list_url"]
