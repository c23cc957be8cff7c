"""Hostile `X-OfficeGym-World` headers on the real server: path traversal, absolute paths, NUL
and control characters, very long and unicode ids, whitespace, names of store files and of
worlds that do not exist. Each answers the 404 "No such world" page (the default world for an
absent header or one padded with spaces, which HTTP strips; waitress's 400 "Invalid header"
for a control character), never a 5xx, never echoes the id, and creates nothing under the
store's home or beside it.

Counts: each id on 3 paths (a page, an app page, a JSON API route); quick the hand-made ids
(about 170) and 40 generated ones, full the same and 600 generated.
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from officegym.apps.web import WORLD_HEADER, start_background_server
from officegym.apps.web.server import BackgroundServer
from officegym.apps.web.world import engines
from officegym.seed_data.store import WorldStore
from tests.reliability.conftest import depth
from tests.reliability.load import raw_get

GENERATED = depth(40, 600)
PATHS = ("/login", "/chat/", "/crm/api/accounts")
OTHER_COMPANY = "Elsewhere Holdings"
ECHO = "zqx"  # inside many ids below, so that a page echoing the id would show it
NO_SUCH_WORLD = "No such world"
INVALID_HEADER = "Invalid header"  # waitress's 400 for a header value with control characters
_WS = " \t"


@dataclass(frozen=True)
class Sandbox:
    outer: Path  # the folder holding the store's home: watched too, for escapes
    store: WorldStore
    server: BackgroundServer
    companies: dict[str, str]  # world id -> the company its pages show


def listing(folder: Path, worlds: list[str]) -> list[str]:
    """Every path under `folder`, without SQLite's WAL side files of live worlds (they come and
    go with connections)."""
    live = {f"{w}.sqlite" for w in worlds}
    names = []
    for path in sorted(folder.rglob("*")):
        base, _, suffix = path.name.rpartition("-")
        if suffix in ("wal", "shm") and base in live:
            continue
        names.append(str(path.relative_to(folder)))
    return names


def _company(store: WorldStore, world_id: str) -> str:
    conn = sqlite3.connect(f"file:{store.world_path(world_id)}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT company_name FROM world_meta").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory, store: WorldStore) -> Iterator[Sandbox]:
    """A store with worlds "default" and "other" (its company renamed), a dropped world "gone"
    and a dangling symlink "dangling" among the world files; a server on it."""
    outer = tmp_path_factory.mktemp("world-ids")
    home = WorldStore(outer / "home")
    golden = store.golden(0, "tiny")
    home.golden_dir.mkdir(parents=True)
    (home.golden_dir / golden.name).write_bytes(golden.read_bytes())
    for world_id in ("default", "other", "gone"):
        home.create(world_id, 0, "tiny")
    home.drop("gone")
    os.symlink(outer / "missing" / "x.sqlite", home.worlds_dir / "dangling.sqlite")
    conn = sqlite3.connect(home.world_path("other"))
    with conn:
        conn.execute("UPDATE world_meta SET company_name = ?", (OTHER_COMPANY,))
    conn.close()
    server = start_background_server(home, config={"SECRET_KEY": "reliability-world-ids"})
    companies = {w: _company(home, w) for w in ("default", "other")}
    yield Sandbox(outer, home, server, companies)
    server.stop()
    home.close()


def hand_made_ids(sandbox: Sandbox) -> list[str]:
    """Ids an attacker or a confused client might send, as text (sent UTF-8 encoded)."""
    home = sandbox.store.home
    world_file = sandbox.store.world_path("default")
    base = sandbox.store.goldens()[0].base
    traversal = [
        "..", ".", "../zqx", "../../zqx", "../" * 8 + "etc/passwd", "..%2fzqx", "..%2F..%2Fzqx",
        "%2e%2e%2fzqx", "%2e%2e/zqx", "..\\zqx", "..\\..\\zqx", "..;/zqx", ".../zqx",
        "....//zqx", "..%00/zqx", "%00", "%2e%2e", "default/../other", "default/../../zqx",
        "other/..", "./default", "default/.", "default/", "/default", "worlds/default",
        "../worlds/default", f"../golden/{base}", f"golden/{base}", "default.sqlite",
        "default.sqlite-wal", "default.sqlite-shm", ".default.sqlite.tmp", "default%00",
        "default%2f..%2fother", "default%2Fother", "/", "//", "/etc/passwd", "/tmp", "/tmp/zqx",
        str(home), str(home / "worlds"), str(world_file), str(world_file.with_suffix("")),
        f"file:{world_file}", f"file://{world_file}", f"{world_file}?mode=rw", "~", "~/zqx",
        "~root", "$HOME", "${HOME}", "`id`", "$(id)", "default;zqx", "default|zqx",
        "default&zqx", "*", "?", "default*", "d?fault", "[a-z]*", "%s%s%n", "{0}", "'", '"',
        "default'--", "' OR 1=1 --", "<script>zqx</script>", "default\\", "\\\\server\\zqx",
        "C:\\zqx", "c:/zqx", "con", "nul", "aux", "com1", "lpt1", "/dev/null", "/dev/zero",
        "/dev/stdin", "/proc/self/environ", "/proc/self/cwd/zqx", ":memory:",
        "file::memory:?cache=shared", "default?mode=ro", "default#zqx", "dangling",
        "../missing/x", "other/../../home/worlds/default",
    ]  # fmt: skip
    malformed = [
        "DEFAULT", "Default", "OTHER", "default.", ".default", "-default", "_default",
        "default!", "default@other", "default,other", "default other", "def ault",
        "default\t\tother", "a" * 65, "a" * 256, "zqx" * 1400, "../" * 2000, "default" + "a" * 64,
    ]  # fmt: skip
    missing = [
        "nosuchworld", "default2", "otherx", "gone", base, "golden", "worlds", "0", "a",
        "x" * 64, "w0", "default-", "default_", "zqx-world", "none", "null", "undefined",
        "true", "1e9", "10x0",
    ]  # fmt: skip
    unicode = [
        "défaut", "ｄｅｆａｕｌｔ", "default\u200b", "\u200bdefault", "dеfault", "默认", "🌍",
        "default🌍", "\u202edefault", "de\u0301fault", "ǅefault", "İ", "ß", "ﬀ",
        "\ufeffdefault", "default\u00a0", "\u2028", "..／zqx", "．．/zqx", "‥/zqx",
        "default\u2215..\u2215other", "ｄｅｆａｕｌｔ/../zqx", "zqx\u0000\u00e9",
    ]  # fmt: skip
    whitespace = ["", " ", "\t", "  \t ", " default", "default ", "\tdefault\t", " other "]
    control = [
        "default\x00", "\x00", "\x00../zqx", "default\x01", "\x1b[31mzqx", "default\x7f",
        "\x0bdefault", "default\x0c", "\x08", "zqx\x1f",
    ]  # fmt: skip
    return traversal + malformed + missing + unicode + whitespace + control


def generated_ids(count: int) -> list[str]:
    """Random ids over an alphabet of id characters, separators, dots, percent signs, quotes,
    and a few non-ASCII letters (seeded: the same ids on every run)."""
    rng = random.Random(2024)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_./\\%:~ *?'\"éｄ默\u200b"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))) for _ in range(count)]


def get(server: BackgroundServer, path: str, headers: list[tuple[str, bytes]]) -> tuple[int, str]:
    return raw_get(server.host, server.port, path, headers)


def expected_world(sandbox: Sandbox, world_id: str) -> str | None:
    """The world a request with this header value must reach (None: No such world)."""
    stripped = world_id.strip(_WS)
    return stripped if stripped in sandbox.companies else None


def has_control(world_id: str) -> bool:
    return any(ord(c) < 32 and c != "\t" or ord(c) == 127 for c in world_id)


def check(sandbox: Sandbox, world_id: str, path: str, status: int, body: str) -> str | None:
    """What is wrong with the answer to `path` under this header value (None: nothing)."""
    if status >= 500:
        return f"{status} (a server error)"
    if has_control(world_id) and (status, INVALID_HEADER in body) == (400, True):
        return None
    target = expected_world(sandbox, world_id)
    if target is None:
        if status != 404 or NO_SUCH_WORLD not in body:
            return f"{status}, not the 404 {NO_SUCH_WORLD!r} page"
        if ECHO in body:
            return "the page echoes the id"
        return None
    if path == "/login" and (status != 200 or sandbox.companies[target] not in body):
        return f"{status}, not the login page of world {target!r}"
    if status == 404:
        return f"404 for world {target!r}"
    return None


def probe(sandbox: Sandbox, ids: list[str]) -> tuple[Counter, list[str]]:
    """Send every id on every path; the statuses and what was wrong."""
    statuses: Counter = Counter()
    wrong: list[str] = []
    for world_id in ids:
        value = world_id.encode("utf-8")
        for path in PATHS:
            status, body = get(sandbox.server, path, [(WORLD_HEADER, value)])
            statuses[status] += 1
            problem = check(sandbox, world_id, path, status, body)
            if problem:
                wrong.append(f"{WORLD_HEADER}: {value[:80]!r} on {path}: {problem}")
    return statuses, wrong


def test_hostile_world_ids_answer_no_such_world_and_create_nothing(sandbox: Sandbox):
    worlds = sandbox.store.worlds()
    before = listing(sandbox.outer, worlds)
    ids = hand_made_ids(sandbox) + generated_ids(GENERATED)
    statuses, wrong = probe(sandbox, ids)
    print(f"{len(ids)} world ids x {len(PATHS)} paths: statuses {dict(sorted(statuses.items()))}")
    assert len(ids) >= 100
    assert wrong == [], "\n".join(wrong[:20])
    assert listing(sandbox.outer, worlds) == before
    assert sandbox.store.worlds() == worlds
    assert set(engines(sandbox.server.app).cached()) <= set(sandbox.companies)


def test_a_request_without_the_header_is_in_the_default_world(sandbox: Sandbox):
    status, body = get(sandbox.server, "/login", [])
    assert status == 200 and sandbox.companies["default"] in body


@pytest.mark.parametrize(
    ("headers", "world"),
    [
        ([("x-officegym-world", b"other")], "other"),
        ([("X-OFFICEGYM-WORLD", b"other")], "other"),
        ([("X_OfficeGym_World", b"other")], "default"),
        ([("X-OfficeGym-World-Id", b"other")], "default"),
        ([("X-Forwarded-World", b"other")], "default"),
        ([(WORLD_HEADER, b"default"), (WORLD_HEADER, b"other")], None),
        ([(WORLD_HEADER, b"other"), (WORLD_HEADER, b"../zqx")], None),
        ([(WORLD_HEADER, b"other,default")], None),
    ],
    ids=[
        "lowercase",
        "uppercase",
        "underscores",
        "longer-name",
        "other-name",
        "twice",
        "twice-hostile",
        "comma-list",
    ],  # fmt: skip
)
def test_only_the_world_header_itself_chooses_a_world(
    sandbox: Sandbox, headers: list[tuple[str, bytes]], world: str | None
):
    status, body = get(sandbox.server, "/login", headers)
    if world is None:
        assert status == 404 and NO_SUCH_WORLD in body and ECHO not in body
    else:
        assert status == 200 and sandbox.companies[world] in body


@pytest.mark.parametrize("entry", ["dangling", "loop", "folder"])
def test_a_world_entry_that_is_no_world_file_answers_no_such_world(
    sandbox: Sandbox, tmp_path: Path, entry: str
):
    worlds_dir = sandbox.store.worlds_dir
    made = []
    if entry == "loop":
        os.symlink(worlds_dir / "loop.sqlite", worlds_dir / "loop.sqlite")
        made.append(worlds_dir / "loop.sqlite")
    elif entry == "folder":
        (worlds_dir / "folder.sqlite").mkdir()
        made.append(worlds_dir / "folder.sqlite")
    try:
        worlds = sandbox.store.worlds()
        before = listing(sandbox.outer, worlds)
        status, body = get(sandbox.server, "/login", [(WORLD_HEADER, entry.encode())])
        assert listing(sandbox.outer, worlds) == before
        assert (status, NO_SUCH_WORLD in body) == (404, True)
    finally:
        for path in made:
            if path.is_symlink() or path.is_file():
                path.unlink()
            elif path.is_dir():
                path.rmdir()
