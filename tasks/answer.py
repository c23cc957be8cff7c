"""The answer contract: reading an agent's final message and judging it against the truth.

`judge(answer, expected, kind)` returns a `Reading`: whether the answer states the expected
value, what was read from it and, when it fails, why. The contract (`CONTRACT`, the text an
agent is shown) is strict about hedging, because a policy trained on the reward finds every
leak: an answer that offers two candidates, a range, "at least 14" or "I think" fails even
when one of its candidates is right, and "no idea" is not read as zero. It is lenient about
form: any common format of the value, restated names, and other numbers that clearly count
something else ("8 members; 1 of 24 channels") pass.

How it reads: the answer is case- and accent-folded, then scanned once for the spans it
states, in priority order (phrases to ignore and the expected names, emails, dates, phone
numbers, times, years, zero words, digits, number words); each span claims its characters so
that the digits of a date are never read as a count. What is left, with each span replaced by
a marker, is where hedges, ranges and non-answers are hunted. Number words are read by a small
parser here: the PyPI number-word packages convert a whole string and do not say where in the
text each number was, which the unit and range rules need. A typical answer is judged in
about 0.1 ms (p50 of `judge` on short answers of every kind, measured with `timeit`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

KINDS = ("number", "money", "date", "phone", "email", "name", "text", "list")
MAX_CHARS: int = 400

CONTRACT: str = (
    "State the one value asked for, in any common format. Restating names from the question is "
    'fine; other numbers are fine only when they clearly count something else ("8 members; 1 of '
    '24 channels"). Offering more than one candidate value fails, and so do hedges: or, either, '
    "maybe, possibly, perhaps, probably, likely, I think/believe/guess, at least, at most, "
    "about, around, approximately, roughly, nearly, almost, over/under/more than/less than "
    "before the value, or so, -ish, something, give or take, ~, ranges (14-16, 14 to 16, "
    'between 14 and 16) and / between candidates. "I don\'t know", "no idea", "not sure", '
    '"unknown", "can\'t tell" and "unable" are not answers: if the task cannot be done, '
    'call report_infeasible instead. Zero may be 0, zero, none, nobody, nothing or "no <thing>". '
    'Lists: every item once, any order, separated by commas, "and", semicolons or lines, '
    "nothing extra. Dates: 2025-09-16, 09/16/2025, Sep 16, 2025, 16 September 2025, or relative "
    "to today (yesterday, 2 days ago, Tuesday, Tuesday the 16th); a weekday must agree with its "
    "date. Phones: any formatting, extension kept. Emails: exactly one address. "
    f"Answers over {MAX_CHARS} characters fail."
)


@dataclass(frozen=True)
class Reading:
    """The judgement of one answer: `found` is what was read, `problem` why it failed."""

    passed: bool
    found: str
    problem: str = ""


# ---- folding and phrases -------------------------------------------------------------------

_FOLD_TABLE = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00a0": " ",
        "\u202f": " ",
    }
)


def _fold(text: str) -> str:
    """Casefolded with accents removed and typographic dashes and quotes made plain."""
    decomposed = unicodedata.normalize("NFKD", str(text).translate(_FOLD_TABLE))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def normalize(text: str) -> str:
    """Casefolded, accents removed, punctuation turned into spaces, whitespace collapsed."""
    words = re.sub(r"[^\w@.+-]+|(?<!\w)[.+-]|[.+-](?!\w)", " ", _fold(text))
    return " ".join(words.split())


def _phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    """`phrase` as whole words of folded text: the punctuation the phrase has between two
    words (`Lee, Ann`, `Proposal/Price Quote`), else any spaces, hyphens, dots or apostrophes
    (`O'Brien`, `Mary-Jane`)."""
    words = normalize(phrase).split()
    if not words:
        return None
    folded, pos, pattern = _fold(phrase), 0, ""
    for i, word in enumerate(words):
        at = folded.find(word, pos)
        if i:
            gap = folded[pos:at] if at >= 0 else " "
            sep = gap.strip(" '.-")
            pattern += rf"\s*{re.escape(sep)}\s*" if sep else r"[\s'.-]+"
        pattern += re.escape(word)
        pos = at + len(word) if at >= 0 else pos
    return re.compile(r"(?<!\w)" + pattern + r"(?!\w)")


def mentions(answer: str, phrase: str) -> bool:
    """Whether `phrase` appears in `answer` as whole words (after `normalize`)."""
    needle = normalize(phrase)
    if not needle:
        return False
    return re.search(rf"(?<![\w]){re.escape(needle)}(?![\w])", normalize(answer)) is not None


def name_spellings(name: str) -> list[str]:
    """`First Last`, `Last, First` and `Last First` for a person's display name."""
    parts = name.split()
    if len(parts) < 2:
        return [name]
    first, last = parts[0], parts[-1]
    return list(dict.fromkeys([name, f"{first} {last}", f"{last}, {first}", f"{last} {first}"]))


