"""What every app's type-ahead shares: a typed query cut to its words, LIKE patterns that take
the words literally, and the directory match behind the person pickers (chat's invite and
new-message pickers, Booking's attendee and traveller pickers)."""

from __future__ import annotations

from sqlalchemy import Select, case, func, or_
from sqlalchemy.orm import Session

from officegym.seed_data.schema import Employee

# Longest query read, and most words matched.
MAX_QUERY = 100
MAX_WORDS = 6


def query_words(q: object) -> list[str]:
    """The words of a typed query: whitespace squashed, at most MAX_QUERY characters and
    MAX_WORDS words."""
    return " ".join(str(q or "").split())[:MAX_QUERY].split()[:MAX_WORDS]


def escape_like(text: str) -> str:
    """`text` for a LIKE pattern with escape character backslash: %, _ and \\ match
    themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def matching_people(db: Session, statement: Select, q: object, limit: int) -> list[Employee]:
    """The employees `statement` selects whose name or email holds every word of `q`: exact
    names first, then names starting with `q`, then by name; at most `limit`."""
    words = query_words(q)
    if not words:
        return []
    text = " ".join(words).lower()
    for word in words:
        pattern = f"%{escape_like(word)}%"
        statement = statement.where(
            or_(
                Employee.display_name.ilike(pattern, escape="\\"),
                Employee.email.ilike(pattern, escape="\\"),
            )
        )
    rank = case(
        (func.lower(Employee.display_name) == text, 0),
        (func.lower(Employee.display_name).like(f"{escape_like(text)}%", escape="\\"), 1),
        else_=2,
    )
    ordered = statement.order_by(rank, Employee.display_name, Employee.id).limit(limit)
    return list(db.scalars(ordered))


__all__ = ["MAX_QUERY", "escape_like", "matching_people", "query_words"]
