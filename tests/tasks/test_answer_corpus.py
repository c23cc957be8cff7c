"""The answer contract on a corpus: natural correct phrasings that must pass and hedged or wrong
ones that must fail, per kind. Frames are things a person or a model would answer, including the
honest answers the former reader refused and the hedges a trained policy found."""

from __future__ import annotations

from datetime import date

import pytest

from officegym.tasks.answer import judge

TODAY = date(2025, 9, 20)  # a Saturday


def _fill(frames, values):
    return [frame.format(**v) for v in values for frame in frames]


# ---- number ------------------------------------------------------------------------------------

_NUMBERS = [
    {"v": "14", "vw": "fourteen", "w": "15", "u": "members", "exp": 14, "unit": "member"},
    {"v": "8", "vw": "eight", "w": "9", "u": "unread mentions", "exp": 8, "unit": "mention"},
    {"v": "21", "vw": "twenty-one", "w": "22", "u": "overdue activities", "exp": 21,
     "unit": "activity"},
    {"v": "105", "vw": "one hundred and five", "w": "104", "u": "members", "exp": 105,
     "unit": "member"},
    {"v": "3", "vw": "three", "w": "4", "u": "open deals", "exp": 3, "unit": "deal"},
]  # fmt: skip
_NUMBER_PASS = [
    "{v}",
    "{vw}",
    "{v} {u}",
    "{vw} {u}",
    "There are {v} {u}.",
    "You have {v} {u}.",
    "I count {vw} {u}.",
    "{v} {u}; 1 of 24 channels you are in.",
    "The answer is {v}.",
    "Total: {v}",
    "It has {v} {u} as of today, Sep 20.",
    "{v} {u} (checked at 3:15 pm).",
    "Right now there are {vw} {u} in #q3-2025-planning.",
    "{v} {u}, all from the last 2 weeks.",
    "Exactly {v} {u}.",
    "{v}. That is the number of {u}.",
    "The count is {vw}.",
    "There are {v} {u} across 2 channels.",
    "Answer: {v} {u}",
    "I found {v} {u}.",
    "{v} {u} in 2025.",
    "**{v}** {u}",
    "{v} {u} as of 09/20/2025.",
    "It's {vw}.",
]
_NUMBER_FAIL = [
    "{v} or {w}",
    "Either {v} or thirty-something.",
    "At least {v}, maybe a few more.",
    "Maybe {v} {u}.",
    "{v}-{w} {u}",
    "Between {v} and {w} {u}.",
    "{v} to {w} {u}",
    "{v}/{w}",
    "About {v} {u}.",
    "Around {v}.",
    "Roughly {vw} {u}.",
    "{v} or so.",
    "~{v} {u}",
    "{v}ish",
    "{vw}-ish {u}",
    "I think {v}.",
    "Probably {v} {u}.",
    "Possibly {v}.",
    "Perhaps {vw}.",
    "Likely {v} {u}.",
    "{v} {u}, give or take.",
    "More than {v} {u}.",
    "Less than {w} {u}.",
    "Over {v}.",
    "Under {w} {u}.",
    "At most {w}.",
    "Nearly {v} {u}.",
    "Almost {v}.",
    "Approximately {v} {u}.",
    "{v} {u}, {w} {u}",
    "{v} {u} and {w} {u}",
    "{w} {u}",
    "{w}",
    "I believe it's {v}.",
    "I guess {v}.",
    "{v} {u}, or possibly {w}.",
    "{v}? {w}?",
    "{v}+ {u}",
    "{v} (maybe {w})",
    "Either {v} or {w} {u}.",
]
_ZERO_PASS = [
    ("There are no overdue activities.", "activity"),
    ("No overdue activities.", "activity"),
    ("None.", "activity"),
    ("Zero.", "activity"),
    ("0", "activity"),
    ("You have 0 unread mentions.", "mention"),
    ("Nobody has replied.", None),
    ("Nothing is overdue.", None),
    ("There are none.", "member"),
    ("No unread mentions right now.", "mention"),
    ("zero open deals", "deal"),
    ("You have no unread mentions in any of your 24 channels.", "mention"),
]
_ZERO_FAIL = [
    ("Sorry, I have no idea.", "mention"),
    ("I don't know.", "mention"),
    ("Not sure.", "activity"),
    ("Unknown.", None),
    ("I can't tell from the page.", None),
    ("I was unable to find them.", "activity"),
    ("0 or 1", None),
    ("None, maybe 1.", None),
    ("Probably none.", "activity"),
    ("No more than 2 overdue activities.", "activity"),
]


