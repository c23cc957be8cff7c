"""Cell values, and what typing into a cell stores.

A value is a float (numbers and dates), a str (text), a bool, a `CellError`, or None (empty).
Dates are Excel serial days counted from 1899-12-30, so serial 45914 is 2025-09-14; like every
modern spreadsheet we ignore Excel's fictitious 1900-02-29, which only shifts dates before
March 1900.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

EPOCH = dt.date(1899, 12, 30)

ERROR_CODES = (
    "#NULL!",
    "#DIV/0!",
    "#VALUE!",
    "#REF!",
    "#NAME?",
    "#NUM!",
    "#N/A",
    # Google Sheets' code for a formula that does not parse (Excel refuses to store one).
    "#ERROR!",
)


@dataclass(frozen=True, slots=True)
class CellError:
    """An error value such as `#DIV/0!`; `detail` says why, for a tooltip, and is not compared."""

    code: str
    detail: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.code not in ERROR_CODES:
            raise ValueError(f"unknown error code {self.code!r}; expected one of {ERROR_CODES}")

    def __str__(self) -> str:
        return self.code


Value = float | str | bool | CellError | None
Kind = Literal["formula", "number", "text", "bool", "empty"]


@dataclass(frozen=True, slots=True)
class Parsed:
    """What a typed entry stores: its kind, its value (the raw text for a formula), and the
    number format the way it was typed implies (`$4,200` implies `$#,##0`), if any."""

    kind: Kind
    value: float | str | bool | None
    implied_format: str | None = None


_NUMBER = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?|\.[0-9]+"
_PLAIN = re.compile(rf"([+-]?)({_NUMBER})(?:[eE]([+-]?[0-9]+))?")
_CURRENCY = re.compile(rf"(-?)\$(-?)({_NUMBER})")
_PERCENT = re.compile(rf"([+-]?)({_NUMBER})\s*%")
_ISO_DATE = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")
_US_DATE = re.compile(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})")


def to_date(serial: float) -> dt.date:
    """The calendar day of a serial number (its fraction, the time of day, is dropped)."""
    return EPOCH + dt.timedelta(days=int(serial // 1))


def from_date(day: dt.date) -> float:
    """The serial number of a day: 2025-09-14 → 45914.0."""
    if isinstance(day, dt.datetime):
        day = day.date()
    return float((day - EPOCH).days)


def _decimals(number: str) -> int:
    return len(number.split(".", 1)[1]) if "." in number else 0


def _to_decimal(number: str) -> Decimal:
    return Decimal(number.replace(",", ""))


def _date_serial(year: int, month: int, day: int) -> float | None:
    try:
        return from_date(dt.date(year, month, day))
    except ValueError:
        return None


def parse_input(raw: str) -> Parsed:
    """What typing `raw` into a cell stores, as Excel reads it in an en-US locale."""
    if raw == "":
        return Parsed("empty", None)
    if raw.startswith("="):
        return Parsed("formula", raw)
    if raw.startswith("'"):
        return Parsed("text", raw[1:])
    text = raw.strip()
    if text.upper() in ("TRUE", "FALSE"):
        return Parsed("bool", text.upper() == "TRUE")
    if match := _PLAIN.fullmatch(text):
        sign, number, exponent = match.groups()
        value = float(_to_decimal(number).scaleb(int(exponent or 0)))
        return Parsed("number", -value if sign == "-" else value)
    if match := _CURRENCY.fullmatch(text):
        sign, inner_sign, number = match.groups()
        value = float(_to_decimal(number))
        negative = (sign == "-") != (inner_sign == "-")
        code = "$#,##0.00" if _decimals(number) else "$#,##0"
        return Parsed("number", -value if negative else value, code)
    if match := _PERCENT.fullmatch(text):
        sign, number = match.groups()
        value = float(_to_decimal(number) / 100)
        decimals = min(_decimals(number), 2)
        code = "0%" if decimals == 0 else "0." + "0" * decimals + "%"
        return Parsed("number", -value if sign == "-" else value, code)
    if match := _ISO_DATE.fullmatch(text):
        serial = _date_serial(int(match[1]), int(match[2]), int(match[3]))
        if serial is not None:
            return Parsed("number", serial, "yyyy-mm-dd")
    if match := _US_DATE.fullmatch(text):
        serial = _date_serial(int(match[3]), int(match[1]), int(match[2]))
        if serial is not None:
            return Parsed("number", serial, "m/d/yyyy")
    return Parsed("text", raw)
