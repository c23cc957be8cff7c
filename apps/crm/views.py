"""The CRM's pages: server-rendered HTML over `reads` and `service`, every action a plain form
or link.

Reads render pages; writes are POSTs that redirect on success (PRG) and re-render their form
with the service's messages and a 4xx on bad input, so nothing is written (the web kit rolls
the request's transaction back). Inline edit is a link that reopens the record page with one
field as a form; the pipeline board's drag and drop (crm.js) submits the same per-card stage
form a click agent uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any
from urllib.parse import urlencode

from flask import Response, flash, g, redirect, render_template, request, url_for
from markupsafe import Markup, escape

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
from officegym.apps.web.localtime import to_local
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import Employee

from . import csvio, duplicates, listing, reads, reports, service
from .access import can_edit, edit_scope
from .blueprint import bp
from .duplicates import LikelyDuplicate
from .fields import (
    KIND_LABELS,
    LEADS,
    LOST,
    OBJECTS,
    OPEN_STAGES,
    STAGE_NAMES,
    WON,
)

LIST_KEYS = "any(accounts,contacts,leads,opportunities,activities)"
RECORD_KEYS = "any(accounts,contacts,leads,opportunities,activities,notes)"
NEW_KEYS = RECORD_KEYS
BOARD_LIMIT = 50

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
    text = str(value or "").strip()
    return int(text) if text.isdigit() and len(text) < 12 else None


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
    return {"crm_list_url": list_url, "crm_objects": OBJECTS, "crm_root": url_for("crm.index")}


@bp.app_template_global("crm_owner_options")
def owner_options(people, current: Any = None, titles: bool = True, keep_unknown: bool = True):
    """The <option>s of an owner menu, `current` selected. Built in Python once per request and
    menu style (a Jinja loop over hundreds of people costs a page milliseconds per menu)."""
    cache = g.setdefault("crm_owner_options", {})
    key = (id(people), titles)
    if key not in cache:
        cache[key] = (
            people,  # keeps id(people) from being reused while cached
            "".join(
                f'<option value="{p.id}">'
                f"{escape(f'{p.display_name} — {p.title}' if titles else p.display_name)}</option>"
                for p in people
            ),
        )
    options = cache[key][1]
    chosen = str(current or "")
    if chosen:
        marked = options.replace(
            f'<option value="{chosen}">', f'<option value="{chosen}" selected>', 1
        )
        if marked == options and keep_unknown:
            marked += f'<option value="{escape(chosen)}" selected>{escape(chosen)}</option>'
        options = marked
    return Markup(options)


def _people(*include: int | None) -> list[reads.Person]:
    """The owner choices for this request's menus (see reads.owner_choices)."""
    return reads.owner_choices(get_db(), _actor(), [i for i in include if i is not None])


def _form_values(spec, names=None) -> dict[str, str]:
    names = names or [f.name for f in spec.form_fields]
    return {n: request.form.get(n, "") for n in names if n in request.form}


