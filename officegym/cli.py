"""The `officegym` command: seed worlds, serve the apps, manage cached worlds."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from officegym.seed_data.changelog import world_tables
from officegym.seed_data.ids import DEFAULT_WORLD
from officegym.seed_data.store import SCALES, WorldStore, base_id, world_version

console = Console()

_home_option = click.option(
    "--world-home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="OFFICEGYM_HOME",
    help="Where golden and live worlds are kept (default: $OFFICEGYM_HOME or the user cache).",
)
_seed_option = click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
_scale_option = click.option(
    "--scale", type=click.Choice(SCALES), default="small", show_default=True
)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _row_counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
    try:
        return {
            t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in world_tables(conn)
        }
    finally:
        conn.close()


@click.group()
@click.version_option(package_name="officegym")
def main() -> None:
    """officegym: simulated enterprise apps over seeded SQLite worlds, for computer-use agents."""


@main.command()
@_seed_option
@_scale_option
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Also copy the world here."
)
@_home_option
def seed(seed: int, scale: str, out: Path | None, world_home: Path | None) -> None:
    """Generate (or fetch from cache) the golden world for SEED and SCALE."""
    store = WorldStore(world_home)
    cached = store.golden_path(seed, scale).is_file()
    started = time.perf_counter()
    path = store.golden(seed, scale)
    elapsed = time.perf_counter() - started
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)
        path = out
    counts = _row_counts(path)
    table = Table("table", "rows", title=f"world seed={seed} scale={scale}")
    for name, count in counts.items():
        table.add_row(name, f"{count:,}")
    table.add_row("[bold]total", f"[bold]{sum(counts.values()):,}")
    console.print(table)
    console.print(f"path    {path}")
    console.print(f"size    {path.stat().st_size / 1e6:.2f} MB")
    console.print(f"sha256  {_sha256(path)}")
    console.print(f"time    {elapsed:.3f} s ({'cache hit' if cached else 'generated'})")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@_seed_option
@_scale_option
@click.option("--threads", type=click.IntRange(1, 256), default=8, show_default=True)
@click.option("--fresh", is_flag=True, help="Reset the default world to its golden state first.")
@_home_option
def serve(
    host: str,
    port: int,
    seed: int,
    scale: str,
    threads: int,
    fresh: bool,
    world_home: Path | None,
) -> None:
    """Serve all apps on a multi-threaded WSGI server; the default world is SEED/SCALE."""
    from officegym.apps.web.auth import login_hint
    from officegym.apps.web.server import serve as run_server

    store = WorldStore(world_home)
    wanted = base_id(seed, scale)
    if store.exists(DEFAULT_WORLD):
        if store.base(DEFAULT_WORLD) != wanted:
            store.create(DEFAULT_WORLD, seed, scale, replace=True)
        elif fresh:
            store.reset(DEFAULT_WORLD)
    else:
        console.print(f"Preparing the default world (seed {seed}, scale {scale})…")
        store.create(DEFAULT_WORLD, seed, scale)
    url = f"http://{host}:{port}/"
    console.print(f"[bold green]officegym[/] serving on [link={url}]{url}[/link]")
    console.print(login_hint(store, DEFAULT_WORLD))
    console.print("Press Ctrl+C to stop.")
    run_server(store, host, port, default_world=DEFAULT_WORLD, threads=threads)


@main.group(invoke_without_command=True)
@_home_option
@click.pass_context
def worlds(ctx: click.Context, world_home: Path | None) -> None:
    """List cached golden worlds and live worlds."""
    ctx.obj = WorldStore(world_home)
    if ctx.invoked_subcommand is not None:
        return
    store: WorldStore = ctx.obj
    goldens = Table("golden", "size", title=f"golden worlds in {store.golden_dir}")
    for info in store.goldens():
        goldens.add_row(info.base, f"{info.size / 1e6:.2f} MB")
    console.print(goldens)
    live = Table("world", "base", "size", title=f"live worlds in {store.worlds_dir}")
    for world_id in store.worlds():
        path = store.world_path(world_id)
        live.add_row(world_id, store.base(world_id) or "?", f"{path.stat().st_size / 1e6:.2f} MB")
    console.print(live)


@worlds.command("drop")
@click.argument("world_ids", nargs=-1, required=True)
@click.pass_obj
def worlds_drop(store: WorldStore, world_ids: tuple[str, ...]) -> None:
    """Delete live worlds by id."""
    failed = False
    for world_id in world_ids:
        if store.drop(world_id):
            console.print(f"dropped world {world_id}")
        else:
            console.print(f"[red]no world {world_id!r}[/]")
            failed = True
    if failed:
        sys.exit(1)


@worlds.command("drop-golden")
@click.argument("bases", nargs=-1)
@click.option("--stale", is_flag=True, help="Drop every golden of an older world version.")
@click.pass_obj
def worlds_drop_golden(store: WorldStore, bases: tuple[str, ...], stale: bool) -> None:
    """Delete cached golden worlds (they are rebuilt on demand)."""
    names = list(bases)
    if stale:
        current = world_version() + "-"
        names += [g.base for g in store.goldens() if not g.base.startswith(current)]
    for name in names:
        if store.drop_golden(name):
            console.print(f"dropped golden {name}")
        else:
            console.print(f"[red]no golden {name!r}[/]")


if __name__ == "__main__":
    main()


@main.command()
@click.option("--task", "task_id", required=True, help="Template id, e.g. chat.post_update.")
@click.option(
    "--agent",
    default="oracle",
    show_default=True,
    help="oracle | null | random | replay:DIR",
)
@click.option("--episodes", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--workers", type=click.IntRange(min=1, max=64), default=1, show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Instance seed of the first episode (then seed+1, ...).",
)
@click.option(
    "--record",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write every episode (steps, screenshots, diffs, verdict) under this folder.",
)
@click.option("--screenshots", is_flag=True, help="Record screenshots (slower).")
@click.option("--server", help="URL of a running `officegym serve` sharing --world-home.")
@_home_option
def run(task_id, agent, episodes, workers, seed, record, screenshots, server, world_home) -> None:
    """Play episodes of a task with a built-in agent and print a summary table."""
    from officegym.harness.run import run_task
    from officegym.tasks.registry import UnknownTask

    try:
        results, summary = run_task(
            task_id,
            agent,
            episodes=episodes,
            workers=workers,
            seed=seed,
            record=record,
            server=server,
            home=world_home,
            screenshots=screenshots,
            console=console,
        )
    except (UnknownTask, ValueError) as error:
        raise click.ClickException(str(error)) from None
    if record is not None:
        console.print(f"recorded {len(results)} episodes under {record}")


@main.command()
@click.argument("episode_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--record",
    type=click.Path(file_okay=False, path_type=Path),
    help="Record the replayed episode under this folder.",
)
@click.option("--server", help="URL of a running `officegym serve` sharing --world-home.")
@_home_option
def replay(episode_dir: Path, record: Path | None, server: str | None, world_home) -> None:
    """Re-run a recorded episode in a fresh world; exit 1 unless diff and verdict match."""
    from officegym.harness.recording import RecordingError
    from officegym.harness.replay import replay as replay_episode
    from officegym.tasks.protocol import TaskError

    try:
        result = replay_episode(episode_dir, home=world_home, server=server, record=record)
    except (RecordingError, TaskError) as error:
        raise click.ClickException(str(error)) from None
    verdict = result.replayed_verdict
    console.print(
        f"replayed {episode_dir}: success={verdict.success} score={verdict.score:.3f} "
        f"(recorded success={result.recorded_verdict.success} "
        f"score={result.recorded_verdict.score:.3f})"
    )
    console.print(
        f"final diff: {'same' if result.same_diff else 'DIFFERENT'}; "
        f"verdict: {'same' if result.same_verdict else 'DIFFERENT'}"
    )
    if result.first_divergence is not None:
        console.print(f"first divergence at step {result.first_divergence}: {result.divergence}")
    if not result.reproduced:
        sys.exit(1)


@main.command()
@click.argument("episode_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the HTML file (default: EPISODE_DIR/report.html).",
)
def report(episode_dir: Path, out: Path | None) -> None:
    """Write a self-contained HTML report of a recorded episode."""
    from officegym.harness.recording import RecordingError
    from officegym.harness.report import write_report

    try:
        path = write_report(episode_dir, out)
    except RecordingError as error:
        raise click.ClickException(str(error)) from None
    console.print(f"wrote {path}")


@main.command("export-sft")
@click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--include-failed", is_flag=True, help="Also export episodes that did not succeed.")
@click.option(
    "--observation",
    type=click.Choice(["axtree", "dom", "both"]),
    default="axtree",
    show_default=True,
)
def export_sft_command(paths, out: Path, include_failed: bool, observation: str) -> None:
    """Write chat-format JSONL (observation → action) from recorded episodes."""
    from officegym.harness.recording import RecordingError
    from officegym.harness.sft import SftExportError, export_sft

    try:
        stats = export_sft(paths, out, include_failed=include_failed, observation=observation)
    except (RecordingError, SftExportError) as error:
        raise click.ClickException(str(error)) from None
    console.print(
        f"wrote {stats.examples} examples from {stats.episodes_used} of {stats.episodes_seen} "
        f"episodes to {out} ({stats.skipped_failed} failed, {stats.skipped_unfinished} "
        "unfinished skipped)"
    )
