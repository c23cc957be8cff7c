"""What a cell shows: a value rendered through an Excel number format code.

The menu offers a few codes (`FORMATS`), but the same engine serves the TEXT() function, so it
reads the common grammar of Excel codes: up to four `;` sections (positive; negative; zero;
text), quoted literals and `\\x` escapes, digit placeholders `0 # ?` with `,` grouping and
trailing-comma scaling, `%`, scientific `E+`, and date/time codes (`yyyy mmm d h:mm AM/PM`).
Conditions (`[>100]`) and elapsed time (`[h]`) are not read: `display` shows such values in
General and `text` raises `UnsupportedFormat`.

Numbers round half away from zero after Excel's 15-significant-digit view of the double
(2.5 with `0` shows 3, 2.675 with `0.00` shows 2.68), never with Python's half-even rounding.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from types import MappingProxyType

from .values import CellError, Value, to_date

FORMATS = MappingProxyType(
    {
        "Automatic": None,
        "Number (2 decimals)": "#,##0.00",
        "Number (no decimals)": "#,##0",
        "Currency": "$#,##0.00",
        "Currency (no decimals)": "$#,##0",
        "Percent": "0%",
        "Percent (1 decimal)": "0.0%",
        "Date": "yyyy-mm-dd",
        "Date (m/d/yyyy)": "m/d/yyyy",
        "Date (mmm d, yyyy)": "mmm d, yyyy",
    }
)

MAX_SERIAL = 2_958_465  # 9999-12-31
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


class UnsupportedFormat(ValueError):
    """The number format code uses a part of Excel's grammar this engine does not read."""


def _decimal(x: float) -> Decimal:
    """The number as Excel holds it for display: 15 significant digits."""
    return Decimal(f"{x:.15g}")


def _round(x: float, places: int) -> Decimal:
    return _decimal(x).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _plain(d: Decimal) -> str:
    """A Decimal in positional notation without trailing zeros."""
    text = f"{d:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _scientific(x: float, digits: int) -> str:
    mantissa, exponent = f"{x:.{digits - 1}E}".split("E")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    sign = "-" if exponent.startswith("-") else "+"
    return f"{mantissa}E{sign}{abs(int(exponent)):02d}"


def general(x: float) -> str:
    """A number in the General format of a standard-width cell: at most 11 characters of
    digits, so about 10 significant digits, in scientific notation when too large or small."""
    if x == 0:
        return "0"
    size = abs(x)
    if size >= 1e11 or size < 1e-9:
        return _scientific(x, 6)
    int_digits = len(str(int(size)))
    text = _plain(_round(x, max(0, 10 - int_digits)))
    return _scientific(x, 6) if text == "0" else text


def number_text(x: float) -> str:
    """A number as text in a formula (`="n"&0.1+0.2` is "n0.3"): up to 15 significant digits."""
    if x == 0:
        return "0"
    size = abs(x)
    if size >= 1e15 or size < 1e-9:
        return _scientific(x, 15)
    return _plain(_decimal(x))


@dataclass(frozen=True, slots=True)
class _Number:
    """A numeric section: literals around one run of digit placeholders."""

    prefix: str
    suffix: str
    int_pattern: str
    dec_pattern: str
    grouping: bool
    layout: tuple[tuple[str, str], ...] | None
    scale: int
    percent: int
    exponent: str | None


@dataclass(frozen=True, slots=True)
class _Date:
    """A date/time section: a list of literal strings and date/time codes."""

    parts: tuple[tuple[str, str], ...]
    twelve_hour: bool


@dataclass(frozen=True, slots=True)
class _Text:
    """A text section (`@` placeholders among literals) or a section of pure literals."""

    parts: tuple[tuple[str, str], ...]


_Section = _Number | _Date | _Text

_COLORS = {"black", "blue", "cyan", "green", "magenta", "red", "white", "yellow"}
_LEX = re.compile(
    r"""
    (?P<quoted>"[^"]*")
    | (?P<escaped>\\.)
    | (?P<skip>_.)
    | (?P<fill>\*.)
    | (?P<bracket>\[[^\]]*\])
    | (?P<ampm>AM/PM|am/pm|A/P|a/p)
    | (?P<date>[yY]+|[mM]+|[dD]+|[hH]+|[sS]+)
    | (?P<exponent>[eE][+-][0#?]+)
    | (?P<digit>[0#?])
    | (?P<other>.)
    """,
    re.VERBOSE,
)


