"""Cell addresses, and the references inside formula text: finding them and rewriting them.

A formula is scanned left to right by one tokenizer that knows string literals (`="A1"` is text,
not a reference), error literals, numbers (`1E3` is not column E), names and function calls
(`LOG10(` is not cell LOG10), and references with an optional sheet: `B2`, `$B$2`, `A1:C3`,
`B:B`, `3:5`, `Sheet2!A1`, `'Q3 Pipeline'!B2:B40`. Every rewrite (fill, insert, delete, rename)
replaces reference tokens and copies everything else byte for byte.

Sheet names compare case-insensitively, as in Excel.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

MAX_ROWS = 1_048_576
MAX_COLS = 16_384
REF_ERROR = "#REF!"

_COL = r"\$?[A-Za-z]{1,3}"
_ROW = r"\$?[0-9]+"
_SHEET = r"(?P<prefix>(?:'(?P<quoted>(?:[^']|'')+)'|(?P<bare>[A-Za-z_\\][\w.]*))!)"
_TOKEN = re.compile(
    rf"""
    (?P<string>"(?:[^"]|"")*"?)
    | (?:{_SHEET})?
      (?:
        (?P<area>(?P<a1>{_COL}{_ROW})(?::(?P<a2>{_COL}{_ROW}))?)(?![\w.(!:])
        | (?P<cols>(?P<c1>{_COL}):(?P<c2>{_COL}))(?![\w.(!])
        | (?P<rows>(?P<r1>{_ROW}):(?P<r2>{_ROW}))(?![\w.(!])
        | (?P<referr>\#REF!)
      )
    | (?P<error>\#[A-Za-z0-9/]+[!?A]?)
    | (?P<number>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)
    | (?P<name>[A-Za-z_\\][\w.]*)
    | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_PART = re.compile(r"(\$?)([A-Za-z]*)(\$?)([0-9]*)")
_BARE_SHEET = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_LOOKS_LIKE_CELL = re.compile(r"[A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc][0-9]*", re.ASCII)


def column_letters(n: int) -> str:
    """1 → 'A', 26 → 'Z', 27 → 'AA'."""
    if n < 1:
        raise ValueError(f"column number must be at least 1, got {n}")
    letters = ""
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def column_number(letters: str) -> int:
    """'A' → 1, 'Z' → 26, 'AA' → 27 (any case)."""
    if not letters.isalpha() or not letters.isascii():
        raise ValueError(f"not column letters: {letters!r}")
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def parse_address(text: str) -> tuple[int, int]:
    """'B12' or '$B$12' → (12, 2), as (row, col)."""
    match = re.fullmatch(r"\$?([A-Za-z]{1,3})\$?([0-9]+)", text.strip())
    if not match:
        raise ValueError(f"not a cell address: {text!r}")
    row, col = int(match[2]), column_number(match[1])
    if not (1 <= row <= MAX_ROWS and 1 <= col <= MAX_COLS):
        raise ValueError(f"cell address off the grid: {text!r}")
    return row, col


def address(row: int, col: int) -> str:
    """(12, 2) → 'B12'."""
    return f"{column_letters(col)}{row}"


@dataclass(frozen=True, slots=True)
class Range:
    """A rectangle of cells, 1-based and inclusive, normalised so r1 <= r2 and c1 <= c2."""

    r1: int
    c1: int
    r2: int
    c2: int

    def __post_init__(self) -> None:
        if self.r1 > self.r2 or self.c1 > self.c2:
            r1, r2 = sorted((self.r1, self.r2))
            c1, c2 = sorted((self.c1, self.c2))
            object.__setattr__(self, "r1", r1)
            object.__setattr__(self, "r2", r2)
            object.__setattr__(self, "c1", c1)
            object.__setattr__(self, "c2", c2)

    @property
    def rows(self) -> int:
        return self.r2 - self.r1 + 1

    @property
    def cols(self) -> int:
        return self.c2 - self.c1 + 1

    @property
    def address(self) -> str:
        """'A1:C3'; 'B2' for one cell; 'B:B' and '3:3' for whole columns and rows."""
        if self.r1 == 1 and self.r2 == MAX_ROWS:
            return f"{column_letters(self.c1)}:{column_letters(self.c2)}"
        if self.c1 == 1 and self.c2 == MAX_COLS:
            return f"{self.r1}:{self.r2}"
        first = address(self.r1, self.c1)
        if (self.r1, self.c1) == (self.r2, self.c2):
            return first
        return f"{first}:{address(self.r2, self.c2)}"

    def cells(self) -> Iterator[tuple[int, int]]:
        """Every (row, col) in the range, row by row."""
        for row in range(self.r1, self.r2 + 1):
            for col in range(self.c1, self.c2 + 1):
                yield row, col

    def contains(self, row: int, col: int) -> bool:
        return self.r1 <= row <= self.r2 and self.c1 <= col <= self.c2


def parse_range(text: str) -> Range:
    """'A1:C3' → Range(1, 1, 3, 3); 'B2' → a 1x1 range; 'B:B' and '3:5' whole columns/rows."""
    text = text.strip()
    if ":" not in text:
        row, col = parse_address(text)
        return Range(row, col, row, col)
    left, right = text.split(":", 1)
    if re.fullmatch(r"\$?[A-Za-z]{1,3}", left) and re.fullmatch(r"\$?[A-Za-z]{1,3}", right):
        c1, c2 = column_number(left.lstrip("$")), column_number(right.lstrip("$"))
        if max(c1, c2) > MAX_COLS:
            raise ValueError(f"column off the grid: {text!r}")
        return Range(1, c1, MAX_ROWS, c2)
    if re.fullmatch(r"\$?[0-9]+", left) and re.fullmatch(r"\$?[0-9]+", right):
        r1, r2 = int(left.lstrip("$")), int(right.lstrip("$"))
        if min(r1, r2) < 1 or max(r1, r2) > MAX_ROWS:
            raise ValueError(f"row off the grid: {text!r}")
        return Range(r1, 1, r2, MAX_COLS)
    (r1, c1), (r2, c2) = parse_address(left), parse_address(right)
    return Range(r1, c1, r2, c2)


def quote_sheet(name: str) -> str:
    """A sheet name as a formula writes it: bare when it can be, else in single quotes."""
    if _BARE_SHEET.fullmatch(name) and not _LOOKS_LIKE_CELL.fullmatch(name):
        return name
    return "'" + name.replace("'", "''") + "'"


@dataclass(frozen=True, slots=True)
class _Part:
    """One end of a reference: a column and/or a row, each possibly `$`-anchored."""

    col: int | None
    col_abs: bool
    row: int | None
    row_abs: bool

    def text(self) -> str:
        col = "" if self.col is None else ("$" if self.col_abs else "") + column_letters(self.col)
        row = "" if self.row is None else ("$" if self.row_abs else "") + str(self.row)
        return col + row


@dataclass(frozen=True, slots=True)
class _Ref:
    """A reference token: an optional sheet and one or two parts (`B2`, `A1:C3`, `B:B`, `3:5`)."""

    sheet: str | None
    sheet_text: str
    first: _Part
    second: _Part | None
    source: str = field(default="", compare=False)

    def text(self) -> str:
        body = self.first.text()
        if self.second is not None:
            body += ":" + self.second.text()
        return self.sheet_text + body

    def range(self) -> Range:
        second = self.second or self.first
        r1, r2 = self.first.row, second.row
        c1, c2 = self.first.col, second.col
        if r1 is None:
            r1, r2 = 1, MAX_ROWS
        if c1 is None:
            c1, c2 = 1, MAX_COLS
        return Range(r1, c1, r2, c2)

    def error_text(self) -> str:
        return self.sheet_text + REF_ERROR


def _part(text: str) -> _Part:
    col_abs, letters, row_abs, digits = _PART.fullmatch(text).groups()
    return _Part(
        col=column_number(letters) if letters else None,
        col_abs=bool(col_abs),
        row=int(digits) if digits else None,
        row_abs=bool(row_abs),
    )


def _on_grid(part: _Part) -> bool:
    return (part.col is None or 1 <= part.col <= MAX_COLS) and (
        part.row is None or 1 <= part.row <= MAX_ROWS
    )


_Token = str | _Ref


@lru_cache(maxsize=65_536)
def _tokens(raw: str) -> tuple[_Token, ...]:
    """The formula as a sequence of plain text runs and reference tokens."""
    out: list[_Token] = []
    text: list[str] = []
    for match in _TOKEN.finditer(raw, 1):
        groups = match.groupdict()
        sheet_text = groups["prefix"] or ""
        sheet = groups["bare"]
        if groups["quoted"] is not None:
            sheet = groups["quoted"].replace("''", "'")
        ref = None
        if groups["area"]:
            second = _part(groups["a2"]) if groups["a2"] else None
            ref = _Ref(sheet, sheet_text, _part(groups["a1"]), second, match.group())
        elif groups["cols"]:
            ref = _Ref(sheet, sheet_text, _part(groups["c1"]), _part(groups["c2"]), match.group())
        elif groups["rows"]:
            ref = _Ref(sheet, sheet_text, _part(groups["r1"]), _part(groups["r2"]), match.group())
        if ref is not None and all(_on_grid(p) for p in (ref.first, ref.second) if p):
            if text:
                out.append("".join(text))
                text = []
            out.append(ref)
        else:
            text.append(match.group())
    if text:
        out.append("".join(text))
    return tuple(out)


def _is_formula(raw: str) -> bool:
    return isinstance(raw, str) and raw.startswith("=") and len(raw) > 1


def _rewrite(raw: str, edit: Callable[[_Ref], str | None]) -> str:
    """`raw` with each reference replaced by `edit(ref)` (None keeps it as it was)."""
    if not _is_formula(raw):
        return raw
    pieces = ["="]
    for token in _tokens(raw):
        if isinstance(token, str):
            pieces.append(token)
        else:
            new = edit(token)
            pieces.append(token.source if new is None else new)
    return "".join(pieces)


@lru_cache(maxsize=65_536)
def _references(raw: str, own_sheet: str) -> tuple[tuple[str, Range], ...]:
    return tuple(
        (own_sheet if token.sheet is None else token.sheet, token.range())
        for token in _tokens(raw)
        if isinstance(token, _Ref)
    )


def references(raw: str, own_sheet: str) -> list[tuple[str, Range]]:
    """Every cell or range the formula reads, with its sheet (`own_sheet` when unqualified)."""
    if not _is_formula(raw):
        return []
    return list(_references(raw, own_sheet))


def shift(raw: str, d_rows: int, d_cols: int) -> str:
    """The formula as filled or copied `d_rows` down and `d_cols` right: relative parts move,
    `$` parts stay, and a reference pushed off the grid becomes `#REF!`."""

    def move(part: _Part | None) -> _Part | None:
        if part is None:
            return None
        col = part.col if part.col is None or part.col_abs else part.col + d_cols
        row = part.row if part.row is None or part.row_abs else part.row + d_rows
        return replace(part, col=col, row=row)

    def edit(ref: _Ref) -> str:
        first, second = move(ref.first), move(ref.second)
        if not all(_on_grid(p) for p in (first, second) if p):
            return ref.error_text()
        return replace(ref, first=first, second=second).text()

    if d_rows == 0 and d_cols == 0:
        return raw
    return _rewrite(raw, edit)


def _check_axis(axis: str) -> None:
    if axis not in ("row", "col"):
        raise ValueError(f"axis must be 'row' or 'col', got {axis!r}")


def _targets(ref: _Ref, own_sheet: str, target_sheet: str) -> bool:
    sheet = own_sheet if ref.sheet is None else ref.sheet
    return sheet.casefold() == target_sheet.casefold()


def _with(part: _Part, axis: str, value: int) -> _Part:
    return replace(part, row=value) if axis == "row" else replace(part, col=value)


def insert(raw: str, own_sheet: str, target_sheet: str, axis: str, at: int, count: int) -> str:
    """The formula after `count` rows or columns are inserted before `at` in `target_sheet`:
    references at or after `at` move by `count`, ranges spanning `at` grow."""
    _check_axis(axis)

    def moved(index: int) -> int:
        return index + count if index >= at else index

    def edit(ref: _Ref) -> str | None:
        if not _targets(ref, own_sheet, target_sheet):
            return None
        if getattr(ref.first, axis) is None:
            return None
        first = _with(ref.first, axis, moved(getattr(ref.first, axis)))
        second = ref.second and _with(ref.second, axis, moved(getattr(ref.second, axis)))
        if not all(_on_grid(p) for p in (first, second) if p):
            return ref.error_text()
        return replace(ref, first=first, second=second).text()

    if count <= 0:
        return raw
    return _rewrite(raw, edit)


def delete(raw: str, own_sheet: str, target_sheet: str, axis: str, at: int, count: int) -> str:
    """The formula after rows or columns `at`..`at+count-1` of `target_sheet` are deleted:
    references after the block move back, ranges overlapping it shrink, and a cell (or a whole
    range) inside it becomes `#REF!`."""
    _check_axis(axis)
    end = at + count - 1

    def edit(ref: _Ref) -> str | None:
        if not _targets(ref, own_sheet, target_sheet):
            return None
        lo = getattr(ref.first, axis)
        if lo is None:
            return None
        hi = lo if ref.second is None else getattr(ref.second, axis)
        lo, hi = min(lo, hi), max(lo, hi)
        if at <= lo and hi <= end:
            return ref.error_text()
        new_lo = lo if lo < at else (at if lo <= end else lo - count)
        new_hi = hi if hi < at else (at - 1 if hi <= end else hi - count)
        if ref.second is None:
            return replace(ref, first=_with(ref.first, axis, new_lo)).text()
        if getattr(ref.first, axis) > getattr(ref.second, axis):
            new_lo, new_hi = new_hi, new_lo
        first = _with(ref.first, axis, new_lo)
        second = _with(ref.second, axis, new_hi)
        return replace(ref, first=first, second=second).text()

    if count <= 0:
        return raw
    return _rewrite(raw, edit)


def rename_sheet(raw: str, old: str, new: str) -> str:
    """The formula with references qualified by sheet `old` now naming sheet `new`."""

    def edit(ref: _Ref) -> str | None:
        if ref.sheet is None or ref.sheet.casefold() != old.casefold():
            return None
        return replace(ref, sheet=new, sheet_text=quote_sheet(new) + "!").text()

    return _rewrite(raw, edit)
