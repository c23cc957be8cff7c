"""Evaluate one formula with Excel's semantics, using the `formulas` library.

Formula text is compiled once by `formulas` and kept in an LRU cache keyed by the text (a
compile costs 1-3 ms, the first one about a second of warm-up). Given the formula's cell,
formulas filled from one another (`=A5*B5` in C5, `=A6*B6` in C6) share one compiled function:
the text is shifted to an anchor cell before compiling and the inputs mapped back. Evaluating
feeds each input range the current values read through a resolver, runs the compiled steps
directly (see `_Program`), and converts the result back to our values.

Where the library differs from Excel, a correct implementation is registered in its function
tables (`formulas.get_functions()` and the operator table) once, at import, so every compiled
formula uses it:

- TODAY and NOW read the world date passed to `evaluate` instead of the machine clock.
- SUM, PRODUCT, AVERAGE, COUNT, MIN, MAX and MEDIAN skip text and booleans inside ranges and
  arrays, as Excel does; the library counts a cell holding the text "3" as the number 3
  (COUNT, SUM) or fails on it (AVERAGE, MIN, MAX). SUM adds left to right like Excel (the
  library's numpy sum adds pairwise), and these run in one pass, about 20 times faster.
- COUNTIF(S), SUMIF(S) and AVERAGEIF(S) use Excel's criteria rules: `">1"` only matches
  numbers, while `"3"` or `3` also matches the text "3"; the library coerces text for every
  operator and sums text numbers.
- `&`, CONCAT, CONCATENATE, LEFT, RIGHT, MID, LEN, UPPER, LOWER and TRIM turn numbers into text
  with Excel's 15 significant digits (`=0.1+0.2&""` is "0.3", not "0.30000000000000004").
- TRIM also collapses runs of inner spaces, which the library's TRIM keeps.
- TEXT formats through `numfmt`, rounding half away from zero (TEXT(2.5,"0") is "3"; the
  library gives "2"); codes `numfmt` does not read still go to the library's TEXT.

Not supported: OFFSET and INDIRECT of a computed text are #NAME? (the library has neither;
both read cells the formula's text does not name, which the dependency graph cannot know).
The library reads `INDIRECT("A1")` with literal text as the reference A1, but the graph does
not see it, so such a formula does not recompute when A1 changes.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import functools
import logging
import math
import operator
import re
import statistics
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import formulas
import numpy as np
import schedula as sh
from formulas.errors import BaseError, FormulaError, FoundError
from formulas.functions import (
    COMPILING,
    Array,
    flatten,
    replace_empty,
    wrap_func,
    wrap_impure_func,
    wrap_ufunc,
)
from formulas.functions.operators import OPERATORS
from formulas.functions.text import xtext as library_text
from formulas.ranges import Ranges
from formulas.tokens.operand import Error, XlError

from . import numfmt
from .refs import MAX_COLS, MAX_ROWS, Range, parse_range, references, rename_sheet, shift
from .values import ERROR_CODES, CellError, Value, from_date, parse_input

for _name in ("schedula", "formulas"):
    logging.getLogger(_name).setLevel(logging.CRITICAL + 1)

Resolver = Callable[[str, Range], Sequence[Sequence[Value]] | np.ndarray]

COMPILE_CACHE_SIZE = 50_000

_TODAY: contextvars.ContextVar[dt.date] = contextvars.ContextVar("sheets_today")
_XL_ERRORS = {**Error.errors, "#ERROR!": XlError("#ERROR!")}


class FormulaSyntaxError(ValueError):
    """The text after `=` is not a formula (unbalanced parentheses, a dangling operator...)."""


# -- values crossing into and out of the library ------------------------------------------


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | np.number) and not isinstance(value, bool | np.bool_)


def _is_text(value: object) -> bool:
    return isinstance(value, str) and value is not sh.EMPTY and not isinstance(value, XlError)


def _excel_str(value: object) -> str:
    """A value as text in a formula: booleans upper-case, numbers with 15 digits."""
    if isinstance(value, bool | np.bool_):
        return "TRUE" if value else "FALSE"
    if _is_number(value):
        return numfmt.number_text(float(value))
    if value is sh.EMPTY:
        return ""
    return str(value)


def _library_value(value: Value) -> object:
    if value is None:
        return sh.EMPTY
    if isinstance(value, CellError):
        return _XL_ERRORS[value.code]
    return value


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
        code = str(result)
        return CellError(code) if code in ERROR_CODES else CellError("#VALUE!", code)
    if isinstance(result, bool | np.bool_):
        return bool(result)
    if _is_number(result):
        number = float(result)
        if not math.isfinite(number):
            return CellError("#NUM!")
        return number + 0.0
    if isinstance(result, str):
        return str(result)
    return CellError("#VALUE!", f"unsupported result {type(result).__name__}")


# -- functions registered in the library's tables -----------------------------------------


def _world_today() -> dt.date:
    try:
        return _TODAY.get()
    except LookupError:
        raise RuntimeError("TODAY() evaluated outside evaluate(): no world date set") from None


def _xtoday() -> float:
    return from_date(_world_today())


def _xnow() -> float:
    today = _world_today()
    if isinstance(today, dt.datetime):
        return from_date(today) + (today.hour * 3600 + today.minute * 60 + today.second) / 86400
    return from_date(today)


def _numbers(args: tuple[object, ...], count: bool = False) -> list[float] | XlError:
    """The numbers aggregate functions see, in order, or the first error.

    In references and arrays only numbers count: text, booleans and empty cells are skipped.
    Values given directly are coerced: TRUE is 1 and the text "3" is 3 (other text is
    #VALUE!). COUNT (`count`) skips errors and text instead of failing on them.
    """
    numbers: list[float] = []
    for arg in args:
        if isinstance(arg, Ranges):
            arg = arg.value
        if isinstance(arg, np.ndarray) and arg.ndim:
            for v in arg.ravel().tolist():
                if v.__class__ is float:
                    numbers.append(v)
                elif _is_number(v):
                    numbers.append(float(v))
                elif isinstance(v, XlError) and not count:
                    return v
            continue
        v = arg.item() if isinstance(arg, np.ndarray) else arg
        if isinstance(v, XlError):
            if not count:
                return v
        elif isinstance(v, bool | np.bool_) or _is_number(v):
            numbers.append(float(v))
        elif _is_text(v):
            number = _text_as_number(str(v))
            if number is not None:
                numbers.append(number)
            elif not count:
                return Error.errors["#VALUE!"]
    return numbers


def _aggregate(
    reduce: Callable[[list[float]], object], count: bool = False
) -> Callable[..., object]:
    def aggregate(*args: object) -> object:
        numbers = _numbers(args, count)
        return numbers if isinstance(numbers, XlError) else reduce(numbers)

    return aggregate


def _total(numbers: list[float]) -> float:
    """Left-to-right IEEE addition, as Excel adds (no pairwise or compensated summation)."""
    return functools.reduce(operator.add, numbers, 0.0)


def _mean(numbers: list[float]) -> object:
    return _total(numbers) / len(numbers) if numbers else Error.errors["#DIV/0!"]


_AGGREGATES = {
    "SUM": _aggregate(_total),
    "AVERAGE": _aggregate(_mean),
    "COUNT": _aggregate(lambda numbers: float(len(numbers)), count=True),
    "MIN": _aggregate(lambda numbers: min(numbers, default=0.0)),
    "MAX": _aggregate(lambda numbers: max(numbers, default=0.0)),
    "PRODUCT": _aggregate(lambda n: functools.reduce(operator.mul, n, 1.0) if n else 0.0),
    "MEDIAN": _aggregate(lambda n: statistics.median(n) if n else Error.errors["#NUM!"]),
}


_NUMBER_AS_TEXT = np.frompyfunc(
    lambda v: numfmt.number_text(float(v)) if _is_number(v) else v, 1, 1
)


def _text_first(function: Callable[..., object]) -> Callable[..., object]:
    """`function` with numbers in its first argument turned into Excel's text for them."""

    def converting(first: object, *rest: object) -> object:
        if isinstance(first, np.ndarray):
            first = _NUMBER_AS_TEXT(first).astype(object).view(Array)
        elif _is_number(first):
            first = numfmt.number_text(float(first))
        return function(first, *rest)

    return functools.update_wrapper(converting, function)


def _xconcat(*args: object) -> object:
    parts = []
    for value in flatten(args, None):
        if isinstance(value, XlError):
            return value
        parts.append(_excel_str(value))
    text = "".join(parts)
    return Error.errors["#VALUE!"] if len(text) > 32767 else text


def _xtrim(text: str) -> str:
    return " ".join(part for part in text.split(" ") if part)


def _xtext(value: object, code: object) -> object:
    code = _excel_str(code)
    if isinstance(value, bool | np.bool_):
        return "TRUE" if value else "FALSE"
    if _is_text(value):
        parsed = parse_input(str(value))
        if parsed.kind != "number":
            return numfmt.text_of_text(str(value), code)
        value = parsed.value
    try:
        return numfmt.text(float(value), code)
    except numfmt.UnsupportedFormat:
        return library_text(value, code)


_TEXT_ARGUMENTS = {
    "input_parser": lambda *a: map(_excel_str, a),
    "args_parser": lambda *a: (replace_empty(v, "") for v in a),
}


# Criteria (COUNTIF and friends).

_CRITERIA_OPERATORS = {
    ">=": operator.ge,
    "<=": operator.le,
    "<>": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
    "=": operator.eq,
}


def _kind(value: object) -> str:
    if value is sh.EMPTY:
        return "empty"
    if isinstance(value, XlError):
        return "error"
    if isinstance(value, bool | np.bool_):
        return "bool"
    if _is_number(value):
        return "number"
    return "text"


@functools.lru_cache(maxsize=16_384)
def _text_as_number(text: str) -> float | None:
    parsed = parse_input(text)
    return parsed.value if parsed.kind == "number" else None


def _wildcard(pattern: str) -> re.Pattern[str] | None:
    """A regex for an Excel wildcard pattern (`*`, `?`, `~` escapes), or None without any."""
    if not re.search(r"(?<!~)[*?]", pattern) and "~" not in pattern:
        return None
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "~" and i + 1 < len(pattern) and pattern[i + 1] in "*?~":
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


@functools.lru_cache(maxsize=4096, typed=True)
def _criterion(condition: object) -> Callable[[object], bool]:
    """The test one criteria argument (`">1"`, `"a*"`, `5`, `"<>"`) applies to a cell."""
    kind = _kind(condition)
    if kind == "empty":
        condition, kind = 0.0, "number"  # Excel reads a blank criteria cell as 0
    if kind == "error":
        return lambda v: isinstance(v, XlError) and str(v) == str(condition)
    op = "="
    operand: object = condition
    if kind == "text":
        text = str(condition)
        op = next((o for o in _CRITERIA_OPERATORS if text.startswith(o)), "=")
        rest = text[len(op) :] if text.startswith(op) else text
        parsed = parse_input(rest)
        if rest == "":
            kind, operand = "blank", ""
        elif rest.upper() in ERROR_CODES:
            kind, operand = "error", rest.upper()
        elif parsed.kind in ("number", "bool"):
            kind, operand = parsed.kind, parsed.value
        else:
            operand = rest
    compare = _CRITERIA_OPERATORS[op]
    if kind == "blank":
        is_blank = lambda v: v is sh.EMPTY or v == ""  # noqa: E731
        if op == "=":
            return is_blank
        return (lambda v: not is_blank(v)) if op == "<>" else (lambda v: False)
    if kind == "error":
        equal = lambda v: isinstance(v, XlError) and str(v) == operand  # noqa: E731
    elif kind == "number":
        operand = float(operand)

        def equal(v: object) -> bool:
            if _is_number(v):
                return float(v) == operand
            return _is_text(v) and _text_as_number(str(v)) == operand

        if op not in ("=", "<>"):
            return lambda v: _is_number(v) and compare(float(v), operand)
    elif kind == "bool":
        if op not in ("=", "<>"):
            return lambda v: isinstance(v, bool | np.bool_) and compare(bool(v), operand)
        equal = lambda v: isinstance(v, bool | np.bool_) and bool(v) == operand  # noqa: E731
    else:
        pattern = _wildcard(operand)
        folded = operand.casefold()
        if op not in ("=", "<>"):
            return lambda v: _is_text(v) and compare(str(v).casefold(), folded)
        if pattern is None:
            equal = lambda v: _is_text(v) and str(v).casefold() == folded  # noqa: E731
        else:
            equal = lambda v: _is_text(v) and pattern.fullmatch(str(v)) is not None  # noqa: E731
    return equal if op == "=" else (lambda v: not equal(v))


def _grid_arg(value: object) -> np.ndarray:
    return np.atleast_2d(np.asarray(value, dtype=object))


def _mask(test_range: np.ndarray, condition: object) -> np.ndarray:
    match = _criterion(condition)
    flat = [match(v) for v in test_range.ravel()]
    return np.asarray(flat, dtype=bool).reshape(test_range.shape)


def _conditions(conditions: Sequence[object]) -> tuple[list[object], tuple[int, ...] | None]:
    """Criteria arguments as scalars, or broadcast arrays of them (COUNTIF(A:A, {"a","b"}))."""
    arrays = [np.asarray(c, dtype=object) for c in conditions]
    if all(a.size == 1 for a in arrays):
        return [a.ravel()[0] for a in arrays], None
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [np.broadcast_to(a, shape) for a in arrays], shape


def _criteria_function(
    accumulate: Callable[[np.ndarray], object],
) -> Callable[[np.ndarray, Sequence[np.ndarray], Sequence[object]], object]:
    def run(values: np.ndarray, ranges: Sequence[np.ndarray], conditions: Sequence[object]):
        if any(r.shape != values.shape for r in ranges):
            return Error.errors["#VALUE!"]
        scalars, shape = _conditions(conditions)
        if shape is None:
            mask = np.ones(values.shape, dtype=bool)
            for test_range, condition in zip(ranges, scalars, strict=True):
                mask &= _mask(test_range, condition)
            return accumulate(values[mask])
        out = np.empty(shape, dtype=object)
        for index in np.ndindex(shape):
            out[index] = run(values, ranges, [c[index] for c in scalars])
        return out.view(Array)

    return run


def _count(values: np.ndarray) -> float:
    return float(values.size)


def _sum(values: np.ndarray) -> object:
    return _AGGREGATES["SUM"](values)


def _average(values: np.ndarray) -> object:
    return _AGGREGATES["AVERAGE"](values)


def _resized(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A sum range read as the criteria range's size from its top-left cell, as Excel does."""
    if values.shape == shape:
        return values
    out = np.full(shape, sh.EMPTY, dtype=object)
    rows, cols = min(shape[0], values.shape[0]), min(shape[1], values.shape[1])
    out[:rows, :cols] = values[:rows, :cols]
    return out


def _if_function(accumulate: Callable[[np.ndarray], object]) -> Callable[..., object]:
    run = _criteria_function(accumulate)

    def single(test_range: object, condition: object, values: object = None) -> object:
        test_range = _grid_arg(test_range)
        values = test_range if values is None else _resized(_grid_arg(values), test_range.shape)
        return run(values, [test_range], [condition])

    return single


def _ifs_function(accumulate: Callable[[np.ndarray], object]) -> Callable[..., object]:
    run = _criteria_function(accumulate)

    def several(values: object, *pairs: object) -> object:
        if not pairs or len(pairs) % 2:
            return Error.errors["#VALUE!"]
        ranges = [_grid_arg(r) for r in pairs[0::2]]
        return run(_grid_arg(values), ranges, pairs[1::2])

    return several


_countifs = _ifs_function(_count)


def _xcountifs(*pairs: object) -> object:
    """COUNTIFS counts the cells of its first range where every criterion holds."""
    return _countifs(pairs[0], *pairs) if pairs else Error.errors["#VALUE!"]


def _patch_functions() -> None:
    table = formulas.get_functions()
    impure = {"extra_inputs": {COMPILING: False}}
    table["TODAY"] = {**impure, "function": wrap_impure_func(wrap_func(_xtoday))}
    table["NOW"] = {**impure, "function": wrap_impure_func(wrap_func(_xnow))}
    for name, function in _AGGREGATES.items():
        table[name] = wrap_func(function, ranges=True)
    table["COUNTIF"] = wrap_func(_if_function(_count))
    table["COUNTIFS"] = wrap_func(_xcountifs)
    table["SUMIF"] = wrap_func(_if_function(_sum))
    table["SUMIFS"] = wrap_func(_ifs_function(_sum))
    table["AVERAGEIF"] = wrap_func(_if_function(_average))
    table["AVERAGEIFS"] = wrap_func(_ifs_function(_average))
    for name in ("LEFT", "RIGHT", "MID", "LEN", "UPPER", "LOWER"):
        table[name] = wrap_func(_text_first(table[name]))
    table["TRIM"] = wrap_ufunc(_xtrim, **_TEXT_ARGUMENTS)
    table["CONCAT"] = table["_XLFN.CONCAT"] = wrap_func(_xconcat)
    table["CONCATENATE"] = wrap_ufunc(lambda *a: "".join(a), **_TEXT_ARGUMENTS)
    table["TEXT"] = wrap_ufunc(_xtext, input_parser=lambda *a: a)
    OPERATORS["&"] = wrap_ufunc(lambda x, y: x + y, **_TEXT_ARGUMENTS)


_patch_functions()


# -- compiling and evaluating -------------------------------------------------------------

# Formulas filled down a column differ only in where they sit: `=A5*B5` in C5 and `=A6*B6` in
# C6 both read "the two cells to the left". Shifted to one anchor cell they become the same
# text, so one compiled function serves them all and its inputs are mapped back per cell.
_ANCHOR = (MAX_ROWS // 2, MAX_COLS // 2)
_POSITIONAL = re.compile(
    r"\b(?:ROW|COLUMN|ADDRESS|CELL|OFFSET|INDIRECT|FORMULATEXT|ISFORMULA|SHEETS?)\s*\(",
    re.IGNORECASE,
)
_OWN = "\0"  # the sheet key of unqualified references


@dataclass(frozen=True, slots=True)
class _Read:
    """One rectangle an input reads: its sheet as the library names it (upper case; None for
    the formula's own sheet), the range, and the library's record of that range."""

    sheet: str | None
    range: Range
    record: dict[str, object]


_Input = tuple[_Read, ...] | CellError


@dataclass(frozen=True, slots=True)
class _Program:
    """A compiled formula as straight-line steps, run without the library's dispatcher.

    `formulas` compiles to a schedula `DispatchPipe` whose `pipe` already lists the nodes in
    execution order; each call sets up a dispatch solution (about 1 ms) and shares it between
    threads. Running the same functions in the same order over a local dict gives the same
    values in about a tenth of the time, and is thread-safe.
    """

    constants: tuple[tuple[object, object], ...]
    inputs: tuple[object, ...]
    steps: tuple[tuple[Callable[..., object], tuple[object, ...], object, tuple], ...]
    output: object
    filters: tuple[Callable[[object], object], ...]


class _Fallback(Exception):
    """A program step produced no value, which only the dispatcher knows how to handle."""


_FUNCTION_NODE_KEYS = {
    "type",
    "inputs",
    "outputs",
    "function",
    "index",
    "wait_inputs",
    "extra_inputs",
    "solve_cycle",
    "filters",
}


def _program(function: Callable[..., object]) -> _Program | None:
    """The straight-line program of a compiled `DispatchPipe`, or None if it has nodes this
    runner does not model (then the dispatcher runs it)."""
    try:
        dsp, pipe, outputs = function.dsp, function.pipe, function.outputs
    except AttributeError:
        return None
    steps = []
    for task, _, _ in pipe:
        node_id = task[-1][0]
        node = dsp.nodes[node_id]
        if node["type"] == "function":
            if set(node) - _FUNCTION_NODE_KEYS or len(node["outputs"]) != 1:
                return None
            filters = tuple(node.get("filters", ()))
            steps.append((node["function"], tuple(node["inputs"]), node["outputs"][0], filters))
        elif node["type"] != "data" or (node.get("filters") and node_id != outputs[0]):
            return None
    return _Program(
        constants=tuple((k, v["value"]) for k, v in dsp.default_values.items()),
        inputs=tuple(function.inputs),
        steps=tuple(steps),
        output=outputs[0],
        filters=tuple(dsp.nodes[outputs[0]].get("filters", ())),
    )


def _run(program: _Program, args: Sequence[object]) -> object:
    values = dict(program.constants)
    values.update(zip(program.inputs, args, strict=True))
    for function, inputs, output, filters in program.steps:
        result = function(*[values[i] for i in inputs])
        if result is sh.NONE:
            raise _Fallback
        for f in filters:
            result = f(result)
        values[output] = result
    if program.output not in values:
        raise _Fallback
    result = values[program.output]
    for f in program.filters:
        result = f(result)
    return result


@dataclass(frozen=True, slots=True)
class _Compiled:
    function: Callable[..., object] | None
    inputs: tuple[_Input, ...] = ()
    error: CellError | None = None
    names: tuple[tuple[str, str], ...] = ()
    program: _Program | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, compare=False)


def _reads(key: str, ranges: Ranges | None) -> _Input:
    """What the library's input `key` (e.g. `'Q3 PIPELINE'!A1:C40`) reads."""
    if ranges is None:
        return CellError("#NAME?", f"unknown name {key}")
    try:
        return tuple(
            _Read(record.get("sheet") or None, parse_range(record["ref"]), record)
            for record in ranges.ranges
        )
    except ValueError:
        return CellError("#REF!", f"bad reference {key}")


_UNARY_BEFORE = frozenset("=(,;+-*/^&<>%{ ")


def _double_negation(text: str) -> str:
    """`text` with each `--` in unary position written `-1*-`: the library's parser folds
    two minus signs into a unary plus, which keeps a boolean a boolean, while Excel's `--x`
    makes a number of it (`=SUMPRODUCT(--(E2:E40>1000))` counts)."""
    if "--" not in text:
        return text
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            quoted = not quoted
        elif not quoted and text.startswith("--", i):
            before = "".join(out).rstrip()
            if not before or before[-1] in _UNARY_BEFORE:
                out.append("-1*-")
                i += 2
                continue
        out.append(ch)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=COMPILE_CACHE_SIZE)
def _compile(text: str) -> _Compiled:
    text = _double_negation(text)
    try:
        function = formulas.Parser().ast(text)[1].compile()
    except FormulaError as error:
        detail = error.msg.replace("%s", "").strip() or "not a valid formula"
        return _Compiled(None, error=CellError("#ERROR!", f"formula parse error: {detail}"))
    inputs = tuple(_reads(key, ranges) for key, ranges in function.inputs.items())
    return _Compiled(function, inputs, program=_program(function))


def check(raw: str) -> None:
    """Raise `FormulaSyntaxError` when `raw` (starting with `=`) does not parse as a formula."""
    compiled = _compile(_aliased(raw)[0])
    if compiled.error is not None:
        raise FormulaSyntaxError(f"{raw!r}: {compiled.error.detail}")


@functools.lru_cache(maxsize=COMPILE_CACHE_SIZE)
def _aliased(raw: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`raw` with each sheet it names renamed `_S1`, `_S2`..., and the names behind them.

    The library cannot read sheet names holding `-`, `'` or `!` (`'Q3-Pipeline'!A1` is an
    unknown name to it), and aliases let formulas on different sheets share compiled code.
    """
    sheets: dict[str, str] = {}
    for sheet, _ in references(raw, _OWN):
        if sheet != _OWN:
            sheets.setdefault(sheet.casefold(), sheet)
    taken = set(sheets)
    names = []
    number = 0
    for sheet in sheets.values():
        number += 1
        while f"_s{number}" in taken:
            number += 1
        alias = f"_S{number}"
        raw = rename_sheet(raw, sheet, alias)
        names.append((alias, sheet))
    return raw, tuple(names)


def _shared(raw: str, at: tuple[int, int]) -> _Compiled | None:
    """The compiled function of `raw` shifted to the anchor cell, its inputs mapped back to
    the ranges `raw` reads at `at`; None when the formula cannot share one."""
    if _POSITIONAL.search(raw):
        return None
    canonical = shift(raw, _ANCHOR[0] - at[0], _ANCHOR[1] - at[1])
    real = references(raw, _OWN)
    moved = references(canonical, _OWN)
    if len(real) != len(moved):
        return None
    back: dict[tuple[str | None, Range], Range] = {}
    for (sheet, rng), (_, moved_rng) in zip(real, moved, strict=True):
        key = (None if sheet == _OWN else sheet.upper(), moved_rng)
        if back.setdefault(key, rng) != rng:
            return None
    compiled = _compile(canonical)
    if compiled.error is not None:
        return compiled
    inputs = []
    for item in compiled.inputs:
        if isinstance(item, CellError):
            inputs.append(item)
            continue
        reads = []
        for read in item:
            rng = back.get((read.sheet, read.range))
            if rng is None:
                return None
            prefix = f"{read.record['sheet_id']}!" if read.sheet else ""
            reads.append(_Read(read.sheet, rng, Ranges.get_range(prefix + rng.address)))
        inputs.append(tuple(reads))
    return _Compiled(compiled.function, tuple(inputs), program=compiled.program, lock=compiled.lock)


@functools.lru_cache(maxsize=COMPILE_CACHE_SIZE)
def _plan(raw: str, at: tuple[int, int] | None) -> _Compiled:
    """How to evaluate `raw` in the cell at `at`: a compiled function and what it reads."""
    text, names = _aliased(raw)
    compiled = (_shared(text, at) if at is not None else None) or _compile(text)
    if compiled.error is not None:
        return compiled
    return _Compiled(
        compiled.function,
        compiled.inputs,
        names=names,
        program=compiled.program,
        lock=compiled.lock,
    )


def _grid(rows: Sequence[Sequence[Value]] | np.ndarray, height: int, width: int) -> np.ndarray:
    """The resolver's rows as an object array of the given size (missing cells are empty)."""
    grid = np.empty((height, width), dtype=object)
    if isinstance(rows, np.ndarray) and rows.shape == (height, width):
        flat = rows.ravel().tolist()
        grid.ravel()[:] = [v if v.__class__ is float else _library_value(v) for v in flat]
        return grid
    if len(rows) == height and all(len(row) == width for row in rows):
        flat = [v if v.__class__ is float else _library_value(v) for row in rows for v in row]
        grid.ravel()[:] = flat
        return grid
    grid.fill(sh.EMPTY)
    for i, row in enumerate(rows[:height]):
        for j, v in enumerate(row[:width]):
            grid[i, j] = _library_value(v)
    return grid


def _values(read: _Read, rows: Sequence[Sequence[Value]]) -> tuple[dict[str, object], np.ndarray]:
    """The library's record and values for one read.

    A whole column or row (`B:B`, `3:3`) holds only the resolved part, from its first cell,
    instead of a million-cell array; the library reads a range's value as the part it holds.
    """
    rng = read.range
    whole_cols = rng.r1 == 1 and rng.r2 == MAX_ROWS
    whole_rows = rng.c1 == 1 and rng.c2 == MAX_COLS
    if not (whole_cols or whole_rows):
        return read.record, _grid(rows, rng.rows, rng.cols)
    height = max(len(rows), 1) if whole_cols else rng.rows
    if not whole_rows:
        width = rng.cols
    elif isinstance(rows, np.ndarray):
        width = max(rows.shape[1], 1)
    else:
        width = max(max((len(row) for row in rows), default=1), 1)
    part = Range(rng.r1, rng.c1, rng.r1 + height - 1, rng.c1 + width - 1)
    prefix = f"{read.record['sheet_id']}!" if read.sheet else ""
    return Ranges.get_range(prefix + part.address), _grid(rows, height, width)


def evaluate(
    raw: str,
    own_sheet: str,
    resolve: Resolver,
    today: dt.date,
    at: tuple[int, int] | None = None,
) -> Value:
    """The value of formula `raw` (starting with `=`) in a cell of sheet `own_sheet`.

    `resolve(sheet, range)` returns the current values of a range as rows, or as a 2-D numpy
    object array (None for empty; it may leave out trailing empty rows and cells, and must for
    whole columns and rows) and raises KeyError for a sheet that does
    not exist; it gets sheet names as the formula writes them, so it should match them
    case-insensitively. `today` is the world's date, which TODAY() and NOW() return. `at`,
    the formula's (row, col), lets formulas filled from one another share a compiled function.
    """
    plan = _plan(raw, at)
    if plan.error is not None:
        return plan.error
    names = dict(plan.names)
    args = []
    for item in plan.inputs:
        if isinstance(item, CellError):
            return item
        values = {}
        for read in item:
            sheet = own_sheet if read.sheet is None else names.get(read.sheet, read.sheet)
            try:
                rows = resolve(sheet, read.range)
            except KeyError:
                return CellError("#REF!", f"no sheet named {sheet!r}")
            record, grid = _values(read, rows)
            values[record["name"]] = (record, grid)
        args.append(Ranges(tuple(read.record for read in item), values))
    token = _TODAY.set(today)
    try:
        result = _call(plan, args)
    finally:
        _TODAY.reset(token)
    return _from_library(result)


def _call(plan: _Compiled, args: list[Ranges]) -> object:
    try:
        if plan.program is not None:
            try:
                return _run(plan.program, args)
            except _Fallback:
                pass
        with plan.lock:
            return plan.function(*args)
    except sh.DispatcherError as error:
        if isinstance(error.ex, NotImplementedError):
            return Error.errors["#NAME?"]
        return Error.errors["#VALUE!"]
    except FoundError as error:
        return error.err
    except NotImplementedError:
        return Error.errors["#NAME?"]
    except BaseError:
        return Error.errors["#VALUE!"]