def _number_cases():
    passing = [
        (t, v["exp"], {"unit": v["unit"]}) for v in _NUMBERS for t in _fill(_NUMBER_PASS, [v])
    ]
    failing = [
        (t, v["exp"], {"unit": v["unit"]}) for v in _NUMBERS for t in _fill(_NUMBER_FAIL, [v])
    ]
    passing += [(t, 0, {"unit": u}) for t, u in _ZERO_PASS]
    failing += [(t, 0, {"unit": u}) for t, u in _ZERO_FAIL]
    return passing, failing


# ---- money -------------------------------------------------------------------------------------

_MONEY = [
    {"v": "$101,000", "w": "$100,000", "k": "$101k", "plain": "101,000", "exp": 101000},
    {"v": "$41,500", "w": "$42,000", "k": "$41.5k", "plain": "41500", "exp": 41500},
    {"v": "$1,200,000", "w": "$1,100,000", "k": "$1.2m", "plain": "1,200,000", "exp": 1200000},
    {"v": "$3,500", "w": "$3,000", "k": "$3.5K", "plain": "3,500", "exp": 3500},
]
_MONEY_PASS = [
    "{v}",
    "{k}",
    "{plain}",
    "{v} from 1 deal",
    "{v} across 3 deals.",
    "The total is {v}.",
    "It comes to {v}.",
    "USD {plain}",
    "{plain} USD",
    "{plain} dollars",
    "{v}.00",
    "Total won this quarter: {v}.",
    "The biggest deal is Acme - 200 seats at {v}.",
    "{k} in total.",
    "They add up to {v}.",
    "It's worth {k}, closing 2025-09-30.",
    "{v} (2 deals, both Closed Won).",
    "Amount: {v}",
    "The sum is {v} for Q3 2025.",
    "{v}, from 4 opportunities.",
    "That's {v}.",
    "Won: {v}",
    "{k} from 1 deal",
    "Sum of the 3 deals: {v}",
    "The amount on the deal is {plain}.",
    "It totals {v}, as of Sep 20.",
]
_MONEY_FAIL = [
    "{v} (about {w})",
    "{v} or {w}",
    "About {v}.",
    "Around {k}.",
    "~{v}",
    "{w}-{v}",
    "Between {w} and {v}.",
    "{v} / {w}",
    "At least {v}.",
    "I think it's {v}.",
    "Probably {v}.",
    "Roughly {k}.",
    "{v}, give or take.",
    "Maybe {v}.",
    "{w}",
    "{v} and {w}",
    "Either {v} or {w}.",
    "No idea.",
    "Over {v}.",
    "Approximately {k}.",
    "{v}-ish",
    "{v}, possibly {w}.",
    "Something like {k}.",
    "Nearly {v}.",
    "{v}? Or {w}.",
    "Not sure, {v}?",
    "Less than {v}.",
]


def _money_cases():
    passing = [
        (t, v["exp"], {"ignore": ["Acme - 200 seats"]})
        for v in _MONEY
        for t in _fill(_MONEY_PASS, [v])
    ]
    failing = [(t, v["exp"], {}) for v in _MONEY for t in _fill(_MONEY_FAIL, [v])]
    return passing, failing


# ---- date --------------------------------------------------------------------------------------

