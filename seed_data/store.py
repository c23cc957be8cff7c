"""WorldStore: cached golden worlds and the live worlds made from them.

Layout under the store's home (`OFFICEGYM_HOME`, else the user cache dir):

    golden/<base>.sqlite      one per (world version, seed, scale); read-only once built
    worlds/<world id>.sqlite  one per live world, WAL mode, with a change log (see changelog)

Create and fork copy whole files. Reset, snapshot, restore and diff work from the change
log inside the world file, in one SQLite transaction each, so they cost O(changes) and are safe
while a server holds open connections to the world: a reader sees the world before or after a
reset, never a mix.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import changelog
from .changelog import CHANGES_TABLE, Snapshot
from .connect import connect, file_uri
from .diff import WorldDiff, diff, read_logged, table_diff
from .ids import validate_world_id
from .schema import SCHEMA_VERSION
from .turns import Turns

SCALES = ("tiny", "small", "large")
_SOURCE_DIRS = ("schema", "generate")
# Modules outside those folders whose code ends up in a golden file (triggers, the index).
_SOURCE_FILES = ("changelog.py", "search_index.py")


class WorldStoreError(RuntimeError):
    """Base class for store errors."""


class WorldNotFound(WorldStoreError, LookupError):
    """No live world has this id."""


class WorldExists(WorldStoreError):
    """A live world with this id already exists (pass replace=True to overwrite it)."""


@dataclass(frozen=True)
class GoldenInfo:
    base: str
    path: Path
    size: int


@lru_cache(maxsize=1)
def world_version() -> str:
    """A short hash of what decides a world's bytes: schema, generator, change-log and
    search-index source, Faker's version and SQLite's. A golden is rebuilt when any changes."""
    faker_version = importlib.metadata.version("faker")
    digest = hashlib.sha256(
        f"schema-{SCHEMA_VERSION} faker-{faker_version} sqlite-{sqlite3.sqlite_version}".encode()
    )
    root = Path(__file__).parent
    sources = [p for folder in _SOURCE_DIRS for p in sorted((root / folder).rglob("*.py"))]
    for path in sources + [root / name for name in _SOURCE_FILES]:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return f"v{SCHEMA_VERSION}-{digest.hexdigest()[:10]}"


def default_home() -> Path:
    env = os.environ.get("OFFICEGYM_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("officegym"))


def base_id(seed: int, scale: str) -> str:
    """The name of the golden for (seed, scale) at the current world version."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}: choose one of {', '.join(SCALES)}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
    return f"{world_version()}-s{seed}-{scale}"


