"""Matchers for what CRM templates grade: a message asked for on one line, and a phone field
holding a given number in any formatting."""

from __future__ import annotations

import re
from typing import Any

from officegym.tasks.answer import phone_digits
from officegym.tasks.match import Matcher


class _OneLine(Matcher):
    """A text on one line (no line break inside it) that `inner` also accepts."""

    def __init__(self, inner: Matcher) -> None:
        self.inner = inner

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and "\n" not in value.strip() and self.inner.matches(value)

    def describe(self) -> str:
        return f"one_line({self.inner.describe()})"


def one_line(inner: Matcher) -> Matcher:
    """A message asked for as "one line": no line break, and matching `inner`."""
    return _OneLine(inner)


# A phone number written on its own: digits, spaces, + ( ) . - /, and an optional extension.
_PHONE_ONLY = re.compile(r"\+?[\d\s().\-/]+?(?:\s*(?:x|ext\.?)\s*(?P<ext>\d+))?", re.IGNORECASE)


def _phone_key(text: str) -> tuple[str, str] | None:
    """(digits, extension) of a field holding one phone number and nothing else, else None."""
    found = _PHONE_ONLY.fullmatch(text.strip())
    if found is None:
        return None
    return phone_digits(text), found["ext"] or ""


class _SamePhone(Matcher):
    """A phone field holding `number` in any formatting (spaces, dashes, brackets, a leading
    +1 or 001 for a North American number), its extension kept, and nothing else."""

    def __init__(self, number: str) -> None:
        key = _phone_key(number)
        if key is None:
            raise ValueError(f"{number!r} is not a phone number")
        self.number = number
        self.key = key

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and _phone_key(value) == self.key

    def describe(self) -> str:
        return f"same_phone({self.number!r})"


def same_phone(number: str) -> Matcher:
    """A phone column holding `number`, however it is formatted (see `_SamePhone`)."""
    return _SamePhone(number)


__all__ = ["one_line", "same_phone"]