_DATES = [
    (
        date(2025, 9, 16),
        ["2025-09-16", "09/16/2025", "9/16/2025", "9/16/25", "Sep 16, 2025", "September 16, 2025",
         "16 September 2025", "September 16th", "Tuesday", "last Tuesday", "Tuesday the 16th",
         "the 16th", "4 days ago", "four days ago", "Tuesday, September 16, 2025", "Tue, Sep 16"],
        ["2025-09-16 or 2025-09-17", "September 16 or 17, 2025", "Sep 16-17", "Monday, Sep 16, 2025",
         "Monday the 16th", "2025-09-17", "Sep 15, 2025", "Wednesday"],
    ),
    (
        date(2025, 9, 19),
        ["Yesterday", "2025-09-19", "09/19/2025", "Sep 19, 2025", "Friday", "Friday the 19th",
         "the 19th", "1 day ago", "19 Sep 2025", "September 19th, 2025", "yesterday, Sep 19",
         "Fri, Sep 19, 2025"],
        ["yesterday or the day before", "2025-09-18", "Thursday", "Sep 18 or 19", "the 18th",
         "Saturday, Sep 19, 2025", "today"],
    ),
    (
        date(2025, 8, 29),
        ["2025-08-29", "08/29/2025", "8/29/25", "Aug 29, 2025", "August 29th", "29 August 2025",
         "Friday, August 29, 2025", "22 days ago", "the 29th of August 2025", "Aug. 29"],
        ["Aug 29 or 30", "2025-08-28", "late August", "August 2025", "Aug 28-29, 2025",
         "Thursday, August 29, 2025"],
    ),
]  # fmt: skip
_DATE_FRAMES = [
    "{d}",
    "It was {d}.",
    "Their last post was {d}.",
    "That was {d}.",
    "Date: {d}",
    "Posted {d} in #q3-2025-planning.",
]
_DATE_HEDGE_FRAMES = [
    "Maybe {d}.",
    "Around {d}.",
    "I think {d}.",
    "Probably {d}.",
    "Either {d} or the day after.",
    "{d}, possibly earlier.",
    "Sometime around {d}.",
    "Not sure, {d}?",
    "Approximately {d}.",
    "{d} or so.",
]
_DATE_FAIL_EXTRA = ["I don't know.", "No idea when.", "Unknown.", "Can't tell from the channel."]


def _date_cases():
    passing, failing = [], []
    for expected, right, wrong in _DATES:
        passing += [
            (f.format(d=d), expected, {"today": TODAY}) for d in right for f in _DATE_FRAMES
        ]
        failing += [
            (f.format(d=d), expected, {"today": TODAY}) for d in wrong for f in _DATE_FRAMES[:4]
        ]
        failing += [
            (f.format(d=d), expected, {"today": TODAY})
            for d in right[:3]
            for f in _DATE_HEDGE_FRAMES
        ]
        failing += [(t, expected, {"today": TODAY}) for t in _DATE_FAIL_EXTRA]
    return passing, failing


# ---- name ----------------------------------------------------------------------------------

_NAMES = [
    ("Ann Lee", ["Ann Lee", "Lee, Ann", "Lee Ann", "ann lee"], "Bo Chan"),
    ("José Álvarez", ["José Álvarez", "Jose Alvarez", "Álvarez, José", "JOSE ALVAREZ"], "Jo Alva"),
    ("Mary Jane Watson", ["Mary Jane Watson", "Mary Watson", "Watson, Mary"], "Mary Parker"),
    ("Orla Ortiz", ["Orla Ortiz", "Ortiz, Orla", "orla ortiz"], "Oren Ortega"),
]
_NAME_FRAMES = [
    "{n}",
    "It was {n}.",
    "{n} said it.",
    "That was {n}.",
    "{n} posted it in #general on Sep 16.",
    "The message was from {n}.",
    "Answer: {n}",
    "It was posted by {n}, 3 days ago.",
    "Sent by {n}.",
]
_NAME_HEDGE_FRAMES = [
    "{n} or {d}",
    "Either {n} or {d}.",
    "Maybe {n}.",
    "{n} / {d}",
    "I think it was {n}.",
    "Probably {n}.",
    "{n}, possibly {d}.",
    "{d}",
    "{n} and {d}",
    "Likely {n}.",
    "{n} (or maybe {d})",
    "It was {d}, not {n}... actually {n}.",
    "Perhaps {n}.",
    "Not sure. {n}?",
    "{n}, I believe.",
    "{n}, or someone on their team.",
]
_NAME_FAIL_EXTRA = ["No idea.", "I don't know who said it.", "Unknown."]


