"""Readers and writers at once on the real server: every main page of every app answers below
500 while people post, reply, mark channels read, edit a deal, set cells and book rooms.

Counts: readers x passes over every main page (62 on the tiny world; a channel or thread page
also sends the read marker its script posts), while writers write until the readers are
done: quick 2 readers x 1 pass with 4 writers, full 6 x 6 with 8. The chat case (a channel
and a thread read by one member while another posts in the channel and replies in the thread,
one write per page load) loads the channel 25 and the thread 20 times at quick depth (200
and 150 full). Before GET requests were made read-only, that case answered 500 "database is
locked" on nearly every load (the GET marked the channel read inside its read transaction).
"""

from __future__ import annotations

import functools
import itertools
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from officegym.apps.web import start_background_server
from officegym.seed_data.store import WorldStore
from tests.conftest import new_world_id
from tests.reliability.conftest import depth
from tests.reliability.load import (
    Client,
    Clients,
    Scene,
    load_as_browser,
    read_scene,
    report,
    run_threads,
    writes,
)

READERS = depth(2, 6)
PASSES = depth(1, 6)
WRITERS = depth(4, 8)
WRITE_CAP = depth(400, 4000)
CHANNEL_LOADS = depth(25, 200)
THREAD_LOADS = depth(20, 150)
AHEAD = 1  # writes the poster may make per page the reader loads


@pytest.fixture(scope="module")
def world(store: WorldStore) -> Iterator[str]:
    world_id = new_world_id("conc")
    store.create(world_id, 0, "tiny")
    yield world_id
    store.drop(world_id)


@pytest.fixture(scope="module")
def server(store: WorldStore, world: str):
    server = start_background_server(store, config={"SECRET_KEY": "reliability-concurrency"})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def scene(store: WorldStore, world: str) -> Scene:
    return read_scene(store.world_path(world))


def test_every_main_page_of_every_app_answers_below_500_under_concurrent_readers_and_writers(
    server, world, scene
):
    clients = Clients(server.url, world)
    for user in sorted({p.user for p in scene.pages} | {scene.poster}):
        clients[user]  # everyone signs in before the load starts
    done = threading.Event()
    lock = threading.Lock()
    pages: Counter = Counter()
    written: Counter = Counter()
    failures: list[str] = []
    kinds = writes(scene, clients)
    numbers = itertools.count()

    def reader(index: int) -> Callable[[], None]:
        def run() -> None:
            rng = random.Random(index)
            for _ in range(PASSES):
                order = list(scene.pages)
                rng.shuffle(order)
                for page in order:
                    for path, reply in load_as_browser(clients[page.user], page.path):
                        with lock:
                            pages[page.app, reply.status] += 1
                            if reply.status >= 500:
                                failures.append(f"GET {path} as {page.user}: {reply.status}")

        return run

    def writer(index: int) -> Callable[[], None]:
        def run() -> None:
            for turn in itertools.count(index):
                n = next(numbers)
                if done.is_set() or n >= WRITE_CAP:
                    return
                _, write = kinds[turn % len(kinds)]
                for what, reply in write(n):
                    with lock:
                        written[what, reply.status] += 1
                        if reply.status >= 400:
                            failures.append(f"{what} #{n}: {reply.status} {reply.body[:300]}")

        return run

    def readers_then_stop() -> None:
        try:
            errors = run_threads([reader(i) for i in range(READERS)])
            if errors:
                raise errors[0]
        finally:
            done.set()

    errors = run_threads([readers_then_stop, *(writer(i) for i in range(WRITERS))])
    print(report(f"main pages by app ({READERS} readers x {PASSES} passes)", pages))
    print(report(f"writes by kind ({WRITERS} writers)", written))
    assert errors == []
    assert failures == [], "\n".join(failures[:20])
    assert sum(pages.values()) >= READERS * PASSES * len(scene.pages)
    assert {app for app, _ in pages} == {p.app for p in scene.pages}
    assert {what for what, _ in written} >= {kind for kind, _ in kinds}


def test_chat_channel_and_thread_pages_load_while_another_member_posts_and_replies_there(
    server, world, scene
):
    reader = Client(server.url, world, scene.reader)
    poster = Client(server.url, world, scene.poster)
    done = threading.Event()
    statuses: Counter = Counter()
    failures: list[str] = []
    turn = threading.Condition()
    channel, thread = f"/chat/c/{scene.channel}", f"/chat/t/{scene.thread}"

    def read() -> None:
        try:
            order = [channel] * CHANNEL_LOADS + [thread] * THREAD_LOADS
            random.Random(7).shuffle(order)
            for page in order:
                for path, reply in load_as_browser(reader, page):
                    with turn:
                        statuses[path, reply.status] += 1
                        if reply.status >= 400:
                            failures.append(f"GET {path}: {reply.status} {reply.body[:300]}")
                        turn.notify_all()
        finally:
            with turn:
                done.set()
                turn.notify_all()

    def may_write(n: int) -> bool:
        """Keep writing while the reader reads, at most a few writes ahead of it."""
        loaded = sum(count for (path, _), count in statuses.items() if path in (channel, thread))
        return done.is_set() or n < AHEAD * (loaded + 1)

    def post() -> None:
        for n in itertools.count():
            with turn:
                turn.wait_for(functools.partial(may_write, n), timeout=30)
            if done.is_set():
                return
            if n % 2:
                path = f"/chat/api/channels/{scene.channel}/messages"
                reply = poster.api("POST", path, {"body": f"Posted while you read {n}"})
            else:
                path = f"{thread}/reply"
                reply = poster.form(path, {"body": f"Replied while you read {n}"})
            with turn:
                statuses[path, reply.status] += 1
                if reply.status >= 400:
                    failures.append(f"POST {path}: {reply.status} {reply.body[:300]}")

    errors = run_threads([read, post])
    print(report("a chat channel and thread read while another member writes there", statuses))
    assert errors == []
    assert failures == [], "\n".join(failures[:10])
    assert statuses[channel, 200] == CHANNEL_LOADS
    assert statuses[thread, 200] == THREAD_LOADS