def _display_values(spec, record: reads.Record | None) -> dict[str, Any]:
    """What the form inputs hold for a stored record (references as their names)."""
    if record is None:
        return {}
    shown: dict[str, Any] = {}
    for fv in record.fields:
        f = fv.field
        if f.kind in ("account", "contact", "opportunity"):
            shown[f.name] = fv.link.title if fv.link else ""
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
    return _render(
        "crm/home.html",
        section="home",
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
    return _render("crm/search.html", section=None, query=query, results=results)


# -- list views -------------------------------------------------------------------------------


def _list_page(key: str, *, status: int = 200, bulk_error: str | None = None):
    db = get_db()
    page = listing.list_records(db, _actor(), key, request.args)
    filter_names = {}
    for name in ("account_id", "contact_id", "opportunity_id"):
        value = _int(page.params.get(name))
        if value is not None:
            target = {"account_id": "accounts", "contact_id": "contacts"}.get(name, "opportunities")
            filter_names[name] = reads.titles(db, target, [value]).get(value, f"#{value}")
    owner_param = page.params.get("owner", "")
    owner_name = None
    if _int(owner_param) is not None:
        owner_name = reads.people(db, [int(owner_param)]).get(int(owner_param))
    if page.errors and status == 200:
        status = 422
    return _render(
        "crm/list.html",
        status,
        section=key,
        spec=OBJECTS[key],
        page=page,
        people=_people(_int(owner_param)),
        filter_names=filter_names,
        owner_name=owner_name,
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
    value = request.form.get("value") or request.form.get(f"value_{name}", "")
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
    return _render(
        "crm/record.html",
        status,
        section=key if key not in ("notes",) else None,
        spec=spec,
        record=record,
        values=values,
        editing=editing,
        edit_error=edit_error,
        people=_people(record.owner.id) if record.can_edit or key in _ACTIVITY_PARENTS else (),
        stages=STAGE_NAMES,
        composer=composer,
        composer_values=composer_values or {},
        composer_errors=composer_errors or {},
        activity_parent=_ACTIVITY_PARENTS.get(key),
        today=world_now(db).date(),
        here=url_for("crm.record_view", key=key, record_id=record_id),
    )


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
    raw = request.form.get("value", "")
    try:
        changes = service.update_field(get_db(), _actor(), key, record_id, name, raw)
    except ValidationError as error:
        return _record_page(
            key,
            record_id,
            status=error.status,
            editing=name if OBJECTS[key].has(name) else None,
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
        values=values,
        errors=errors or {},
        message=message,
        duplicates=duplicates_found,
        people=_people(record.owner.id if record else None),
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
            composer_values={k: str(v) for k, v in values.items()},
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
    """Opportunities as cards in stage columns; each card moves by drag and drop or its
    stage menu. Closed columns show deals closed this quarter."""
    db = get_db()
    actor = _actor()
    owner = request.args.get("owner", "")
    q = request.args.get("q", "")
    close = request.args.get("close", "")
    columns = []
    base = {"owner": owner, "q": q, "close": close, "per_page": str(BOARD_LIMIT)}
    errors: dict[str, str] = {}
    for stage in (*OPEN_STAGES, WON, LOST):
        params = {**base, "stage": stage, "sort": "close_date", "dir": "asc"}
        if stage in (WON, LOST) and not close:
            params["close"] = "this_quarter"
        page = listing.list_records(db, actor, "opportunities", params)
        errors.update(page.errors)
        columns.append((stage, page, listing.amount_total(db, actor, params)))
    return _render(
        "crm/pipeline.html",
        422 if errors else 200,
        section="pipeline",
        columns=columns,
        owner=owner,
        q=q,
        close=close,
        errors=errors,
        people=_people(_int(owner)),
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
        people=_people(lead.owner_id),
    )


@bp.route("/leads/<int:lead_id>/convert", methods=("GET", "POST"))
@login_required
def convert(lead_id: int):
    """Convert a lead into an account, contact and optional opportunity, with the accounts
    and contacts it may already be offered first."""
    if request.method == "GET":
        return _convert_page(lead_id)
    form = request.form.to_dict()
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
            owner_id=form.get("owner_id") or None,
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
    return _render(
        "crm/duplicates.html",
        section="duplicates",
        key=key,
        spec=OBJECTS[key],
        groups=groups,
        objects=[OBJECTS[k] for k in reads.MERGEABLE],
    )


@bp.route("/<any(accounts,contacts,leads):key>/merge", methods=("GET", "POST"))
@login_required
def merge(key: str):
    """Compare 2–3 records field by field, pick the value to keep for each, and merge."""
    db = get_db()
    ids = _ids()
    if request.method == "GET":
        view = reads.merge_view(db, _actor(), key, ids)
        return _render(
            "crm/merge.html",
            section="duplicates",
            view=view,
            spec=OBJECTS[key],
            master=view.records[0].id,
            picks={},
            error=None,
        )
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
        return _render(
            "crm/merge.html",
            error.status,
            section="duplicates",
            view=view,
            spec=OBJECTS[key],
            master=master,
            picks=picks,
            error=error.message,
        )
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
    return _render(
        "crm/reports.html",
        section="reports",
        data=data,
        top=top,
        scopes=reports.SCOPES,
        date_presets=listing.DATE_PRESETS,
        stages=OPEN_STAGES,
    )


__all__ = ["list_url"]
