"""The `officegym` command: seed worlds, serve the apps, manage cached worlds."""

from __future__ import annotations

import errno
import hashlib
import importlib
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Column, Table

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
_action_timeout_option = click.option(
    "--action-timeout",
    type=click.FloatRange(min=0.1, max=600),
    default=3.0,
    show_default=True,
    help="Seconds an action may wait for its element (raise it on a loaded machine).",
)


def _session(action_timeout: float):
    """The harness's browser options with this action timeout."""
    from officegym.harness.session import SessionOptions

    return SessionOptions(action_timeout_ms=action_timeout * 1000)


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


class _LazyGroup(click.Group):
    """A group whose serving commands are imported only when used: they need optional
    extras (fastapi, the MCP SDK) that a plain install lacks, and the rest of the CLI must
    neither pay for importing them nor fail without them."""

    #: command name -> (module:attribute, the extra that provides it, its one-line help)
    LAZY = {
        "serve-env": (
            "officegym.envserver.cli:serve_env",
            "serve",
            "Serve episodes over HTTP and WebSocket (the OpenEnv protocol).",
        ),
        "mcp": (
            "officegym.mcp.cli:mcp_command",
            "mcp",
            "Serve an app's operations as MCP tools for one user of a world.",
        ),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, without importing the lazy commands for their help lines."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in self.LAZY:
                rows.append((name, self.LAZY[name][2]))
                continue
            command = super().get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.LAZY:
            return super().get_command(ctx, name)
        target, extra, _ = self.LAZY[name]
        module_name, attribute = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            missing = error.name or str(error)
            if missing.startswith("officegym"):
                raise
            return _missing_extra(name, extra, missing)
        return getattr(module, attribute)


def _missing_extra(name: str, extra: str, missing: str) -> click.Command:
    """A stand-in command that says which extra to install."""

    @click.command(name, context_settings={"ignore_unknown_options": True}, add_help_option=False)
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args: tuple[str, ...]) -> None:
        raise click.ClickException(
            f"`officegym {name}` needs the {extra!r} extra ({missing} is not installed): "
            f"pip install 'officegym[{extra}]'"
        )

    command.help = f"(needs `pip install 'officegym[{extra}]'`)"
    return command


@click.group(cls=_LazyGroup)
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
    """Generate (or fetch from cache) the golden world for SEED and SCALE, and say how it reads:
    distinct messages and phrasing, replies on their thread's topic, kinds of duplicates."""
    from officegym.seed_data.realism import measure as measure_realism

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
    for line in measure_realism(path).lines():
        console.print(line)


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
    bound: list[str] = []

    def ready(url: str) -> None:
        """The port is ours: prepare the default world, then say where to go."""
        bound.append(url)
        if store.exists(DEFAULT_WORLD):
            if store.base(DEFAULT_WORLD) != wanted:
                store.create(DEFAULT_WORLD, seed, scale, replace=True)
            elif fresh:
                store.reset(DEFAULT_WORLD)
        else:
            console.print(f"Preparing the default world (seed {seed}, scale {scale})…")
            store.create(DEFAULT_WORLD, seed, scale)
        console.print(f"[bold green]officegym[/] serving on [link={url}]{url}[/link]")
        console.print(login_hint(store, DEFAULT_WORLD))
        console.print("Press Ctrl+C to stop.")

    try:
        run_server(store, host, port, default_world=DEFAULT_WORLD, threads=threads, ready=ready)
    except OSError as error:
        if bound:
            raise
        reason = "is in use" if error.errno == errno.EADDRINUSE else f"cannot be used ({error})"
        raise click.ClickException(
            f"port {port} on {host} {reason}: stop what holds it or pass --port"
        ) from None


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
@_action_timeout_option
@_home_option
def run(
    task_id, agent, episodes, workers, seed, record, screenshots, server, action_timeout, world_home
) -> None:
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
            session=_session(action_timeout),
        )
    except (UnknownTask, ValueError) as error:
        raise click.ClickException(str(error)) from None
    if record is not None:
        console.print(f"recorded {len(results)} episodes under {record}")


def _episodes(folder: Path) -> list[Path]:
    """The episode recordings in `folder` (itself, or those under it, as `run --record`
    writes them), listed for the user; a clear error when there are none."""
    from officegym.harness.recording import RecordingError, find_episodes, load_episode

    episodes = list(find_episodes([folder]))
    if not episodes:
        raise click.ClickException(
            f"{folder} holds no episode recordings (record some with `officegym run --record`)"
        )
    if len(episodes) > 1 or episodes[0] != folder:
        table = Table("episode", "task", "steps", "success", title=f"{len(episodes)} in {folder}")
        for path in episodes:
            try:
                episode = load_episode(path)
            except RecordingError as error:
                table.add_row(str(path.relative_to(folder)), "unreadable", "", str(error))
                continue
            done = "-" if episode.verdict is None else str(episode.success)
            table.add_row(
                str(path.relative_to(folder)), episode.task_id, str(len(episode.actions)), done
            )
        console.print(table)
    return episodes