class WorldStore:
    """Golden worlds cached by (world version, seed, scale) and live worlds by id.

    Thread-safe: operations on different worlds run in parallel; operations on one world are
    serialised. Live worlds may be read and written by other processes (the server) meanwhile.
    """

    def __init__(self, home: Path | str | None = None) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.golden_dir = self.home / "golden"
        self.worlds_dir = self.home / "worlds"
        self._lock = threading.Lock()
        self._world_locks: dict[str, threading.Lock] = {}
        self._turns: dict[str, Turns] = {}
        self._conns: dict[str, sqlite3.Connection] = {}
        self._listeners: list[Callable[[str], None]] = []

    # -- goldens ---------------------------------------------------------------------------

    def golden_path(self, seed: int = 0, scale: str = "small") -> Path:
        return self.golden_dir / f"{base_id(seed, scale)}.sqlite"

    def golden(self, seed: int = 0, scale: str = "small") -> Path:
        """The golden world file for (seed, scale), generating it on the first call."""
        path = self.golden_path(seed, scale)
        if path.is_file():
            return path
        self.golden_dir.mkdir(parents=True, exist_ok=True)
        with _file_lock(path.with_suffix(".lock")):
            if path.is_file():
                return path
            from .generate import build_world

            tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.unlink(missing_ok=True)
            try:
                build_world(seed, scale, tmp)
                conn = sqlite3.connect(tmp, isolation_level=None)
                try:
                    conn.execute("BEGIN")
                    changelog.install(conn, path.stem)
                    conn.execute("COMMIT")
                    conn.execute("PRAGMA journal_mode=DELETE")
                finally:
                    conn.close()
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
        return path

    def goldens(self) -> list[GoldenInfo]:
        if not self.golden_dir.is_dir():
            return []
        return [
            GoldenInfo(p.stem, p, p.stat().st_size)
            for p in sorted(self.golden_dir.glob("*.sqlite"))
        ]

    def drop_golden(self, base: str) -> bool:
        path = self.golden_dir / f"{base}.sqlite"
        if path.parent != self.golden_dir or not path.is_file():
            return False
        path.unlink()
        return True

    # -- live worlds -----------------------------------------------------------------------

    def world_path(self, world_id: str) -> Path:
        """The file of world `world_id` (which need not exist); raises InvalidWorldId."""
        return self.worlds_dir / f"{validate_world_id(world_id)}.sqlite"

    def exists(self, world_id: str) -> bool:
        return self.world_path(world_id).is_file()

    def worlds(self) -> list[str]:
        if not self.worlds_dir.is_dir():
            return []
        return sorted(p.stem for p in self.worlds_dir.glob("*.sqlite"))

    def base(self, world_id: str) -> str | None:
        """The golden a live world was made from (None if its file keeps no change log)."""
        conn = connect(self._existing(world_id), read_only=True)
        try:
            return changelog.base_of(conn)
        finally:
            conn.close()

    def add_listener(self, callback: Callable[[str], None]) -> None:
        """Call `callback(world_id)` after a world file is dropped or replaced."""
        self._listeners.append(callback)

    def create(
        self, world_id: str, seed: int = 0, scale: str = "small", *, replace: bool = False
    ) -> Path:
        """A new live world copied from the golden for (seed, scale)."""
        path = self.world_path(world_id)
        golden = self.golden(seed, scale)
        with self._world(world_id):
            if path.exists():
                if not replace:
                    raise WorldExists(f"world {world_id!r} exists; drop it or pass replace=True")
                self._remove(world_id, path)
            self._install(path, lambda tmp: shutil.copyfile(golden, tmp))
        return path

    def fork(self, src: str, dst: str, *, replace: bool = False) -> Path:
        """Make world `dst` an exact copy of world `src` as it is now (same golden base)."""
        src_path = self._existing(src)
        dst_path = self.world_path(dst)
        if src == dst:
            raise WorldExists(f"cannot fork world {src!r} onto itself")

        def copy(tmp: Path) -> None:
            source = connect(src_path)
            target = sqlite3.connect(tmp)
            try:
                source.backup(target)
            finally:
                target.close()
                source.close()

        with self._world(dst):
            if dst_path.exists():
                if not replace:
                    raise WorldExists(f"world {dst!r} exists; drop it or pass replace=True")
                self._remove(dst, dst_path)
            self._install(dst_path, copy)
        return dst_path

    def drop(self, world_id: str) -> bool:
        """Delete a live world; False if there was none."""
        path = self.world_path(world_id)
        with self._world(world_id):
            if not path.exists():
                return False
            self._remove(world_id, path)
        return True

    def turns(self, world_id: str) -> Turns:
        """The world's writers' queue: in-process writers hold it for their transaction, a
        server's write requests oldest first, this store's resets and restores ahead of them
        (see `turns`)."""
        with self._lock:
            return self._turns.setdefault(world_id, Turns())

    def reset(self, world_id: str) -> int:
        """Put the world back to its golden state; returns how many rows were restored."""
        with self._conn(world_id) as conn, _bulk_copy(conn), self.turns(world_id).first():
            conn.execute("BEGIN IMMEDIATE")
            try:
                tables = changelog.logged_tables(conn)
                for table in tables:
                    conn.execute(
                        f'DELETE FROM main."{table}" WHERE rowid IN '
                        f"(SELECT pk FROM {CHANGES_TABLE} WHERE tbl = ?)",
                        (table,),
                    )
                for table in tables:
                    conn.execute(
                        f'INSERT INTO main."{table}" SELECT * FROM golden."{table}" WHERE rowid IN '
                        f"(SELECT pk FROM {CHANGES_TABLE} WHERE tbl = ?)",
                        (table,),
                    )
                restored = conn.execute(f"DELETE FROM {CHANGES_TABLE}").rowcount
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return restored

    def snapshot(self, world_id: str) -> Snapshot:
        """The world's current state, held as the rows that differ from its golden."""
        with self._conn(world_id) as conn:
            conn.execute("BEGIN")
            try:
                base = changelog.base_of(conn)
                columns: dict[str, tuple[str, ...]] = {}
                rows: dict[str, dict[int, tuple | None]] = {}
                for table, pks in changelog.logged(conn).items():
                    cols, found = read_logged(conn, table)
                    columns[table] = cols
                    rows[table] = {pk: found.get(pk) for pk in pks}
            finally:
                conn.execute("COMMIT")
        golden = str(self.golden_dir / f"{base}.sqlite")
        return Snapshot(base=base, golden=golden, columns=columns, rows=rows)

    def restore(self, world_id: str, snap: Snapshot) -> None:
        """Put the world in the state `snap` captured (from this world or one of the same base)."""
        with self._conn(world_id) as conn, _bulk_copy(conn), self.turns(world_id).first():
            base = changelog.base_of(conn)
            if base != snap.base:
                raise WorldStoreError(
                    f"snapshot of base {snap.base!r} cannot restore world {world_id!r} "
                    f"of base {base!r}"
                )
            conn.execute("BEGIN IMMEDIATE")
            try:
                current = changelog.logged(conn)
                for table in sorted(set(current) | set(snap.rows)):
                    held = snap.rows.get(table, {})
                    pks = sorted(set(current.get(table, ())) | set(held))
                    _delete(conn, table, pks)
                    _insert_from(conn, table, [pk for pk in pks if pk not in held], "golden")
                    present = [row for row in held.values() if row is not None]
                    if present:
                        marks = ",".join("?" * len(snap.columns[table]))
                        conn.executemany(f'INSERT INTO main."{table}" VALUES ({marks})', present)
                conn.execute(f"DELETE FROM {CHANGES_TABLE}")
                conn.executemany(
                    f"INSERT INTO {CHANGES_TABLE} (tbl, pk) VALUES (?, ?)",
                    [(t, pk) for t, held in snap.rows.items() for pk in held],
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def diff(self, world_id: str, since: Snapshot | None = None) -> WorldDiff:
        """Changes in the world since its golden (or since `since`), in O(changes)."""
        if since is not None:
            return diff(since, self._existing(world_id))
        with self._conn(world_id) as conn:
            conn.execute("BEGIN")
            try:
                tables = {}
                for table in changelog.logged_tables(conn):
                    columns, old = read_logged(conn, table, "golden")
                    _, new = read_logged(conn, table)
                    td = table_diff(columns, old, new)
                    if td:
                        tables[table] = td
            finally:
                conn.execute("COMMIT")
        return WorldDiff(tables)

    def close(self) -> None:
        """Close the store's cached connections (worlds stay on disk)."""
        with self._lock:
            conns, self._conns = self._conns, {}
        for conn in conns.values():
            conn.close()

    # -- internals -------------------------------------------------------------------------

    def _existing(self, world_id: str) -> Path:
        path = self.world_path(world_id)
        if not path.is_file():
            raise WorldNotFound(f"no world {world_id!r} in {self.worlds_dir}")
        return path

    @contextmanager
    def _world(self, world_id: str) -> Iterator[None]:
        with self._lock:
            lock = self._world_locks.setdefault(world_id, threading.Lock())
        with lock:
            yield

    @contextmanager
    def _conn(self, world_id: str) -> Iterator[sqlite3.Connection]:
        """The store's own connection to a world, with its golden attached as `golden`."""
        path = self._existing(world_id)
        with self._world(world_id):
            conn = self._conns.get(world_id)
            if conn is None:
                conn = connect(path)
                base = changelog.base_of(conn)
                if base is None:
                    conn.close()
                    raise WorldStoreError(f"world {world_id!r} keeps no change log")
                golden = self.golden_dir / f"{base}.sqlite"
                if not golden.is_file():
                    conn.close()
                    raise WorldStoreError(
                        f"the golden {golden.name} of world {world_id!r} is missing; "
                        "recreate the world"
                    )
                conn.execute("ATTACH DATABASE ? AS golden", (file_uri(golden, immutable=True),))
                self._conns[world_id] = conn
            yield conn

    def _install(self, path: Path, fill: Callable[[Path], None]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            fill(tmp)
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
            os.replace(tmp, path)
        finally:
            for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
                leftover.unlink(missing_ok=True)

    def _remove(self, world_id: str, path: Path) -> None:
        conn = self._conns.pop(world_id, None)
        if conn is not None:
            conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        for callback in list(self._listeners):
            callback(world_id)


def _delete(conn: sqlite3.Connection, table: str, pks: list[int]) -> None:
    for chunk, marks in changelog.key_chunks(pks):
        conn.execute(f'DELETE FROM main."{table}" WHERE rowid IN ({marks})', chunk)


def _insert_from(conn: sqlite3.Connection, table: str, pks: list[int], schema: str) -> None:
    for chunk, marks in changelog.key_chunks(pks):
        conn.execute(
            f'INSERT INTO main."{table}" SELECT * FROM {schema}."{table}" WHERE rowid IN ({marks})',
            chunk,
        )


@contextmanager
def _bulk_copy(conn: sqlite3.Connection) -> Iterator[None]:
    """Foreign-key checks off for a reset or restore.

    Both end in a state that already held with the checks on (the golden, or a committed
    snapshot), so checking again row by row only costs time: it halves a reset's cost.
    """
    conn.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        conn.execute("PRAGMA foreign_keys=ON")


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock across processes (xdist workers building one golden)."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
