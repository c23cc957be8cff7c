"""The world clock is frozen, and nothing in the apps or the world reads the machine's clock."""

from __future__ import annotations

import ast
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from officegym.seed_data import clock
from officegym.seed_data.connect import make_engine, writer

ROOT = Path(__file__).resolve().parents[2]

# Calls that read the machine's clock, as (object name, attribute).
FORBIDDEN = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "time_ns"),
    ("time", "localtime"),
    ("time", "gmtime"),
}


def clock_reads(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
            if (name, node.func.attr) in FORBIDDEN:
                found.append(f"{path}:{node.lineno} {name}.{node.func.attr}()")
    return found


@pytest.mark.parametrize("package", ["apps", "seed_data"])
def test_no_code_in_the_world_or_apps_reads_the_machine_clock(package):
    files = sorted((ROOT / package).rglob("*.py"))
    assert files
    assert [hit for path in files for hit in clock_reads(path)] == []


def test_the_forbidden_call_finder_finds_them(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import datetime, time\nx = datetime.datetime.now()\ny = time.time()\n")
    assert len(clock_reads(sample)) == 2


def test_now_is_frozen_and_stamps_advance_one_second_each(store, world):
    engine = make_engine(store.world_path(world))
    try:
        with engine.begin() as conn:
            frozen = clock.now(conn)
        assert isinstance(frozen, datetime)
        with writer(engine).begin() as conn:
            first = clock.stamp(conn)
            second = clock.stamp(conn)
        with engine.begin() as conn:
            assert clock.now(conn) == frozen
            ticks = conn.execute(text("SELECT clock_ticks FROM world_meta")).scalar_one()
        assert (first, second) == (frozen + timedelta(seconds=1), frozen + timedelta(seconds=2))
        assert ticks == 2
    finally:
        engine.dispose()


def test_stamps_repeat_after_reset(store, world):
    engine = make_engine(store.world_path(world))
    try:
        with writer(engine).begin() as conn:
            first = clock.stamp(conn)
        store.reset(world)
        with writer(engine).begin() as conn:
            assert clock.stamp(conn) == first
    finally:
        engine.dispose()