def _lex(section: str) -> list[tuple[str, str]]:
    """The section as (kind, text) tokens; literals come back as ("lit", text)."""
    tokens: list[tuple[str, str]] = []
    for match in _LEX.finditer(section):
        kind = match.lastgroup
        text = match.group()
        if kind == "quoted":
            tokens.append(("lit", text[1:-1]))
        elif kind == "escaped":
            tokens.append(("lit", text[1]))
        elif kind == "skip":
            tokens.append(("lit", " "))
        elif kind == "fill":
            continue
        elif kind == "bracket":
            inner = text[1:-1]
            if inner.startswith("$"):
                tokens.append(("lit", inner[1:].split("-", 1)[0]))
            elif inner.lower() in _COLORS or re.fullmatch(r"(?i)color\d+", inner):
                continue
            else:
                raise UnsupportedFormat(f"conditions and elapsed time are not supported: {text}")
        elif kind == "other":
            tokens.append((text, text) if text in ",.%@" else ("lit", text))
        else:
            tokens.append((kind, text))
    return tokens


def _section(code: str) -> _Section:
    tokens = _lex(code)
    kinds = {kind for kind, _ in tokens}
    if "@" in kinds:
        return _Text(tuple(("@", "") if k == "@" else ("lit", t) for k, t in tokens))
    if kinds & {"date", "ampm"} and "digit" not in kinds:
        return _date_section(tokens)
    if "digit" not in kinds:
        return _Text(tuple(("lit", t) for _, t in tokens))
    return _number_section(tokens)


def _date_section(tokens: list[tuple[str, str]]) -> _Date:
    parts: list[tuple[str, str]] = []
    twelve_hour = any(kind == "ampm" for kind, _ in tokens)
    codes = [i for i, (kind, _) in enumerate(tokens) if kind == "date"]
    for position, (kind, text) in enumerate(tokens):
        if kind == "date":
            code = text.lower()
            if code[0] == "m" and len(code) <= 2:
                before = [tokens[i][1].lower()[0] for i in codes if i < position]
                after = [tokens[i][1].lower()[0] for i in codes if i > position]
                if (before and before[-1] == "h") or (after and after[0] == "s"):
                    code = "n" * len(code)
            parts.append(("date", code))
        elif kind == "ampm":
            parts.append(("ampm", text))
        elif kind == "." and parts and parts[-1][1].startswith("s"):
            raise UnsupportedFormat("fractions of a second are not supported")
        else:
            parts.append(("lit", text))
    return _Date(tuple(parts), twelve_hour)


def _number_section(tokens: list[tuple[str, str]]) -> _Number:
    first = next(i for i, (k, _) in enumerate(tokens) if k == "digit")
    last = max(i for i, (k, _) in enumerate(tokens) if k in ("digit", "exponent"))
    while last + 1 < len(tokens) and tokens[last + 1][0] == ",":
        last += 1
    if first > 0 and tokens[first - 1][0] == ".":
        first -= 1
    core = tokens[first : last + 1]
    outside = tokens[:first] + tokens[last + 1 :]
    percent = sum(1 for kind, _ in tokens if kind == "%")
    point = next((i for i, (kind, _) in enumerate(core) if kind == "."), len(core))
    layout = None
    if any(kind not in ("digit", ",", ".", "exponent") for kind, _ in core):
        if any(kind not in ("digit", ",", ".", "lit") for kind, _ in core):
            raise UnsupportedFormat("unexpected codes between digit placeholders")
        if any(kind == "lit" for kind, _ in core[point:]) or any(k == "," for k, _ in core):
            raise UnsupportedFormat("literals only go between integer digit placeholders")
        layout = tuple((kind, text) for kind, text in core[:point])
        core = [token for token in core if token[0] != "lit"]
    if any(kind == "date" for kind, _ in outside):
        raise UnsupportedFormat("numbers and dates in one section are not supported")
    body = "".join(text for _, text in core)
    exponent = next((text for kind, text in core if kind == "exponent"), None)
    if exponent is not None:
        body = body.replace(exponent, "")
    scale = len(body) - len(body.rstrip(","))
    body = body.rstrip(",")
    int_part, _, dec_part = body.partition(".")
    if "." in dec_part:
        raise UnsupportedFormat("two decimal points")
    return _Number(
        prefix="".join(t for _, t in tokens[:first]),
        suffix="".join(t for _, t in tokens[last + 1 :]),
        int_pattern=int_part.replace(",", ""),
        dec_pattern=dec_part.replace(",", ""),
        grouping="," in int_part,
        layout=layout,
        scale=scale,
        percent=percent,
        exponent=exponent,
    )


