"""What a request may carry, bounded once for every app before any view or service sees it.

SQLite stores integers in 64 bits: binding a Python int outside that range raises
OverflowError, and binding a str holding a lone surrogate ("\\ud800", which JSON can spell)
raises UnicodeEncodeError; `json.loads` raises RecursionError on deep nesting. Each would be
a 500, so hostile input is refused here with a 4xx instead:

- `int` URL converters accept ids up to 2**63 - 1; a bigger one matches no route (404, like
  any unknown id);
- `parse_int` reads an integer from a query or form value: ASCII digits only (`"²".isdigit()`
  is true, but `int("²")` fails) and at most `MAX_QUERY_INT`, else the caller's default;
- `parse_json_body` reads a JSON body nested at most `MAX_JSON_DEPTH` deep, with no lone
  surrogates (400) and no integer outside SQLite's range (422);
- before any view runs, query and form text that is not valid UTF-8 or holds a lone
  surrogate is refused with a 400.
"""

from __future__ import annotations

import builtins
import json
import re
from typing import Any

from flask import Flask, request
from werkzeug.exceptions import BadRequest
from werkzeug.routing import IntegerConverter, Map

from .errors import ValidationError

SQLITE_INT_MIN = -(2**63)
SQLITE_INT_MAX = 2**63 - 1
# Ids, page numbers and counts in queries: small enough that a page times its size (or an id
# plus an offset) still fits SQLite's 64 bits.
MAX_QUERY_INT = 10**15
MAX_JSON_DEPTH = 64

_DIGITS = re.compile(r"[0-9]+")
_SIGNED_DIGITS = re.compile(r"-?[0-9]+")


class SqliteIntConverter(IntegerConverter):
    """The `int` URL converter, bounded to SQLite's 64-bit integers: out of range is no match."""

    def __init__(
        self,
        map: Map,
        fixed_digits: int = 0,
        min: int | None = None,
        max: int | None = None,
        signed: bool = False,
    ) -> None:
        super().__init__(
            map,
            fixed_digits=fixed_digits,
            min=SQLITE_INT_MIN if min is None else builtins.max(min, SQLITE_INT_MIN),
            max=SQLITE_INT_MAX if max is None else builtins.min(max, SQLITE_INT_MAX),
            signed=signed,
        )


def parse_int(value: Any, default: int | None = None, *, signed: bool = False) -> int | None:
    """`value` (a query or form value) as a whole number written in ASCII digits with at most
    `MAX_QUERY_INT` in size; `default` when it is absent, blank, not such a number or larger."""
    text = str(value if value is not None else "").strip()
    if not (_SIGNED_DIGITS if signed else _DIGITS).fullmatch(text) or len(text) > 17:
        return default
    number = int(text)
    return number if -MAX_QUERY_INT <= number <= MAX_QUERY_INT else default


def is_storable(text: str) -> bool:
    """True unless `text` holds a lone surrogate (which no UTF-8 column can store)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_json_body(raw: bytes) -> Any:
    """The JSON value in `raw`, checked: a 400 for malformed, too deeply nested or lone
    surrogate text, a 422 naming the field for an integer outside SQLite's 64 bits."""
    try:
        data = json.loads(raw)
    except RecursionError:
        raise BadRequest(_too_deep()) from None
    except ValueError:
        raise BadRequest("The request body is not valid JSON: send a JSON object.") from None
    check_json(data)
    return data


def check_json(data: Any) -> None:
    """Walk a parsed JSON value (iteratively: its depth is what is being checked)."""
    stack: list[tuple[Any, int, str | None]] = [(data, 0, None)]
    while stack:
        value, depth, top = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= MAX_JSON_DEPTH:
                raise BadRequest(_too_deep())
            items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
            for key, item in items:
                if key is not None and not is_storable(key):
                    raise BadRequest(_SURROGATE)
                stack.append((item, depth + 1, top if top is not None or depth else key))
        elif isinstance(value, str):
            if not is_storable(value):
                raise BadRequest(_SURROGATE)
        elif isinstance(value, int) and not SQLITE_INT_MIN <= value <= SQLITE_INT_MAX:
            name = f"'{top}'" if top else "A number"
            message = f"{name} is out of range: whole numbers go up to 2^63-1."
            raise ValidationError(message, top)


def _too_deep() -> str:
    return f"The JSON body is nested too deeply (more than {MAX_JSON_DEPTH} levels)."


_SURROGATE = "The request holds text that is not valid Unicode (a lone surrogate)."


def _check_text() -> None:
    """Refuse query and form text that no page or column can hold, before any view runs."""
    try:
        sources = [request.args]
    except UnicodeDecodeError:
        raise BadRequest("The address holds bytes that are not valid UTF-8.") from None
    if request.method not in ("GET", "HEAD", "OPTIONS") and request.mimetype in _FORM_TYPES:
        sources.append(request.form)
    for source in sources:
        for key, value in source.items(multi=True):
            if not (is_storable(key) and is_storable(value)):
                raise BadRequest(_SURROGATE)


_FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


def init_app(app: Flask) -> None:
    """Bound `app`'s `int` URL converter and check request text before any view. Call it before
    any blueprint is registered (rules take their converter when they are added)."""
    app.url_map.converters["int"] = SqliteIntConverter
    app.before_request(_check_text)


__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_QUERY_INT",
    "SQLITE_INT_MAX",
    "SQLITE_INT_MIN",
    "SqliteIntConverter",
    "check_json",
    "init_app",
    "is_storable",
    "parse_int",
    "parse_json_body",
]
