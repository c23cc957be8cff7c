"""`officegym mcp`: serve apps' operations as MCP tools for one user of one world.

    officegym mcp --app chat --world default --user amy.schmidt@example.com        # stdio
    officegym mcp --app crm --app chat --world w1 --user ... --transport http --port 8765

The tools act as the signed-in user: the apps' own permissions apply. The requests go in
process to the apps over `--world-home` (the world file is shared with any `officegym serve`
of that home), or to a running server with `--server URL`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import click

from officegym.apps import registry as app_registry
from officegym.bearer import PublicWithoutToken, require_token_off_loopback
from officegym.seed_data.ids import DEFAULT_WORLD, InvalidWorldId
from officegym.seed_data.store import SCALES, WorldNotFound, WorldStore

from .api_session import ApiSession, ApiSessionError, LoginFailed
from .server import build_server, serve_http, serve_stdio
from .toolset import Toolset


def _app_slugs() -> list[str]:
    return [app.slug for app in app_registry.entries()]


@click.command("mcp")
@click.option(
    "--app",
    "apps",
    type=click.Choice(_app_slugs()),
    multiple=True,
    required=True,
    help="The app whose operations become tools (repeat for several apps).",
)
@click.option("--world", default=DEFAULT_WORLD, show_default=True, help="The world's id.")
@click.option("--user", required=True, help="Email of the employee the tools act as.")
@click.option(
    "--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True
)
@click.option("--host", default="127.0.0.1", show_default=True, help="For --transport http.")
@click.option(
    "--token",
    envvar="OFFICEGYM_TOKEN",
    help="For --transport http: the bearer token every request must carry (default: "
    "$OFFICEGYM_TOKEN). Without one the server binds only to loopback.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="For http."
)
@click.option(
    "--create",
    is_flag=True,
    help="Create the world from the golden of --seed/--scale when it does not exist.",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--scale", type=click.Choice(SCALES), default="small", show_default=True)
@click.option("--server", help="URL of a running `officegym serve` to send the calls to.")
@click.option(
    "--world-home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="OFFICEGYM_HOME",
    help="Where golden and live worlds are kept (default: $OFFICEGYM_HOME or the user cache).",
)
def mcp_command(
    apps: tuple[str, ...],
    world: str,
    user: str,
    transport: str,
    host: str,
    token: str | None,
    port: int,
    create: bool,
    seed: int,
    scale: str,
    server: str | None,
    world_home: Path | None,
) -> None:
    """Serve an app's operations as MCP tools for one user of a world."""
    apps = tuple(dict.fromkeys(apps))
    token = token or None
    if transport == "http":
        try:
            require_token_off_loopback(host, token)
        except PublicWithoutToken as error:
            raise click.UsageError(str(error)) from None
    try:
        session = _session(apps, world, user, create, seed, scale, server, world_home)
    except (WorldNotFound, InvalidWorldId, LoginFailed, ApiSessionError) as error:
        raise click.ClickException(str(error)) from None
    with session:
        mcp_server = build_server(Toolset(session, apps))
        if transport == "stdio":
            anyio.run(serve_stdio, mcp_server)
            return
        try:
            serve_http(mcp_server, host, port, ready=lambda url: _announce(apps, url), token=token)
        except OSError as error:
            raise click.ClickException(
                f"cannot serve on {host}:{port} ({error}): stop what holds the port or pass --port"
            ) from None


def _announce(apps: tuple[str, ...], url: str) -> None:
    """The first line on stderr says where the server listens (port 0 picks one)."""
    click.echo(f"officegym MCP ({', '.join(apps)}) serving on {url}", err=True)


def _session(
    apps: tuple[str, ...],
    world: str,
    user: str,
    create: bool,
    seed: int,
    scale: str,
    server: str | None,
    world_home: Path | None,
) -> ApiSession:
    if server is not None:
        if create:
            raise click.UsageError("--create makes a world in --world-home, not on --server")
        return ApiSession.remote(server, world, user)
    store = WorldStore(world_home)
    if not store.exists(world):
        if not create:
            raise WorldNotFound(
                f"no world {world!r} in {store.worlds_dir}: pass --create to make it from the "
                f"golden world of --seed/--scale, or name an existing one (`officegym worlds`)"
            )
        print(f"Creating world {world!r} (seed {seed}, scale {scale})…", file=sys.stderr)
        store.create(world, seed, scale)
    return ApiSession.in_process(store, world, user, apps)


__all__ = ["mcp_command"]