def _name_cases():
    passing, failing = [], []
    for name, spellings, other in _NAMES:
        passing += [
            (f.format(n=s), name, {"distractors": [other]}) for s in spellings for f in _NAME_FRAMES
        ]
        failing += [
            (f.format(n=s, d=other), name, {"distractors": [other]})
            for s in spellings[:2]
            for f in _NAME_HEDGE_FRAMES
        ]
        failing += [(t, name, {"distractors": [other]}) for t in _NAME_FAIL_EXTRA]
    return passing, failing


# ---- list ----------------------------------------------------------------------------------

_LISTS = [
    (["Ann Lee", "Bo Chan", "Cy Diaz"], "Di Ek"),
    (["Research and Development", "Sales", "Support"], "Marketing"),
    (["Orla Ortiz", "Priya Nair"], "Tom Becker"),
    (["#general", "#random", "#q3-2025-planning", "#design"], "#ops"),
    (["Deal Desk", "Legal", "Finance"], "Operations"),
    (["Acme Corp", "Globex", "Initech"], "Umbrella"),
    (["Dana Kim", "Eli Moss", "Fay Wu", "Gus Park"], "Hal Ng"),
    (["Kai Ito", "Lena Roth"], "Max Bauer"),
]
_LIST_PASS = [
    "{a}, {b} and {c}",
    "{c}, {a}, {b}",
    "{b}; {c}; {a}",
    "- {a}\n- {b}\n- {c}",
    "{a}\n{c}\n{b}",
    "1. {c}\n2. {b}\n3. {a}",
    "They are {a}, {b}, and {c}.",
    "The repliers were:\n- {b}\n- {a}\n- {c}",
    "{a} & {b} & {c}",
    "Here they are: {c}, {b} and {a}. That's all.",
    "{b}, {a} and {c}, in no particular order.",
    "{a}, {b}, {c}",
    "In total: {c}; {a}; {b}",
    "{a}, {b}, and {c}",
    "The three of them: {b}, {c} and {a}.",
    "* {a}\n* {b}\n* {c}",
    "{c} and {a} and {b}",
    "Answer: {a}, {c}, {b}",
]
_LIST_FAIL = [
    "{a}, {b}, {c} and {x}",
    "{a}, {b}, {c}, {x}",
    "{a}, {b} and maybe {c}",
    "{a}, {b}, {c}, possibly {x}",
    "{a} / {b} / {c}",
    "{a}, {b} or {c}",
    "{a} and {b}",
    "Probably {a}, {b} and {c}.",
    "- {a}\n- {b}\n- {c}\n- {x}",
    "{a}; {b}; {c}; {x}",
    "I think {a}, {b} and {c}.",
    "{a}, {b}, {c} (not sure about {c})",
    "{a}, {b}, {c}, plus {x}",
    "{a}/{b}/{c}",
    "{a}, {b}, {c}, and perhaps {x}",
    "Either {a} or {b}",
    "{a}, {b}, {c}. Maybe {x} too.",
    "{a}, {b}, {c} and {x}? Not sure.",
]


def _list_cases():
    passing, failing = [], []
    for items, other in _LISTS:
        rest = ", ".join(items[2:])
        v = {"a": items[0], "b": items[1], "c": rest if rest else items[0], "x": other}
        if len(items) == 2:
            frames = [
                f.replace(", {c}", "").replace("; {c}", "").replace(" and {c}", "")
                for f in _LIST_PASS
            ]
            frames = [f for f in frames if "{c}" not in f]
            frames += ["{a} and {b}", "{b} and {a}", "Just {a} and {b}.", "{b}; {a}"]
        else:
            frames = _LIST_PASS
        passing += [(f.format(**v), items, {"distractors": [other]}) for f in frames]
        fails = [f for f in _LIST_FAIL if len(items) > 2 or "{c}" not in f]
        fails = [f for f in fails if len(items) > 2 or f != "{a} and {b}"]
        fails += ["{a}", "{a} or {b}", "No idea.", "{a}, {b} and {x}"] if len(items) == 2 else []
        failing += [(f.format(**v), items, {"distractors": [other]}) for f in fails]
        failing += [(f.format(**v), items, {}) for f in fails if "{x}" not in f]
    return passing, failing


