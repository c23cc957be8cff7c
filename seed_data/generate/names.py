"""The other ways people write the same first name: nicknames (Bob for Robert, Liz for
Elizabeth) and spelling variants (Jon/John), as `mess` plants them in duplicate records and
`realism` recognises them."""

from __future__ import annotations

# Formal first name → the nicknames people go by (most common first).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "Robert": ("Bob", "Rob", "Bobby"), "William": ("Bill", "Will", "Billy"),
    "Elizabeth": ("Liz", "Beth", "Eliza"), "James": ("Jim", "Jimmy", "Jamie"),
    "John": ("Jack", "Johnny"), "Michael": ("Mike",), "Richard": ("Rick", "Rich", "Dick"),
    "Thomas": ("Tom", "Tommy"), "Christopher": ("Chris",), "Joseph": ("Joe", "Joey"),
    "Charles": ("Charlie", "Chuck"), "Daniel": ("Dan", "Danny"), "Matthew": ("Matt",),
    "Anthony": ("Tony",), "Steven": ("Steve",), "Stephen": ("Steve",),
    "Andrew": ("Andy", "Drew"), "Joshua": ("Josh",), "Kenneth": ("Ken", "Kenny"),
    "Edward": ("Ed", "Eddie", "Ted"), "Timothy": ("Tim",), "Jonathan": ("Jon",),
    "Nicholas": ("Nick",), "Benjamin": ("Ben",), "Samuel": ("Sam",), "Alexander": ("Alex",),
    "Gregory": ("Greg",), "Patrick": ("Pat",), "Jeffrey": ("Jeff",), "Zachary": ("Zach",),
    "Ronald": ("Ron",), "Donald": ("Don",), "Raymond": ("Ray",), "Gerald": ("Jerry",),
    "Lawrence": ("Larry",), "Douglas": ("Doug",), "Peter": ("Pete",), "Frederick": ("Fred",),
    "Albert": ("Al",), "Nathan": ("Nate",), "Jacob": ("Jake",), "Philip": ("Phil",),
    "Phillip": ("Phil",), "Vincent": ("Vince",), "Theodore": ("Ted", "Teddy"),
    "Mitchell": ("Mitch",), "Gabriel": ("Gabe",), "Bradley": ("Brad",), "Russell": ("Russ",),
    "Randall": ("Randy",), "Eugene": ("Gene",), "Henry": ("Hank",), "Walter": ("Walt",),
    "Francis": ("Frank",), "Franklin": ("Frank",), "Louis": ("Lou",), "Cameron": ("Cam",),
    "Jeremy": ("Jerry",), "Terrence": ("Terry",), "Travis": ("Trav",), "Nathaniel": ("Nate",),
    "Katherine": ("Kate", "Katie", "Kathy"), "Catherine": ("Cathy", "Kate", "Cat"),
    "Kathryn": ("Kate", "Katie"), "Kathleen": ("Kathy", "Kate"),
    "Margaret": ("Maggie", "Meg", "Peggy"), "Jennifer": ("Jen", "Jenny"),
    "Jessica": ("Jess",), "Rebecca": ("Becky", "Becca"), "Susan": ("Sue", "Susie"),
    "Deborah": ("Deb", "Debbie"), "Patricia": ("Patty", "Trish", "Pat"),
    "Christina": ("Tina", "Chris"), "Christine": ("Chris", "Tina"), "Kimberly": ("Kim",),
    "Samantha": ("Sam",), "Victoria": ("Vicky", "Tori"), "Alexandra": ("Alex", "Lexi"),
    "Amanda": ("Mandy",), "Pamela": ("Pam",), "Barbara": ("Barb",), "Cynthia": ("Cindy",),
    "Jacqueline": ("Jackie",), "Abigail": ("Abby",), "Melissa": ("Mel", "Missy"),
    "Stephanie": ("Steph",), "Kristen": ("Kris",), "Allison": ("Ally",), "Valerie": ("Val",),
    "Natalie": ("Nat",), "Madison": ("Maddie",), "Olivia": ("Liv",), "Tamara": ("Tammy",),
    "Teresa": ("Terri",), "Theresa": ("Terri",), "Sandra": ("Sandy",), "Angela": ("Angie",),
    "Veronica": ("Ronnie",), "Frances": ("Fran",), "Isabella": ("Bella",),
    "Sophia": ("Sophie",), "Gabrielle": ("Gabby",), "Josephine": ("Josie",),
    "Evelyn": ("Evie",), "Eleanor": ("Ellie",), "Michelle": ("Shelly",),
    "Danielle": ("Dani",), "Nicole": ("Nikki",), "Melanie": ("Mel",), "Jillian": ("Jill",),
    "Beverly": ("Bev",), "Judith": ("Judy",), "Cassandra": ("Cassie",),
    "Dorothy": ("Dot",), "Vanessa": ("Nessa",), "Alicia": ("Ali",), "Rachel": ("Rach",),
    "Kristina": ("Tina",), "Regina": ("Gina",), "Virginia": ("Ginny",),
    "Suzanne": ("Sue", "Suzy"), "Lauren": ("Laurie",), "Deanna": ("Dee",),
}  # fmt: skip

# Spellings of the same first name that differ by a letter or two (each maps to the other).
SPELLINGS = (("Jon", "John"), ("Katherine", "Catherine"), ("Kathryn", "Katheryn"),
             ("Steven", "Stephen"), ("Sara", "Sarah"), ("Jeffrey", "Geoffrey"),
             ("Philip", "Phillip"), ("Ann", "Anne"), ("Brian", "Bryan"), ("Eric", "Erik"),
             ("Alan", "Allan"), ("Matthew", "Mathew"), ("Michael", "Micheal"),
             ("Rebecca", "Rebekah"), ("Kristen", "Kirsten"), ("Teresa", "Theresa"),
             ("Carl", "Karl"), ("Christopher", "Kristopher"), ("Shawn", "Sean"),
             ("Mark", "Marc"), ("Tracy", "Tracey"), ("Stephanie", "Stefanie"),
             ("Lindsay", "Lindsey"), ("Kelly", "Kelley"), ("Nicole", "Nichole"),
             ("Deborah", "Debra"), ("Dennis", "Denis"), ("Jeffery", "Jeffrey"),
             ("Elizabeth", "Elisabeth"), ("Cathy", "Kathy"), ("Isaac", "Issac"))  # fmt: skip
SPELLING = {a: b for a, b in SPELLINGS} | {b: a for a, b in SPELLINGS}

_FAMILY: dict[str, set[str]] = {}
for _formal, _short in NICKNAMES.items():
    for _name in (_formal, *_short):
        _FAMILY.setdefault(_name.casefold(), set()).update(
            n.casefold() for n in (_formal, *_short) if n != _name
        )


def are_nicknames(a: str, b: str) -> bool:
    """Whether first names `a` and `b` are one person's name and nickname (Robert/Bob), or two
    nicknames of one name (Bob/Rob); case aside."""
    return b.casefold() in _FAMILY.get(a.casefold(), set())


__all__ = ["NICKNAMES", "SPELLING", "SPELLINGS", "are_nicknames"]