# ---- number words --------------------------------------------------------------------------

# Number words from zero to nineteen, and the tens from twenty (what `phrasing` spells with).
UNIT_WORDS = [
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
]
TENS_WORDS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SMALL = {word: value for value, word in enumerate(UNIT_WORDS)}
_TENS = {word: 10 * (value + 2) for value, word in enumerate(TENS_WORDS)}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORDS = {**_SMALL, **_TENS, "hundred": 100, **_SCALES, "dozen": 12}
# "one" after these is a pronoun ("the one ending in 3910"), not a count.
_PRONOUN_ONE = frozenset(
    ["the", "this", "that", "which", "each", "every", "any", "no", "some", "another", "a", "one"]
)
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _word_numbers(text: str) -> list[tuple[int, int, float]]:
    """Every number written in words (`twenty-one`, `a hundred and five`, `two dozen`)."""
    tokens = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
    found: list[tuple[int, int, float]] = []
    i = 0
    while i < len(tokens):
        start, _, word = tokens[i]
        nxt = tokens[i + 1][2] if i + 1 < len(tokens) else ""
        leads = word in _NUMBER_WORDS or (word in ("a", "an") and nxt in ("hundred", "dozen"))
        leads = leads or (word == "a" and nxt in _SCALES)
        if not leads or word in _SCALES or (word == "hundred"):
            i += 1
            continue
        if word == "one" and i and tokens[i - 1][2] in _PRONOUN_ONE:
            i += 1
            continue
        total, current, last, j, end = 0, 0, "", i, start
        while j < len(tokens):
            s, e, w = tokens[j]
            if j > i and not re.fullmatch(r"\s+|\s*-\s*", text[end:s]):
                break
            if w in ("a", "an") and j == i:
                current, last = 1, "unit"
            elif w in _SMALL:
                if last in ("unit", "teen") or (last == "tens" and _SMALL[w] >= 10):
                    break
                if last == "tens" and _SMALL[w] == 0:
                    break
                current += _SMALL[w]
                last = "teen" if _SMALL[w] >= 10 else "unit"
            elif w in _TENS:
                if last in ("unit", "teen", "tens"):
                    break
                current += _TENS[w]
                last = "tens"
            elif w == "hundred":
                if last in ("hundred", "scale") or current >= 100:
                    break
                current = max(current, 1) * 100
                last = "hundred"
            elif w in _SCALES:
                if last == "scale" and _SCALES[w] <= 1000:
                    break
                total += max(current, 1) * _SCALES[w]
                current, last = 0, "scale"
            elif w == "dozen":
                current = max(current, 1) * 12
                last = "dozen"
                end = e
                j += 1
                break
            elif w == "and" and last in ("hundred", "scale") and j + 1 < len(tokens):
                follow = tokens[j + 1][2]
                if follow not in _SMALL and follow not in _TENS:
                    break
                end = tokens[j][1]
                j += 1
                continue
            else:
                break
            end = e
            j += 1
        found.append((start, end, float(total + current)))
        i = max(j, i + 1)
    return found