# ---- phone ---------------------------------------------------------------------------------

_PHONES = [
    ("555-010-2233", ["555-010-2233", "(555) 010-2233", "555.010.2233", "555 010 2233",
                      "+1 555-010-2233", "+1 (555) 010-2233", "5550102233", "1-555-010-2233"],
     "555-010-3910"),
    ("+1 415-555-0123", ["+1 415-555-0123", "(415) 555-0123", "415.555.0123", "415-555-0123",
                         "+14155550123"], "+1 415-555-0199"),
    ("+44 20 7123 4567", ["+44 20 7123 4567", "+442071234567", "0044 20 7123 4567",
                          "020 7123 4567"], "+44 20 7123 9999"),
    ("555-010-2233 x12", ["555-010-2233 x12", "(555) 010-2233 ext. 12",
                          "555.010.2233 extension 12"], "555-010-2233 x13"),
]  # fmt: skip
_PHONE_FRAMES = [
    "{p}",
    "Their number is {p}.",
    "Phone: {p}",
    "You can reach them at {p}.",
    "Call {p}.",
    "The current number is {p} (posted Sep 16 in #sales).",
]
_PHONE_HEDGE_FRAMES = [
    "{p} or {d}",
    "{p} / {d}",
    "{p} (or possibly the one ending in 3910)",
    "Either {p} or {d}.",
    "{p}, maybe {d}.",
    "I think it's {p}.",
    "Probably {p}.",
    "{p} and {d}",
    "{d}",
    "CRM says {d}, chat says {p}.",
]


def _phone_cases():
    passing, failing = [], []
    for phone, forms, other in _PHONES:
        passing += [(f.format(p=p), phone, {}) for p in forms for f in _PHONE_FRAMES]
        failing += [
            (f.format(p=p, d=other), phone, {}) for p in forms[:3] for f in _PHONE_HEDGE_FRAMES
        ]
    failing += [("555-010-2233", "555-010-2233 x12", {}), ("555-010-2233 x12", "555-010-2233", {})]
    failing += [("No idea.", "555-010-2233", {}), ("Unknown", "555-010-2233", {})]
    return passing, failing


# ---- email ---------------------------------------------------------------------------------

_EMAILS = [
    ("ann.lee@acme.com", ["ann.lee@acme.com", "Ann.Lee@Acme.com", "ANN.LEE@ACME.COM", "<ann.lee@acme.com>"],
     "ann.lee@oldacme.com"),
    ("bo.chan+crm@example.co.uk", ["bo.chan+crm@example.co.uk", "Bo.Chan+CRM@example.co.uk"],
     "bo.chan@example.co.uk"),
    ("cy@diaz.io", ["cy@diaz.io", "CY@diaz.io"], "cy.diaz@diaz.io"),
    ("dana.kim@globex.net", ["dana.kim@globex.net", "Dana.Kim@Globex.net"], "dkim@globex.net"),
]  # fmt: skip
_EMAIL_FRAMES = [
    "{e}",
    "Their email is {e}.",
    "Email: {e}",
    "You can reach them at {e}.",
    "The address is {e}.",
    "{e} is the address on file.",
    "The CRM lists {e} for the contact at Acme.",
    "Write to {e}.",
    "It's {e}",
    "Answer: {e}",
    "Her email: {e} (updated 2025-09-16).",
    "{e}.",
]
_EMAIL_HEDGE_FRAMES = [
    "{e} or {d}",
    "{e} / {d}",
    "Either {e} or {d}.",
    "Probably {e}.",
    "Maybe {e}.",
    "I think it's {e}.",
    "{e}, {d}",
    "{d}",
    "{e} (or {d})",
    "{e}, possibly {d}.",
    "Likely {e}.",
    "{e} and {d}",
    "Not sure: {e}",
    "{e}? or {d}",
]


