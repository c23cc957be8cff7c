"""Money, dates and names as the CRM shows them and as a colleague writes them."""

from __future__ import annotations

import re
from datetime import date


def money(amount: int | float) -> str:
    """An amount as the CRM shows it and people write it: "$41,500"."""
    return f"${int(amount):,}"


def amount_of(text: str) -> int:
    """The whole amount a money cell shows ("$41,500" → 41500)."""
    return int(re.sub(r"[^\d]", "", text) or 0)


def crm_day(day: date) -> str:
    """A date as the CRM shows it: "Sep 30, 2025"."""
    return f"{day:%b} {day.day}, {day.year}"


def spoken_date(day: date) -> str:
    """A date as a colleague writes it: "October 15, 2025"."""
    return f"{day:%B} {day.day}, {day.year}"


def possessive(name: str) -> str:
    """A name's possessive: "Gloria Baker's", "Benjamin Jennings'"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


__all__ = ["amount_of", "crm_day", "money", "possessive", "spoken_date"]