# ---- the spans an answer states ------------------------------------------------------------

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WD = r"mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?"
_WD_FULL = "|".join(_WEEKDAYS)
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_MONTH_NUMBER = {
    m: i + 1
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    )
}
_PRE = rf"(?:(?P<wd>{_WD})\.?,?\s+(?:the\s+)?)?"
_ORD = r"(?:st|nd|rd|th)"
_SMALL_ALT = "|".join(sorted(_SMALL, key=len, reverse=True))

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?<!\.)")
_ISO = re.compile(
    rf"{_PRE}(?<![\w/.-])(?P<y>\d{{4}})(?P<sep>[-/.])(?P<m>\d{{1,2}})(?P=sep)(?P<d>\d{{1,2}})(?!\d)"
)
_US = re.compile(
    rf"{_PRE}(?<![\w/.-])(?P<m>\d{{1,2}})(?P<sep>[/-])(?P<d>\d{{1,2}})"
    rf"(?:(?P=sep)(?P<y>\d{{4}}|\d{{2}}))?(?![\w/])"
)
_MONTH_DAY = re.compile(
    rf"{_PRE}\b(?P<mon>{_MONTHS})\.?\s+(?P<d>\d{{1,2}}){_ORD}?\b(?:,?\s+(?P<y>\d{{4}})\b)?"
)
_DAY_MONTH = re.compile(
    rf"{_PRE}\b(?P<d>\d{{1,2}}){_ORD}?\s+(?:of\s+)?(?P<mon>{_MONTHS})\b\.?(?:,?\s+(?P<y>\d{{4}})\b)?"
)
_WEEKDAY_NTH = re.compile(rf"\b(?P<wd>{_WD})\.?,?\s+(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\b")
_NTH = re.compile(rf"\bthe\s+(?P<d>\d{{1,2}}){_ORD}\b")
_RELATIVE = re.compile(
    r"\b(?P<word>the\s+day\s+before\s+yesterday|day\s+before\s+yesterday|today|yesterday"
    r"|tomorrow|tonight|last\s+night|this\s+(?:morning|afternoon|evening))\b"
    rf"|\b(?P<n>\d{{1,3}}|a|an|{_SMALL_ALT})\s+(?P<unit>days?|weeks?)\s+ago\b"
    rf"|\b(?:(?P<rel>last|this|next|past|on)\s+)?(?P<wd>{_WD_FULL})\b"
)
_PHONE = re.compile(
    r"(?<![\w+$])(?:\+|00)?\(?\d[\d(). \t-]{5,22}\d(?:[ \t]*(?:x|ext\.?|extension)[ \t]*\d{1,6})?(?!\w)"
)
_TIME = re.compile(
    r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*(?:am|pm|a\.m\.|p\.m\.))?"
    r"|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)(?!\w)"
    rf"|\b(?:\d{{1,2}}|{_SMALL_ALT})\s+o'?clock\b"
)
_YEAR = re.compile(r"\b(?:in|of|since|during|for|fy|q[1-4])\s+(?:19|20)\d{2}\b")
_WEAK_ZERO = re.compile(
    r"\b(?:none|nobody|nothing|no(?:\s+|-)one)\b"
    r"|\bno\b(?=\s+(?!more\b|less\b|fewer\b|later\b|earlier\b|longer\b|idea\b|clue\b|problem\b"
    r"|way\b|doubt\b|than\b)[a-z])"
)
_DIGITS = re.compile(
    r"(?<![\w.])(?<![a-z]-)(?P<neg>-(?=[$\d]|usd))?"
    r"(?P<cur>\$|us\$|usd\s?|€|£)?(?P<neg2>-)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:(?P<suffix>k|mm|m|bn|b)\b|\s+(?P<scale>thousand|million|billion)\b)?"
    r"(?P<cur2>\s*(?:usd|dollars?|bucks)\b)?"
    r"(?![\w])(?!\.\d)(?!-[a-z])"
)
_MULTIPLIERS = {"k": 1e3, "m": 1e6, "mm": 1e6, "b": 1e9, "bn": 1e9, **_SCALES}
_CURRENCY_AFTER = re.compile(r"\s*(?:usd|dollars?|bucks)\b")

_VALUE, _ITEM, _OTHER, _ZERO = "\ue000", "\ue001", "\ue002", "\ue003"


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    kind: str  # item, distractor, ignore, email, date, phone, time, year, zero, number
    value: object = None
    money: bool = False
    note: str = ""


@dataclass(frozen=True)
class _Scan:
    text: str
    spans: tuple[_Span, ...]
    skeleton: str
    where: tuple[int, ...]  # each span's marker position in the skeleton


def _most_recent_day(day: int, today: date) -> date | None:
    """The most recent date on or before `today` whose day of the month is `day`."""
    year, month = today.year, today.month
    for _ in range(13):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate <= today:
            return candidate
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return None


def _fill_year(month: int, day: int, today: date | None, default: date | None) -> date | None:
    """A year-less date: in `default`'s year, else the one nearest `today`."""
    if default is not None:
        try:
            return date(default.year, month, day)
        except ValueError:
            return None
    if today is None:
        return None
    options = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            options.append(date(year, month, day))
        except ValueError:
            continue
    return min(options, key=lambda d: (abs((d - today).days), d)) if options else None


def _weekday_note(m: re.Match[str], value: date | None) -> str:
    wd = m.groupdict().get("wd")
    if not wd or value is None:
        return ""
    named = next(i for i, w in enumerate(_WEEKDAYS) if w.startswith(wd[:3]))
    if named == value.weekday():
        return ""
    return f"{_WEEKDAYS[named].title()} but {value.isoformat()} was a {value.strftime('%A')}"


