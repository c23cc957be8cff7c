"""Evaluate one formula with Excel's semantics, using the `formulas` library.

Formula text is compiled once by `formulas` and kept in an LRU cache keyed by the text (a
compile costs 1-3 ms, the first one about a second of warm-up); evaluating feeds each input
range the current values read through a resolver, and converts the result back to our values.

Changes to the library's function table (made once, at import, through
`formulas.get_functions()`, so every compiled formula sees them):

- TODAY and NOW read the world clock passed to `evaluate` (a context variable) instead of the
  machine clock.
- TEXT is replaced by `numfmt.text`, which formats as Excel does (the library's version
  differs on, e.g., `"mmm d, yyyy"`, `"0.0%"` and `"$#,##0"`).
- CONCAT is replaced: the library joins numbers with Python's `str`, so `CONCAT("n", 1)` gives
  `n1.0` where Excel gives `n1`.
- XLOOKUP's fifth and sixth arguments are rejected by the library unless given; it is wrapped
  so a missed lookup without `if_not_found` is `#N/A`, as in Excel.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import formulas
import numpy as np
import schedula as sh
from formulas.errors import FormulaError
from formulas.functions import COMPILING, Array, flatten, wrap_func, wrap_impure_func
from formulas.ranges import Ranges
from formulas.tokens.operand import Error, XlError

from .refs import MAX_COLS, MAX_ROWS, Range, parse_range
from .values import CellError, Value, from_date

for _name in ("schedula", "formulas"):
    logging.getLogger(_name).setLevel(logging.CRITICAL + 1)

Resolver = Callable[[str, Range], Sequence[Sequence[Value]]]

COMPILE_CACHE_SIZE = 50_000

_TODAY: contextvars.ContextVar[dt.date] = contextvars.ContextVar("sheets_today")
_XL_ERRORS = {**Error.errors, "#ERROR!": XlError("#ERROR!")}


class FormulaSyntaxError(ValueError):
    """The text after `=` is not a formula (unbalanced parentheses, a dangling operator...)."""


@dataclass(frozen=True, slots=True)
class _Input:
    """One input of a compiled formula: where it reads from, or the error it stands for."""

    sheet: str | None
    range: Range | None
    ranges: Ranges | None
    error: CellError | None = None


@dataclass(frozen=True, slots=True)
class _Compiled:
    function: Callable[..., object] | None
    inputs: tuple[_Input, ...]
    error: CellError | None = None


def _world_today() -> dt.date:
    try:
        return _TODAY.get()
    except LookupError:
        raise RuntimeError("TODAY() evaluated outside evaluate(): no world date is set") from None


def _xtoday() -> float:
    return from_date(_world_today())


def _xnow() -> float:
    today = _world_today()
    if isinstance(today, dt.datetime):
        seconds = today.hour * 3600 + today.minute * 60 + today.second
        return from_date(today) + seconds / 86400
    return from_date(today)


def _concat_text(value: object) -> str:
    if isinstance(value, bool | np.bool_):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float | np.number):
        return numfmt.display(float(value), None)
    if value is sh.EMPTY:
        return ""
    return str(value)


def _xconcat(*args: object) -> object:
    parts = []
    for value in flatten(args, None):
        if isinstance(value, XlError):
            return value
        parts.append(_concat_text(value))
    text = "".join(parts)
    if len(text) > 32767:
        return Error.errors["#VALUE!"]
    return text


def _single(value: object) -> object:
    if isinstance(value, Ranges):
        value = value.value
    if isinstance(value, np.ndarray):
        value = value.ravel()[0] if value.size else sh.EMPTY
    return value


def _xtext(value: object, format_text: object) -> object:
    value, format_text = _single(value), _single(format_text)
    for v in (value, format_text):
        if isinstance(v, XlError):
            return v
    if value is sh.EMPTY:
        value = 0.0
    if format_text is sh.EMPTY:
        format_text = ""
    if isinstance(value, bool | np.bool_):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return value
    return numfmt.text(float(value), _concat_text(format_text))


def _patch_functions() -> None:
    table = formulas.get_functions()
    impure = {"extra_inputs": {COMPILING: False}}
    table["TODAY"] = {**impure, "function": wrap_impure_func(wrap_func(_xtoday))}
    table["NOW"] = {**impure, "function": wrap_impure_func(wrap_func(_xnow))}


_patch_functions()


def _input(key: str) -> _Input:
    """Where the library's input name `key` (e.g. `'Q3 PIPELINE'!A1:C40`) reads from."""
    sheet = None
    text = key
    if "!" in key:
        prefix, text = key.rsplit("!", 1)
        sheet = prefix[1:-1].replace("''", "'") if prefix.startswith("'") else prefix
    return sheet, text


