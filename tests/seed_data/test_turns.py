"""Turns: writers of one world go first come, first served."""

from __future__ import annotations

import threading

import pytest

from officegym.seed_data.turns import Turns


def _wait_until(condition) -> None:
    event = threading.Event()
    while not condition():
        event.wait(0.001)


def test_the_lock_passes_to_waiters_in_the_order_they_came():
    turns = Turns()
    order: list[int] = []
    turns.acquire()
    threads = []
    for n in range(8):
        thread = threading.Thread(
            target=lambda n=n: (turns.acquire(), order.append(n), turns.release())
        )
        thread.start()
        threads.append(thread)
        _wait_until(lambda n=n: turns.waiting() == n + 2)
    turns.release()
    for thread in threads:
        thread.join(10)
    assert order == list(range(8))
    assert turns.waiting() == 0


def test_a_waiter_interrupted_in_line_gives_its_turn_away():
    turns = Turns()
    turns.acquire()

    class Stop(Exception):
        pass

    interrupted = threading.Event()

    def waiter_that_stops():
        original = turns._changed.wait_for
        turns._changed.wait_for = lambda *a, **k: (_ for _ in ()).throw(Stop())
        try:
            with pytest.raises(Stop):
                turns.acquire()
        finally:
            turns._changed.wait_for = original
            interrupted.set()

    thread = threading.Thread(target=waiter_that_stops)
    thread.start()
    interrupted.wait(10)
    thread.join(10)
    later = threading.Thread(target=lambda: (turns.acquire(), turns.release()))
    later.start()
    turns.release()
    later.join(10)
    assert not later.is_alive()
    assert turns.waiting() == 0


def test_a_first_waiter_goes_ahead_of_the_queue_but_after_the_holder():
    turns = Turns()
    order: list[str] = []
    turns.acquire()
    queued = [
        threading.Thread(
            target=lambda n=n: (turns.acquire(), order.append(f"w{n}"), turns.release())
        )
        for n in range(3)
    ]
    for n, thread in enumerate(queued):
        thread.start()
        _wait_until(lambda n=n: turns.waiting() == n + 2)

    def reset():
        with turns.first():
            order.append("reset")

    urgent = threading.Thread(target=reset)
    urgent.start()
    _wait_until(lambda: turns.waiting() == 5)
    order.append("holder")
    turns.release()
    for thread in [urgent, *queued]:
        thread.join(10)
    assert order == ["holder", "reset", "w0", "w1", "w2"]
    assert turns.waiting() == 0
