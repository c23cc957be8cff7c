"""Matchers for column values in verifier expectations (`expect.inserted(..., body=contains("x"))`).

A plain value matches by equality after normalisation: strings compare with runs of
whitespace collapsed and ends stripped (an honest agent's spacing is not graded), booleans
match SQLite's 0/1, and `None` matches NULL. A `Matcher` says more: `contains`, `ci`,
`any_of`, `approx`, `one_of_ids`, `is_set`, `is_null`. Every matcher describes itself, so a
failed check can say what was expected.

Text an agent writes in its own words (`contains`, and every `FreeText` matcher) is bounded:
at most `FREE_TEXT_MIN` characters or `FREE_TEXT_FACTOR` times what was asked for, whichever
is more, and no @mention or link the request did not ask for. "The required words plus
anything" is not a message anyone asked for; mentions page people and links point elsewhere.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
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


# Free text may run to this many characters whatever was asked, or to this many times the
# length of what was asked (a reply of one required phrase may still say a sentence).
FREE_TEXT_MIN = 200
FREE_TEXT_FACTOR = 3

# An @mention as chat reads one ("@Dana Diaz"), not an email address's "@".
_MENTION = re.compile(r"(?<![\w.@])@[^\W\d_][\w'’-]*(?:\s+[A-Z][\w'’-]*)?")
# A link: a web address, a markdown link, or a path on the suite.
_LINK = re.compile(
    r"https?://[^\s)>\]]+|\bwww\.[^\s)>\]]+|\]\([^)]*\)"
    r"|(?<![\w/])/(?:chat|crm|sheets|booking)/[^\s)>\]]*",
    re.IGNORECASE,
)


def mentions_in(text: str) -> list[str]:
    """The @mentions `text` makes, as written ("@Dana Diaz")."""
    return [m.group(0) for m in _MENTION.finditer(text)]


def links_in(text: str) -> list[str]:
    """The links `text` holds: web addresses, markdown links and paths on the suite."""
    return [m.group(0) for m in _LINK.finditer(text)]


def text_excess(
    text: str, asked: Sequence[str], *, max_chars: int | None = None, links: bool = False
) -> str:
    """Why `text` says more than was asked (`asked`: the texts the request called for), or "".

    Too long (over `max_chars`, by default `FREE_TEXT_MIN` or `FREE_TEXT_FACTOR` × the asked
    length), an @mention no asked text makes, or a link no asked text holds (unless `links`:
    the matcher judges links itself)."""
    body = squash(text)
    wanted = " ".join(squash(a) for a in asked)
    limit = (
        max_chars if max_chars is not None else max(FREE_TEXT_MIN, FREE_TEXT_FACTOR * len(wanted))
    )
    if len(body) > limit:
        return f"{len(body)} characters (at most {limit})"
    folded = wanted.casefold()
    stray = [m for m in mentions_in(body) if m.split()[0].casefold() not in folded]
    if stray:
        return f"mentions nobody asked for: {', '.join(stray[:3])}"
    if not links:
        extra = [link for link in links_in(body) if link.casefold() not in folded]
        if extra:
            return f"links nobody asked for: {', '.join(extra[:3])}"
    return ""


class FreeText(Matcher):
    """Base of matchers on text an agent writes in its own words: the text must pass
    `text_excess` (bounded, no stray mentions or links) and then `accepts`."""

    links = False

    def asked(self) -> Sequence[str]:
        """The texts the request called for (what the bound is relative to)."""
        return ()

    def accepts(self, text: str) -> bool:
        raise TypeError(f"{type(self).__name__} does not implement accepts()")

    def matches(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        return not text_excess(value, self.asked(), links=self.links) and self.accepts(value)


class _Contains(FreeText):
    def __init__(self, parts: tuple[str, ...], case: bool) -> None:
        if not parts:
            raise ValueError("contains() needs at least one text")
        self.parts = parts
        self.case = case

    def _fold(self, text: str) -> str:
        text = squash(text)
        return text if self.case else text.casefold()

    def asked(self) -> Sequence[str]:
        return self.parts

    def accepts(self, text: str) -> bool:
        folded = self._fold(text)
        return all(self._fold(part) in folded for part in self.parts)

    def describe(self) -> str:
        how = "" if self.case else ", any case"
        return f"contains({', '.join(map(repr, self.parts))}{how})"


def contains(*parts: str, case: bool = False) -> Matcher:
    """A text holding every one of `parts` (whitespace-normalised; any case unless `case`),
    in the agent's own words within the free-text bound (see `text_excess`)."""
    return _Contains(tuple(parts), case)


