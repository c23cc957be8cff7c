"""List views (reads only): search, filters, sorting, saved views and pages over one object.

A list view is described by query parameters, the same for the page, the CSV export and the
API: `q` (words, each must match), `view` (a saved view: a named preset of the other
parameters, which explicit parameters override), `sort`/`dir`, `page`/`per_page`, and the
object's filters, e.g. for opportunities `owner` (`me`, `team` or an employee id), `stage`
(`open`, `closed`, `won`, `lost` or a stage), `close` (`this_quarter`, ...), `close_from`,
`close_to`, `amount_min`, `amount_max`. Dates are the world's: "this quarter" is the calendar
quarter of the world's today.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session, aliased

from officegym.apps.web.errors import ValidationError
from officegym.apps.web.inputs import parse_int
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.crm import Account, Opportunity

from .access import edit_scope, reports_of
from .fields import (
    ACCOUNT_TYPES,
    ACTIVITY_KINDS,
    ACTIVITY_STATUSES,
    INDUSTRIES,
    KIND_LABELS,
    LEAD_SOURCES,
    LOST,
    OBJECTS,
    OPEN_STAGES,
    PRIORITIES,
    STAGE_NAMES,
    WON,
    FieldError,
    parse_date,
)

PER_PAGE_CHOICES = (25, 50, 100, 200)
DEFAULT_PER_PAGE = 25
LEAD_STATUS_CHOICES = ("New", "Working", "Qualified", "Unqualified", "Converted")
DATE_PRESETS = (
    ("", "Any time"),
    ("past", "Before today"),
    ("today", "Today"),
    ("next_30", "Next 30 days"),
    ("this_month", "This month"),
    ("last_quarter", "Last quarter"),
    ("this_quarter", "This quarter"),
    ("next_quarter", "Next quarter"),
    ("this_year", "This year"),
)


@dataclass(frozen=True)
class Column:
    """A list column: `kind` says how a cell shows (title links to the record)."""

    name: str
    label: str
    kind: str = "text"
    sortable: bool = True


@dataclass(frozen=True)
class Filter:
    """A filter control: `kind` is select, owner, date (with `{name}_from`/`{name}_to` and a
    preset `name`), number (`{name}_min`/`{name}_max`) or hidden (an id set by a link)."""

    name: str
    label: str
    kind: str
    options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SavedView:
    key: str
    label: str
    description: str
    params: Mapping[str, str]


@dataclass(frozen=True)
class ListPage:
    key: str
    columns: tuple[Column, ...]
    rows: tuple[dict[str, Any], ...]
    total: int
    page: int
    per_page: int
    pages: int
    sort: str
    direction: str
    params: Mapping[str, str]
    view: SavedView | None
    views: tuple[SavedView, ...]
    filters: tuple[Filter, ...]
    errors: Mapping[str, str] = field(default_factory=dict)
    today: date | None = None

    @property
    def first(self) -> int:
        return 0 if not self.total else (self.page - 1) * self.per_page + 1

    @property
    def last(self) -> int:
        return min(self.total, self.page * self.per_page)


def quarter_of(day: date, offset: int = 0) -> tuple[date, date]:
    """First and last day of the calendar quarter `offset` quarters from the one holding `day`."""
    index = (day.year * 4 + (day.month - 1) // 3) + offset
    year, quarter = divmod(index, 4)
    start = date(year, quarter * 3 + 1, 1)
    next_index = index + 1
    next_start = date(next_index // 4, (next_index % 4) * 3 + 1, 1)
    return start, next_start - timedelta(days=1)


def date_range(preset: str, today: date) -> tuple[date | None, date | None]:
    """The inclusive range a date preset stands for."""
    if preset == "past":
        return None, today - timedelta(days=1)
    if preset == "today":
        return today, today
    if preset == "next_30":
        return today, today + timedelta(days=30)
    if preset == "this_month":
        start = today.replace(day=1)
        following = (start + timedelta(days=32)).replace(day=1)
        return start, following - timedelta(days=1)
    if preset == "last_quarter":
        return quarter_of(today, -1)
    if preset == "this_quarter":
        return quarter_of(today)
    if preset == "next_quarter":
        return quarter_of(today, 1)
    if preset == "this_year":
        return date(today.year, 1, 1), date(today.year, 12, 31)
    raise ValueError(preset)


# -- per object -----------------------------------------------------------------------------


def _owner_filter() -> Filter:
    return Filter("owner", "Owner", "owner")


def _choices(values, labels=None) -> tuple[tuple[str, str], ...]:
    return tuple((v, (labels or {}).get(v, v)) for v in values)


COLUMNS: dict[str, tuple[Column, ...]] = {
    "accounts": (
        Column("name", "Account name", "title"),
        Column("account_type", "Type"),
        Column("industry", "Industry"),
        Column("billing_city", "Billing city"),
        Column("phone", "Phone", "phone", sortable=False),
        Column("annual_revenue", "Annual revenue", "money"),
        Column("owner", "Account owner", "person"),
        Column("created_at", "Created", "date"),
    ),
    "contacts": (
        Column("name", "Name", "title"),
        Column("account", "Account name", "link"),
        Column("title", "Title"),
        Column("email", "Email", "email"),
        Column("phone", "Phone", "phone", sortable=False),
        Column("mailing_city", "Mailing city"),
        Column("owner", "Contact owner", "person"),
        Column("created_at", "Created", "date"),
    ),
    "leads": (
        Column("name", "Name", "title"),
        Column("company", "Company"),
        Column("title", "Title"),
        Column("email", "Email", "email"),
        Column("status", "Lead status"),
        Column("source", "Lead source"),
        Column("owner", "Lead owner", "person"),
        Column("created_at", "Created", "date"),
    ),
    "opportunities": (
        Column("name", "Opportunity name", "title"),
        Column("account", "Account name", "link"),
        Column("stage", "Stage"),
        Column("amount", "Amount", "money"),
        Column("probability", "Probability (%)", "percent"),
        Column("close_date", "Close date", "date"),
        Column("owner", "Opportunity owner", "person"),
    ),
    "activities": (
        Column("subject", "Subject", "title"),
        Column("kind", "Type", "kind"),
        Column("status", "Status"),
        Column("priority", "Priority"),
        Column("due_date", "Due date", "date"),
        Column("account", "Account", "link"),
        Column("opportunity", "Opportunity", "link"),
        Column("owner", "Assigned to", "person"),
    ),
}

DEFAULT_SORT = {
    "accounts": ("name", "asc"),
    "contacts": ("name", "asc"),
    "leads": ("created_at", "desc"),
    "opportunities": ("close_date", "asc"),
    "activities": ("due_date", "asc"),
}

FILTERS: dict[str, tuple[Filter, ...]] = {
    "accounts": (
        _owner_filter(),
        Filter("type", "Type", "select", _choices(ACCOUNT_TYPES)),
        Filter("industry", "Industry", "select", _choices(INDUSTRIES)),
        Filter("revenue", "Annual revenue", "number"),
        Filter("created", "Created", "date"),
    ),
    "contacts": (
        _owner_filter(),
        Filter("account_id", "Account", "hidden"),
        Filter("email", "Email", "select", (("missing", "Missing"), ("present", "Present"))),
        Filter("created", "Created", "date"),
    ),
    "leads": (
        _owner_filter(),
        Filter(
            "status",
            "Lead status",
            "select",
            (("open", "Open (not converted or unqualified)"), *_choices(LEAD_STATUS_CHOICES)),
        ),
        Filter("source", "Lead source", "select", _choices(LEAD_SOURCES)),
        Filter("created", "Created", "date"),
    ),
    "opportunities": (
        _owner_filter(),
        Filter(
            "stage",
            "Stage",
            "select",
            (
                ("open", "Any open stage"),
                ("closed", "Any closed stage"),
                ("won", "Closed Won"),
                ("lost", "Closed Lost"),
                *_choices(OPEN_STAGES),
            ),
        ),
        Filter("close", "Close date", "date"),
        Filter("amount", "Amount", "number"),
        Filter("created", "Created", "date"),
        Filter("account_id", "Account", "hidden"),
        Filter("contact_id", "Primary contact", "hidden"),
    ),
    "activities": (
        _owner_filter(),
        Filter("kind", "Type", "select", _choices(ACTIVITY_KINDS, KIND_LABELS)),
        Filter("status", "Status", "select", _choices(ACTIVITY_STATUSES)),
        Filter("priority", "Priority", "select", _choices(PRIORITIES)),
        Filter("due", "Due date", "date"),
        Filter("account_id", "Account", "hidden"),
        Filter("contact_id", "Contact", "hidden"),
        Filter("opportunity_id", "Opportunity", "hidden"),
    ),
}

VIEWS: dict[str, tuple[SavedView, ...]] = {
    "accounts": (
        SavedView("all", "All accounts", "Every account.", {}),
        SavedView("mine", "My accounts", "Accounts you own.", {"owner": "me"}),
        SavedView("customers", "Customers", "Accounts of type Customer.", {"type": "Customer"}),
        SavedView(
            "new_this_month",
            "New this month",
            "Accounts created this month.",
            {"created": "this_month", "sort": "created_at", "dir": "desc"},
        ),
    ),
    "contacts": (
        SavedView("all", "All contacts", "Every contact.", {}),
        SavedView("mine", "My contacts", "Contacts you own.", {"owner": "me"}),
        SavedView(
            "new_this_month",
            "New this month",
            "Contacts created this month.",
            {"created": "this_month", "sort": "created_at", "dir": "desc"},
        ),
    ),
    "leads": (
        SavedView("all", "All leads", "Every lead, newest first.", {}),
        SavedView(
            "my_open",
            "My open leads",
            "Your leads that are neither converted nor unqualified.",
            {"owner": "me", "status": "open"},
        ),
        SavedView(
            "open", "All open leads", "Leads not converted or unqualified.", {"status": "open"}
        ),
    ),
    "opportunities": (
        SavedView("all", "All opportunities", "Every opportunity.", {}),
        SavedView(
            "my_open",
            "My open opportunities",
            "Your opportunities that are not closed.",
            {"owner": "me", "stage": "open"},
        ),
        SavedView(
            "team_open",
            "My team's open opportunities",
            "Open opportunities owned by you or anyone who reports to you.",
            {"owner": "team", "stage": "open"},
        ),
        SavedView(
            "closing_this_quarter",
            "Closing this quarter",
            "Open opportunities whose close date falls in this quarter.",
            {"stage": "open", "close": "this_quarter"},
        ),
        SavedView(
            "past_due",
            "Open and past close date",
            "Open opportunities whose close date has passed.",
            {"stage": "open", "close": "past", "sort": "close_date", "dir": "asc"},
        ),
        SavedView(
            "won_this_quarter",
            "Won this quarter",
            "Opportunities closed won with a close date in this quarter.",
            {"stage": "won", "close": "this_quarter"},
        ),
    ),
    "activities": (
        SavedView(
            "my_open",
            "My open activities",
            "Tasks and events assigned to you that aren't completed.",
            {"owner": "me", "status": "Open"},
        ),
        SavedView(
            "my_overdue",
            "My overdue tasks",
            "Your open activities due before today.",
            {"owner": "me", "status": "Open", "due": "past"},
        ),
        SavedView("all", "All activities", "Every activity.", {}),
    ),
}

LIST_KEYS = tuple(COLUMNS)
_PARAMS_ALWAYS = ("q", "sort", "dir", "view", "page", "per_page")


def view_of(key: str, name: str | None) -> SavedView | None:
    return next((v for v in VIEWS[key] if v.key == name), None)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _like(column, word: str):
    """`column` contains `word`; SQLite's LIKE already ignores case (ASCII letters)."""
    return column.like(f"%{_escape_like(word)}%", escape="\\")


