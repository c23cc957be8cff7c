"""Random writes to a world: the load that property tests and benchmarks put on the store.

Each write is an update of one column, an insert of a copied row or a delete, chosen by a
seeded `random.Random`. Writes that would break a constraint are rolled back and skipped, so
every write that counts leaves the world valid.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from .changelog import world_tables
from .connect import connect


def _columns(conn: sqlite3.Connection, table: str) -> tuple[list[tuple[str, str]], set[str]]:
    cols = [(row[1], row[2].upper()) for row in conn.execute(f'PRAGMA table_info("{table}")')]
    fks = {row[3] for row in conn.execute(f'PRAGMA foreign_key_list("{table}")')}
    return cols, fks


def _value(rng: random.Random, kind: str):
    if "INT" in kind or "BOOL" in kind:
        return rng.randint(0, 1) if "BOOL" in kind else rng.randint(0, 10**6)
    if any(k in kind for k in ("REAL", "FLOA", "DOUB", "NUMERIC")):
        return round(rng.uniform(0, 10**5), 2)
    if kind in ("DATETIME", "DATE"):
        return f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)} 0{rng.randint(0, 9)}:00:00"
    if "BLOB" in kind:
        return rng.randbytes(rng.randint(0, 16))
    return "".join(rng.choice("abcdefghij klmnop") for _ in range(rng.randint(1, 24)))


def random_writes(
    conn: sqlite3.Connection, rng: random.Random, count: int, tables: list[str] | None = None
) -> list[tuple[str, str, int]]:
    """Make `count` successful writes; returns (op, table, rowid) for each, in order.

    `conn` must be in autocommit mode (isolation_level=None); each write is its own savepoint.
    """
    names = tables if tables is not None else world_tables(conn)
    names = [t for t in names if t != "world_meta"]
    schema = {t: _columns(conn, t) for t in names}
    done: list[tuple[str, str, int]] = []
    attempts = 0
    while len(done) < count:
        attempts += 1
        if attempts > count * 50:
            raise RuntimeError(f"only {len(done)} of {count} random writes succeeded")
        table = rng.choice(names)
        cols, fks = schema[table]
        (total,) = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()
        if total == 0:
            continue
        (rowid,) = conn.execute(
            f'SELECT rowid FROM "{table}" ORDER BY rowid LIMIT 1 OFFSET ?', (rng.randrange(total),)
        ).fetchone()
        op = rng.choices(("update", "insert", "delete"), weights=(6, 3, 2))[0]
        conn.execute("SAVEPOINT churn")
        try:
            if op == "update":
                editable = [(c, k) for c, k in cols if c != "id" and c not in fks]
                if not editable:
                    conn.execute("RELEASE churn")
                    continue
                column, kind = rng.choice(editable)
                conn.execute(
                    f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?',
                    (_value(rng, kind), rowid),
                )
                target = rowid
            elif op == "insert":
                (target,) = conn.execute(f'SELECT max(rowid) + 1 FROM "{table}"').fetchone()
                names_sql = ", ".join(f'"{c}"' for c, _ in cols if c != "id")
                conn.execute(
                    f'INSERT INTO "{table}" (id, {names_sql}) '
                    f'SELECT ?, {names_sql} FROM "{table}" WHERE rowid = ?',
                    (target, rowid),
                )
            else:
                conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
                target = rowid
            conn.execute("RELEASE churn")
        except sqlite3.IntegrityError:
            conn.execute("ROLLBACK TO churn")
            conn.execute("RELEASE churn")
            continue
        done.append((op, table, target))
    return done


def churn(path: Path | str, seed: int, count: int) -> list[tuple[str, str, int]]:
    """`random_writes` on the world file at `path` with `random.Random(seed)`."""
    conn = connect(path)
    try:
        return random_writes(conn, random.Random(seed), count)
    finally:
        conn.close()