@dataclass(frozen=True)
class Fact:
    """One value a message must state: read as `kind` under the answer contract
    (`officegym.tasks.answer`), with the wrong candidates it must not also state."""

    expected: Any
    kind: str = "text"
    distractors: tuple[str, ...] = ()
    unit: str | None = None

    def texts(self) -> tuple[str, ...]:
        """The spellings this fact expects, as another fact of the message may see them."""
        e = self.expected
        if self.kind in ("text", "list") and isinstance(e, list | tuple):
            return tuple(map(str, e))
        return (str(e),) if self.kind in ("text", "name", "email", "phone") else ()


def fact(
    expected: Any, kind: str = "text", *, distractors: Iterable[str] = (), unit: str | None = None
) -> Fact:
    """A value a message must state (see `states`)."""
    return Fact(expected, kind, tuple(str(d) for d in distractors if d), unit)


class _States(FreeText):
    def __init__(self, facts: tuple[Fact, ...], today: date | None) -> None:
        if not facts:
            raise ValueError("states() needs at least one fact")
        self.facts = facts
        self.today = today

    def asked(self) -> Sequence[str]:
        # A person a fact names may be @mentioned: that mention states the fact.
        texts = [t for f in self.facts for t in (f.texts() or (str(f.expected),))]
        named = [f"@{t}" for f in self.facts if f.kind in ("name", "text") for t in f.texts()]
        return texts + named

    def accepts(self, text: str) -> bool:
        return not self.problem(text)

    def problem(self, text: str) -> str:
        """Why `text` does not state the facts (one candidate each), or ""."""
        from . import answer

        for f in self.facts:
            others = tuple(t for g in self.facts if g is not f for t in g.texts())
            reading = answer.judge(
                text,
                f.expected,
                f.kind,
                today=self.today,
                unit=f.unit,
                distractors=f.distractors,
                ignore=others,
                max_chars=len(text) + 1,
            )
            if not reading.passed:
                return f"{f.kind} {f.expected!s}: {reading.problem or reading.found}"
        return ""

    def describe(self) -> str:
        shown = ", ".join(f"{f.kind} {f.expected!s}" for f in self.facts)
        return f"states({shown})"


def states(*facts: Fact, today: date | None = None) -> Matcher:
    """A text that states each of `facts` the way an answer must (one candidate of each, no
    hedge, no named distractor), within the free-text bound. Relative dates are read against
    `today` (the world's date: `ctx.world_today()`)."""
    return _States(tuple(facts), today)


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


# Quotation marks an agent may keep around a text the request quoted.
_QUOTES = (('"', '"'), ("“", "”"), ("'", "'"), ("‘", "’"))


def verbatim(text: str) -> Matcher:
    """A text that is `text` itself, word for word (any case and spacing), bare or inside the
    quotation marks the request put around it: nothing added, nothing left out."""
    return any_of(ci(text), *(ci(f"{a}{text}{b}") for a, b in _QUOTES))


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
    "FREE_TEXT_FACTOR",
    "FREE_TEXT_MIN",
    "Fact",
    "FreeText",
    "Matcher",
    "any_of",
    "approx",
    "ci",
    "contains",
    "describe",
    "fact",
    "is_null",
    "is_set",
    "links_in",
    "matches",
    "mentions_in",
    "one_of_ids",
    "squash",
    "states",
    "text_excess",
    "verbatim",
]