@main.command()
@click.argument("episode_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--record",
    type=click.Path(file_okay=False, path_type=Path),
    help="Record the replayed episodes under this folder.",
)
@click.option("--server", help="URL of a running `officegym serve` sharing --world-home.")
@_action_timeout_option
@_home_option
def replay(
    episode_dir: Path, record: Path | None, server: str | None, action_timeout: float, world_home
) -> None:
    """Re-run recorded episodes in fresh worlds; exit 1 unless every diff and verdict match.

    EPISODE_DIR is one episode or a folder of them (what `run --record` wrote)."""
    from officegym.harness.recording import RecordingError
    from officegym.harness.replay import replay as replay_episode
    from officegym.tasks.protocol import TaskError

    failed = 0
    for episode in _episodes(episode_dir):
        try:
            result = replay_episode(
                episode,
                home=world_home,
                server=server,
                record=record,
                session=_session(action_timeout),
            )
        except (RecordingError, TaskError) as error:
            raise click.ClickException(str(error)) from None
        verdict = result.replayed_verdict
        console.print(
            f"replayed {episode}: success={verdict.success} score={verdict.score:.3f} "
            f"(recorded success={result.recorded_verdict.success} "
            f"score={result.recorded_verdict.score:.3f})"
        )
        console.print(
            f"final diff: {'same' if result.same_diff else 'DIFFERENT'}; "
            f"verdict: {'same' if result.same_verdict else 'DIFFERENT'}"
        )
        if result.first_divergence is not None:
            console.print(
                f"first divergence at step {result.first_divergence}: {result.divergence}"
            )
        failed += not result.reproduced
    if failed:
        sys.exit(1)


@main.command()
@click.argument("episode_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the HTML file of one episode (default: EPISODE_DIR/report.html).",
)
def report(episode_dir: Path, out: Path | None) -> None:
    """Write a self-contained HTML report of each recorded episode.

    EPISODE_DIR is one episode or a folder of them (what `run --record` wrote); each report is
    written into its episode's folder."""
    from officegym.harness.recording import RecordingError
    from officegym.harness.report import write_report

    episodes = _episodes(episode_dir)
    if out is not None and len(episodes) > 1:
        raise click.ClickException(
            f"--out names one file, but {episode_dir} holds {len(episodes)} episodes"
        )
    for episode in episodes:
        try:
            path = write_report(episode, out)
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


def _chosen_templates(app: str | None, split: str | None, difficulty: tuple[int, ...]):
    from officegym.tasks.registry import templates

    return [
        t
        for t in templates()
        if (app is None or app in t.apps)
        and (split is None or t.split == split)
        and (not difficulty or t.difficulty in difficulty)
    ]


