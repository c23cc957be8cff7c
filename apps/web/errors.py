"""The apps' refusals and the error pages that show them.

Services raise `AppError` subclasses (`ValidationError("Name can't be blank", "name")`): each
carries a message for people, the input at fault and the HTTP status it maps to. Pages turn
them into form messages, the JSON API into `{"error": {...}}` (see `jsonapi`); raising one
inside a request rolls its transaction back, so a refused write changes nothing.

Views raise werkzeug HTTP exceptions (`abort(409, "...")`); a custom description is shown as
the message, otherwise a friendly default for the status. Unhandled exceptions become a 500
page; Flask logs them (with traceback) to `app.logger` before this handler runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, g, jsonify, make_response, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError, default_exceptions

from .world import world_id

TITLES = {
    400: "Bad request",
    401: "Sign-in required",
    403: "Access denied",
    404: "Page not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Too large",
    422: "Couldn't process that",
    429: "Too many requests",
    500: "Something went wrong",
}

MESSAGES = {
    400: "The request could not be understood. Go back and try again.",
    401: "You need to sign in to see this page.",
    403: "You don't have permission to do that.",
    404: "The page you were looking for doesn't exist or has moved.",
    405: "This page doesn't accept that kind of request.",
    409: "That change conflicts with the current state of the record. Reload and try again.",
    413: "What you sent is larger than this page accepts.",
    422: "Some of the information you sent isn't valid. Check it and try again.",
    429: "Too many requests in a short time. Wait a moment and try again.",
    500: "An unexpected error occurred and has been logged. Try again in a moment.",
}

CSRF_TITLE = "Form expired"
CSRF_MESSAGE = (
    "This form has expired or was missing its security token. Reload the page and submit it again."
)

_API_SEGMENT = "api"


class AppError(Exception):
    """Base of every app's refusals: `message` is for people; `field` names the input at
    fault; `status` is the HTTP status pages and the API answer with."""

    status = 400

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def details(self) -> dict[str, Any]:
        """Extra members of the API's error object (e.g. the fields at fault)."""
        return {}


class ValidationError(AppError):
    """Bad input. `errors` maps each offending field to its message."""

    status = 422

    def __init__(
        self,
        message: str,
        field: str | None = None,
        errors: Mapping[str, str] | None = None,
    ) -> None:
        errors = dict(errors or ({field: message} if field else {}))
        super().__init__(message, field or next(iter(errors), None))
        self.errors = errors

    @classmethod
    def of(cls, errors: Mapping[str, str]) -> ValidationError:
        """One error for several fields; the message summarises them."""
        if len(errors) == 1:
            return cls(next(iter(errors.values())), errors=errors)
        return cls(f"Fix the {len(errors)} fields marked below.", errors=errors)

    def details(self) -> dict[str, Any]:
        return {"fields": dict(self.errors)} if self.errors else {}


class NotFound(AppError):
    """The record does not exist, or the user may not know that it does."""

    status = 404


class Forbidden(AppError):
    """The user may see the record but not do this to it."""

    status = 403


class Conflict(AppError):
    """The request clashes with the current state (an archived channel, a converted lead)."""

    status = 409


def wants_json() -> bool:
    """True for API paths (`/api/...`, `/<app>/api/...`) and requests that prefer JSON."""
    segments = request.path.strip("/").split("/")
    if _API_SEGMENT in segments[:2]:
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_response(status: int, title: str, message: str, headers: list | None = None):
    """Render an error as HTML (error.html) or JSON `{"error": {status, title, message}}`."""
    if wants_json():
        response = jsonify(error={"status": status, "title": title, "message": message})
    else:
        page = render_template(
            "error.html",
            status=status,
            title=title,
            message=message,
            show_home=world_id() is not None,
        )
        response = make_response(page)
    response.status_code = status
    for name, value in headers or ():
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


def _handle_http(error: HTTPException):
    status = error.code or 500
    if status >= 500:
        g.plain_layout = True
    title = getattr(error, "title", None) or TITLES.get(status) or error.name
    # Werkzeug's stock descriptions are replaced by ours; anything a view or subclass wrote stays.
    stock = default_exceptions.get(status)
    custom = stock is None or error.description != stock.description
    if isinstance(error, InternalServerError):
        custom = False
    message = error.description if custom else MESSAGES.get(status, error.description)
    return error_response(status, title, message or "", error.get_headers())


def _handle_csrf(_error: CSRFError):
    return error_response(400, CSRF_TITLE, CSRF_MESSAGE)


def init_app(app: Flask) -> None:
    app.register_error_handler(CSRFError, _handle_csrf)
    app.register_error_handler(HTTPException, _handle_http)


__all__ = [
    "MESSAGES",
    "TITLES",
    "AppError",
    "Conflict",
    "Forbidden",
    "NotFound",
    "ValidationError",
    "error_response",
    "init_app",
    "wants_json",
]