def _split_sections(code: str) -> list[str]:
    sections, current, quoted, escaped = [], [], False, False
    for ch in code:
        if escaped:
            current.append(ch)
            escaped = False
        elif ch == "\\":
            current.append(ch)
            escaped = True
        elif ch == '"':
            current.append(ch)
            quoted = not quoted
        elif ch == ";" and not quoted:
            sections.append("".join(current))
            current = []
        else:
            current.append(ch)
    sections.append("".join(current))
    return sections


@lru_cache(maxsize=1024)
def _compile(code: str) -> tuple[_Section, ...] | None:
    """The sections of `code`, or None for General."""
    if code.strip().lower() in ("", "general"):
        return None
    sections = _split_sections(code)
    if len(sections) > 4:
        raise UnsupportedFormat(f"more than four sections: {code!r}")
    return tuple(
        _section(s) if s.strip().lower() != "general" else _Text((("general", ""),))
        for s in sections
    )


def _digits(pattern: str, digits: str) -> str:
    """Fill the integer placeholders: `0` always shows, `#` only with a digit, `?` as a space."""
    need = len(pattern)
    if len(digits) >= need:
        return digits
    pad = []
    for placeholder in pattern[: need - len(digits)]:
        if placeholder == "0":
            pad.append("0")
        elif placeholder == "?":
            pad.append(" ")
    return "".join(pad) + digits


def _laid_out(layout: tuple[tuple[str, str], ...], digits: str) -> str:
    """Integer digits filled into placeholders mixed with literals (`000-000`), from the
    right; the leftmost placeholder takes any extra digits."""
    leftmost = next(i for i, (kind, _) in enumerate(layout) if kind == "digit")
    out = []
    remaining = len(digits)
    for index in range(len(layout) - 1, -1, -1):
        kind, text = layout[index]
        if kind == "lit":
            out.append(text)
            continue
        take = remaining if index == leftmost else min(remaining, 1)
        chunk = digits[remaining - take : remaining]
        remaining -= take
        out.append(chunk or {"0": "0", "?": " "}.get(text, ""))
    return "".join(reversed(out))


def _group(digits: str) -> str:
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return ",".join(groups)


def _format_number(x: float, section: _Number, signed: bool) -> str:
    x = x * 100**section.percent / 1000**section.scale
    negative = x < 0
    x = abs(x)
    if section.exponent is not None:
        body = _format_scientific(x, section)
    else:
        places = len(section.dec_pattern)
        rounded = _round(x, places)
        whole, _, frac = f"{rounded:f}".partition(".")
        if whole == "0" and "0" not in section.int_pattern:
            whole = ""
        if section.layout is not None:
            whole = _laid_out(section.layout, whole)
        else:
            whole = _digits(section.int_pattern, whole)
        if section.grouping and whole.strip():
            stripped = whole.lstrip(" ")
            whole = " " * (len(whole) - len(stripped)) + _group(stripped)
        frac = _fraction(section.dec_pattern, frac)
        body = whole + ("." + frac if section.dec_pattern else "")
        negative = negative and rounded != 0
    sign = "-" if negative and signed else ""
    return sign + section.prefix + body + section.suffix


def _fraction(pattern: str, frac: str) -> str:
    """Fill the decimal placeholders: trailing `#` zeros drop, trailing `?` zeros become spaces."""
    frac = frac.ljust(len(pattern), "0")[: len(pattern)]
    chars = list(frac)
    for i in range(len(pattern) - 1, -1, -1):
        if chars[i] != "0" or pattern[i] == "0":
            break
        chars[i] = "" if pattern[i] == "#" else " "
    return "".join(chars)


def _format_scientific(x: float, section: _Number) -> str:
    places = len(section.dec_pattern)
    int_places = max(1, len(section.int_pattern))
    if x == 0:
        exponent = 0
        mantissa = Decimal(0)
    else:
        exponent = _decimal(x).adjusted()
        exponent -= exponent % int_places if int_places > 1 else 0
        mantissa = (_decimal(x) / Decimal(10) ** exponent).quantize(
            Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP
        )
        if mantissa >= Decimal(10) ** int_places:
            exponent += int_places
            mantissa = (_decimal(x) / Decimal(10) ** exponent).quantize(
                Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP
            )
    whole, _, frac = f"{mantissa:f}".partition(".")
    body = _digits(section.int_pattern, whole)
    if section.dec_pattern:
        body += "." + _fraction(section.dec_pattern, frac)
    marker, sign_mode, exp_pattern = section.exponent[0], section.exponent[1], section.exponent[2:]
    exp_sign = "-" if exponent < 0 else ("+" if sign_mode == "+" else "")
    return f"{body}{marker.upper()}{exp_sign}{str(abs(exponent)).rjust(len(exp_pattern), '0')}"


