"""diff(): exactly the rows that changed, keyed by primary key, JSON round-trip, readable."""

from __future__ import annotations

import random
import shutil
import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officegym.seed_data.churn import random_writes
from officegym.seed_data.connect import connect
from officegym.seed_data.diff import WorldDiff, diff
from tests.conftest import dump

PROPERTY = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def expected_changes(before: dict, after: dict) -> dict[str, dict[str, set[int]]]:
    """Which keys were inserted, deleted and updated per table, from two full dumps."""
    out = {}
    for table in before:
        old = {row[0]: row for row in before[table]}
        new = {row[0]: row for row in after[table]}
        changes = {
            "inserted": set(new) - set(old),
            "deleted": set(old) - set(new),
            "updated": {k for k in set(old) & set(new) if old[k] != new[k]},
        }
        if any(changes.values()):
            out[table] = changes
    return out


def observed_changes(d: WorldDiff) -> dict[str, dict[str, set[int]]]:
    return {
        name: {
            "inserted": set(t.inserted),
            "deleted": set(t.deleted),
            "updated": set(t.updated),
        }
        for name, t in d.tables.items()
    }


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 100))
def test_diff_reports_exactly_the_writes_made(store, world, seed, count):
    store.reset(world)
    golden = store.golden(0, "tiny")
    path = store.world_path(world)
    conn = connect(path)
    random_writes(conn, random.Random(seed), count)
    conn.close()
    expected = expected_changes(dump(golden), dump(path))
    assert observed_changes(store.diff(world)) == expected
    assert observed_changes(diff(golden, path)) == expected


def test_updated_rows_carry_old_and_new_values_and_the_whole_row(store, world):
    conn = connect(store.world_path(world))
    old = conn.execute("SELECT title FROM people_employee WHERE id = 2").fetchone()[0]
    conn.execute("UPDATE people_employee SET title = 'Chief Coffee Officer' WHERE id = 2")
    conn.close()
    update = store.diff(world).table("people_employee").updated[2]
    assert update.changes == {"title": (old, "Chief Coffee Officer")}
    assert update.row["id"] == 2 and update.row["title"] == "Chief Coffee Officer"


def test_a_write_undone_by_hand_is_not_a_change(store, world):
    conn = connect(store.world_path(world))
    old = conn.execute("SELECT title FROM people_employee WHERE id = 3").fetchone()[0]
    conn.execute("UPDATE people_employee SET title = 'temp' WHERE id = 3")
    conn.execute("UPDATE people_employee SET title = ? WHERE id = 3", (old,))
    conn.close()
    assert not store.diff(world)


def test_diff_survives_a_json_round_trip_with_binary_values(store, world):
    conn = connect(store.world_path(world))
    random_writes(conn, random.Random(5), 40)
    conn.execute(
        "UPDATE chat_attachment SET data = x'00ff10' WHERE id = (SELECT min(id) FROM chat_attachment)"
    )
    conn.close()
    d = store.diff(world)
    assert WorldDiff.loads(d.dumps()) == d


def test_diff_renders_as_readable_text(store, world):
    conn = connect(store.world_path(world))
    conn.execute(
        "UPDATE crm_opportunity SET stage = 'Negotiation' WHERE id = "
        "(SELECT min(id) FROM crm_opportunity WHERE stage != 'Negotiation')"
    )
    conn.execute("DELETE FROM chat_reaction WHERE id = (SELECT max(id) FROM chat_reaction)")
    conn.close()
    shown = str(store.diff(world))
    assert "crm_opportunity: 1 updated" in shown
    assert "→ 'Negotiation'" in shown
    assert "chat_reaction: 1 deleted" in shown
    assert str(WorldDiff()) == "no changes"


def test_files_without_a_change_log_are_compared_in_full(store, world, tmp_path):
    plain_before = tmp_path / "before.sqlite"
    plain_after = tmp_path / "after.sqlite"
    for target in (plain_before, plain_after):
        shutil.copyfile(store.golden(0, "tiny"), target)
        conn = sqlite3.connect(target)
        conn.execute("DROP TABLE _base")
        conn.commit()
        conn.close()
    conn = sqlite3.connect(plain_after)
    conn.execute("UPDATE people_employee SET title = 'changed' WHERE id = 1")
    conn.execute("DELETE FROM chat_pin WHERE id = (SELECT min(id) FROM chat_pin)")
    conn.commit()
    conn.close()
    d = diff(plain_before, plain_after)
    assert set(d.table("people_employee").updated) == {1}
    assert len(d.table("chat_pin").deleted) == 1
    assert observed_changes(d) == expected_changes(dump(plain_before), dump(plain_after))


def test_diff_from_a_snapshot_shows_only_later_changes(store, world):
    conn = connect(store.world_path(world))
    random_writes(conn, random.Random(1), 20)
    snap = store.snapshot(world)
    expected_before = dump(store.world_path(world))
    conn.execute("UPDATE people_employee SET title = 'after snapshot' WHERE id = 4")
    conn.close()
    d = store.diff(world, since=snap)
    assert observed_changes(d) == expected_changes(expected_before, dump(store.world_path(world)))