def _date_of(m: re.Match[str], pattern: re.Pattern[str], today, default) -> date | None:
    """The date a date-pattern match states (None when it cannot be resolved)."""
    g = m.groupdict()
    try:
        if pattern is _ISO:
            return date(int(g["y"]), int(g["m"]), int(g["d"]))
        if pattern is _US:
            month, day, year = g["m"], g["d"], g["y"]
            if year is None:
                return _fill_year(int(month), int(day), today, default)
            full = int(year) + (2000 if len(year) == 2 else 0)
            return date(full, int(month), int(day))
        if pattern in (_MONTH_DAY, _DAY_MONTH):
            month = _MONTH_NUMBER[g["mon"][:3]]
            if g["y"]:
                return date(int(g["y"]), month, int(g["d"]))
            return _fill_year(month, int(g["d"]), today, default)
    except ValueError:
        return None
    if today is None:
        return None
    if pattern in (_WEEKDAY_NTH, _NTH):
        return _most_recent_day(int(g["d"]), today)
    if g["word"]:
        word = g["word"]
        if "before" in word:
            return today - timedelta(days=2)
        if word in ("yesterday", "last night") or word.startswith("last"):
            return today - timedelta(days=1)
        return today + timedelta(days=1) if word == "tomorrow" else today
    if g["n"]:
        n = int(g["n"]) if g["n"].isdigit() else _SMALL.get(g["n"], 1)
        return today - timedelta(days=n * (7 if g["unit"].startswith("week") else 1))
    target = _WEEKDAYS.index(g["wd"])
    back = (today.weekday() - target) % 7
    if g["rel"] == "last":
        return today - timedelta(days=back or 7)
    if g["rel"] == "next":
        return today + timedelta(days=(target - today.weekday()) % 7 or 7)
    return today - timedelta(days=back)


def _valid_date_match(m: re.Match[str], pattern: re.Pattern[str]) -> bool:
    """Whether a numeric match can be a date at all (so `14/16` stays two numbers)."""
    g = m.groupdict()
    if pattern is _ISO:
        month, day = int(g["m"]), int(g["d"])
    elif pattern is _US:
        if g["sep"] == "-" and not g["y"]:
            return False
        month, day = int(g["m"]), int(g["d"])
    else:
        return True
    return 1 <= month <= 12 and 1 <= day <= 31


def _phone_groups_ok(raw: str) -> bool:
    """Whether a digit run is laid out like a phone number rather than a list of numbers."""
    main = re.split(r"[ \t]*(?:x|ext\.?|extension)[ \t]*\d+$", raw)[0]
    groups = [len(g) for g in re.findall(r"\d+", main.replace("(0)", ""))]
    digits = sum(groups)
    if main.startswith(("+", "00")):
        return 8 <= digits <= 15
    if "(" in main and digits in (10, 11):
        return True
    if main.startswith("0") and 9 <= digits <= 11 and len(groups) <= 4:
        return True
    return groups in ([3, 3, 4], [1, 3, 3, 4], [3, 4], [10]) or (
        groups == [11] and main.startswith("1")
    )


def _phone_key(text: str) -> tuple[str, str]:
    """The digits of a phone number (no +1 / 00 prefix, no trunk `(0)`) and its extension."""
    parts = re.split(r"(?i)[ \t]*(?:x|ext\.?|extension)[ \t]*(?=\d+\s*$)", text.strip())
    ext = re.sub(r"\D", "", parts[1]) if len(parts) > 1 else ""
    digits = re.sub(r"\D", "", parts[0].replace("(0)", ""))
    if digits.startswith("00"):
        digits = digits[2:]
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    return digits, ext


