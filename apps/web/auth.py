"""Single sign-on: every app shares one login against the world's employee directory.

Any active employee signs in with their email (any case) and DEMO_PASSWORD. The session
cookie holds the world id and a random session id; the world file itself holds which employee
each live session id belongs to (the `_session` table, outside the change log and the diff).
So a cookie counts only in the world that issued it, only while that world file lives (a world
dropped and recreated, from any seed, knows none of the old sessions), and only until its
session signs out (a copy of the cookie taken before logout is dead after it).
"""

from __future__ import annotations

import contextlib
import functools
import secrets
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
from sqlalchemy import func, select, text
from sqlalchemy.exc import OperationalError
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
_SESSION_ID = "sid"
_MAX_NEXT = 2000
# Sessions kept per employee and world: a new sign-in forgets the oldest beyond this.
MAX_SESSIONS_PER_EMPLOYEE = 32

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
    sid = session.get(_SESSION_ID)
    if bound is None or session.get(_SESSION_WORLD) != bound or not isinstance(sid, str):
        return None
    db = get_db()
    try:
        employee_id = db.scalar(
            text("SELECT employee_id FROM _session WHERE sid = :sid"), {"sid": sid}
        )
    except OperationalError:  # no one has signed in to this world file yet: no table
        return None
    user = db.get(Employee, employee_id) if employee_id is not None else None
    if user is None or not user.is_active:
        return None
    return user


_SESSIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS _session ("
    "seq INTEGER PRIMARY KEY, sid TEXT NOT NULL UNIQUE, employee_id INTEGER NOT NULL)"
)


def _start_session(db: Session, employee_id: int) -> str:
    """Record a new session of `employee_id` in the world file; returns its id."""
    sid = secrets.token_urlsafe(24)
    db.execute(text(_SESSIONS_TABLE))
    db.execute(
        text("INSERT INTO _session (sid, employee_id) VALUES (:sid, :employee)"),
        {"sid": sid, "employee": employee_id},
    )
    db.execute(
        text(
            "DELETE FROM _session WHERE employee_id = :employee AND seq NOT IN "
            "(SELECT seq FROM _session WHERE employee_id = :employee ORDER BY seq DESC LIMIT :keep)"
        ),
        {"employee": employee_id, "keep": MAX_SESSIONS_PER_EMPLOYEE},
    )
    return sid


def _end_session(db: Session, sid: object) -> None:
    if not isinstance(sid, str):
        return
    with contextlib.suppress(OperationalError):  # no table: no one signed in to this file
        db.execute(text("DELETE FROM _session WHERE sid = :sid"), {"sid": sid})


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
            if session.get(_SESSION_WORLD) == world_id():
                _end_session(get_db(), session.get(_SESSION_ID))
            session.clear()
            session[_SESSION_WORLD] = world_id()
            session[_SESSION_ID] = _start_session(get_db(), user.id)
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
    """End the session (everywhere its cookie was copied) and return to the sign-in page."""
    if session.get(_SESSION_WORLD) == world_id():
        _end_session(get_db(), session.get(_SESSION_ID))
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
