"""Two people booking the last unit, or the same meeting-room slot, at the same moment.

Each request runs like the web kit runs a POST: its own connection, a session on
`writer(engine)` (BEGIN IMMEDIATE at the first statement), commit on success, rollback on a
refusal. The threads start together at a barrier; whatever the interleaving, exactly one of
them books and the other is told the nights or the slot are taken. Repeated 20 times, each
round on nights or a slot of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from officegym.apps.booking import service
from officegym.apps.booking.service import RoomTaken
from officegym.apps.web.errors import AppError, Conflict
from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.booking import Reservation
from tests.apps.booking import handmade as hm

ROUNDS = 20
MONDAY = date(2025, 10, 27)  # after the Austin closure; the Harbor Hotel out of peak season
SEATTLE = ZoneInfo("America/Los_Angeles")


@pytest.fixture
def world(tmp_path) -> Path:
    return hm.build(tmp_path / "world.sqlite")


def race(path: Path, acts: list[Callable[[Session, Employee], object]], people: list[int]):
    """Run each act in its own thread and transaction, all released at once; returns each
    act's result (a row id) or the AppError that refused it."""
    engine = make_engine(path, create=False)
    start = threading.Barrier(len(acts))
    results: list[object] = [None] * len(acts)

    def run(i: int) -> None:
        with Session(writer(engine)) as db:
            start.wait(timeout=30)
            try:
                made = acts[i](db, db.get(Employee, people[i]))
                results[i] = made.id
                db.commit()
            except AppError as error:
                db.rollback()
                results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(acts))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in threads)
    finally:
        engine.dispose()
    return results


def count(path: Path, *where) -> int:
    with hm.session(path) as db:
        return db.scalar(select(func.count()).select_from(Reservation).where(*where))


def stay_on(first: date, resource_id: int = hm.SUITE):
    def act(db: Session, actor: Employee):
        return service.book_stay(
            db,
            actor,
            resource_id=resource_id,
            check_in=first,
            check_out=first + timedelta(days=2),
            guests=1,
            purpose="Customer workshop",
            justification="The customer hosts us in the suite.",
        )

    return act


def room_at(start: datetime):
    def act(db: Session, actor: Employee):
        return service.book_room(
            db,
            actor,
            resource_id=hm.DENALI,
            start=start,
            end=start + timedelta(hours=1),
            title=f"Planning with {actor.first_name}",
        )

    return act


def test_two_requests_for_the_last_unit_book_it_once(world):
    for round_ in range(ROUNDS):
        first = MONDAY + timedelta(days=3 * round_)
        results = race(world, [stay_on(first), stay_on(first)], [hm.DIRECTOR, hm.CEO])
        booked = [r for r in results if isinstance(r, int)]
        refused = [r for r in results if isinstance(r, AppError)]
        assert len(booked) == 1, (round_, results)
        assert len(refused) == 1 and type(refused[0]) is Conflict
        assert "no longer available for those nights" in refused[0].message
        assert count(world, Reservation.start_at == hm.utc(first.year, first.month, first.day)) == 1


def test_three_requests_for_two_units_book_two(world):
    for round_ in range(ROUNDS):
        first = MONDAY + timedelta(days=3 * round_)
        acts = [stay_on(first, hm.KING)] * 3
        results = race(world, acts, [hm.TRAVELLER, hm.PEER, hm.STRANGER])
        assert sum(isinstance(r, int) for r in results) == 2, (round_, results)
        assert sum(isinstance(r, Conflict) for r in results) == 1


def test_two_requests_for_one_room_slot_book_it_once(world):
    for round_ in range(ROUNDS):
        day = date(2025, 9, 18) + timedelta(days=round_)
        start = datetime(day.year, day.month, day.day, 10, tzinfo=SEATTLE)
        results = race(world, [room_at(start), room_at(start)], [hm.TRAVELLER, hm.PEER])
        booked = [r for r in results if isinstance(r, int)]
        refused = [r for r in results if isinstance(r, AppError)]
        assert len(booked) == 1, (round_, results)
        assert len(refused) == 1 and isinstance(refused[0], RoomTaken)
        assert refused[0].message.startswith("Denali is booked 10:00–11:00 for “Planning with ")
    assert count(world, Reservation.resource_id == hm.DENALI) == ROUNDS