def _known_params(key: str) -> set[str]:
    names = set(_PARAMS_ALWAYS)
    for f in FILTERS[key]:
        if f.kind == "date":
            names |= {f.name, f"{f.name}_from", f"{f.name}_to"}
        elif f.kind == "number":
            names |= {f"{f.name}_min", f"{f.name}_max"}
        else:
            names.add(f.name)
    return names


def effective_params(key: str, args: Mapping[str, str]) -> tuple[dict[str, str], SavedView | None]:
    """The saved view's preset overlaid by the explicit parameters (unknown ones dropped)."""
    known = _known_params(key)
    view = view_of(key, args.get("view"))
    params = dict(view.params) if view else {}
    for name in sorted(known):
        if name in args and name != "view":
            params[name] = str(args[name]).strip()
    if view:
        params["view"] = view.key
    return {k: v for k, v in params.items() if v != "" or k in args}, view


# Joined tables, made once: a fresh alias per request would defeat the statement cache.
_OWNER = aliased(Employee, name="owner")
_ACCOUNT = aliased(Account, name="account")
_OPPORTUNITY = aliased(Opportunity, name="opportunity")


class _Query:
    """The SELECT of one list view, built from its parameters."""

    def __init__(self, db: Session, actor: Employee, key: str, params: Mapping[str, str]):
        self.db = db
        self.actor = actor
        self.key = key
        self.params = params
        self.errors: dict[str, str] = {}
        self.today = world_now(db).date()
        self.model = OBJECTS[key].model
        self.owner = _OWNER
        self.account = _ACCOUNT
        self.opportunity = _OPPORTUNITY
        self.conditions: list[Any] = []

    # columns of the row dicts, by name
    def selected(self) -> dict[str, Any]:
        m = self.model
        cols: dict[str, Any] = {"id": m.id, "owner_id": m.owner_id}
        cols["owner"] = self.owner.display_name
        if self.key == "accounts":
            for name in ("name", "account_type", "industry", "billing_city", "phone"):
                cols[name] = getattr(m, name)
            cols |= {"annual_revenue": m.annual_revenue, "created_at": m.created_at}
        elif self.key in ("contacts", "leads"):
            cols["name"] = m.first_name + " " + m.last_name
            for name in ("title", "email", "phone", "created_at"):
                cols[name] = getattr(m, name)
            if self.key == "contacts":
                cols |= {
                    "mailing_city": m.mailing_city,
                    "account_id": m.account_id,
                    "account": self.account.name,
                }
            else:
                cols |= {"company": m.company, "status": m.status, "source": m.source}
        elif self.key == "opportunities":
            for name in ("name", "stage", "amount", "probability", "close_date", "account_id"):
                cols[name] = getattr(m, name)
            cols["account"] = self.account.name
        elif self.key == "activities":
            for name in ("subject", "kind", "status", "priority", "due_date", "account_id"):
                cols[name] = getattr(m, name)
            cols |= {
                "opportunity_id": m.opportunity_id,
                "account": self.account.name,
                "opportunity": self.opportunity.name,
            }
        return cols

    def sort_columns(self) -> dict[str, tuple[tuple[Any, ...], bool]]:
        """Sortable column -> (SQL expressions, whether it can be empty).

        Text sorts are by the stored text (capitals first), so the name indexes serve them.
        """
        m = self.model
        cols = self.selected()
        out: dict[str, tuple[tuple[Any, ...], bool]] = {}
        for column in COLUMNS[self.key]:
            if not column.sortable:
                continue
            expr = cols[column.name]
            nullable = column.name in ("account", "opportunity") or bool(
                getattr(getattr(expr, "expression", None), "nullable", False)
            )
            out[column.name] = ((expr,), nullable)
        if self.key in ("contacts", "leads"):
            out["name"] = ((m.last_name, m.first_name), False)
        return out

    def joined(self, statement: Select, *, counting: bool = False) -> Select:
        """`statement` with the joins its columns (or, `counting`, its conditions) need."""
        m = self.model
        if counting:
            return statement
        statement = statement.join(self.owner, self.owner.id == m.owner_id)
        if self.key in ("contacts", "opportunities", "activities"):
            statement = statement.outerjoin(self.account, self.account.id == m.account_id)
        if self.key == "activities":
            statement = statement.outerjoin(
                self.opportunity, self.opportunity.id == m.opportunity_id
            )
        return statement

    # filters
    def _int(self, name: str) -> int | None:
        raw = self.params.get(name, "")
        if raw == "":
            return None
        if not raw.isdecimal() or len(raw) > 15:
            self.errors[name] = "Enter a whole number."
            return None
        return int(raw)

    def _date(self, name: str, label: str) -> date | None:
        raw = self.params.get(name, "")
        if raw == "":
            return None
        try:
            return parse_date(raw, label)
        except FieldError as error:
            self.errors[name] = str(error)
            return None

    def _range(self, column, name: str, label: str) -> None:
        preset = self.params.get(name, "")
        low = self._date(f"{name}_from", f"{label} from")
        high = self._date(f"{name}_to", f"{label} to")
        if preset:
            try:
                low_p, high_p = date_range(preset, self.today)
            except ValueError:
                self.errors[name] = f"Choose a {label.lower()} range from the list."
            else:
                low = max(low, low_p) if low and low_p else (low or low_p)
                high = min(high, high_p) if high and high_p else (high or high_p)
        if low and high and low > high:
            self.errors[f"{name}_to"] = f"The end of the {label.lower()} range is before its start."
            return
        if name == "created":  # a datetime column: whole days
            if low:
                self.conditions.append(column >= datetime.combine(low, time.min))
            if high:
                self.conditions.append(
                    column < datetime.combine(high + timedelta(days=1), time.min)
                )
            return
        if low:
            self.conditions.append(column >= low)
        if high:
            self.conditions.append(column <= high)

    def _numbers(self, column, name: str) -> None:
        low, high = self._int(f"{name}_min"), self._int(f"{name}_max")
        if low is not None and high is not None and low > high:
            self.errors[f"{name}_max"] = "The maximum is less than the minimum."
            return
        if low is not None:
            self.conditions.append(column >= low)
        if high is not None:
            self.conditions.append(column <= high)

    def _choice(self, column, name: str, options) -> None:
        value = self.params.get(name, "")
        if value == "":
            return
        allowed = {v.lower(): v for v, _ in options}
        if value.lower() not in allowed:
            self.errors[name] = "Choose a value from the list."
            return
        self.conditions.append(column == allowed[value.lower()])

    def _owner(self) -> None:
        value = self.params.get("owner", "")
        m = self.model
        if value == "":
            return
        if value == "me":
            self.conditions.append(m.owner_id == self.actor.id)
        elif value == "team":
            team = {self.actor.id} | reports_of(self.db, self.actor.id)
            self.conditions.append(m.owner_id.in_(sorted(team)))
        elif parse_int(value) is not None:
            self.conditions.append(m.owner_id == parse_int(value))
        else:
            self.errors["owner"] = "Choose an owner from the list."

    def build(self) -> None:
        m = self.model
        q = " ".join(self.params.get("q", "").split())[:200]
        if q:
            spec = OBJECTS[self.key]
            for word in q.split()[:8]:
                # Phone numbers only hold digits worth matching; other columns need letters.
                digits = any(ch.isdigit() for ch in word)
                columns = [
                    getattr(m, name) for name in spec.searchable if digits or name != "phone"
                ]
                matches = [_like(c, word) for c in columns]
                if self.key in ("contacts", "opportunities"):
                    accounts = select(Account.id).where(_like(Account.name, word))
                    matches.append(m.account_id.in_(accounts))
                self.conditions.append(or_(*matches))
        self._owner()
        for name in ("account_id", "contact_id", "opportunity_id"):
            if any(f.name == name for f in FILTERS[self.key]):
                value = self._int(name)
                if value is not None:
                    column = (
                        m.primary_contact_id
                        if (self.key == "opportunities" and name == "contact_id")
                        else getattr(m, name)
                    )
                    self.conditions.append(column == value)
        if any(f.name == "created" for f in FILTERS[self.key]):
            self._range(m.created_at, "created", "Created")
        if self.key == "accounts":
            self._choice(m.account_type, "type", _choices(ACCOUNT_TYPES))
            self._choice(m.industry, "industry", _choices(INDUSTRIES))
            self._numbers(m.annual_revenue, "revenue")
        elif self.key == "contacts":
            value = self.params.get("email", "")
            if value == "missing":
                self.conditions.append(or_(m.email.is_(None), m.email == ""))
            elif value == "present":
                self.conditions.append(and_(m.email.is_not(None), m.email != ""))
            elif value:
                self.errors["email"] = "Choose a value from the list."
        elif self.key == "leads":
            value = self.params.get("status", "")
            if value.lower() == "open":
                self.conditions.append(m.status.not_in(("Converted", "Unqualified")))
            else:
                self._choice(m.status, "status", _choices(LEAD_STATUS_CHOICES))
            self._choice(m.source, "source", _choices(LEAD_SOURCES))
        elif self.key == "opportunities":
            stage = self.params.get("stage", "")
            groups = {
                "open": OPEN_STAGES,
                "closed": (WON, LOST),
                "won": (WON,),
                "lost": (LOST,),
            }
            if stage.lower() in groups:
                self.conditions.append(m.stage.in_(groups[stage.lower()]))
            else:
                self._choice(m.stage, "stage", _choices(STAGE_NAMES))
            self._range(m.close_date, "close", "Close date")
            self._numbers(m.amount, "amount")
        elif self.key == "activities":
            self._choice(m.kind, "kind", _choices(ACTIVITY_KINDS, KIND_LABELS))
            self._choice(m.status, "status", _choices(ACTIVITY_STATUSES))
            self._choice(m.priority, "priority", _choices(PRIORITIES))
            self._range(m.due_date, "due", "Due date")

    def where(self, statement: Select) -> Select:
        return statement.where(*self.conditions) if self.conditions else statement