def _scan(
    answer: str,
    *,
    today: date | None = None,
    default: date | None = None,
    ignore: Sequence[str] = (),
    items: Sequence[tuple[str, object]] = (),
    distractors: Sequence[str] = (),
    dates: bool = True,
) -> _Scan:
    """Every span the answer states, claimed in priority order, and the skeleton left."""
    text = _fold(answer)
    taken = bytearray(len(text))
    spans: list[_Span] = []

    def claim(start: int, end: int, kind: str, value=None, money=False, note="") -> bool:
        if start >= end or any(taken[start:end]):
            return False
        taken[start:end] = b"\x01" * (end - start)
        spans.append(_Span(start, end, kind, value, money, note))
        return True

    phrases = [(p, "item", v) for p, v in items]
    phrases += [(p, "distractor", p) for p in distractors]
    phrases += [(p, "ignore", p) for p in ignore]
    rank = {"item": 0, "distractor": 1, "ignore": 2}
    for phrase, kind, value in sorted(phrases, key=lambda p: (-len(p[0]), rank[p[1]])):
        pattern = _phrase_pattern(phrase)
        if pattern is not None:
            for m in pattern.finditer(text):
                claim(m.start(), m.end(), kind, value)
    for m in _EMAIL.finditer(text):
        claim(m.start(), m.end(), "email", m.group())
    if dates:
        for pattern in (_ISO, _US):
            for m in pattern.finditer(text):
                if _valid_date_match(m, pattern):
                    value = _date_of(m, pattern, today, default)
                    claim(m.start(), m.end(), "date", value, note=_weekday_note(m, value))
    for m in _PHONE.finditer(text):
        if _phone_groups_ok(m.group()):
            claim(m.start(), m.end(), "phone", _phone_key(m.group()))
    if dates:
        for pattern in (_MONTH_DAY, _DAY_MONTH, _WEEKDAY_NTH, _NTH, _RELATIVE):
            for m in pattern.finditer(text):
                value = _date_of(m, pattern, today, default)
                claim(m.start(), m.end(), "date", value, note=_weekday_note(m, value))
    for pattern, kind in ((_TIME, "time"), (_YEAR, "year")):
        for m in pattern.finditer(text):
            claim(m.start(), m.end(), kind, m.group())
    for m in _WEAK_ZERO.finditer(text):
        claim(m.start(), m.end(), "zero", 0.0)
    for m in _DIGITS.finditer(text):
        value = float(m.group("num").replace(",", ""))
        multiplier = m.group("suffix") or m.group("scale")
        if multiplier:
            value *= _MULTIPLIERS[multiplier]
        if m.group("neg") or m.group("neg2"):
            value = -value
        money = bool(m.group("cur") or m.group("cur2") or multiplier)
        claim(m.start(), m.end(), "number", value, money=money)
    for start, end, value in _word_numbers(text):
        after = _CURRENCY_AFTER.match(text, end)
        stop = after.end() if after else end
        scaled = value >= 1000 and re.search(r"thousand|million|billion", text[start:end])
        claim(start, stop, "number", value, money=bool(after or scaled))

    spans.sort(key=lambda s: s.start)
    markers = {"item": _ITEM, "distractor": _OTHER, "ignore": " ", "zero": _ZERO}
    pieces, where, pos = [], [], 0
    length = 0
    for span in spans:
        gap = text[pos : span.start]
        pieces.append(gap)
        length += len(gap)
        where.append(length)
        pieces.append(markers.get(span.kind, _VALUE))
        length += 1
        pos = span.end
    pieces.append(text[pos:])
    return _Scan(text, tuple(spans), "".join(pieces), tuple(where))


# ---- public readers ------------------------------------------------------------------------


def numbers_in(answer: str, *, dates_removed: bool = True) -> list[float]:
    """Every number the answer states (`1,200`, `$3.5k`, `-4`, `twenty-one`), in order.

    Numbers inside dates, times and phone numbers are not counted; a zero word (`none`,
    `no members`) is read only when no other number is stated.
    """
    scan = _scan(answer, dates=dates_removed)
    strong = [float(s.value) for s in scan.spans if s.kind == "number"]
    if strong:
        return strong
    return [0.0 for s in scan.spans if s.kind == "zero"][:1]


def _fmt_number(value: float) -> str:
    return str(int(value)) if value.is_integer() else f"{value:.10g}"


def _fmt_numbers(values: Iterable[float]) -> str:
    return "[" + ", ".join(map(_fmt_number, values)) + "]"


def dates_in(answer: str, default: date | None = None, *, today: date | None = None) -> list[date]:
    """Every calendar date the answer states, in order: ISO, US (`9/16/2025`), written
    (`Sep 16, 2025`, `16 September`) and, given `today`, relative (`yesterday`, `Tuesday`).
    A missing year is `default`'s year, else the one nearest `today`."""
    scan = _scan(answer, today=today, default=default)
    return [s.value for s in scan.spans if s.kind == "date" and s.value is not None]


