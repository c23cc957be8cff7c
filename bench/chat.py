"""Chat page benchmark: server time of the channel page, search and posting.

    python bench/chat.py [--scale small] [--requests 200] [--seed 0] [--json out.json]

Builds (or reuses from the golden cache) a world at `--scale` in a temporary store home, signs
in as a member of the busiest channel (topped up through the post route, untimed, to
`--min-history` messages if the world has fewer), and times `--requests` requests of each kind through
the Flask test client (server time: routing, service, SQL, templates; no sockets):

    launcher   GET /                       the baseline every ratio is measured against
    channel    GET /chat/c/<busiest>       the newest page of 50 messages
    older      GET /chat/c/<busiest>?before=<id>  a page deep in history
    search     GET /chat/search?q=<word>   a common word, first page of 20 hits
    post       POST /chat/c/<busiest>/post  a new message, then the redirect (not followed)

Prints p50/p95 in milliseconds, the ratio of each p50 to the baseline's, and whether the p50
meets the 30 ms target of the chat issue.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from percentiles import percentile
from rich.console import Console
from rich.table import Table

from officegym.apps.web import create_app
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore

TARGET_MS = 30.0
WORLD = "bench"
_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def timed(requests: int, call: Callable[[int], int]) -> list[float]:
    """Milliseconds per call; every call must answer with a success or a redirect."""
    samples = []
    for i in range(requests):
        started = time.perf_counter()
        status = call(i)
        samples.append((time.perf_counter() - started) * 1000)
        if status >= 400:
            raise RuntimeError(f"request {i} answered {status}")
    return samples


def pick(path: Path) -> tuple[int, str, int, str, int]:
    """The busiest channel, one of its members, a page-deep message id and a common word."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        channel_id, count = conn.execute(
            "SELECT channel_id, count(*) FROM chat_message WHERE thread_parent_id IS NULL "
            "GROUP BY channel_id ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()
        (email,) = conn.execute(
            "SELECT e.email FROM chat_membership m JOIN people_employee e ON e.id = m.employee_id "
            "WHERE m.channel_id = ? AND e.is_active ORDER BY e.id LIMIT 1",
            (channel_id,),
        ).fetchone()
        ids = [
            r[0]
            for r in conn.execute(
                "SELECT id FROM chat_message WHERE channel_id = ? AND thread_parent_id IS NULL "
                "ORDER BY id",
                (channel_id,),
            )
        ]
        words: dict[str, int] = {}
        for (body,) in conn.execute("SELECT body FROM chat_message LIMIT 2000"):
            for word in re.findall(r"[a-z]{5,}", body.lower()):
                words[word] = words.get(word, 0) + 1
        common = max(sorted(words), key=words.__getitem__) if words else "update"
    finally:
        conn.close()
    return channel_id, email, ids[len(ids) // 2] if ids else 0, common, count


def run(
    scale: str, requests: int, seed: int, home: Path, min_history: int = 1000
) -> tuple[dict[str, list[float]], dict]:
    store = WorldStore(home)
    store.create(WORLD, seed, scale)
    channel_id, email, middle_id, word, count = pick(store.world_path(WORLD))
    app = create_app({"WORLD_STORE": store, "DEFAULT_WORLD": WORLD, "SECRET_KEY": "bench"})
    client = app.test_client()
    token = _CSRF.search(client.get("/login").get_data(as_text=True)).group(1)
    client.post("/login", data={"email": email, "password": DEMO_PASSWORD, "csrf_token": token})
    token = _CSRF.search(client.get("/chat/browse").get_data(as_text=True)).group(1)

    channel = f"/chat/c/{channel_id}"
    # Arrange (untimed): top the channel up to MIN_HISTORY messages through the real post route.
    for i in range(max(0, min_history - count)):
        client.post(
            f"{channel}/post", data={"body": f"Backlog note {i} about {word}", "csrf_token": token}
        )
    count = max(count, min_history)
    kinds: dict[str, Callable[[int], int]] = {
        "launcher": lambda i: client.get("/").status_code,
        "channel": lambda i: client.get(channel).status_code,
        "older": lambda i: client.get(f"{channel}?before={middle_id}").status_code,
        "search": lambda i: client.get(f"/chat/search?q={word}").status_code,
        "post": lambda i: (
            client.post(
                f"{channel}/post", data={"body": f"Bench message {i}", "csrf_token": token}
            ).status_code
        ),
    }
    results = {}
    for name, call in kinds.items():
        call(-1)  # warm caches and compiled templates
        results[name] = timed(requests, call)
    store.close()
    return results, {"channel_messages": count, "search_word": word, "scale": scale}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", default="small")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--min-history",
        type=int,
        default=1000,
        help="post to the busiest channel (untimed) until it holds this many messages",
    )
    parser.add_argument("--json", type=Path, help="write the raw samples (ms) here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="officegym-chat-bench-") as home:
        results, info = run(args.scale, args.requests, args.seed, Path(home), args.min_history)

    baseline = statistics.median(results["launcher"])
    table = Table(
        title=f"chat server time, {args.scale} world, {args.requests} requests each "
        f"(busiest channel: {info['channel_messages']} messages; search word {info['search_word']!r})"
    )
    for column in ("request", "p50 ms", "p95 ms", "× launcher", f"p50 ≤ {TARGET_MS:g} ms"):
        table.add_column(column, justify="left" if column == "request" else "right")
    for name, samples in results.items():
        p50 = statistics.median(samples)
        meets = "—" if name == "launcher" else ("yes" if p50 <= TARGET_MS else "NO")
        table.add_row(
            name,
            f"{p50:.1f}",
            f"{percentile(samples, 0.95):.1f}",
            f"{p50 / baseline:.1f}",
            meets,
        )
    Console().print(table)
    if args.json:
        args.json.write_text(json.dumps({"info": info, "samples": results}, indent=1))


if __name__ == "__main__":
    main()