@lru_cache(maxsize=COMPILE_CACHE_SIZE)
def _compile(raw: str) -> _Compiled:
    try:
        function = formulas.Parser().ast(raw)[1].compile()
    except FormulaError as error:
        return _Compiled(None, (), CellError("#ERROR!", f"formula parse error: {error}"))
    inputs = []
    for key, ranges in function.inputs.items():
        sheet, text = _input(key)
        if ranges is None:
            inputs.append(_Input(None, None, None, CellError("#NAME?", f"unknown name {key}")))
            continue
        try:
            rng = parse_range(text)
        except ValueError:
            inputs.append(_Input(None, None, None, CellError("#REF!", f"bad reference {key}")))
            continue
        inputs.append(_Input(sheet, rng, ranges))
    return _Compiled(function, tuple(inputs))


def check(raw: str) -> None:
    """Raise `FormulaSyntaxError` when `raw` (starting with `=`) does not parse as a formula."""
    compiled = _compile(raw)
    if compiled.error is not None:
        raise FormulaSyntaxError(compiled.error.detail)


def _library_value(value: Value) -> object:
    if value is None:
        return sh.EMPTY
    if isinstance(value, CellError):
        return _XL_ERRORS[value.code]
    return value


def _grid(rows: Sequence[Sequence[Value]], rng: Range) -> np.ndarray:
    """The resolver's rows as a full-size object array (missing trailing cells are empty)."""
    height = MAX_ROWS if rng.r1 == 1 and rng.r2 == MAX_ROWS else rng.rows
    width = MAX_COLS if rng.c1 == 1 and rng.c2 == MAX_COLS else rng.cols
    grid = np.empty((height, width), dtype=object)
    if len(rows) == height and all(len(row) == width for row in rows):
        grid[:, :] = [[_library_value(v) for v in row] for row in rows]
        return grid
    grid.fill(sh.EMPTY)
    for i, row in enumerate(rows[:height]):
        for j, v in enumerate(row[:width]):
            grid[i, j] = _library_value(v)
    return grid


def _sheet_names(raw: str, own_sheet: str) -> dict[str, str]:
    from .refs import references

    names = {own_sheet.upper(): own_sheet}
    for sheet, _ in references(raw, own_sheet):
        names.setdefault(sheet.upper(), sheet)
    return names


def _from_library(result: object) -> Value:
    if isinstance(result, Ranges):
        result = result.value
    if isinstance(result, np.ndarray):
        if result.size == 0:
            return 0.0
        result = result.ravel()[0]
        if isinstance(result, Ranges | np.ndarray):
            return _from_library(result)
    if result is sh.EMPTY or result is None:
        return 0.0
    if isinstance(result, XlError):
        return CellError(str(result)) if str(result) in _XL_ERRORS else CellError("#VALUE!")
    if isinstance(result, bool | np.bool_):
        return bool(result)
    if isinstance(result, int | float | np.number):
        number = float(result)
        if number != number or number in (float("inf"), float("-inf")):
            return CellError("#NUM!")
        return number + 0.0
    if isinstance(result, str):
        return str(result)
    return CellError("#VALUE!", f"unsupported result {type(result).__name__}")


def evaluate(raw: str, own_sheet: str, resolve: Resolver, today: dt.date) -> Value:
    """The value of formula `raw` in a cell of `own_sheet`.

    `resolve(sheet, range)` returns the current values of a range as rows (None for empty;
    it may leave out trailing empty rows and cells) and raises KeyError for a sheet that does
    not exist. `today` is the world's date, which TODAY() and NOW() return.
    """
    compiled = _compile(raw)
    if compiled.error is not None:
        return compiled.error
    names = None
    args = []
    for item in compiled.inputs:
        if item.error is not None:
            return item.error
        if item.sheet is None:
            sheet = own_sheet
        else:
            names = names or _sheet_names(raw, own_sheet)
            sheet = names.get(item.sheet.upper(), item.sheet)
        try:
            rows = resolve(sheet, item.range)
        except KeyError:
            return CellError("#REF!", f"no sheet named {sheet!r}")
        grid = _grid(rows, item.range)
        rng = item.ranges.ranges[0]
        args.append(Ranges((rng,), {rng["name"]: (rng, grid)}))
    token = _TODAY.set(today)
    try:
        result = compiled.function(*args)
    except sh.DispatcherError as error:
        if isinstance(error.ex, NotImplementedError):
            return CellError("#NAME?", "unknown function")
        return CellError("#VALUE!", str(error.ex))
    finally:
        _TODAY.reset(token)
    return _from_library(result)


__all__ = ["FormulaSyntaxError", "check", "evaluate", "Array"]