def _page_number(raw: str | None) -> int:
    return int(raw) if raw and raw.isdecimal() and len(raw) < 7 and int(raw) > 0 else 1


def list_records(
    db: Session,
    actor: Employee,
    key: str,
    args: Mapping[str, str],
    *,
    paginate: bool = True,
) -> ListPage:
    """One page of a list view (every matching row with `paginate=False`).

    Bad filter values are reported in `errors` (by parameter) and left out of the query.
    """
    if key not in COLUMNS:
        raise KeyError(key)
    params, view = effective_params(key, args)
    query = _Query(db, actor, key, params)
    query.build()
    cols = query.selected()
    sorts = query.sort_columns()
    default_sort, default_dir = DEFAULT_SORT[key]
    sort = params.get("sort") or default_sort
    if sort not in sorts:
        if params.get("sort"):
            query.errors["sort"] = "That column can't be sorted."
        sort = default_sort
    direction = params.get("dir", "").lower()
    if direction not in ("asc", "desc"):
        direction = default_dir if sort == default_sort else "asc"
    per_page = DEFAULT_PER_PAGE
    raw_per_page = params.get("per_page", "")
    if raw_per_page:
        if parse_int(raw_per_page) in PER_PAGE_CHOICES:
            per_page = parse_int(raw_per_page)
        else:
            query.errors["per_page"] = "Choose how many rows to show from the list."

    model = query.model
    sort_exprs, nullable = sorts[sort]
    ordered = [e.desc() if direction == "desc" else e.asc() for e in sort_exprs]
    if nullable:  # empty values last either way
        ordered = [e.nulls_last() for e in ordered]
    ordered.append(model.id.desc() if direction == "desc" else model.id.asc())
    columns = [c.label(n) for n, c in cols.items()]
    # A search scans every row anyway: count the matches in the same pass (a window count)
    # instead of scanning twice. Without one, a separate count keeps index-ordered pages cheap.
    searching = bool(params.get("q", "").strip()) and paginate
    if searching:
        columns.append(func.count().over().label("_total"))
    statement = query.where(query.joined(select(*columns))).order_by(*ordered)

    def fetch(page_number: int) -> list[dict[str, Any]]:
        paged = statement
        if paginate:
            paged = statement.limit(per_page).offset((page_number - 1) * per_page)
        # Core execution: the ORM's row machinery costs more than the query for plain columns.
        return [dict(row) for row in db.connection().execute(paged).mappings()]

    def count() -> int:
        counting = query.where(query.joined(select(func.count(model.id)), counting=True))
        return db.scalar(counting) or 0

    page = _page_number(params.get("page"))
    if searching:
        found = fetch(page)
        total = found[0]["_total"] if found else (count() if page > 1 else 0)
    else:
        total = count()
    pages = max(1, -(-total // per_page))
    if page > pages or not searching:
        page = min(page, pages)
        found = fetch(page)
    scope = edit_scope(db, actor)
    rows = []
    for item in found:
        item.pop("_total", None)
        item["editable"] = scope.allows(item["owner_id"])
        rows.append(item)
    return ListPage(
        key=key,
        columns=COLUMNS[key],
        rows=tuple(rows),
        total=total,
        page=page,
        per_page=per_page,
        pages=pages,
        sort=sort,
        direction=direction,
        params=params,
        view=view,
        views=VIEWS[key],
        filters=FILTERS[key],
        errors=query.errors,
        today=query.today,
    )


def conditions(
    db: Session, actor: Employee, key: str, args: Mapping[str, str]
) -> tuple[list[Any], dict[str, str]]:
    """The WHERE conditions a list view's search and filters put on `OBJECTS[key].model` (its
    own columns and subqueries only, no joins), and the parameters that were bad."""
    params, _ = effective_params(key, args)
    query = _Query(db, actor, key, params)
    query.build()
    return query.conditions, query.errors


def check(page: ListPage) -> ListPage:
    """The page, or ValidationError if any of its parameters was bad (for the API)."""
    if page.errors:
        name, message = next(iter(page.errors.items()))
        raise ValidationError(message, name, dict(page.errors))
    return page


def export_table(page: ListPage) -> tuple[list[str], list[list[Any]]]:
    """Headers and rows of a list view as exported: its id, then its columns as shown."""
    headers = ["ID"] + [c.label for c in page.columns]
    rows = []
    for row in page.rows:
        cells: list[Any] = [row["id"]]
        for column in page.columns:
            value = row.get(column.name)
            if column.kind == "kind":
                value = KIND_LABELS.get(value, value)
            elif column.kind == "date" and value is not None:
                value = value.isoformat()[:10]
            cells.append(value)
        rows.append(cells)
    return headers, rows


__all__ = [
    "COLUMNS",
    "DATE_PRESETS",
    "FILTERS",
    "LIST_KEYS",
    "PER_PAGE_CHOICES",
    "VIEWS",
    "Column",
    "Filter",
    "ListPage",
    "SavedView",
    "check",
    "conditions",
    "date_range",
    "effective_params",
    "export_table",
    "list_records",
    "quarter_of",
    "view_of",
]
