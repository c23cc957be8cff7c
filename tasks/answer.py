"""Reading an agent's final message: numbers, money, dates, phone numbers, names and lists.

Each `judge_*` function takes the answer text and what is expected and returns
`(passed, found)`, where `found` says what was read from the answer (for the check's
detail). They are strict on purpose: an answer naming several candidates, or several
different numbers, does not pass because one of them is right.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import date, datetime

from dateutil import parser as dateparser

_WORD_NUMBERS = {
    word: value
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
_WORD_NUMBERS["none"] = 0
_WORD_NUMBERS["no"] = 0

_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-−])?\s?(?P<cur>[$€£])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<suffix>k|m|bn|b|thousand|million|billion)\b)?",
    re.IGNORECASE,
)
_MULTIPLIERS = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
}
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DATE = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b"
    rf"|\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\.?(?:,?\s+\d{{4}})?\b",
    re.IGNORECASE,
)
_PHONE = re.compile(r"(?:\+|\b)[\d(][\d\s().\-]{5,}\d(?:\s*(?:x|ext\.?)\s*\d+)?", re.IGNORECASE)
_LIST_SPLIT = re.compile(r"\s*(?:[,;\n]|\band\b|&)\s*", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def normalize(text: str) -> str:
    """Casefolded, accents removed, punctuation turned into spaces, whitespace collapsed."""
    decomposed = unicodedata.normalize("NFKD", str(text))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    words = re.sub(r"[^\w@.+-]+|(?<!\w)[.+-]|[.+-](?!\w)", " ", plain)
    return " ".join(words.split())


def mentions(answer: str, phrase: str) -> bool:
    """Whether `phrase` appears in `answer` as whole words (after `normalize`)."""
    needle = normalize(phrase)
    if not needle:
        return False
    return re.search(rf"(?<![\w]){re.escape(needle)}(?![\w])", normalize(answer)) is not None


def numbers_in(answer: str, *, dates_removed: bool = True) -> list[float]:
    """Every number the answer states (`1,200`, `$3.5k`, `-4`, `twelve`), in order."""
    text = _DATE.sub(" ", answer) if dates_removed else answer
    found: list[float] = []
    for m in _NUMBER.finditer(text):
        value = float(m.group("num").replace(",", ""))
        if m.group("suffix"):
            value *= _MULTIPLIERS[m.group("suffix").lower()]
        if m.group("sign"):
            value = -value
        found.append(value)
    for word in re.findall(r"[a-z]+", text.casefold()):
        if word in _WORD_NUMBERS and word not in ("no", "none"):
            found.append(float(_WORD_NUMBERS[word]))
    if not found and re.search(r"\b(?:none|no)\b", text.casefold()):
        found.append(0.0)
    return found


def judge_number(
    answer: str, expected: float, *, rel: float = 0.0, abs_tol: float = 1e-9
) -> tuple[bool, str]:
    """Every number stated equals `expected` (within the tolerance), and there is one."""
    found = numbers_in(answer)
    ok = bool(found) and all(
        math.isclose(v, float(expected), rel_tol=rel, abs_tol=abs_tol) for v in found
    )
    return ok, f"numbers {_fmt_numbers(found)}" if found else "no number"


def _fmt_numbers(values: Iterable[float]) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def dates_in(answer: str, default: date | None = None) -> list[date]:
    """Every calendar date the answer states (ISO, `March 5, 2026`, `5 March`), in order."""
    base = datetime.combine(default or date(2000, 1, 1), datetime.min.time())
    found = []
    for m in _DATE.finditer(answer):
        try:
            found.append(dateparser.parse(m.group(0), default=base).date())
        except (ValueError, OverflowError):
            continue
    return found


def judge_date(answer: str, expected: date) -> tuple[bool, str]:
    """Every date stated is `expected` (a missing year means the expected year)."""
    found = dates_in(answer, default=expected)
    ok = bool(found) and all(d == expected for d in found)
    return ok, f"dates {[d.isoformat() for d in found]}" if found else "no date"


def phone_digits(text: str) -> str:
    """The digits of a phone number, without an extension or a leading +1 / 001."""
    main = re.split(r"(?i)\s*(?:x|ext\.?)\s*\d+$", text.strip())[0]
    digits = re.sub(r"\D", "", main)
    for prefix in ("001", "1"):
        if len(digits) == 10 + len(prefix) and digits.startswith(prefix):
            return digits[len(prefix) :]
    return digits


def phones_in(answer: str) -> list[str]:
    """The digits of every phone-number-looking run in the answer (seven digits or more)."""
    return [
        digits
        for m in _PHONE.finditer(answer)
        if len(digits := phone_digits(m.group(0))) >= 7 and not _DATE.fullmatch(m.group(0))
    ]


def judge_phone(answer: str, expected: str) -> tuple[bool, str]:
    """The answer states exactly one phone number, `expected` (formatting ignored)."""
    found = sorted(set(phones_in(answer)))
    ok = found == [phone_digits(expected)]
    return ok, f"phone numbers {found}" if found else "no phone number"


def judge_text(answer: str, expected: str | Sequence[str]) -> tuple[bool, str]:
    """`expected` (or one of its accepted spellings) appears in the answer as whole words."""
    options = [expected] if isinstance(expected, str) else list(expected)
    hit = next((o for o in options if mentions(answer, o)), None)
    return hit is not None, f"mentions {hit!r}" if hit else "does not mention it"


def name_spellings(name: str) -> list[str]:
    """`First Last`, `Last, First` and `Last First` for a person's display name."""
    parts = name.split()
    if len(parts) < 2:
        return [name]
    first, last = parts[0], parts[-1]
    return [name, f"{first} {last}", f"{last}, {first}", f"{last} {first}"]


def list_items(answer: str) -> list[str]:
    """The answer split into items (commas, semicolons, lines, 'and'), bullets removed."""
    items = []
    for line in answer.splitlines() or [answer]:
        for part in _LIST_SPLIT.split(_BULLET.sub("", line)):
            if normalize(part):
                items.append(part.strip())
    return items


def judge_list(answer: str, expected: Sequence[str]) -> tuple[bool, str]:
    """Every expected item is mentioned, in any order, and nothing more is listed."""
    missing = [item for item in expected if not mentions(answer, item)]
    if missing:
        return False, f"missing {missing}"
    items = list_items(answer)
    if len(items) > len(expected):
        return False, f"{len(items)} items listed, {len(expected)} expected"
    return True, f"all {len(expected)} items"


__all__ = [
    "dates_in",
    "judge_date",
    "judge_list",
    "judge_number",
    "judge_phone",
    "judge_text",
    "list_items",
    "mentions",
    "name_spellings",
    "normalize",
    "numbers_in",
    "phone_digits",
    "phones_in",
]
