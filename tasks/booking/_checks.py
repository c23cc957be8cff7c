"""What booking verifiers check, written once: a stay booked as asked and charged a fresh quote,
a stay's row as it must end up, a meeting (or a weekly series of them) with exactly the invited
people, and a manager's decision on a request.

Prices are never read back from the row under test: a booked or re-dated stay must carry the
total and the price lines of a fresh quote of its listing (`booking_rules`), and the policy
rules that quote breaks for its traveller on the world's date, so a row forged or padded with
anything else (a price line with text appended, another total) fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from officegym.tasks import expect
from officegym.tasks.expect import Claims, Expectation
from officegym.tasks.match import Matcher, describe, is_set, matches, verbatim
from officegym.tasks.protocol import EpisodeContext

from . import _world

RESERVATION = "booking_reservation"
APPROVAL = "booking_approval"
ATTENDEE = "booking_attendee"
SERIES = "booking_series"


# ---- matchers -------------------------------------------------------------------------------


class _At(Matcher):
    def __init__(self, when: datetime) -> None:
        self.when = when

    def matches(self, value: Any) -> bool:
        try:
            return value is not None and _world.moment(value) == self.when
        except ValueError:
            return False

    def describe(self) -> str:
        return f"at({self.when.isoformat(sep=' ')})"


def at(when: datetime | date) -> Matcher:
    """A stored time equal to `when` (a date: that day at midnight, as stays are stored)."""
    if not isinstance(when, datetime):
        when = datetime.combine(when, datetime.min.time())
    return _At(when)


class _SameJson(Matcher):
    def __init__(self, data: Any, label: str) -> None:
        self.data = json.loads(json.dumps(data))
        self.label = label

    def matches(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        try:
            return json.loads(value) == self.data
        except ValueError:
            return False

    def describe(self) -> str:
        return f"same_json({self.label})"


def same_json(data: Any, label: str = "expected") -> Matcher:
    """A JSON text that parses to `data` (any key order and spacing)."""
    return _SameJson(data, label)


class _FoundBy(Matcher):
    """The id of a row another expectation of this module found (evaluate that one first)."""

    def __init__(self, source: Expectation) -> None:
        self.source = source

    def matches(self, value: Any) -> bool:
        return value is not None and value in getattr(self.source, "found", ())

    def describe(self) -> str:
        return f"id of {self.source.name} ({list(getattr(self.source, 'found', ())) or 'none'})"


# ---- stays -----------------------------------------------------------------------------------


class _StayBooked(Expectation):
    def __init__(
        self,
        guest_id: int,
        booked_by_id: int,
        resources: Iterable[int],
        check_in: date,
        check_out: date,
        guests: int,
        purpose: str,
        status: str,
        justification: str | None,
        in_policy: bool | None,
        account_id: int | None,
        name: str,
        weight: float,
        required: bool,
    ) -> None:
        super().__init__(name, weight, required)
        self.guest_id, self.booked_by_id = guest_id, booked_by_id
        self.account_id = account_id
        self.resources = frozenset(resources)
        self.check_in, self.check_out, self.guests = check_in, check_out, guests
        self.purpose, self.status, self.justification = purpose, status, justification
        self.in_policy = in_policy
        self.found: list[int] = []

    def _expected(self, golden, resource_id: int, today: date) -> tuple[dict[str, Any], str]:
        """The row a booking of `resource_id` must be, and why it cannot be one ("" if it can)."""
        price = _world.quote(golden, resource_id, self.check_in, self.check_out)
        rules = _world.breaches(
            golden, self.guest_id, resource_id, self.check_in, self.check_out, today
        )
        title = _world.listing(golden, resource_id).title
        if self.in_policy is True and rules:
            return {}, f"{title} is outside the policy ({rules[0].message})"
        if self.in_policy is False and not rules:
            return {}, f"{title} is within the policy"
        row: dict[str, Any] = {
            "resource_id": resource_id,
            "guest_id": self.guest_id,
            "booked_by_id": self.booked_by_id,
            "start_at": at(self.check_in),
            "end_at": at(self.check_out),
            "status": self.status,
            "purpose": verbatim(self.purpose),
            "guests": self.guests,
            "total_cents": price.total,
            "price_json": same_json(price.to_json(), "a fresh quote"),
            "policy_json": same_json(_world.rules_json(rules), "the rules it breaks"),
        }
        if self.justification is not None:
            row["justification"] = verbatim(self.justification)
        if self.account_id is not None:
            row["account_id"] = self.account_id
        return row, ""

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        made = ctx.diff.table(RESERVATION).inserted
        booked = sorted({row.get("resource_id") for row in made.values()} & self.resources)
        passing: list[int] = []
        problems: list[str] = []
        golden = ctx.golden_db()
        try:
            for resource_id in booked:
                row, problem = self._expected(golden, resource_id, ctx.world_today())
                if problem:
                    problems.append(problem)
                    continue
                inner = expect.inserted(RESERVATION, count=None, columns=row)
                passed, detail = inner.evaluate(ctx, Claims())
                if passed:
                    passing += inner.found
                else:
                    problems.append(detail)
        finally:
            golden.close()
        self.found = passing if len(passing) == 1 else []
        if len(passing) == 1:
            claims.inserted.add((RESERVATION, passing[0]))
            return True, f"stay #{passing[0]} booked as asked, charged a fresh quote"
        if len(passing) > 1:
            return False, f"{len(passing)} stays booked where one was asked for"
        others = [f"#{pk} on listing {row.get('resource_id')}" for pk, row in sorted(made.items())]
        shown = "; ".join(problems[:2]) or (
            f"new reservations: {', '.join(others[:4])}" if others else "no new reservation"
        )
        return False, f"expected one stay booked as asked; {shown}"


def stay_booked(
    *,
    guest_id: int,
    booked_by_id: int,
    resources: Iterable[int],
    check_in: date,
    check_out: date,
    guests: int,
    purpose: str,
    status: str = "confirmed",
    justification: str | None = None,
    in_policy: bool | None = None,
    account_id: int | None = None,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
) -> Expectation:
    """Exactly one new stay of one of `resources` for `guest_id`, booked by `booked_by_id`,
    from `check_in` to `check_out` for `guests`, named `purpose` word for word, in `status`,
    charged a fresh quote of its listing and carrying the policy rules that quote breaks for
    the traveller today (`in_policy` True: none may be broken; False: some must be). Columns
    the booking form leaves blank stay blank unless `justification` or the customer's
    `account_id` is asked for. The row is claimed (an approval request made with it follows it)."""
    return _StayBooked(
        guest_id, booked_by_id, resources, check_in, check_out, guests, purpose, status,
        justification, in_policy, account_id, name or "the stay is booked as asked", weight,
        required,
    )  # fmt: skip


class _ApprovalRequested(Expectation):
    def __init__(self, stay: Expectation, approver_id: int, name, weight, required) -> None:
        super().__init__(name, weight, required, core=False)
        self.stay, self.approver_id = stay, approver_id

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        inner = expect.inserted(
            APPROVAL,
            reservation_id=_FoundBy(self.stay),
            approver_id=self.approver_id,
            status="pending",
            comment="",
            decided_at=None,
        )
        return inner.evaluate(ctx, claims)


def approval_requested(
    stay: Expectation,
    approver_id: int,
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
) -> Expectation:
    """One pending request, with no comment yet, to `approver_id` on the stay `stay` found."""
    return _ApprovalRequested(
        stay, approver_id, name or "the manager is asked to approve", weight, required
    )


class _FinalRow(Expectation):
    def __init__(self, table, pk, final, allowed, name, weight, required) -> None:
        super().__init__(name, weight, required)
        self.table, self.pk, self.final, self.allowed = table, pk, dict(final), frozenset(allowed)

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        update = ctx.diff.table(self.table).updated.get(self.pk)
        if update is None:
            return False, f"{self.table} #{self.pk} was not changed"
        wrong = [
            f"{column}={_show(update.row.get(column))} (expected {describe(want)})"
            for column, want in self.final.items()
            if not matches(want, update.row.get(column))
        ]
        if wrong:
            return False, f"{self.table} #{self.pk}: {'; '.join(wrong[:3])}"
        keep = (self.allowed | expect.STAMPS.get(self.table, frozenset())) & set(update.changes)
        claims.updated.setdefault((self.table, self.pk), set()).update(keep)
        return True, f"{self.table} #{self.pk} is as asked"


def _show(value: Any, limit: int = 50) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def final_row(
    table: str,
    pk: int,
    final: Mapping[str, Any],
    allowed: Iterable[str],
    name: str | None = None,
    weight: float = 1.0,
    required: bool = True,
) -> Expectation:
    """Row `pk` was changed and now holds `final` (column -> value or matcher), whichever of
    those columns the act had to change; its changes to `allowed` columns (and the app's
    stamps) are claimed, any other change is left for `nothing_else` to catch."""
    return _FinalRow(table, pk, final, allowed, name or f"{table} #{pk} as asked", weight, required)


def stay_moved(
    ctx: EpisodeContext,
    reservation_id: int,
    resource_id: int,
    guest_id: int,
    check_in: date,
    check_out: date,
    name: str | None = None,
) -> Expectation:
    """The stay now runs `check_in` to `check_out`, confirmed, re-priced by a fresh quote of
    its listing and carrying the rules that breaks today (nothing else of it changed but the
    app's stamp)."""
    golden = ctx.golden_db()
    try:
        price = _world.quote(golden, resource_id, check_in, check_out)
        today = ctx.world_today() or _world.world_today(golden)
        rules = _world.breaches(golden, guest_id, resource_id, check_in, check_out, today)
    finally:
        golden.close()
    return final_row(
        RESERVATION,
        reservation_id,
        {
            "start_at": at(check_in),
            "end_at": at(check_out),
            "status": "confirmed",
            "total_cents": price.total,
            "price_json": same_json(price.to_json(), "a fresh quote"),
            "policy_json": same_json(_world.rules_json(rules), "the rules it breaks"),
        },
        allowed=("start_at", "end_at", "status", "total_cents", "price_json", "policy_json"),
        name=name
        or f"stay #{reservation_id} moved to {check_in.isoformat()}–{check_out.isoformat()}",
    )


def stay_cancelled(reservation_id: int, refund_cents: int, name: str | None = None):
    """The stay is cancelled with the refund its cancellation policy gives today."""
    return expect.updated(
        RESERVATION,
        reservation_id,
        name=name or f"stay #{reservation_id} cancelled",
        status="cancelled",
        refund_cents=refund_cents,
        cancelled_at=is_set(),
    )


def decided(
    approval_id: int, reservation_id: int, approve: bool, comment: str | None = None
) -> list[Expectation]:
    """The request is approved (no comment added) or rejected with `comment`, and its stay
    confirmed or rejected with it."""
    changes: dict[str, Any] = {
        "status": "approved" if approve else "rejected",
        "decided_at": is_set(),
    }
    if comment is not None:
        changes["comment"] = verbatim(comment)
    verb = "approved" if approve else "rejected"
    return [
        expect.updated(APPROVAL, approval_id, name=f"request #{approval_id} {verb}", **changes),
        expect.updated(
            RESERVATION,
            reservation_id,
            name=f"stay #{reservation_id} {'confirmed' if approve else 'rejected'}",
            core=False,
            status="confirmed" if approve else "rejected",
        ),
    ]


class _Every(Expectation):
    def __init__(self, parts: Sequence[Expectation], name: str, weight: float) -> None:
        super().__init__(name, weight, True)
        self.parts = list(parts)

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        failed = []
        for part in self.parts:
            passed, detail = part.evaluate(ctx, claims)
            if not passed:
                failed.append(f"{part.name}: {detail}")
        if failed:
            more = f" (+{len(failed) - 2} more)" if len(failed) > 2 else ""
            return False, f"{len(failed)} of {len(self.parts)} not done: " + "; ".join(
                failed[:2]
            ) + more
        return True, f"all {len(self.parts)} done: " + "; ".join(p.name for p in self.parts)


def every(parts: Sequence[Expectation], name: str, weight: float = 1.0) -> Expectation:
    """One check that passes only when each of `parts` does (each claims what it finds): a
    task of several like acts earns nothing for doing some of them (a random agent that hits
    one right button scores 0)."""
    return _Every(parts, name, weight)


# ---- meeting rooms -----------------------------------------------------------------------


class _Meeting(Expectation):
    def __init__(self, rooms, organizer_id, start, end, title, guests, series, name, weight):
        super().__init__(name, weight, True)
        self.rooms = frozenset(rooms)
        self.organizer_id, self.start, self.end = organizer_id, start, end
        self.title, self.guests, self.series = title, guests, series
        self.found: list[int] = []

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        row: dict[str, Any] = {
            "resource_id": _OneOf(self.rooms),
            "guest_id": self.organizer_id,
            "booked_by_id": self.organizer_id,
            "start_at": at(self.start),
            "end_at": at(self.end),
            "status": "confirmed",
            "purpose": verbatim(self.title),
            "guests": self.guests,
            "total_cents": 0,
        }
        if self.series is not None:
            row["series_id"] = _FoundBy(self.series)
        inner = expect.inserted(RESERVATION, count=None, columns=row)
        passed, detail = inner.evaluate(ctx, Claims())
        if not passed:
            return False, detail
        if len(inner.found) > 1:
            return False, f"{len(inner.found)} bookings at {self.start:%Y-%m-%d %H:%M} UTC"
        self.found = list(inner.found)
        claims.inserted.add((RESERVATION, self.found[0]))
        return True, f"booking #{self.found[0]} at {self.start:%Y-%m-%d %H:%M} UTC as asked"


class _OneOf(Matcher):
    def __init__(self, ids: frozenset[int]) -> None:
        self.ids = ids

    def matches(self, value: Any) -> bool:
        return value in self.ids

    def describe(self) -> str:
        return f"one of {sorted(self.ids)}"


class _Attendees(Expectation):
    def __init__(self, meetings: Sequence[_Meeting], people: Iterable[int], name, weight):
        super().__init__(name, weight, True, core=False)
        self.meetings, self.people = list(meetings), frozenset(people)

    def evaluate(self, ctx: EpisodeContext, claims: Claims) -> tuple[bool, str]:
        rows = ctx.diff.table(ATTENDEE).inserted
        for meeting in self.meetings:
            for pk in meeting.found:
                mine = {a: r for a, r in rows.items() if r.get("reservation_id") == pk}
                invited = {r.get("employee_id") for r in mine.values()}
                if invited != self.people or len(mine) != len(self.people):
                    return False, (
                        f"booking #{pk} invites {sorted(invited)}, expected {sorted(self.people)}"
                    )
                claims.inserted.update((ATTENDEE, a) for a in mine)
        return True, f"each booking invites exactly {sorted(self.people)}"


def meeting_booked(
    rooms: Iterable[int],
    organizer_id: int,
    start: datetime,
    end: datetime,
    title: str,
    attendees: Iterable[int],
    name: str | None = None,
) -> list[Expectation]:
    """One new confirmed booking of one of `rooms` by the organizer from `start` to `end`
    (naive UTC), titled `title` word for word, inviting exactly `attendees`."""
    people = frozenset(attendees)
    meeting = _Meeting(
        rooms, organizer_id, start, end, title, len(people) + 1, None,
        name or f"a room is booked for {title!r}", 1.0,
    )  # fmt: skip
    return [meeting, _Attendees([meeting], people, "exactly the people asked are invited", 1.0)]


def series_booked(
    room_id: int,
    organizer_id: int,
    weeks: int,
    occurrences: Sequence[tuple[datetime, datetime]],
    title: str,
    attendees: Iterable[int],
) -> list[Expectation]:
    """One new weekly series of `weeks` weeks in the room, titled `title`, and one booking of
    it at each of `occurrences` (the free weeks), each inviting exactly `attendees`."""
    people = frozenset(attendees)
    series = expect.inserted(
        SERIES,
        name=f"a {weeks}-week series of {title!r}",
        organizer_id=organizer_id,
        resource_id=room_id,
        title=verbatim(title),
        weeks=weeks,
    )
    meetings = [
        _Meeting(
            {room_id},
            organizer_id,
            start,
            end,
            title,
            len(people) + 1,
            series,
            f"week of {start:%Y-%m-%d} booked",
            1.0,
        )  # fmt: skip
        for start, end in occurrences
    ]
    return [series, *meetings, _Attendees(meetings, people, "each week invites them", 1.0)]


__all__ = [
    "approval_requested",
    "at",
    "decided",
    "every",
    "final_row",
    "meeting_booked",
    "same_json",
    "series_booked",
    "stay_booked",
    "stay_cancelled",
    "stay_moved",
]