@main.command("tasks")
@click.option("--app", help="Only templates that use this app (chat, crm, ...).")
@click.option("--split", type=click.Choice(["train", "test"]), help="Only this split.")
@click.option(
    "--difficulty",
    type=click.IntRange(1, 5),
    multiple=True,
    help="Only this difficulty (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def tasks_command(app: str | None, split: str | None, difficulty, as_json: bool) -> None:
    """List the registered task templates with their metadata and counts."""
    import json
    from collections import Counter

    chosen = _chosen_templates(app, split, difficulty)
    if not chosen:
        wanted = ", ".join(
            part
            for part in (
                f"app {app}" if app else "",
                f"split {split}" if split else "",
                "difficulty " + "/".join(map(str, difficulty)) if difficulty else "",
            )
            if part
        )
        known = sorted({a for t in _chosen_templates(None, None, ()) for a in t.apps})
        raise click.ClickException(
            f"no templates match {wanted}; the apps with templates are {', '.join(known)}"
        )
    if as_json:
        rows = [
            {
                "id": t.id,
                "apps": list(t.apps),
                "difficulty": t.difficulty,
                "difficulty_reason": t.difficulty_reason,
                "split": t.split,
                "tags": list(t.tags),
                "max_steps": t.max_steps,
            }
            for t in chosen
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    header = ("template", "apps", "difficulty", "split", "tags", "steps", "why this difficulty")
    rows = [
        (
            t.id,
            ",".join(t.apps),
            str(t.difficulty),
            t.split,
            ",".join(t.tags),
            str(t.max_steps),
            t.difficulty_reason,
        )
        for t in chosen
    ]
    if not sys.stdout.isatty():
        # Piped: one line per template, tab-separated, nothing wrapped or cut.
        for row in (header, *rows):
            click.echo("\t".join(row))
    else:
        table = Table(Column(header[0], no_wrap=True), *header[1:])
        for row in rows:
            table.add_row(*row)
        console.print(table)
    splits = Counter(t.split for t in chosen)
    levels = Counter(t.difficulty for t in chosen)
    apps = Counter(a for t in chosen for a in t.apps)
    summary = (
        f"{len(chosen)} templates · "
        + " ".join(f"{k}={v}" for k, v in sorted(splits.items()))
        + " · difficulty "
        + " ".join(f"{k}:{v}" for k, v in sorted(levels.items()))
        + " · apps "
        + " ".join(f"{k}={v}" for k, v in sorted(apps.items()))
    )
    click.echo(summary, err=not sys.stdout.isatty())


# Short column titles of the gate's probes in `officegym check`'s table.
_PROBE_COLUMNS = {
    "oracle": "oracle",
    "null": "null",
    "random": "rand",
    "change-everything": "chg",
    "wrong-record": "wrong",
    "report-infeasible": "infs",
    "hedge": "hedge",
    "paraphrase": "para",
    "all-candidates": "cand",
    "spam": "spam",
    "decorate": "deco",
    "junk-columns": "junk",
}


@main.command("check")
@click.option(
    "--template", "template_ids", multiple=True, help="Template id (repeatable; default: all)."
)
@click.option("--app", help="Only templates that use this app.")
@click.option("--split", type=click.Choice(["train", "test"]), help="Only this split.")
@click.option(
    "--seeds",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Instance seeds per template (0 .. N-1).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 16),
    default=1,
    show_default=True,
    help="Templates at a time in each process (one browser, several contexts).",
)
@click.option(
    "--jobs",
    type=click.IntRange(1, 16),
    default=1,
    show_default=True,
    help="Processes, each with its own browser and server, taking templates in turn.",
)
@click.option(
    "--results",
    "results_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write each template's content-keyed entry to this folder (see gate_results).",
)
@click.option(
    "--cover-impossible/--no-cover-impossible",
    default=True,
    show_default=True,
    help="Also play each template's first impossible instance when the seeds hold none.",
)
@click.option(
    "--random-steps", type=click.IntRange(min=1), default=50, show_default=True, hidden=True
)
@click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write every probe's result to this JSON file.",
)
@_home_option
def check_command(
    template_ids,
    app,
    split,
    seeds,
    workers,
    jobs,
    results_dir,
    cover_impossible,
    random_steps,
    json_out,
    world_home,
) -> None:
    """Run the quality gate: per template and instance seed, the oracle must score 1 (twice,
    with the same diff), null and random agents 0, change-everything and wrong-record agents
    must fail, and so must the gamed endings made from the oracle's (report-infeasible,
    hedge, all-candidates, spam, decorate, junk-columns), while honest paraphrases of its
    answer pass. Exits 1 when any template fails."""
    import json

    from officegym.harness import gate_results
    from officegym.harness.gate import PROBES, run_gate_jobs
    from officegym.tasks.registry import UnknownTask, get

    try:
        ids = [get(t).id for t in template_ids] or [t.id for t in _chosen_templates(app, split, ())]
    except UnknownTask as error:
        raise click.ClickException(str(error)) from None
    if not ids:
        raise click.ClickException("no template matches the filters")
    console.print(
        f"gate: {len(ids)} templates × {seeds} seeds, {jobs} process(es) × {workers} worker(s)"
    )
    settings = gate_results.GateSettings(
        random_steps=random_steps, cover_impossible=cover_impossible
    )
    table = Table(
        Column("template", no_wrap=True),
        *("d", "split", "steps", *(_PROBE_COLUMNS[p] for p in PROBES), "inst", "top", "time", "ok"),
        caption="probes that behaved / probes run; steps = oracle steps; "
        + ", ".join(f"{short} = {p}" for p, short in _PROBE_COLUMNS.items() if short != p)
        + "; inst = distinct instances in seeds 0-99, top = share of the commonest answer",
    )

    def row(result) -> None:
        steps = result.oracle_steps
        shown = (
            f"{min(steps)}–{max(steps)}"
            if steps and min(steps) != max(steps)
            else (str(steps[0]) if steps else "-")
        )
        mark = "[green]pass" if result.passed else "[red]FAIL"
        table.add_row(
            result.template,
            str(result.difficulty),
            result.split,
            shown,
            *(result.summary(p) for p in PROBES),
            str(result.coverage.distinct_100) if result.coverage else "-",
            f"{result.coverage.top_share:.0%}"
            if result.coverage and result.coverage.answers
            else "-",
            f"{result.elapsed_s:.0f}s",
            mark,
        )
        if results_dir is not None:
            gate_results.record(results_dir, get(result.template), result, settings)
        console.print(
            f"{'pass' if result.passed else 'FAIL'} {result.template} ({result.elapsed_s:.0f} s)"
        )
        for problem in result.problems:
            console.print(f"  [red]{problem}")
        for probe in result.probes:
            if not probe.ok:
                console.print(f"  [red]{probe.agent} seed {probe.seed}:[/] {probe.detail}")

    results = run_gate_jobs(
        ids,
        seeds=tuple(range(seeds)),
        jobs=jobs,
        home=world_home,
        workers=workers,
        random_steps=random_steps,
        on_result=row,
        cover_impossible=cover_impossible,
    )
    # One column per probe: wider than a default terminal, so give it the room it needs.
    Console(width=max(console.width, 180)).print(table)
    failed = [r.template for r in results if not r.passed]
    total = sum(r.elapsed_s for r in results)
    console.print(
        f"{len(results) - len(failed)}/{len(results)} templates passed; "
        f"{total:.0f} s of gate time ({total / max(1, len(results)):.1f} s per template)"
    )
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps([r.to_json() for r in results], indent=2))
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
