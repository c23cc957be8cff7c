"""`officegym serve` killed with SIGKILL in the middle of writes: the world file stays sound and
keeps every write the server acknowledged.

Each round starts the real CLI on the same world (so each round also proves the server comes
back up on a file a kill left behind), writes from several threads through three apps (chat
messages, sheet cells, CRM activities, each carrying a unique token), kills the process after
a seeded random number of acknowledged writes, then checks the file: `PRAGMA integrity_check`
is ok, `PRAGMA foreign_key_check` is empty, the chat search index agrees with the messages
(FTS5 'integrity-check'), and every write answered 2xx/3xx, in this round or an earlier one, is
there (each message also found through the index).

Counts: quick 2 kills with 4 writers, full 10 with 6.
"""

from __future__ import annotations

import http.client
import itertools
import os
import queue
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from officegym.seed_data.ids import DEFAULT_WORLD
from officegym.seed_data.search_index import FTS_TABLE
from officegym.seed_data.store import WorldStore
from tests.reliability.conftest import depth
from tests.reliability.load import Client, Scene, read_scene, run_threads, world_file_problems

KILLS = depth(2, 10)
WRITERS = depth(4, 6)
STARTUP_TIMEOUT = 120
_SERVING = re.compile(r"serving on (http://\S+?)/?\s*$")


@dataclass(frozen=True)
class Ack:
    """A write the server answered with 2xx/3xx: what it wrote and the token that finds it."""

    kind: str  # "message", "cell" or "activity"
    token: str
    row: int = 0
    col: int = 0


@pytest.fixture
def home(tmp_path: Path, store: WorldStore) -> Path:
    """A store home with the tiny seed-0 golden and a default world made from it."""
    home = tmp_path / "home"
    golden = store.golden(0, "tiny")
    target = WorldStore(home)
    target.golden_dir.mkdir(parents=True)
    shutil.copyfile(golden, target.golden_dir / golden.name)
    target.create(DEFAULT_WORLD, 0, "tiny")
    target.close()
    return home


@contextmanager
def serving(home: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    """`officegym serve` on a free port over `home`; yields the process and its URL."""
    command = [sys.executable, "-m", "officegym.cli", "serve", "--world-home", str(home)]
    command += ["--port", "0", "--scale", "tiny", "--threads", "8"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200", "NO_COLOR": "1"}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    lines: queue.Queue[str | None] = queue.Queue()
    output: list[str] = []

    def drain() -> None:
        for line in process.stdout:
            output.append(line)
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        url = None
        while url is None:
            line = lines.get(timeout=STARTUP_TIMEOUT)
            if line is None:
                pytest.fail(f"officegym serve exited {process.wait()}:\n{''.join(output)}")
            match = _SERVING.search(line)
            url = match.group(1) if match else None
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        reader.join(timeout=10)


def write_until_killed(
    scene: Scene, url: str, process: subprocess.Popen, round_: int
) -> tuple[list[Ack], list[str], int]:
    """Write from WRITERS threads and SIGKILL the server after a random number of acks."""
    rng = random.Random(f"kill-{round_}")
    kill_after = rng.randint(2 * WRITERS, 12 * WRITERS)
    acks: list[Ack] = []
    failures: list[str] = []
    acked = threading.Condition()
    poster = Client(url, None, scene.poster)
    sheets = Client(url, None, scene.sheets_user)
    crm = Client(url, None, scene.crm_user)
    cells = f"/sheets/api/workbooks/{scene.workbook}/sheets/{scene.sheet}/range"

    def write(index: int) -> None:
        col = 10 + index
        for n in itertools.count():
            token = f"kill{round_}w{index}n{n}"
            kind = ("message", "cell", "activity")[(index + n) % 3]
            row = round_ * 1000 + n + 1
            try:
                if kind == "message":
                    path = f"/chat/api/channels/{scene.channel}/messages"
                    reply = poster.api("POST", path, {"body": token})
                elif kind == "cell":
                    ref = f"{chr(ord('A') + col - 1)}{row}"
                    reply = sheets.api("PUT", cells, {"ref": ref, "values": [[token]]})
                else:
                    fields = {"kind": "Task", "subject": token}
                    fields |= {"status": "Open", "priority": "Normal"}
                    reply = crm.api("POST", "/crm/api/activities", fields)
            except (OSError, http.client.HTTPException):
                return  # the server is gone: this write was never acknowledged
            with acked:
                if 200 <= reply.status < 400:
                    acks.append(Ack(kind, token, row, col))
                else:
                    failures.append(f"{kind} {token}: {reply.status} {reply.body[:300]}")
                acked.notify_all()

    def kill() -> None:
        with acked:
            acked.wait_for(lambda: len(acks) >= kill_after or bool(failures), timeout=120)
        process.kill()
        process.wait()

    errors = run_threads([kill, *(lambda i=i: write(i) for i in range(WRITERS))])
    assert errors == []
    return acks, failures, kill_after


def missing(path: Path, scene: Scene, acks: list[Ack]) -> list[Ack]:
    """The acknowledged writes that the world file does not hold (or its index cannot find)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        bodies = {b for (b,) in conn.execute("SELECT body FROM chat_message")}
        cells = dict(
            ((r, c), raw)
            for r, c, raw in conn.execute(
                "SELECT row, col, raw FROM sheets_cell WHERE sheet_id = ?", (scene.sheet,)
            )
        )
        subjects = {s for (s,) in conn.execute("SELECT subject FROM crm_activity")}
        lost = []
        for ack in acks:
            if ack.kind == "message":
                (found,) = conn.execute(
                    f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?", (ack.token,)
                ).fetchone()
                present = ack.token in bodies and found == 1
            elif ack.kind == "cell":
                present = cells.get((ack.row, ack.col)) == ack.token
            else:
                present = ack.token in subjects
            if not present:
                lost.append(ack)
        return lost
    finally:
        conn.close()


def test_sigkill_mid_write_leaves_a_sound_world_with_every_acknowledged_write(home: Path):
    path = WorldStore(home).world_path(DEFAULT_WORLD)
    scene = read_scene(path)
    acks: list[Ack] = []
    for round_ in range(1, KILLS + 1):
        with serving(home) as (process, url):
            got, failures, kill_after = write_until_killed(scene, url, process, round_)
        acks += got
        print(f"kill {round_}: SIGKILL after {len(got)} acknowledged writes (aimed {kill_after})")
        assert failures == [], "\n".join(failures[:10])
        assert process.returncode == -9
        assert world_file_problems(path) == []
        assert missing(path, scene, acks) == []
    print(f"{KILLS} kills, {len(acks)} acknowledged writes, all present")
    assert {a.kind for a in acks} == {"message", "cell", "activity"}
