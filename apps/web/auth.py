"""Single sign-on: every app shares one login against the world's employee directory.

Any active employee signs in with their email (any case) and DEMO_PASSWORD. The session
cookie holds the world id and the employee id; it counts only in the world that issued it, so
a cookie carried into another world's requests is simply logged out there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.seed_data.connect import make_engine
from officegym.seed_data.passwords import DEMO_PASSWORD, check_password
from officegym.seed_data.schema import Employee
from officegym.seed_data.store import WorldNotFound, WorldStore

from .demo_accounts import demo_accounts
from .errors import wants_json
from .world import SAFE_METHODS, get_db, world_id

bp = Blueprint("auth", __name__)

_SESSION_WORLD = "world"
_SESSION_EMPLOYEE = "employee"
_MAX_NEXT = 2000

EMPTY_FIELDS = "Enter your email address and password."
BAD_CREDENTIALS = "That email and password don't match an account. Check them and try again."
DEACTIVATED = "This account has been deactivated. Ask an administrator to restore access."

F = TypeVar("F", bound=Callable)


def current_user() -> Employee | None:
    """The signed-in employee of this request's world, or None (loaded once per request)."""
    if "user" not in g:
        g.user = _load_user()
    return g.user


def _load_user() -> Employee | None:
    bound = world_id()
    if bound is None or session.get(_SESSION_WORLD) != bound:
        return None
    employee_id = session.get(_SESSION_EMPLOYEE)
    if not isinstance(employee_id, int) or isinstance(employee_id, bool):
        return None
    user = get_db().get(Employee, employee_id)
    if user is None or not user.is_active:
        return None
    return user


def login_required(view: F) -> F:
    """Send visitors who are not signed in (in this world) to the login page, then back."""

    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        if current_user() is None:
            if wants_json():
                abort(401)
            here = None
            if request.method in SAFE_METHODS and request.path != "/":
                query = request.query_string.decode("latin-1")
                here = request.path + (f"?{query}" if query else "")
            return redirect(url_for("auth.login", next=here))
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def safe_next(target: str | None) -> str | None:
    """`target` if it is a path on this site (no scheme, host or backslash), else None."""
    if not target or len(target) > _MAX_NEXT:
        return None
    if not target.startswith("/") or target.startswith("//"):
        return None
    if any(ch == "\\" or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return None
    return target


def find_employee(db: Session, email: str) -> Employee | None:
    """The employee with this email, compared case-insensitively."""
    statement = (
        select(Employee)
        .where(func.lower(Employee.email) == email.strip().lower())
        .order_by(Employee.id)
        .limit(1)
    )
    return db.scalars(statement).first()


def login_hint(store: WorldStore, world: str) -> str:
    """One line for a terminal: how a person signs in to `world` (for `officegym serve`)."""
    if not store.exists(world):
        raise WorldNotFound(f"no world {world!r} in {store.worlds_dir}")
    engine = make_engine(store.world_path(world), create=False)
    try:
        with Session(engine) as db, db.begin():
            example = "".join(f", e.g. {a.person.email} ({a.why})" for a in demo_accounts(db, 1))
    finally:
        engine.dispose()
    return f"Sign in as any employee with password {DEMO_PASSWORD!r}{example}."


@bp.route("/login", methods=("GET", "POST"))
def login():
    """Show the sign-in form; on POST check the credentials and start a session."""
    target = safe_next(request.values.get("next"))
    if request.method == "GET" and current_user() is not None:
        return redirect(target or url_for("launcher.index"))

    email = ""
    error = None
    status = 200
    if request.method == "POST":
        email = request.form.get("email", "").strip()
        password = request.form.get("password", "")
        user = find_employee(get_db(), email) if email and password else None
        if not email or not password:
            error, status = EMPTY_FIELDS, 400
        elif user is None or not check_password(password, user.password_hash):
            error, status = BAD_CREDENTIALS, 401
        elif not user.is_active:
            error, status = DEACTIVATED, 403
        else:
            session.clear()
            session[_SESSION_WORLD] = world_id()
            session[_SESSION_EMPLOYEE] = user.id
            g.user = user
            return redirect(target or url_for("launcher.index"))

    page = render_template(
        "login.html",
        email=email,
        error=error,
        next=target,
        accounts=demo_accounts(get_db()),
        demo_password=DEMO_PASSWORD,
    )
    return page, status


@bp.post("/logout")
def logout():
    """End the session and return to the sign-in page."""
    session.clear()
    g.user = None
    flash("You have signed out.", "info")
    return redirect(url_for("auth.login"))


__all__ = [
    "bp",
    "current_user",
    "find_employee",
    "login_hint",
    "login_required",
    "safe_next",
]