def _email_cases():
    passing, failing = [], []
    for email, forms, other in _EMAILS:
        passing += [(f.format(e=e), email, {}) for e in forms for f in _EMAIL_FRAMES]
        failing += [(f.format(e=e, d=other), email, {}) for e in forms for f in _EMAIL_HEDGE_FRAMES]
    failing += [("No idea.", "cy@diaz.io", {}), ("Unknown.", "cy@diaz.io", {})]
    failing += [("cy at diaz dot io", "cy@diaz.io", {}), ("cy@diaz.com", "cy@diaz.io", {})]
    return passing, failing


# ---- text ----------------------------------------------------------------------------------

_TEXTS = [
    ("Closed Won", ["Closed Won", "closed won", "CLOSED WON"], "Closed Lost"),
    (("Proposal", "Proposal/Price Quote"), ["Proposal", "Proposal/Price Quote", "proposal"], "Negotiation"),
    ("Orbit Logistics", ["Orbit Logistics", "orbit logistics"], "Orbit Labs"),
    ("Q3 Planning", ["Q3 Planning", "q3 planning"], "Q4 Planning"),
]  # fmt: skip
_TEXT_FRAMES = [
    "{t}",
    "It's {t}.",
    "The answer is {t}.",
    "Answer: {t}",
    "It is {t}.",
    "{t}.",
    'It says "{t}".',
    "The stage is {t}.",
    "That's {t}.",
    "It's set to {t} since 2025-09-16.",
    "Currently {t}.",
    "Set to {t}.",
]
_TEXT_HEDGE_FRAMES = [
    "{t} or {d}",
    "Either {t} or {d}.",
    "Maybe {t}.",
    "{t} / {d}",
    "I think it's {t}.",
    "Probably {t}.",
    "{t}, possibly {d}.",
    "{d}",
    "{t} and {d}",
    "Likely {t}.",
    "At least {t}.",
    "Possibly {t}.",
]


def _text_cases():
    passing, failing = [], []
    for expected, forms, other in _TEXTS:
        passing += [
            (f.format(t=t), expected, {"distractors": [other]}) for t in forms for f in _TEXT_FRAMES
        ]
        failing += [
            (f.format(t=t, d=other), expected, {"distractors": [other]})
            for t in forms
            for f in _TEXT_HEDGE_FRAMES
        ]
        failing += [("No idea.", expected, {"distractors": [other]}), ("Unknown", expected, {})]
    return passing, failing


# ---- the tests -----------------------------------------------------------------------------

CORPORA = {
    "number": _number_cases,
    "money": _money_cases,
    "date": _date_cases,
    "name": _name_cases,
    "list": _list_cases,
    "phone": _phone_cases,
    "email": _email_cases,
    "text": _text_cases,
}


@pytest.mark.parametrize("kind", sorted(CORPORA))
def test_each_corpus_holds_at_least_100_passing_and_100_failing_phrasings(kind):
    passing, failing = CORPORA[kind]()
    assert len(set(t for t, *_ in passing)) >= 100, len(passing)
    assert len(set(t for t, *_ in failing)) >= 100, len(failing)


@pytest.mark.parametrize("kind", sorted(CORPORA))
def test_every_correct_phrasing_passes(kind):
    passing, _ = CORPORA[kind]()
    wrong = [
        (t, str(judge(t, e, kind, **kw)))
        for t, e, kw in passing
        if not judge(t, e, kind, **kw).passed
    ]
    assert not wrong, "\n".join(f"{t!r}: {r}" for t, r in wrong)


@pytest.mark.parametrize("kind", sorted(CORPORA))
def test_every_hedged_or_wrong_phrasing_fails(kind):
    _, failing = CORPORA[kind]()
    wrong = [
        (t, str(judge(t, e, kind, **kw))) for t, e, kw in failing if judge(t, e, kind, **kw).passed
    ]
    assert not wrong, "\n".join(f"{t!r}: {r}" for t, r in wrong)
