"""Ways to state an answer: honest phrasings that the answer contract passes, hedged or wrong
ones that it fails. The corpus tests and the quality gate use them to check `judge` reads the
formats people and models write, and refuses the hedges a trained policy would find.

    rng = random.Random(0)
    phrasings(14, "number", unit="member", rng=rng)   # ["14 members", "There are fourteen members.", ...]
    hedges(14, "number", unit="member", rng=rng)      # ["14 or 15 members", "at least 14", ...]

Both are deterministic for a given `rng`. Every hedge fails `judge` when the distractor given
here is also passed to `judge` as one of its `distractors`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import date, timedelta

from .answer import KINDS, TENS_WORDS, UNIT_WORDS, name_spellings, phone_digits

_UNITS = UNIT_WORDS
_TENS = ["_", "_", *TENS_WORDS]


def spell(n: int, *, british: bool = False) -> str:
    """`n` (0 <= n < 10**12) in words: 21 -> "twenty-one", 105 -> "one hundred five"."""
    if n < 20:
        return _UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _TENS[tens] + (f"-{_UNITS[unit]}" if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        joint = " and " if british else " "
        return f"{_UNITS[hundreds]} hundred" + (joint + spell(rest) if rest else "")
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand")):
        if n >= size:
            high, rest = divmod(n, size)
            tail = spell(rest, british=british) if rest else ""
            if tail and rest < 100 and british:
                tail = "and " + tail
            return f"{spell(high, british=british)} {name}" + (f" {tail}" if tail else "")
    raise ValueError(f"cannot spell {n}")


def _plural(unit: str, n: float) -> str:
    if n == 1:
        return unit
    if unit.endswith("y") and unit[-2:-1] not in "aeiou":
        return unit[:-1] + "ies"
    if unit.endswith(("s", "x", "ch", "sh")):
        return unit + "es"
    return unit + "s"


def _pick(rng: random.Random, forms: Sequence[str], frames: Sequence[str], n: int) -> list[str]:
    """Every form in a random frame, then random pairs, up to `n` distinct phrasings."""
    out: dict[str, None] = {}
    for form in forms:
        out[rng.choice(frames).format(v=form, V=form[:1].upper() + form[1:])] = None
    combos = [(f, g) for f in forms for g in frames]
    rng.shuffle(combos)
    for form, frame in combos:
        if len(out) >= n:
            break
        out[frame.format(v=form, V=form[:1].upper() + form[1:])] = None
    return list(out)


# ---- numbers and money ---------------------------------------------------------------------

_COUNT_FRAMES = (
    "{v} {u}",
    "There are {v} {u}.",
    "I count {v} {u}.",
    "{V} {u} in total.",
    "You have {v} {u}.",
    "The answer is {v} {u}.",
    "Total: {v} {u}",
    "That comes to {v} {u}.",
    "{V} {u} right now.",
    "It has {v} {u}.",
    "Right now there are {v} {u}.",
    "{V} {u}, going by the list.",
)
_BARE_FRAMES = (
    "{v}",
    "The answer is {v}.",
    "It's {v}.",
    "Total: {v}",
    "The count is {v}.",
    "I count {v}.",
    "Exactly {v}.",
    "{V} in total.",
    "That comes to {v}.",
    "Answer: {v}",
    "The number is {v}.",
    "{V}.",
)


def _number_forms(n: float) -> list[str]:
    if not float(n).is_integer():
        return [f"{n:g}", f"{n:,}"]
    i = int(n)
    forms = [str(i), spell(abs(i)) if i >= 0 else f"minus {spell(-i)}"]
    if abs(i) >= 1000:
        forms.append(f"{i:,}")
    if 100 <= i < 10**6 and i % 100:
        forms.append(spell(i, british=True))
    if i == 12:
        forms.append("a dozen")
    return forms


def _number_phrasings(n: float, unit: str | None, rng: random.Random) -> list[str]:
    forms = _number_forms(n)
    if unit:
        frames = [f.replace("{u}", _plural(unit, n)) for f in _COUNT_FRAMES]
        if n == 0:
            many = _plural(unit, 2)
            zero = [f"No {many}.", f"There are no {many}.", f"You have no {many}.", "None."]
            return list(dict.fromkeys(zero + _pick(rng, forms, frames, 14)))
        return _pick(rng, forms, frames, 16)
    if n == 0:
        extra = ["None.", "There are none.", "Zero.", "Nothing."]
        return list(dict.fromkeys(extra + _pick(rng, forms, _BARE_FRAMES, 14)))
    return _pick(rng, forms, _BARE_FRAMES, 16)


def _nearby(n: float, rng: random.Random) -> float:
    step = 1 if abs(n) < 50 else max(1, round(abs(n) * 0.1))
    return n + rng.choice((step, -step)) if n - step >= 0 else n + step


def _num(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else f"{n:g}"


def _other_number(n: float, distractor: str | None, rng: random.Random) -> float:
    """The distractor as a number when it is one other than `n`, else a nearby wrong value."""
    try:
        w = float(str(distractor).replace(",", "").lstrip("$"))
    except ValueError:
        return _nearby(n, rng)
    return w if w != n else _nearby(n, rng)


def _number_hedges(
    n: float, unit: str | None, distractor: str | None, rng: random.Random
) -> list[str]:
    w = _other_number(n, distractor, rng)
    a, b = _num(n), _num(w)
    lo, hi = sorted((n, w))
    u = f" {_plural(unit, 2)}" if unit else ""
    out = [
        f"{a} or {b}{u}",
        f"Either {a} or {b}.",
        f"At least {a}{u}.",
        f"Maybe {a}{u}.",
        f"{_num(lo)}-{_num(hi)}{u}",
        f"Between {_num(lo)} and {_num(hi)}{u}.",
        f"{_num(lo)} to {_num(hi)}{u}",
        f"{a}/{b}",
        f"About {a}{u}.",
        f"{a}, maybe {b}.",
        f"{a} or so.",
        f"~{a}{u}",
        f"I think {a}{u}.",
        f"Probably {a}.",
        f"{a}{u}, possibly {b}.",
        f"Roughly {a}{u}.",
        "Sorry, I have no idea.",
        "I don't know.",
        f"{b}{u}",
        f"{a}{u}, {b}{u}",
    ]
    if n >= 0 and float(n).is_integer() and n < 100:
        out.append(f"{spell(int(n))}-ish")
    rng.shuffle(out)
    return out


def _money_forms(n: float) -> list[str]:
    if not float(n).is_integer():
        return [f"${n:,.2f}", f"{n:,.2f} USD", f"USD {n:,.2f}", f"{n:,.2f} dollars"]
    i = int(n)
    forms = [f"${i:,}", f"${i:,}.00", f"{i:,} USD", f"USD {i:,}", f"{i:,} dollars", f"${i}"]
    if i and i % 1000 == 0:
        forms += [f"${i // 1000}k", f"${i // 1000}K", f"{i // 1000} thousand dollars"]
    if i and i % 100_000 == 0:
        forms.append(f"${i / 1e6:g}m" if i < 10**9 else f"${i / 1e9:g}bn")
    return forms


_MONEY_FRAMES = (
    "{v}",
    "The total is {v}.",
    "It comes to {v}.",
    "Total: {v}",
    "{V} in total.",
    "The amount is {v}.",
    "That's {v}.",
    "They add up to {v}.",
    "It's worth {v}.",
    "Amount: {v}",
    "The sum is {v}.",
    "{V}, across all of them.",
)


def _money_phrasings(n: float, rng: random.Random) -> list[str]:
    return _pick(rng, _money_forms(n), _MONEY_FRAMES, 16)


def _money_hedges(n: float, distractor: str | None, rng: random.Random) -> list[str]:
    w = _other_number(n, distractor, rng)
    a, b = _money_forms(n)[0], _money_forms(w)[0]
    lo, hi = (a, b) if n < w else (b, a)
    out = [
        f"{a} or {b}",
        f"About {a}.",
        f"{lo}-{hi}",
        f"Between {lo} and {hi}.",
        f"{a} (maybe {b})",
        f"~{a}",
        f"At least {a}.",
        f"{a} / {b}",
        f"I think it's {a}.",
        f"Roughly {a}.",
        f"Probably {a}.",
        "No idea.",
        f"{b}",
        f"Either {a} or {b}.",
        f"{a}, give or take.",
    ]
    rng.shuffle(out)
    return out


# ---- dates ---------------------------------------------------------------------------------


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _written(d: date) -> list[str]:
    mon, month, wd = d.strftime("%b"), d.strftime("%B"), d.strftime("%A")
    return [
        d.isoformat(),
        f"{d.month:02d}/{d.day:02d}/{d.year}",
        f"{d.month}/{d.day}/{d.year}",
        f"{d.month}/{d.day}/{d.year % 100:02d}",
        f"{mon} {d.day}, {d.year}",
        f"{month} {d.day}, {d.year}",
        f"{d.day} {month} {d.year}",
        f"{month} {_ordinal(d.day)}, {d.year}",
        f"{wd}, {month} {d.day}, {d.year}",
        f"{wd[:3]}, {mon} {d.day}, {d.year}",
        f"the {_ordinal(d.day)} of {month} {d.year}",
    ]


def _relative(d: date, today: date) -> list[str]:
    """Relative forms of `d` that read back as `d` against `today`."""
    back = (today - d).days
    wd = d.strftime("%A")
    forms: list[str] = []
    if back == 0:
        forms += ["today", "earlier today"]
    if back == 1:
        forms += ["yesterday"]
    if back == 2:
        forms += ["the day before yesterday"]
    if 1 <= back <= 13:
        forms += [f"{back} days ago", f"{spell(back)} days ago"]
    if back in (7, 14):
        forms += ["a week ago" if back == 7 else "two weeks ago"]
    if 0 <= back <= 6:
        forms += [wd, f"this {wd}"]
    if 1 <= back <= 7:
        forms += [f"last {wd}"]
    if 0 <= back <= 27:
        forms += [f"{wd} the {_ordinal(d.day)}", f"the {_ordinal(d.day)}"]
    if abs(back) <= 150:
        forms += [f"{d.strftime('%B')} {d.day}", f"{d.strftime('%b')} {_ordinal(d.day)}"]
    return forms


_DATE_FRAMES = (
    "{v}",
    "It was {v}.",
    "That was {v}.",
    "Date: {v}",
    "The answer is {v}.",
    "{V}.",
    "Their last post was {v}.",
    "It happened {v}.",
    "Most recently {v}.",
    "Answer: {v}",
)
_ON_FRAMES = ("On {v}.", "They last posted on {v}.", "It closes on {v}.", "Posted on {v}.")


def _date_phrasings(d: date, today: date | None, rng: random.Random) -> list[str]:
    absolute = _written(d)
    out = _pick(rng, absolute, (*_DATE_FRAMES, *_ON_FRAMES), 14)
    if today is not None:
        out += _pick(rng, _relative(d, today), _DATE_FRAMES, 8)
    else:
        out += [f"{d.strftime('%B')} {d.day}", f"On {d.strftime('%b')} {_ordinal(d.day)}."]
    return list(dict.fromkeys(out))


def _date_hedges(
    d: date, distractor: str | None, today: date | None, rng: random.Random
) -> list[str]:
    try:
        other = date.fromisoformat(str(distractor))
    except ValueError:
        other = d
    if other == d:
        other = d + timedelta(days=1)
    lo, hi = sorted((d, other))
    mon = d.strftime("%b")
    wrong_wd = (d + timedelta(days=1)).strftime("%A")
    out = [
        f"{d.isoformat()} or {other.isoformat()}",
        f"Either {mon} {d.day} or {other.strftime('%b')} {other.day}, {d.year}.",
        f"Around {mon} {d.day}, {d.year}.",
        f"{lo.isoformat()} to {hi.isoformat()}",
        f"Between {lo.strftime('%b')} {lo.day} and {hi.strftime('%b')} {hi.day}, {d.year}.",
        f"Probably {d.isoformat()}.",
        f"I think it was {mon} {d.day}, {d.year}.",
        f"{d.month}/{d.day}/{d.year} / {other.month}/{other.day}/{other.year}",
        f"Maybe {d.strftime('%B')} {d.day}, {d.year}.",
        "No idea.",
        "I'm not sure.",
        other.isoformat(),
        f"{wrong_wd}, {d.strftime('%B')} {d.day}, {d.year}",
        f"{d.isoformat()}, possibly {other.isoformat()}",
    ]
    if d.month == other.month and d.year == other.year and lo != hi:
        out.append(f"{d.strftime('%B')} {lo.day} or {hi.day}, {d.year}")
        out.append(f"{mon} {lo.day}-{hi.day}, {d.year}")
    if today is not None and (today - d).days == 1:
        out.append("Yesterday or the day before.")
    rng.shuffle(out)
    return out


# ---- phones, emails, names, text -----------------------------------------------------------


def _phone_forms(phone: str) -> list[str]:
    digits = phone_digits(phone)
    ext = phone.split("x")[-1].strip() if "x" in phone.lower() else ""
    tails = [""] if not ext else [f" x{ext}", f" ext. {ext}", f" extension {ext}"]
    if phone.strip().startswith("+") and not phone.strip().startswith("+1"):
        plain = "+" + "".join(ch for ch in phone if ch.isdigit())
        forms = [phone, plain, "00" + plain[1:], phone.replace(" ", "-"), phone.replace(" ", ".")]
        return list(dict.fromkeys(forms))
    a, b, c = digits[:3], digits[3:6], digits[6:]
    forms = [
        f"({a}) {b}-{c}",
        f"{a}-{b}-{c}",
        f"{a}.{b}.{c}",
        f"{a} {b} {c}",
        f"+1 {a}-{b}-{c}",
        f"+1 ({a}) {b}-{c}",
        f"{a}{b}{c}",
        f"1-{a}-{b}-{c}",
        f"+1{a}{b}{c}",
    ]
    return [f + tails[i % len(tails)] for i, f in enumerate(forms)]


_PHONE_FRAMES = (
    "{v}",
    "Their number is {v}.",
    "Phone: {v}",
    "You can reach them at {v}.",
    "The number is {v}.",
    "Call {v}.",
    "It's {v}.",
    "Direct line: {v}",
    "The current number is {v}.",
    "{V} is the number to use.",
)


def _other_phone(phone: str, rng: random.Random) -> str:
    digits = phone_digits(phone)
    tail = f"{(int(digits[-4:]) + rng.randint(1, 999)) % 10000:04d}"
    return f"{digits[:3]}-{digits[3:6]}-{tail}" if len(digits) == 10 else phone[:-4] + tail


def _phone_hedges(phone: str, distractor: str | None, rng: random.Random) -> list[str]:
    same = distractor and phone_digits(distractor) == phone_digits(phone)
    other = distractor if distractor and not same else _other_phone(phone, rng)
    out = [
        f"{phone} or {other}",
        f"{phone} / {other}",
        f"{phone} (or possibly the one ending in {phone_digits(other)[-4:]})",
        f"Either {phone} or {other}.",
        f"{phone}, maybe {other}.",
        f"I think it's {phone}.",
        f"Probably {phone}.",
        f"{phone} and {other}",
        other,
        "No idea.",
        "I couldn't tell, sorry: unknown.",
    ]
    rng.shuffle(out)
    return out


def _email_forms(email: str) -> list[str]:
    return list(dict.fromkeys([email, email.lower(), email.upper(), f"<{email}>"]))


_EMAIL_FRAMES = (
    "{v}",
    "Their email is {v}.",
    "Email: {v}",
    "You can reach them at {v}.",
    "It's {v}",
    "The address is {v}.",
    "{V} is the address on file.",
    "The CRM lists {v}.",
    "Answer: {v}",
    "Write to {v}.",
)


def _email_hedges(email: str, distractor: str | None, rng: random.Random) -> list[str]:
    user, _, domain = email.partition("@")
    same = not distractor or distractor.casefold() == email.casefold()
    other = f"{user}.old@{domain}" if same else distractor
    out = [
        f"{email} or {other}",
        f"{email} / {other}",
        f"Either {email} or {other}.",
        f"Probably {email}.",
        f"Maybe {email}.",
        f"I think it's {email}.",
        f"{email}, {other}",
        other,
        "Unknown.",
        "No idea.",
    ]
    rng.shuffle(out)
    return out


_NAME_FRAMES = (
    "{v}",
    "It was {v}.",
    "{V} said it.",
    "That was {v}.",
    "{V} posted it.",
    "The message was from {v}.",
    "Answer: {v}",
    "{V} wrote that message.",
    "It was posted by {v}.",
    "Sent by {v}.",
    "{V}.",
    "That's {v}.",
)


def _name_forms(name: str) -> list[str]:
    spellings = name_spellings(name)
    return list(dict.fromkeys([*spellings, name.lower(), name.upper()]))


def _other_name(rng: random.Random) -> str:
    return rng.choice(("Sam Ortega", "Priya Natarajan", "Tom Becker", "Mei Tanaka"))


def _name_hedges(
    name: str, distractor: str | None, rng: random.Random, kind: str = "name"
) -> list[str]:
    other = distractor or _other_name(rng)
    out = [
        f"{name} or {other}",
        f"Either {name} or {other}.",
        f"Maybe {name}.",
        f"{name} / {other}",
        f"I think it was {name}.",
        f"Probably {name}.",
        f"{name}, possibly {other}.",
        "No idea.",
        "I'm not sure.",
        f"Likely {name}.",
    ]
    if distractor:
        out += [f"{name} and {other}", other, f"{other}, then {name}"]
    rng.shuffle(out)
    return out


_TEXT_FRAMES = (
    "{v}",
    "It's {v}.",
    "The answer is {v}.",
    "Answer: {v}",
    "It is {v}.",
    "{V}.",
    'It says "{v}".',
    "The value is {v}.",
    "That's {v}.",
    "It's set to {v}.",
)


def _text_forms(options: Sequence[str]) -> list[str]:
    forms: list[str] = []
    for option in options:
        forms += [option, option.lower(), option.upper(), option.title()]
    return list(dict.fromkeys(forms))


# ---- lists ---------------------------------------------------------------------------------


def _join(items: Sequence[str], style: int) -> str:
    if len(items) == 1:
        return items[0]
    head, last = ", ".join(items[:-1]), items[-1]
    return [
        f"{head} and {last}",
        f"{head}, and {last}",
        ", ".join(items),
        "; ".join(items),
        "\n".join(f"- {i}" for i in items),
        "\n".join(items),
        "\n".join(f"{n}. {i}" for n, i in enumerate(items, 1)),
        " and ".join(items) if len(items) <= 3 else f"{head} & {last}",
    ][style % 8]


_LIST_FRAMES = ("{v}", "They are {v}.", "That's {v}.", "{V}.", "In total: {v}", "Answer: {v}")
_LIST_BLOCK_FRAMES = ("{v}", "Here they are:\n{v}", "The list:\n{v}")


_ONE_ITEM_FRAMES = (
    "{v}",
    "Only {v}.",
    "Just {v}.",
    "It's just {v}.",
    "Only one: {v}.",
    "{V}, nobody else.",
    "{V}.",
    "That's {v}.",
    "Answer: {v}",
    "Just one: {v}",
)


def _list_phrasings(items: Sequence[str], rng: random.Random) -> list[str]:
    if len(items) == 1:
        item = items[0]
        return _pick(rng, [item, item.lower(), item.upper()], _ONE_ITEM_FRAMES, 14)
    out: dict[str, None] = {}
    for attempt in range(64):
        order = list(items)
        rng.shuffle(order)
        style = attempt % 8
        joined = _join(order, style)
        frames = _LIST_BLOCK_FRAMES if "\n" in joined else _LIST_FRAMES
        frame = rng.choice(frames)
        out[frame.format(v=joined, V=joined[:1].upper() + joined[1:])] = None
        if len(out) >= 16:
            break
    return list(out)


def _list_hedges(items: Sequence[str], distractor: str | None, rng: random.Random) -> list[str]:
    other = distractor or _other_name(rng)
    order = list(items)
    rng.shuffle(order)
    head = ", ".join(order[:-1])
    last = order[-1]
    both = f"{head}, " if head else ""
    out = [
        f"{both}{last} and {other}",
        f"{both}{last}, {other}",
        f"{both}{last} and maybe {other}",
        f"{both}{last}, possibly {other}",
        " / ".join([*order, other]),
        f"{both}{last} or {other}",
        f"Probably {both}{last}.",
        f"I think {both}{last}.",
        "No idea.",
        "\n".join(f"- {i}" for i in [*order, other]),
        f"{both}{last}; {other}",
    ]
    if len(order) > 1:
        out += [", ".join(order[:-1]), " / ".join(order), f"{head} or {last}"]
    rng.shuffle(out)
    return out


# ---- public --------------------------------------------------------------------------------


def phrasings(
    expected,
    kind: str,
    *,
    today: date | None = None,
    unit: str | None = None,
    rng: random.Random,
) -> list[str]:
    """At least 12 distinct honest, natural phrasings of `expected` that `judge` passes."""
    makers: dict[str, Callable[[], list[str]]] = {
        "number": lambda: _number_phrasings(float(expected), unit, rng),
        "money": lambda: _money_phrasings(float(expected), rng),
        "date": lambda: _date_phrasings(expected, today, rng),
        "phone": lambda: _pick(rng, _phone_forms(str(expected)), _PHONE_FRAMES, 14),
        "email": lambda: _pick(rng, _email_forms(str(expected)), _EMAIL_FRAMES, 14),
        "name": lambda: _pick(rng, _name_forms(str(expected)), _NAME_FRAMES, 14),
        "text": lambda: _pick(
            rng,
            _text_forms([expected] if isinstance(expected, str) else list(expected)),
            _TEXT_FRAMES,
            14,
        ),
        "list": lambda: _list_phrasings([str(i) for i in expected], rng),
    }
    if kind not in makers:
        raise ValueError(f"unknown answer kind {kind!r}; choose one of {KINDS}")
    return makers[kind]()


def hedges(
    expected,
    kind: str,
    *,
    distractor: str | None = None,
    today: date | None = None,
    unit: str | None = None,
    rng: random.Random,
) -> list[str]:
    """At least 8 hedged or wrong phrasings of `expected` that `judge` fails (given
    `distractor` among its `distractors`)."""
    makers: dict[str, Callable[[], list[str]]] = {
        "number": lambda: _number_hedges(float(expected), unit, distractor, rng),
        "money": lambda: _money_hedges(float(expected), distractor, rng),
        "date": lambda: _date_hedges(expected, distractor, today, rng),
        "phone": lambda: _phone_hedges(str(expected), distractor, rng),
        "email": lambda: _email_hedges(str(expected), distractor, rng),
        "name": lambda: _name_hedges(str(expected), distractor, rng),
        "text": lambda: _name_hedges(
            expected if isinstance(expected, str) else expected[0], distractor, rng
        ),
        "list": lambda: _list_hedges([str(i) for i in expected], distractor, rng),
    }
    if kind not in makers:
        raise ValueError(f"unknown answer kind {kind!r}; choose one of {KINDS}")
    return list(dict.fromkeys(makers[kind]()))


__all__ = ["hedges", "phrasings", "spell"]