def phone_digits(text: str) -> str:
    """The digits of a phone number, without an extension or a leading +1 / 001."""
    main = re.split(r"(?i)\s*(?:x|ext\.?)\s*\d+$", text.strip())[0]
    digits = re.sub(r"\D", "", main)
    for prefix in ("001", "1"):
        if len(digits) == 10 + len(prefix) and digits.startswith(prefix):
            return digits[len(prefix) :]
    return digits


def phones_in(answer: str) -> list[str]:
    """The digits of every phone number the answer states (extensions left off), in order."""
    return [s.value[0] for s in _scan(answer).spans if s.kind == "phone"]


_LIST_SPLIT = re.compile(r"\s*(?:[,;\n]|\band\b|&)\s*", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def list_items(answer: str) -> list[str]:
    """The answer split into items (commas, semicolons, lines, 'and'), bullets removed."""
    items = []
    for line in answer.splitlines() or [answer]:
        for part in _LIST_SPLIT.split(_BULLET.sub("", line)):
            if normalize(part):
                items.append(part.strip())
    return items


# ---- hedges and non-answers ----------------------------------------------------------------

_MARK = f"[{_VALUE}{_ITEM}{_OTHER}]"
# A dash makes a range between two figures or two names, not between a name and a figure
# ("Maple Loft — $1,175.78" names the place and says its price).
_FIGURE = f"[{_VALUE}{_OTHER}]"
_NOT_AN_ANSWER = re.compile(
    r"\b(?:i\s+)?(?:don'?t|do\s+not|dont)\s+know\b|\bno\s+(?:idea|clue)\b"
    r"|\bnot\s+(?:sure|certain)\b|\bunsure\b|\bunknown\b|\bunable\b|\bn/a\b"
    r"|\b(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not)\s+(?:tell|say|determine|be\s+sure)\b"
)
_HEDGE_WORDS = re.compile(
    r"\b(?:or|either|maybe|possibly|perhaps|probably|likely|presumably|apparently|guess"
    r"|guessing|estimated?|approx(?:imately)?|roughly|nearly|almost|something|somewhere"
    r"|at\s+least|at\s+most|i\s+(?:think|believe|guess|suspect|assume|reckon)|might"
    r"|could\s+be|may\s+be|seems?|circa)\b|-ish\b|(?<=\d)ish\b|[~≈±]"
)
_HEDGE_BEFORE = re.compile(
    r"\b(?:about|around|over|under|above|below|more\s+than|less\s+than|fewer\s+than"
    r"|(?<!add )(?<!adds )(?<!added )up\s+to|upwards\s+of|close\s+to|ca\.?)\s+(?:the\s+)?"
    + f"[{_VALUE}{_ZERO}]"
)
_RANGE = re.compile(
    f"{_FIGURE}[ \\t]*-[ \\t]*{_FIGURE}|{_ITEM}[ \\t]*-[ \\t]*{_ITEM}"
    f"|{_MARK}\\s+(?:to|through|thru|until)\\s+{_MARK}"
    f"|\\bbetween\\s+{_MARK}\\s+and\\s+{_MARK}|{_VALUE}\\s*\\+(?!\\d)|{_VALUE}\\s*\\?"
)
_SLASH_BETWEEN = re.compile(f"{_MARK}\\s*/\\s*{_MARK}")
_SLASH_NEAR = re.compile(f"{_MARK}\\s*/|/\\s*{_MARK}")


def _hedge(scan: _Scan, *, names: bool) -> str:
    """The first hedge in the skeleton, described, or ''."""
    sk = scan.skeleton
    if m := _HEDGE_WORDS.search(sk):
        return f"hedge: {m.group().strip()!r}"
    if m := _HEDGE_BEFORE.search(sk):
        return f"hedge: {m.group().split()[0]!r} before the value"
    if _RANGE.search(sk):
        return "hedge: a range or open bound"
    if (_SLASH_NEAR if names else _SLASH_BETWEEN).search(sk):
        return "hedge: '/' between candidates"
    return ""


# ---- judging -------------------------------------------------------------------------------


def _unit_words(unit: str | Sequence[str] | None) -> list[str]:
    """Singular and plural forms of the unit noun(s)."""
    if not unit:
        return []
    forms: set[str] = set()
    for noun in [unit] if isinstance(unit, str) else unit:
        u = _fold(noun).strip()
        stems = {u}
        if u.endswith("ies"):
            stems.add(u[:-3] + "y")
        elif u.endswith("es"):
            stems.update({u[:-2], u[:-1]})
        elif u.endswith("s"):
            stems.add(u[:-1])
        for s in stems:
            forms.update({s, s + "s", s + "es"})
            if s.endswith("y"):
                forms.add(s[:-1] + "ies")
        if u in ("person", "people"):
            forms.update({"person", "people", "persons"})
    return sorted(forms, key=len, reverse=True)


def _attached(scan: _Scan, index: int, unit_re: re.Pattern[str]) -> bool:
    """Whether the span at `index` is followed by the unit noun (two words may come between)."""
    return unit_re.match(scan.skeleton, scan.where[index] + 1) is not None


def _read_number(scan: _Scan, kind: str, unit) -> tuple[list[float], str]:
    """The candidate values for a number or money answer, and what was read."""
    indexed = [(i, s) for i, s in enumerate(scan.spans) if s.kind in ("number", "zero")]
    label = "money" if kind == "money" else "numbers"
    forms = _unit_words(unit)
    if forms and kind == "number":
        unit_re = re.compile(
            r"\s*(?:[(\"']?[a-z][a-z'-]*[)\"']?\s+){0,2}?(?:"
            + "|".join(map(re.escape, forms))
            + r")\b"
        )
        attached = [s for i, s in indexed if _attached(scan, i, unit_re)]
        if attached:
            return [float(s.value) for s in attached], label
    strong = [s for _, s in indexed if s.kind == "number"]
    if kind == "money" and any(s.money for s in strong):
        strong = [s for s in strong if s.money]
    if strong:
        return [float(s.value) for s in strong], label
    return [0.0 for _, s in indexed if s.kind == "zero"][:1], label


def _distinct(values: Iterable) -> list:
    return list(dict.fromkeys(values))


def _fail(found: str, problem: str) -> Reading:
    return Reading(False, found, problem)


def _judge_values(scan: _Scan, expected, kind: str, unit, tolerance: float) -> Reading:
    if kind in ("number", "money"):
        values, label = _read_number(scan, kind, unit)
        found = f"{label} {_fmt_numbers(values)}"
        distinct = _distinct(values)
        if not distinct:
            return _fail("no number", "no number")
        if len(distinct) > 1:
            return _fail(found, "two candidates: " + ", ".join(map(_fmt_number, distinct)))
        ok = math.isclose(distinct[0], float(expected), rel_tol=0.0, abs_tol=tolerance)
        return Reading(ok, found, "" if ok else f"wrong value: {_fmt_number(distinct[0])}")
    if kind == "date":
        spans = [s for s in scan.spans if s.kind == "date"]
        if any(s.value is None for s in spans):
            return _fail("dates [?]", "a date that cannot be read (a relative date needs today)")
        values = _distinct(s.value for s in spans)
        found = f"dates {[d.isoformat() for d in values]}" if values else "no date"
        if not values:
            return _fail(found, "no date")
        if len(values) > 1:
            return _fail(found, "two candidates: " + ", ".join(d.isoformat() for d in values))
        if note := next((s.note for s in spans if s.note), ""):
            return _fail(found, f"weekday contradicts the date: {note}")
        ok = values[0] == expected
        return Reading(ok, found, "" if ok else f"wrong date: {values[0].isoformat()}")
    if kind == "phone":
        values = _distinct(s.value for s in scan.spans if s.kind == "phone")
        shown = [d + (f" x{e}" if e else "") for d, e in values]
        found = f"phones {shown}" if values else "no phone number"
        if not values:
            return _fail(found, "no phone number")
        if len(values) > 1:
            return _fail(found, "two candidates: " + ", ".join(shown))
        ok = _same_phone(values[0], str(expected))
        return Reading(ok, found, "" if ok else f"wrong number: {shown[0]}")
    values = _distinct(s.value for s in scan.spans if s.kind == "email")
    found = f"emails {values}" if values else "no email address"
    if not values:
        return _fail(found, "no email address")
    if len(values) > 1:
        return _fail(found, "two candidates: " + ", ".join(values))
    ok = values[0] == _fold(str(expected)).strip()
    return Reading(ok, found, "" if ok else f"wrong address: {values[0]}")


def _same_phone(found: tuple[str, str], expected: str) -> bool:
    """Same digits and extension; a national form (`020 7123 4567`) of a `+44` number too."""
    want = _phone_key(expected)
    if found == want:
        return True
    digits, ext = found
    national = digits.startswith("0") and expected.strip().startswith("+")
    return (
        national
        and ext == want[1]
        and want[0].endswith(digits[1:])
        and 1 <= len(want[0]) - len(digits) + 1 <= 3
    )


_FILLER = re.compile(
    rf"\W*(?:{_ZERO}\s+else|(?:that'?s|that\s+is)\s+(?:all|it|everyone|everybody)"
    rf"|in\s+(?:any|{_ZERO}\s+particular)\s+order|in\s+total|all\s+of\s+them)\W*$"
)
_SEPARATOR = re.compile(r"\s*(?:[,;\n&]|\band\b|\bplus\b|\balso\b|\bas\s+well\s+as\b)\s*")


def _judge_names(scan: _Scan, expected, kind: str) -> Reading:
    named = _distinct(s.value for s in scan.spans if s.kind == "distractor")
    items = [s.value for s in scan.spans if s.kind == "item"]
    if kind != "list":
        spellings = [expected] if isinstance(expected, str) else list(expected)
        if not items:
            return _fail("no mention", f"does not mention {spellings[0]!r}")
        found = f"{kind} {spellings[0]!r}"
        if named:
            return _fail(found, f"names a distractor: {named[0]!r}")
        return Reading(True, found)
    wanted = list(expected)
    seen = set(items)
    missing = [w for i, w in enumerate(wanted) if i not in seen]
    found = f"items {[wanted[i] for i in sorted(seen)]}"
    if named:
        return _fail(found, f"names a distractor: {named[0]!r}")
    if missing:
        return _fail(found, f"missing {missing}")
    sk = scan.skeleton
    first, last = sk.index(_ITEM), sk.rindex(_ITEM)
    parts = _SEPARATOR.split(sk[first : last + 1])
    tail = sk[last + 1 :]
    if _SEPARATOR.match(tail):
        parts += _SEPARATOR.split(tail)[1:]
    extra = [p for p in parts if _ITEM not in p and re.search(r"\w", p) and not _FILLER.match(p)]
    if extra:
        return _fail(found, f"extra item: {extra[0].strip()!r}")
    return Reading(True, found)


def judge(
    answer: str,
    expected,
    kind: str,
    *,
    today: date | None = None,
    unit: str | Sequence[str] | None = None,
    distractors: Sequence[str] = (),
    ignore: Sequence[str] = (),
    tolerance: float = 0.0,
    max_chars: int | None = None,
) -> Reading:
    """Judge `answer` against `expected` under the answer contract (see `CONTRACT`).

    `expected` is a number (number, money), a `date`, a phone number or email address (str),
    a person's display name (name), a str or accepted spellings (text) or the items (list).
    `today` is the world's date, for relative dates. `unit` is the noun a number counts: when
    some number is attached to it ("8 unread mentions"), only those are candidates. `ignore`
    lists phrases to blank out first (entity names the answer may restate). `distractors` are
    other names or items (name, text, list kinds) the answer must not mention; for the value
    kinds a second value already fails as a second candidate. `tolerance` is absolute; 0 means
    exact for a number and half a cent for money.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown answer kind {kind!r}; choose one of {KINDS}")
    text = "" if answer is None else str(answer)
    limit = MAX_CHARS if max_chars is None else max_chars
    if len(text) > limit:
        return _fail("", f"too long: {len(text)} > {limit}")
    if not text.strip():
        return _fail("", "no answer")
    items: list[tuple[str, object]] = []
    if kind == "name":
        items = [(s, 0) for s in name_spellings(str(expected))]
    elif kind == "text":
        options = [expected] if isinstance(expected, str) else list(expected)
        items = [(s, 0) for s in options]
    elif kind == "list":
        items = [(str(s), i) for i, s in enumerate(expected)]
    phrase_kinds = ("name", "text", "list")
    scan = _scan(
        text,
        today=today,
        default=None if today is not None else (expected if kind == "date" else None),
        ignore=ignore,
        items=items,
        distractors=[d for d in distractors if d] if kind in phrase_kinds else (),
    )
    if kind in ("name", "text", "list"):
        reading = _judge_names(scan, expected, kind)
    else:
        tolerance = tolerance or (0.005 if kind == "money" else 1e-9)
        reading = _judge_values(scan, expected, kind, unit, tolerance)
    if m := _NOT_AN_ANSWER.search(scan.skeleton):
        return _fail(reading.found, f"not an answer: {m.group()!r}")
    if problem := _hedge(scan, names=kind in ("name", "text", "list")):
        return _fail(reading.found, problem)
    return reading


__all__ = [
    "CONTRACT",
    "KINDS",
    "MAX_CHARS",
    "Reading",
    "dates_in",
    "judge",
    "list_items",
    "mentions",
    "name_spellings",
    "normalize",
    "numbers_in",
    "phone_digits",
    "phones_in",
]
