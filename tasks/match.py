"""Matchers for column values in verifier expectations (`expect.inserted(..., body=contains("x"))`).

A plain value matches by equality after normalisation: strings compare with runs of
whitespace collapsed and ends stripped (an honest agent's spacing is not graded), booleans
match SQLite's 0/1, and `None` matches NULL. A `Matcher` says more: `contains`, `ci`,
`any_of`, `approx`, `one_of_ids`, `is_set`, `is_null`. Every matcher describes itself, so a
failed check can say what was expected.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any


def squash(text: str) -> str:
    """`text` with every run of whitespace turned into one space and the ends stripped."""
    return " ".join(str(text).split())


class Matcher:
    """A predicate on one column value, with a description for check details."""

    def matches(self, value: Any) -> bool:
        raise TypeError(f"{type(self).__name__} does not implement matches()")

    def describe(self) -> str:
        return type(self).__name__


def matches(expected: Any, value: Any) -> bool:
    """Whether a column `value` satisfies `expected` (a `Matcher` or a plain value)."""
    if isinstance(expected, Matcher):
        return expected.matches(value)
    if expected is None or value is None:
        return expected is None and value is None
    if isinstance(expected, bool):
        return isinstance(value, bool | int) and bool(value) is expected
    if isinstance(expected, str):
        return isinstance(value, str) and squash(value) == squash(expected)
    if isinstance(expected, int | float) and isinstance(value, int | float):
        return value == expected
    return expected == value


def describe(expected: Any) -> str:
    """How `expected` reads in a check's detail."""
    if isinstance(expected, Matcher):
        return expected.describe()
    return repr(expected)


class _Contains(Matcher):
    def __init__(self, parts: tuple[str, ...], case: bool) -> None:
        if not parts:
            raise ValueError("contains() needs at least one text")
        self.parts = parts
        self.case = case

    def _fold(self, text: str) -> str:
        text = squash(text)
        return text if self.case else text.casefold()

    def matches(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        folded = self._fold(value)
        return all(self._fold(part) in folded for part in self.parts)

    def describe(self) -> str:
        how = "" if self.case else ", any case"
        return f"contains({', '.join(map(repr, self.parts))}{how})"


def contains(*parts: str, case: bool = False) -> Matcher:
    """A text holding every one of `parts` (whitespace-normalised; any case unless `case`)."""
    return _Contains(tuple(parts), case)


class _CaseInsensitive(Matcher):
    def __init__(self, text: str) -> None:
        self.text = squash(text).casefold()

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and squash(value).casefold() == self.text

    def describe(self) -> str:
        return f"ci({self.text!r})"


def ci(text: str) -> Matcher:
    """A text equal to `text` ignoring case and whitespace runs."""
    return _CaseInsensitive(text)


class _AnyOf(Matcher):
    def __init__(self, options: tuple[Any, ...]) -> None:
        if not options:
            raise ValueError("any_of() needs at least one option")
        self.options = options

    def matches(self, value: Any) -> bool:
        return any(matches(option, value) for option in self.options)

    def describe(self) -> str:
        return f"any_of({', '.join(describe(o) for o in self.options)})"


def any_of(*options: Any) -> Matcher:
    """A value matching at least one of `options` (plain values or matchers)."""
    return _AnyOf(tuple(options))


class _Approx(Matcher):
    def __init__(self, target: float, rel: float, abs_: float) -> None:
        self.target = float(target)
        self.rel = rel
        self.abs = abs_

    def matches(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            return False
        try:
            number = float(value)
        except ValueError:
            return False
        return math.isclose(number, self.target, rel_tol=self.rel, abs_tol=self.abs)

    def describe(self) -> str:
        return f"approx({self.target:g}, rel={self.rel:g}, abs={self.abs:g})"


def approx(target: float, *, rel: float = 1e-9, abs: float = 1e-9) -> Matcher:  # noqa: A002
    """A number within `rel` (relative) or `abs` (absolute) of `target`."""
    return _Approx(target, rel, abs)


class _OneOfIds(Matcher):
    def __init__(self, ids: Iterable[int]) -> None:
        self.ids = frozenset(int(i) for i in ids)
        if not self.ids:
            raise ValueError("one_of_ids() needs at least one id")

    def matches(self, value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value in self.ids

    def describe(self) -> str:
        shown = sorted(self.ids)
        more = f", … {len(shown) - 8} more" if len(shown) > 8 else ""
        return f"one_of_ids({', '.join(map(str, shown[:8]))}{more})"


def one_of_ids(ids: Iterable[int]) -> Matcher:
    """An id in `ids` (e.g. any of a person's messages when several would do)."""
    return _OneOfIds(ids)


class _IsSet(Matcher):
    def matches(self, value: Any) -> bool:
        return value is not None and value != ""

    def describe(self) -> str:
        return "is_set()"


class _IsNull(Matcher):
    def matches(self, value: Any) -> bool:
        return value is None

    def describe(self) -> str:
        return "is_null()"


def is_set() -> Matcher:
    """Any value but NULL and the empty string (a timestamp the app stamped, say)."""
    return _IsSet()


def is_null() -> Matcher:
    """NULL only."""
    return _IsNull()


__all__ = [
    "Matcher",
    "any_of",
    "approx",
    "ci",
    "contains",
    "describe",
    "is_null",
    "is_set",
    "matches",
    "one_of_ids",
    "squash",
]
