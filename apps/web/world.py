"""The world binding: which world a request is about, and its request-scoped database session.

The world id comes only from the `X-OfficeGym-World` header (set by the harness on the browser
context); without the header, the app's default world. A malformed or unknown id ends the
request with a 404 "No such world" page before any path is built from it, and nothing a page
sends in a form or a URL can choose another world.

Like flaskr's `get_db()`, `get_db()` opens a SQLAlchemy session lazily, once per request: on
`reader(engine)` for GET/HEAD/OPTIONS (a read-only snapshot: a page view changes nothing, and
a write there would fail whenever another request committed first) and on `writer(engine)` for
anything else (`BEGIN IMMEDIATE`, so concurrent writers queue instead of failing). A writer
first takes its turn in the store's queue for the world (`WorldStore.turns`), so resets and
writes in this process go oldest first instead of racing on SQLite's polling lock. It commits
when the response is a success (status < 400), rolls back otherwise, gives up its turn, and
closes in teardown.
"""

from __future__ import annotations

import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass

from flask import Flask, Response, current_app, g, request
from sqlalchemy import Engine
from sqlalchemy.orm import Session
from werkzeug.exceptions import NotFound

from officegym.seed_data.connect import make_engine, reader, writer
from officegym.seed_data.ids import InvalidWorldId, validate_world_id
from officegym.seed_data.store import WorldStore

WORLD_HEADER = "X-OfficeGym-World"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_EXTENSION = "officegym.world"


class NoSuchWorld(NotFound):
    """The request names no world this server has (malformed or unknown id).

    The page deliberately does not echo the id back.
    """

    title = "No such world"
    description = (
        "This address is not connected to a workspace. "
        "Check the link you were given, or ask whoever set up your session."
    )


@dataclass(frozen=True)
class _Bound:
    engine: Engine
    file_key: tuple[int, int]


class WorldEngines:
    """SQLAlchemy engines per world id: a bounded LRU cache, safe to use from many threads.

    An engine is disposed when it is evicted, when the store reports its world dropped or
    replaced, and when the world's file on disk is no longer the one it opened (another
    process replaced it: the inode changed).
    """

    def __init__(self, store: WorldStore, max_engines: int = 32) -> None:
        if max_engines < 1:
            raise ValueError("max_engines must be at least 1")
        self.store = store
        self.max_engines = max_engines
        self._engines: OrderedDict[str, _Bound] = OrderedDict()
        self._lock = threading.Lock()
        store.add_listener(self.forget)

    def engine(self, world_id: str) -> Engine:
        """The engine of an existing world; raises NoSuchWorld if the id names no world file."""
        try:
            path = self.store.world_path(world_id)
            found = path.lstat()
        except (InvalidWorldId, OSError) as error:
            raise NoSuchWorld() from error
        if not stat.S_ISREG(found.st_mode):  # the store makes plain files, never links or folders
            raise NoSuchWorld()
        key = (found.st_dev, found.st_ino)
        stale: Engine | None = None
        evicted: list[Engine] = []
        with self._lock:
            bound = self._engines.get(world_id)
            if bound is not None and bound.file_key == key:
                self._engines.move_to_end(world_id)
                return bound.engine
            if bound is not None:
                stale = bound.engine
            bound = _Bound(make_engine(path, create=False), key)
            self._engines[world_id] = bound
            self._engines.move_to_end(world_id)
            while len(self._engines) > self.max_engines:
                evicted.append(self._engines.popitem(last=False)[1].engine)
        for engine in ([stale] if stale is not None else []) + evicted:
            engine.dispose()
        return bound.engine

    def forget(self, world_id: str) -> None:
        """Dispose the cached engine of `world_id`, if any (store listener callback)."""
        with self._lock:
            bound = self._engines.pop(world_id, None)
        if bound is not None:
            bound.engine.dispose()

    def cached(self) -> list[str]:
        """World ids with a cached engine, least recently used first."""
        with self._lock:
            return list(self._engines)

    def dispose_all(self) -> None:
        with self._lock:
            engines, self._engines = list(self._engines.values()), OrderedDict()
        for bound in engines:
            bound.engine.dispose()


def init_app(app: Flask, store: WorldStore, default_world: str, max_engines: int = 32) -> None:
    """Bind requests of `app` to worlds of `store`."""
    validate_world_id(default_world)
    app.extensions[_EXTENSION] = WorldEngines(store, max_engines)
    app.config["DEFAULT_WORLD"] = default_world
    app.before_request(_bind_world)
    app.after_request(_finish_db)
    app.teardown_appcontext(_close_db)


def engines(app: Flask | None = None) -> WorldEngines:
    """The engine cache of `app` (default: the current app)."""
    return (app or current_app).extensions[_EXTENSION]


def _is_static(endpoint: str | None) -> bool:
    return endpoint is not None and (endpoint == "static" or endpoint.endswith(".static"))


def _bind_world() -> None:
    """Resolve the request's world before any view runs (static files need none)."""
    if _is_static(request.endpoint):
        return
    world_id = request.headers.get(WORLD_HEADER)
    if world_id is None:
        world_id = current_app.config["DEFAULT_WORLD"]
    engines().engine(world_id)  # raises NoSuchWorld
    g.world_id = world_id


def world_id() -> str | None:
    """The id of the world this request is bound to (None before binding or for static files).

    For server-side use only: never render it into a page.
    """
    return g.get("world_id")


def get_db() -> Session:
    """The request's database session on its world, opened on first use."""
    if "db" not in g:
        bound = world_id()
        if bound is None:
            raise RuntimeError("get_db() called outside a request bound to a world")
        cache = engines()
        engine = cache.engine(bound)
        if request.method in SAFE_METHODS:
            g.db = Session(reader(engine))
        else:
            turns = cache.store.turns(bound)
            turns.acquire()
            g.write_turn = turns
            g.db = Session(writer(engine))
    return g.db


def _end_turn() -> None:
    turns = g.pop("write_turn", None)
    if turns is not None:
        turns.release()


def _finish_db(response: Response) -> Response:
    db: Session | None = g.get("db")
    if db is not None:
        try:
            if response.status_code < 400:
                db.commit()
            else:
                db.rollback()
        finally:
            _end_turn()
    return response


def _close_db(_exc: BaseException | None = None) -> None:
    db: Session | None = g.pop("db", None)
    try:
        if db is not None:
            db.close()
    finally:
        _end_turn()


__all__ = [
    "SAFE_METHODS",
    "WORLD_HEADER",
    "NoSuchWorld",
    "WorldEngines",
    "engines",
    "get_db",
    "init_app",
    "world_id",
]
