"""`officegym serve-env`: the env server in the foreground (the container's default command)."""

from __future__ import annotations

from pathlib import Path

import click

from .server import ServerConfigError, ServerOptions, ServerStartError, serve


@click.command("serve-env")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--token",
    envvar="OFFICEGYM_TOKEN",
    help="Bearer token every request must carry (default: $OFFICEGYM_TOKEN). Without one the "
    "server binds only to loopback.",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    default=16,
    show_default=True,
    help="Concurrent sessions; past it a new one gets 503 with Retry-After.",
)
@click.option(
    "--reset-concurrency",
    type=click.IntRange(min=1),
    help="Resets run at once; more wait their turn (default: the CPU count, at least 2).",
)
@click.option(
    "--step-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds a step (or finish) may take; past it the session needs a reset.",
)
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=600.0,
    show_default=True,
    help="Seconds without a request before a session is reclaimed (world dropped).",
)
@click.option(
    "--navigation-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds a page load may take.",
)
@click.option(
    "--action-timeout",
    type=click.FloatRange(min=0.1, max=600),
    default=3.0,
    show_default=True,
    help="Seconds an action may wait for its element (raise it on a loaded machine).",
)
@click.option(
    "--screenshots",
    is_flag=True,
    help="Let clients ask for screenshot observations (PNG on the wire; off by default).",
)
@click.option(
    "--world-home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="OFFICEGYM_HOME",
    help="Where golden and live worlds are kept (default: $OFFICEGYM_HOME or the user cache).",
)
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
)
def serve_env(
    host: str,
    port: int,
    token: str | None,
    max_sessions: int,
    reset_concurrency: int | None,
    step_timeout: float,
    idle_timeout: float,
    navigation_timeout: float,
    action_timeout: float,
    screenshots: bool,
    world_home: Path | None,
    log_level: str,
) -> None:
    """Serve episodes over HTTP and WebSocket in OpenEnv's protocol.

    Each session plays registered tasks in its own world and browser context, all on one
    Chromium and one apps server on loopback. Clients: officegym.client.RemoteEnv (a
    Gymnasium env) or OpenEnv's client (officegym.openenv_client.OfficeGymEnv).
    """
    extra = {"reset_concurrency": reset_concurrency} if reset_concurrency else {}
    try:
        options = ServerOptions(
            **extra,
            host=host,
            port=port,
            token=token or None,
            max_sessions=max_sessions,
            step_timeout=step_timeout,
            idle_timeout=idle_timeout,
            navigation_timeout=navigation_timeout,
            action_timeout=action_timeout,
            screenshots=screenshots,
            home=world_home,
            log_level=log_level,
        )
    except ServerConfigError as error:
        raise click.UsageError(str(error)) from None

    def ready(url: str) -> None:
        guard = "bearer token required" if options.token else "loopback only, no token"
        click.echo(
            f"officegym env server on {url} ({guard}; up to {max_sessions} sessions). "
            "Press Ctrl+C to stop."
        )

    try:
        serve(options, ready=ready)
    except ServerStartError as error:
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl+C once every session is closed
        click.echo("officegym env server stopped.")


__all__ = ["serve_env"]
