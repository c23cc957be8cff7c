"""WorldStore: goldens, create, reset, fork, snapshot/restore, drop, and concurrency."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from officegym.seed_data import store as store_module
from officegym.seed_data.churn import churn
from officegym.seed_data.connect import connect, make_engine, writer
from officegym.seed_data.ids import InvalidWorldId
from officegym.seed_data.store import WorldExists, WorldNotFound, WorldStore, WorldStoreError
from tests.conftest import dump, new_world_id

PROPERTY = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def write(store: WorldStore, world_id: str, seed: int, count: int) -> None:
    churn(store.world_path(world_id), seed, count)


def test_golden_is_built_once_and_then_served_from_cache(store, monkeypatch):
    path = store.golden(0, "tiny")

    def no_build(*args, **kwargs):
        raise AssertionError("golden rebuilt although cached")

    monkeypatch.setattr("officegym.seed_data.generate.build_world", no_build)
    assert store.golden(0, "tiny") == path
    assert path.name.startswith(store_module.world_version())


def test_goldens_are_keyed_by_seed_and_scale(store):
    assert store.golden_path(0, "tiny") != store.golden_path(1, "tiny")
    assert store.golden_path(0, "tiny") != store.golden_path(0, "small")


@pytest.mark.parametrize("seed, scale", [(-1, "tiny"), (0, "huge"), ("0", "tiny")])
def test_bad_seed_or_scale_is_refused(store, seed, scale):
    with pytest.raises(ValueError):
        store.golden(seed, scale)


def test_created_world_equals_its_golden(store, world):
    assert dump(store.world_path(world)) == dump(store.golden(0, "tiny"))


def test_creating_an_existing_world_is_refused_unless_replaced(store, world):
    with pytest.raises(WorldExists):
        store.create(world, 0, "tiny")
    write(store, world, 1, 10)
    store.create(world, 0, "tiny", replace=True)
    assert dump(store.world_path(world)) == dump(store.golden(0, "tiny"))


@pytest.mark.parametrize("bad", ["../x", "a/b", "", "x" * 65, "Wörld", "UPPER", "1; DROP TABLE"])
def test_invalid_world_ids_are_refused_without_touching_disk(store, bad):
    before = sorted(p.name for p in store.home.rglob("*"))
    for call in (store.world_path, store.exists, store.drop, store.reset):
        with pytest.raises(InvalidWorldId):
            call(bad)
    with pytest.raises(InvalidWorldId):
        store.create(bad, 0, "tiny")
    assert sorted(p.name for p in store.home.rglob("*")) == before


def test_operations_on_a_missing_world_raise_world_not_found(store):
    with pytest.raises(WorldNotFound):
        store.reset("nosuchworld")
    with pytest.raises(WorldNotFound):
        store.fork("nosuchworld", "other")
    assert store.drop("nosuchworld") is False


@PROPERTY
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 80))
def test_reset_after_random_writes_restores_the_golden_exactly(store, world, seed, count):
    write(store, world, seed, count)
    store.reset(world)
    assert dump(store.world_path(world)) == dump(store.golden(0, "tiny"))
    assert store.diff(world).tables == {}


def test_ids_handed_out_after_reset_repeat_exactly(store, world):
    path = store.world_path(world)

    def insert_message() -> int:
        conn = connect(path)
        try:
            conn.execute(
                "INSERT INTO chat_message (channel_id, author_id, body, created_at, also_in_channel)"
                " SELECT channel_id, author_id, 'hello', created_at, 0 FROM chat_message LIMIT 1"
            )
            return conn.execute("SELECT max(id) FROM chat_message").fetchone()[0]
        finally:
            conn.close()

    first = insert_message()
    insert_message()
    store.reset(world)
    assert insert_message() == first


def test_fork_copies_current_state_and_then_lives_apart(store, world):
    write(store, world, 7, 25)
    copy = new_world_id("fork")
    store.fork(world, copy)
    try:
        assert dump(store.world_path(copy)) == dump(store.world_path(world))
        write(store, copy, 8, 25)
        assert dump(store.world_path(copy)) != dump(store.world_path(world))
        store.reset(world)
        assert store.diff(copy)  # the fork still carries its own changes
        store.reset(copy)
        assert dump(store.world_path(copy)) == dump(store.golden(0, "tiny"))
    finally:
        store.drop(copy)


@PROPERTY
@given(first=st.integers(0, 2**32 - 1), second=st.integers(0, 2**32 - 1))
def test_snapshot_then_restore_returns_to_the_snapshot(store, world, first, second):
    store.reset(world)
    write(store, world, first, 30)
    expected = dump(store.world_path(world))
    snap = store.snapshot(world)
    write(store, world, second, 30)
    store.restore(world, snap)
    assert dump(store.world_path(world)) == expected


def test_a_snapshot_restores_into_another_world_of_the_same_base(store, world):
    write(store, world, 3, 40)
    snap = store.snapshot(world)
    other = new_world_id()
    store.create(other, 0, "tiny")
    try:
        store.restore(other, snap)
        assert dump(store.world_path(other)) == dump(store.world_path(world))
    finally:
        store.drop(other)


def test_a_snapshot_of_another_golden_is_refused(store, world):
    store.golden(1, "tiny")
    other = new_world_id()
    store.create(other, 1, "tiny")
    try:
        with pytest.raises(WorldStoreError):
            store.restore(world, store.snapshot(other))
    finally:
        store.drop(other)


def test_drop_removes_the_files_and_tells_listeners(store):
    world_id = new_world_id()
    store.create(world_id, 0, "tiny")
    write(store, world_id, 1, 5)
    heard: list[str] = []
    store.add_listener(heard.append)
    assert store.drop(world_id) is True
    assert not list(store.worlds_dir.glob(f"{world_id}.sqlite*"))
    assert world_id not in store.worlds()
    assert heard == [world_id]


def test_reset_under_an_open_server_connection_leaves_it_usable(store, world):
    engine = make_engine(store.world_path(world))
    try:
        with engine.connect() as held:
            before = held.execute(text("SELECT count(*) FROM chat_message")).scalar_one()
            with writer(engine).begin() as conn:
                conn.execute(text("DELETE FROM chat_reaction"))
            store.reset(world)
            held.commit()
            after = held.execute(text("SELECT count(*) FROM chat_message")).scalar_one()
            reactions = held.execute(text("SELECT count(*) FROM chat_reaction")).scalar_one()
        assert before == after
        assert reactions == len(dump(store.golden(0, "tiny"))["chat_reaction"])
    finally:
        engine.dispose()


def test_32_threads_resetting_and_writing_different_worlds_corrupt_nothing(store):
    golden = dump(store.golden(0, "tiny"))
    ids = [new_world_id("par") for _ in range(32)]
    errors: list[BaseException] = []

    def work(index: int, world_id: str) -> None:
        try:
            store.create(world_id, 0, "tiny")
            for round_ in range(3):
                write(store, world_id, index * 10 + round_, 20)
                assert store.diff(world_id)
                store.reset(world_id)
        except BaseException as exc:  # collected and re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i, w)) for i, w in enumerate(ids)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        for world_id in ids:
            path = store.world_path(world_id)
            conn = sqlite3.connect(path)
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
            conn.close()
            assert dump(path) == golden
    finally:
        for world_id in ids:
            store.drop(world_id)


def test_readers_during_resets_see_the_old_or_the_new_world_never_a_mix(store, world):
    """Each write changes every employee's title at once; a reader must see all or none."""
    engine = make_engine(store.world_path(world))
    total = len(dump(store.golden(0, "tiny"))["people_employee"])
    seen: set[int] = set()
    errors: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        try:
            while not stop.is_set():
                with engine.begin() as conn:
                    first = conn.execute(
                        text("SELECT count(*) FROM people_employee WHERE title = 'X'")
                    ).scalar_one()
                    second = conn.execute(
                        text("SELECT count(*) FROM people_employee WHERE title = 'X'")
                    ).scalar_one()
                assert first == second
                seen.add(first)
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(4)]
    for r in readers:
        r.start()
    try:
        for _ in range(40):
            with writer(engine).begin() as conn:
                conn.execute(text("UPDATE people_employee SET title = 'X'"))
            store.reset(world)
    finally:
        stop.set()
        for r in readers:
            r.join()
        engine.dispose()
    assert errors == []
    assert seen <= {0, total}


def test_generate_world_returns_the_cached_golden(store):
    from officegym.seed_data import generate_world

    assert generate_world(0, "tiny", home=store.home) == store.golden(0, "tiny")
