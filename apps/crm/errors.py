"""The CRM's refusals: each carries a message for people and, for bad input, the fields at fault.

The service raises them; pages turn them into form messages (or the kit's error page) with the
status below, the API into `{"error": {...}}`. Raising one inside a request rolls its
transaction back, so a refused write changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping


class CrmError(Exception):
    """Base of the CRM's errors: `message` is for people; `field` names the input at fault."""

    status = 400

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class ValidationError(CrmError):
    """Bad input. `errors` maps each offending field to its message (at least one entry)."""

    status = 422

    def __init__(
        self,
        message: str,
        field: str | None = None,
        errors: Mapping[str, str] | None = None,
    ) -> None:
        errors = dict(errors or ({field: message} if field else {}))
        super().__init__(message, field or next(iter(errors), None))
        self.errors = errors

    @classmethod
    def of(cls, errors: Mapping[str, str]) -> ValidationError:
        """One error for several fields; the message summarises them."""
        count = len(errors)
        if count == 1:
            return cls(next(iter(errors.values())), errors=errors)
        return cls(f"Fix the {count} fields marked below.", errors=errors)


class NotFound(CrmError):
    status = 404


class Forbidden(CrmError):
    status = 403


class Conflict(CrmError):
    """Clashes with the current state (a converted lead, a likely duplicate)."""

    status = 409

    def __init__(self, message: str, field: str | None = None, duplicates: tuple = ()) -> None:
        super().__init__(message, field)
        self.duplicates = duplicates


__all__ = ["Conflict", "CrmError", "Forbidden", "NotFound", "ValidationError"]