def _format_date(x: float, section: _Date) -> str:
    if not 0 <= x <= MAX_SERIAL + 1:
        raise UnsupportedFormat("dates before 1900 or after 9999 have no display")
    seconds = int(_round(x * 86400, 0)) if x % 1 else int(x) * 86400
    day = to_date(seconds // 86400)
    second_of_day = seconds % 86400
    hour, minute, second = second_of_day // 3600, second_of_day // 60 % 60, second_of_day % 60
    out = []
    for kind, code in section.parts:
        if kind == "lit":
            out.append(code)
        elif kind == "ampm":
            morning = hour < 12
            marker = {"am/pm": ("AM", "PM"), "a/p": ("A", "P")}[code.lower()]
            text = marker[0] if morning else marker[1]
            out.append(text.lower() if code[0].islower() else text)
        else:
            out.append(_date_code(code, day, hour, minute, second, section.twelve_hour))
    return "".join(out)


def _date_code(code: str, day: dt.date, hour: int, minute: int, second: int, twelve: bool) -> str:
    letter, width = code[0], len(code)
    if letter == "y":
        return f"{day.year % 100:02d}" if width <= 2 else f"{day.year:04d}"
    if letter == "m":
        name = _MONTHS[day.month - 1]
        return {1: str(day.month), 2: f"{day.month:02d}", 3: name[:3], 5: name[0]}.get(width, name)
    if letter == "d":
        name = _DAYS[day.weekday()]
        return {1: str(day.day), 2: f"{day.day:02d}", 3: name[:3]}.get(width, name)
    if letter == "h":
        value = (hour % 12 or 12) if twelve else hour
        return f"{value:02d}" if width >= 2 else str(value)
    if letter == "n":
        return f"{minute:02d}" if width >= 2 else str(minute)
    return f"{second:02d}" if width >= 2 else str(second)


def _format_text_section(section: _Text, text: str, x: float | None) -> str:
    out = []
    for kind, piece in section.parts:
        if kind == "@":
            out.append(text)
        elif kind == "general":
            out.append(general(x) if x is not None else text)
        else:
            out.append(piece)
    return "".join(out)


def _is_text_section(section: _Section) -> bool:
    return isinstance(section, _Text) and any(kind == "@" for kind, _ in section.parts)


def _pick(sections: tuple[_Section, ...], x: float) -> tuple[_Section, bool] | None:
    """The section a number uses and whether it still needs its minus sign (None: General)."""
    numeric = sections[:3]
    if _is_text_section(sections[-1]):
        numeric = sections[: min(3, len(sections) - 1)]
    if not numeric:
        return None
    if x > 0 or len(numeric) == 1:
        return numeric[0], True
    if x < 0:
        return numeric[1], False
    return (numeric[2] if len(numeric) >= 3 else numeric[0]), True


def text(x: float, code: str) -> str:
    """A number rendered with format code `code`, as TEXT(x, code) does; raises
    `UnsupportedFormat` for codes outside the grammar this engine reads."""
    sections = _compile(code)
    picked = None if sections is None else _pick(sections, x)
    if picked is None:
        return general(x)
    section, signed = picked
    if isinstance(section, _Number):
        return _format_number(x, section, signed)
    if isinstance(section, _Date):
        return _format_date(x, section)
    prefix = "-" if signed and x < 0 and len(sections) == 1 else ""
    return prefix + _format_text_section(section, general(abs(x)), abs(x))


def text_of_text(value: str, code: str) -> str:
    """Text rendered with a format code: a fourth section (`@`) wraps it, else it shows as is."""
    sections = _compile(code)
    if sections and _is_text_section(sections[-1]):
        return _format_text_section(sections[-1], value, None)
    return value


def display(value: Value, number_format: str | None) -> str:
    """The text a cell shows for `value` under `number_format` (None means General)."""
    if value is None:
        return ""
    if isinstance(value, CellError):
        return value.code
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        try:
            return text_of_text(value, number_format or "")
        except UnsupportedFormat:
            return value
    try:
        return text(value, number_format or "")
    except UnsupportedFormat:
        return general(value)
