"""Evaluate the small formula language generated sheets use: numbers, A1 refs, ranges,
+ - * / with parentheses, and SUM, AVERAGE and COUNT.

Semantics follow spreadsheets: empty cells count as 0 in arithmetic, SUM/AVERAGE/COUNT skip
text and empty cells, and operators associate left to right in IEEE doubles, so a real
formula engine computes the same bits.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN = re.compile(
    r"\s*(?:(\d+(?:\.\d+)?)|([A-Z]+)\(|([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?|([-+*/(),]))"
)

Lookup = Callable[[int, int], float | str | None]


def column_number(letters: str) -> int:
    """'A' → 1, 'Z' → 26, 'AA' → 27."""
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n


def column_letters(n: int) -> str:
    """1 → 'A', 27 → 'AA'."""
    letters = ""
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


class FormulaError(ValueError):
    """The formula is outside the supported language."""


class ErrorCode(str):
    """A spreadsheet error value (`#REF!`): a cell holding one makes every formula that reads
    it, directly or through a range, worth the same error."""


class _Propagate(Exception):
    def __init__(self, code: ErrorCode) -> None:
        self.code = code


def evaluate(formula: str, lookup: Lookup) -> float | ErrorCode:
    """The value of `formula` (with or without the leading '='); `lookup(row, col)` reads cells.

    Text that reads as a number counts as that number in arithmetic, as spreadsheets coerce
    it; SUM, AVERAGE and COUNT skip it like any text.
    """
    text = formula[1:] if formula.startswith("=") else formula
    if "#REF!" in text:
        return ErrorCode("#REF!")
    try:
        return _evaluate(formula, text, lookup)
    except _Propagate as error:
        return error.code


def _evaluate(formula: str, text: str, lookup: Lookup) -> float:
    tokens: list[tuple[str, object]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise FormulaError(f"cannot parse {formula!r} at {pos}")
        pos = match.end()
        number, call, col, row, col2, row2, op = match.groups()
        if number:
            tokens.append(("num", float(number)))
        elif call:
            tokens.append(("call", call))
        elif col2:
            tokens.append(("range", (int(row), column_number(col), int(row2), column_number(col2))))
        elif col:
            tokens.append(("ref", (int(row), column_number(col))))
        else:
            tokens.append(("op", op))
    index = 0

    def peek() -> tuple[str, object] | None:
        return tokens[index] if index < len(tokens) else None

    def take() -> tuple[str, object]:
        nonlocal index
        if index >= len(tokens):
            raise FormulaError(f"unexpected end of {formula!r}")
        index += 1
        return tokens[index - 1]

    def cell_number(row: int, col: int) -> float:
        value = lookup(row, col)
        if value is None:
            return 0.0
        if isinstance(value, ErrorCode):
            raise _Propagate(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                raise FormulaError(f"text in arithmetic in {formula!r}") from None
        return value

    def numbers_in(ref: tuple[str, object]) -> list[float]:
        kind, value = ref
        if kind == "range":
            r1, c1, r2, c2 = value  # type: ignore[misc]
            cells = [lookup(r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]
        elif kind == "ref":
            cells = [lookup(*value)]  # type: ignore[misc]
        else:
            return [expression()]
        for v in cells:
            if isinstance(v, ErrorCode):
                raise _Propagate(v)
        return [v for v in cells if isinstance(v, float)]

    def call(name: str) -> float:
        args: list[float] = []
        while True:
            nxt = peek()
            if nxt is not None and nxt[0] in ("range", "ref"):
                after = tokens[index + 1] if index + 1 < len(tokens) else None
                if after is not None and after[0] == "op" and after[1] in (",", ")"):
                    args.extend(numbers_in(take()))
                else:
                    args.append(expression())
            else:
                args.append(expression())
            kind, op = take()
            if op == ")":
                break
            if op != ",":
                raise FormulaError(f"expected , or ) in {formula!r}")
        if name == "SUM":
            total = 0.0
            for v in args:
                total += v
            return total
        if name == "COUNT":
            return float(len(args))
        if name == "AVERAGE":
            if not args:
                raise FormulaError(f"AVERAGE of nothing in {formula!r}")
            total = 0.0
            for v in args:
                total += v
            return total / len(args)
        raise FormulaError(f"unsupported function {name} in {formula!r}")

    def atom() -> float:
        kind, value = take()
        if kind == "num":
            return value  # type: ignore[return-value]
        if kind == "ref":
            return cell_number(*value)  # type: ignore[misc]
        if kind == "call":
            return call(str(value))
        if kind == "op" and value == "(":
            inner = expression()
            if take() != ("op", ")"):
                raise FormulaError(f"missing ) in {formula!r}")
            return inner
        if kind == "op" and value == "-":
            return -atom()
        raise FormulaError(f"unexpected {value!r} in {formula!r}")

    def term() -> float:
        value = atom()
        while (nxt := peek()) is not None and nxt[0] == "op" and nxt[1] in ("*", "/"):
            take()
            right = atom()
            value = value * right if nxt[1] == "*" else value / right
        return value

    def expression() -> float:
        value = term()
        while (nxt := peek()) is not None and nxt[0] == "op" and nxt[1] in ("+", "-"):
            take()
            right = term()
            value = value + right if nxt[1] == "+" else value - right
        return value

    result = expression()
    if index != len(tokens):
        raise FormulaError(f"trailing input in {formula!r}")
    return result
